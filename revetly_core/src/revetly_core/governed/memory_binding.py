"""The canonical-memory binding of proposals: one Revetly CONTEXT, one tenant, one egress class.

Canonical memory is the CONTEXT of a Revetly instance (its Engine). The application binds it
explicitly, with the tenant it serves and the egress class of whoever receives proposal
answers; nothing here derives the binding from model arguments. A scope belongs to the tenant
the owner assigned it (``local`` until then), and a scope of another tenant is refused even
with a valid credential.

A proposal's sources are snapshots of artifacts: id, the CONTEXT generation they were read
in (its corpus revision), the SHA-256 of their exact words, and the scope. Eligibility is
checked before the words are used: the artifact must exist, must not be withheld by the
CONTEXT, and, for ``remote`` egress, must not carry ``sensitivity: sensitive|restricted``.

Rechecks (an approval, an activation, every rule evaluation) are cached per CONTEXT revision:
the answer for a set of snapshots is kept while the corpus revision and last pass are the ones
it was computed under, and every cached answer is dropped when either moves (a pass that
changed a source always moves the revision).
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from revetly_core.governed.context_adapter import artifact_passage
from revetly_core.governed.scope import Scope, check_name
from revetly_core.governed.sources import passage_digest
from revetly_core.governed.vault import CONTROL, EvidenceService
from revetly_core.refusal import Refusal

if TYPE_CHECKING:
    from revetly_core.engine import Engine
    from revetly_core.governed.rule_predicates import MemorySourceRef

EgressClass = Literal["remote", "local"]
LOCAL_TENANT = "local"
WITHHELD_FOR_REMOTE = ("sensitive", "restricted")
"""Sensitivity marks a remote-egress binding never hands on."""
MAX_KEPT_WORDS = 3000
"""Characters of a source's words kept (encrypted) for the owner's review; 16 sources stay well
inside the vault's 256 KiB record bound. The digest always covers the whole text."""


def tenant_prefix(scope: Scope) -> str:
    """The control records naming the tenant an owner assigned a scope (the last one wins)."""
    return f"memory-tenant:{scope.key}#"


def scope_tenant(evidence: EvidenceService, scope: Scope) -> str:
    """The tenant a scope belongs to: the owner's latest assignment, else local."""
    records = evidence.records(CONTROL, tenant_prefix(scope))
    return LOCAL_TENANT if not records else str(records[-1][1]["tenant_id"])


def check_egress_class(value: str) -> EgressClass:
    """Egress class is remote (the default: sensitive sources withheld) or local."""
    if value == "remote":
        return "remote"
    if value == "local":
        return "local"
    raise Refusal("bad-egress-class", f"egress class {value!r} is neither remote nor local",
                  "use egress_class='remote' unless a trusted local-only application receives answers")


def withheld(artifact: dict[str, Any], egress_class: EgressClass) -> bool:
    """Whether an artifact's sensitivity keeps it from a binding of this egress class."""
    metadata = artifact.get("metadata")
    mark = str((metadata if isinstance(metadata, dict) else {}).get("sensitivity") or "")
    return egress_class == "remote" and mark.lower() in WITHHELD_FOR_REMOTE


@dataclass(frozen=True)
class SourceSnapshot:
    """What a proposal rests on: one artifact's words at one CONTEXT generation, in one scope."""

    artifact_id: str
    generation: int
    content_sha256: str
    scope: Scope
    words: str = field(default="", compare=False, repr=False)
    """The source's words (at most MAX_KEPT_WORDS characters), for the owner's review only."""

    def to_dict(self) -> dict[str, Any]:
        return {"kind": "memory", "artifact_id": self.artifact_id, "generation": self.generation,
                "content_sha256": self.content_sha256, "scope": self.scope.to_dict(),
                "words": self.words}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SourceSnapshot:
        return cls(str(data["artifact_id"]), int(data["generation"]), str(data["content_sha256"]),
                   Scope.from_dict(data["scope"]), str(data.get("words", "")))


def source_difference(proposed: SourceSnapshot, current: SourceSnapshot) -> str | None:
    """Why a source no longer supports a proposal, or None: other words, another scope, or an
    older CONTEXT generation than the one proposed from (a restored CONTEXT fails closed)."""
    if current.content_sha256 != proposed.content_sha256:
        return f"{proposed.artifact_id} has other words than when it was proposed"
    if current.scope != proposed.scope:
        return f"{proposed.artifact_id} is bound to another scope"
    if current.generation < proposed.generation:
        return f"the CONTEXT is at generation {current.generation}, older than {proposed.generation}"
    return None


Revision = tuple[int, str | None]
"""What a CONTEXT's sources are read at: its corpus revision and the id of its last pass."""
SnapshotKey = tuple[tuple[str, int, str, str], ...]
MAX_CACHED_RECHECKS = 1024


def snapshot_key(proposed: Iterable[SourceSnapshot]) -> SnapshotKey:
    """What a recheck's answer depends on besides the CONTEXT: each snapshot's id, generation,
    digest and scope (not the kept words, which the digest covers)."""
    return tuple((s.artifact_id, s.generation, s.content_sha256, s.scope.key) for s in proposed)


class RecheckCache:
    """Recheck answers valid at one CONTEXT revision; a new revision empties it (thread-safe)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._revision: Revision | None = None
        self._answers: dict[SnapshotKey, list[str]] = {}
        self.hits = 0
        self.misses = 0

    def get(self, revision: Revision, key: SnapshotKey) -> list[str] | None:
        """The kept answer for these snapshots at this revision, or None (counted as a miss)."""
        with self._lock:
            if revision != self._revision:
                self._revision, self._answers = revision, {}
            answer = self._answers.get(key)
            if answer is None:
                self.misses += 1
                return None
            self.hits += 1
            return list(answer)

    def put(self, revision: Revision, key: SnapshotKey, problems: list[str]) -> None:
        """Keep an answer computed at this revision (bounded: a full cache starts over)."""
        with self._lock:
            if revision != self._revision:
                return
            if len(self._answers) >= MAX_CACHED_RECHECKS:
                self._answers = {}
            self._answers[key] = list(problems)

    def info(self) -> dict[str, Any]:
        """Hits, misses, entries and the revision the entries are valid at."""
        with self._lock:
            return {"hits": self.hits, "misses": self.misses, "entries": len(self._answers),
                    "revision": None if self._revision is None else list(self._revision)}


class MemoryBinding:
    """One canonical memory (an Engine) bound to one tenant and one egress class."""

    def __init__(self, evidence: EvidenceService, memory: Engine, *, memory_tenant_id: str = LOCAL_TENANT,
                 egress_class: str = "remote") -> None:
        self.evidence = evidence
        self.memory = memory
        self.tenant_id = check_name(memory_tenant_id, "workspace") if memory_tenant_id else LOCAL_TENANT
        self.egress_class = check_egress_class(egress_class)
        self.rechecks = RecheckCache()

    def require_tenant(self, scope: Scope) -> None:
        """A scope of another tenant is refused, whatever its credential."""
        tenant = scope_tenant(self.evidence, scope)
        if tenant != self.tenant_id:
            raise Refusal("memory-tenant-mismatch",
                          f"scope {scope.key} belongs to tenant {tenant!r}, "
                          f"this memory to {self.tenant_id!r}",
                          "bind each tenant's scopes to that tenant's own canonical memory")

    def generation(self) -> int:
        """The CONTEXT's current generation: its corpus revision number."""
        return self.revision()[0]

    def revision(self) -> Revision:
        """The CONTEXT's corpus revision and the id of its last pass (None before any)."""
        revision, last_pass = self.memory.corpus_revision()
        return revision, None if last_pass is None else str(last_pass)

    def snapshot(self, scope: Scope, ref: MemorySourceRef | str, generation: int | None = None
                 ) -> SourceSnapshot:
        """The current snapshot of one artifact, after the eligibility checks."""
        artifact_id = ref if isinstance(ref, str) else ref.artifact_id
        try:
            artifact = dict(self.memory.get_artifact(artifact_id, history_after=""))
        except Refusal:
            raise Refusal("no-memory-source", f"{artifact_id} is not in the bound canonical memory",
                          "cite artifacts the CONTEXT holds now") from None
        if artifact.get("withheld") or withheld(artifact, self.egress_class):
            raise Refusal("source-withheld",
                          f"{artifact_id} is withheld, or marked sensitive for a remote binding",
                          "cite another source; only a trusted local-only application uses "
                          "egress_class='local'")
        words = artifact_passage(artifact)
        return SourceSnapshot(str(artifact["artifact_id"]),
                              self.generation() if generation is None else generation,
                              passage_digest(words), scope, words[:MAX_KEPT_WORDS])

    def snapshots(self, scope: Scope, refs: Iterable[MemorySourceRef | str]) -> list[SourceSnapshot]:
        """Snapshots of every cited source, one generation for all, duplicates folded."""
        generation = self.generation()
        ids = list(dict.fromkeys(r if isinstance(r, str) else r.artifact_id for r in refs))
        return [self.snapshot(scope, artifact_id, generation) for artifact_id in ids]

    def recheck(self, proposed: Iterable[SourceSnapshot]) -> list[str]:
        """Every way the proposed sources differ from canonical memory now (empty: unchanged);
        answered from the cache while the CONTEXT's revision is the one it was computed at."""
        snaps = list(proposed)
        revision = self.revision()
        key = snapshot_key(snaps)
        cached = self.rechecks.get(revision, key)
        if cached is not None:
            return cached
        problems = self._recheck(snaps, revision[0])
        self.rechecks.put(revision, key, problems)
        return problems

    def _recheck(self, proposed: list[SourceSnapshot], generation: int) -> list[str]:
        problems: list[str] = []
        for snap in proposed:
            try:
                current = self.snapshot(snap.scope, snap.artifact_id, generation)
            except Refusal as refusal:
                problems.append(refusal.detail)
                continue
            difference = source_difference(snap, current)
            if difference is not None:
                problems.append(difference)
        return problems
