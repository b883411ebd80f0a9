"""Restore detection: the Home's content-free machine binding, its adoption and the feedback gate.

A home carries ``machine-binding``: an HMAC of the machine's identity (``/etc/machine-id``;
the identity itself is never stored), the adoption generation and the adoption event id,
authenticated with a key derived from the vault's checkpoint identity. The owner's supported
preflight/adoption workflow is:

1. ``preflight``: read-only, says whether the binding is this machine's, another machine's,
   missing or corrupt, and which adoption the scopes still have to reconcile;
2. ``adopt --adoption-id ID --confirm ID``: binds the home to this machine under a new
   generation and that event id (recorded in the vault first, then in the binding file, so a
   retry after a crash finishes it);
3. ``reconcile-restore --restore-id ID --confirm ID`` for each scope.

Until a scope has reconciled the current adoption, feedback that appends evidence in it
(report, propose, execute, verify, search) is refused, in every process and after a restart,
since the state is in files. A binding that is missing, corrupt, of another machine, or behind
or ahead of the vault's adoption records fails closed. Reading retained evidence (outcome,
inspect, quality) and the engine's own recall are unchanged.

Outside detection: a copy of a home onto the *same* machine, or a canonical database restored
directly, keeps a valid binding; the operator reconciles it explicitly with a restore event id.
Nothing here is rollback-proof against a whole old Home restored with its binding; that would
take an external monotonic witness.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import json
import weakref
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from revetly_core.governed.home import read_private_file, replace_private_file
from revetly_core.governed.scope import Scope
from revetly_core.governed.vault import CONTROL, EvidenceService
from revetly_core.refusal import Refusal
from revetly_core.writes.crash import crash_point

BINDING_FORMAT = 1
MACHINE_ID_FILES = (Path("/etc/machine-id"), Path("/var/lib/dbus/machine-id"))
MAX_MACHINE_ID = 1024
MAX_BINDING_BYTES = 4096
GATED_OPERATIONS = frozenset({"execute", "propose", "report", "search", "verify"})
"""Governed operations that append evidence; they wait for reconciliation after an adoption."""
ADOPTION_PREFIX = "adoption:"
RECONCILED_PREFIX = "restore-reconciled:"


@functools.lru_cache(maxsize=8)
def machine_identity(paths: tuple[Path, ...] = MACHINE_ID_FILES) -> bytes:
    """This machine's identity: the first non-empty machine-id file (read bounded), or a refusal.
    Read once per process (a machine keeps its id while a process runs)."""
    for path in paths:
        try:
            with path.open("rb") as handle:
                value = handle.read(MAX_MACHINE_ID).strip()
        except OSError:
            continue
        if value:
            return value
    raise Refusal("no_machine_identity", "this machine has no machine id (/etc/machine-id)",
                  "create one (systemd-machine-id-setup) before using feedback on this machine")


def binding_key(evidence: EvidenceService) -> bytes:
    """The key that names machines and authenticates the binding (stable across key rotations)."""
    return evidence.derived_key(b"machine-binding")


@dataclass
class _Opened:
    """What one process already derived for one vault: its binding key, this machine's name in
    it, and the last binding bytes it authenticated (re-read on every call, re-checked on change)."""

    key: bytes
    here: str
    raw: bytes = b""
    body: dict[str, Any] | None = None


_OPENED: weakref.WeakKeyDictionary[EvidenceService, _Opened] = weakref.WeakKeyDictionary()


def _opened(evidence: EvidenceService) -> _Opened:
    known = _OPENED.get(evidence)
    if known is None:
        key = binding_key(evidence)
        known = _OPENED[evidence] = _Opened(key, machine_digest(key, machine_identity()))
    return known


def machine_digest(key: bytes, identity: bytes) -> str:
    """The content-free name of a machine in one home: an HMAC of its identity."""
    return hmac.new(key, b"machine\x00" + identity, hashlib.sha256).hexdigest()


def seal_binding(key: bytes, body: dict[str, Any]) -> bytes:
    """The binding file: its body and the HMAC over the body's canonical JSON."""
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":")).encode()
    return json.dumps({"binding": body, "mac": hmac.new(key, canonical, hashlib.sha256).hexdigest()},
                      sort_keys=True).encode()


def open_binding(key: bytes, data: bytes) -> dict[str, Any]:
    """The body of a binding file whose HMAC holds; anything else is home_binding_corrupt."""
    try:
        wrapper = json.loads(data)
        body, mac = wrapper["binding"], wrapper["mac"]
        canonical = json.dumps(body, sort_keys=True, separators=(",", ":")).encode()
        valid = isinstance(mac, str) and hmac.compare_digest(
            mac, hmac.new(key, canonical, hashlib.sha256).hexdigest())
        if valid and body.get("format") == BINDING_FORMAT and isinstance(body.get("generation"), int) \
                and isinstance(body.get("machine"), str):
            return dict(body)
    except (ValueError, TypeError, KeyError, AttributeError):
        pass
    raise Refusal("home_binding_corrupt", "the home's machine binding does not authenticate",
                  "restore the complete home from its backup, or adopt it again (`revetly rag owner adopt`)")


def write_binding(evidence: EvidenceService, generation: int, adoption_id: str | None,
                  identity: bytes | None = None) -> dict[str, Any]:
    """Bind the home to this machine under an adoption generation (an atomic 0600 write)."""
    key = binding_key(evidence)
    body = {"format": BINDING_FORMAT, "machine": machine_digest(key, identity or machine_identity()),
            "generation": generation, "adoption_id": adoption_id}
    replace_private_file(evidence.home.binding_path, seal_binding(key, body))
    return body


def bind_new_home(evidence: EvidenceService) -> dict[str, Any]:
    """A new home is bound to the machine that created it: generation 0, no adoption."""
    return write_binding(evidence, 0, None)


def read_binding(evidence: EvidenceService) -> dict[str, Any]:
    """The home's authenticated binding; missing is home_not_adopted, corrupt home_binding_corrupt."""
    path = evidence.home.binding_path
    if not path.exists():
        raise Refusal("home_not_adopted", "the home has no machine binding (an older or copied home)",
                      "adopt it on this machine (`revetly rag owner adopt`), then reconcile its scopes")
    raw = read_private_file(path, "machine binding", limit=MAX_BINDING_BYTES)
    known = _opened(evidence)
    if known.body is None or raw != known.raw:
        known.body, known.raw = open_binding(known.key, raw), raw
    return dict(known.body)


def adoptions(evidence: EvidenceService) -> list[dict[str, Any]]:
    """The vault's adoption records, oldest first."""
    return [r for _, r in evidence.records(CONTROL, ADOPTION_PREFIX)]


def binding_problem(binding: dict[str, Any], here: str,
                    recorded: list[dict[str, Any]]) -> tuple[str, str] | None:
    """Why the binding does not hold on this machine, as (state, detail), or None: another
    machine's (other_machine), or not the generation and event of the vault's latest adoption
    record (stale)."""
    if not hmac.compare_digest(str(binding["machine"]), here):
        return "other_machine", "the home is bound to another machine (it was moved or restored there)"
    latest = recorded[-1] if recorded else {"generation": 0, "adoption_id": None}
    if binding["generation"] != latest["generation"] or binding.get("adoption_id") != latest["adoption_id"]:
        return "stale", (f"the binding is at adoption generation {binding['generation']}, the vault at "
                         f"{latest['generation']} (an adoption cut short, or a binding or database "
                         "from another time)")
    return None


def binding_status(evidence: EvidenceService) -> dict[str, Any]:
    """Content-free state of the binding: current, other_machine, stale, missing or corrupt."""
    try:
        binding = read_binding(evidence)
    except Refusal as refusal:
        state = "missing" if refusal.code == "home_not_adopted" else "corrupt"
        return {"state": state, "generation": None, "adoption_id": None, "detail": refusal.detail}
    state, detail = binding_problem(binding, _opened(evidence).here, adoptions(evidence)) or (
        "current", "the home is bound to this machine")
    return {"state": state, "generation": binding["generation"], "adoption_id": binding.get("adoption_id"),
            "detail": detail}


def reconciled_for(evidence: EvidenceService, scope: Scope, adoption_id: str, generation: int) -> bool:
    """Whether the scope reconciled exactly this adoption (its event id and generation)."""
    record = evidence.get(CONTROL, f"{RECONCILED_PREFIX}{scope.key}:{adoption_id}")
    return record is not None and record.get("adoption_generation") == generation


def require_feedback_allowed(evidence: EvidenceService, scope: Scope, operation: str) -> None:
    """Evidence-appending feedback needs a binding that holds on this machine and, after an
    adoption, the scope's reconciliation of that adoption; reading is never gated."""
    if operation not in GATED_OPERATIONS:
        return
    binding = read_binding(evidence)
    problem = binding_problem(binding, _opened(evidence).here, adoptions(evidence))
    if problem is not None:
        raise Refusal("home_not_adopted", problem[1],
                      "run `revetly rag owner adopt-preflight`, then `owner adopt`, then "
                      "`owner reconcile-restore` for each scope")
    adoption_id = binding.get("adoption_id")
    if adoption_id is not None and not reconciled_for(evidence, scope, adoption_id, binding["generation"]):
        raise Refusal("restore_reconciliation_required",
                      f"scope {scope.key} has not reconciled adoption {adoption_id} of this home",
                      f"the owner runs `revetly rag owner reconcile-restore --restore-id {adoption_id} "
                      f"--confirm {adoption_id}` for it", {"adoption_id": adoption_id})


def id_used(evidence: EvidenceService, event_id: str) -> bool:
    """Whether an event id already names an adoption or a reconciliation of any scope."""
    if any(r["adoption_id"] == event_id for r in adoptions(evidence)):
        return True
    return any(rid.endswith(f":{event_id}") for rid, _ in evidence.records(CONTROL, RECONCILED_PREFIX))


def preflight(evidence: EvidenceService, owner_token: str) -> dict[str, Any]:
    """Owner only, read-only: the binding's state and the scopes still to reconcile."""
    evidence.principals.require_owner(owner_token)
    status = binding_status(evidence)
    scopes = {Scope.from_dict(g["scope"]) for g in evidence.principals.grants(owner_token)}
    pending: list[str] = []
    if status["state"] == "current" and status["adoption_id"] is not None:
        pending = sorted(s.key for s in scopes
                         if not reconciled_for(evidence, s, status["adoption_id"], status["generation"]))
    return {**status, "scopes_to_reconcile": pending,
            "next": "nothing to do" if status["state"] == "current" and not pending else
            "adopt the home on this machine with a new event id" if status["state"] != "current" else
            "reconcile-restore each scope listed with the adoption id"}


def adopt(evidence: EvidenceService, owner_token: str, adoption_id: str, *, confirm: str) -> dict[str, Any]:
    """Owner only: bind the home to this machine under a new adoption generation and event id.
    The same id finishes or returns its adoption; an id used before for anything is refused."""
    from revetly_core.governed.restore import check_restore_confirmation

    evidence.principals.require_owner(owner_token)
    check_restore_confirmation(adoption_id, confirm)
    recorded = adoptions(evidence)
    mine = next((r for r in recorded if r["adoption_id"] == adoption_id), None)
    if mine is None:
        if id_used(evidence, adoption_id):
            raise Refusal("adoption_id_used", f"{adoption_id} already names a restore reconciliation",
                          "use a new event id for a new adoption")
        before = binding_status(evidence)
        generation = (recorded[-1]["generation"] if recorded else 0) + 1
        mine = {"adoption_id": adoption_id, "generation": generation, "found": before["state"],
                "at": evidence.clock().isoformat()}
        evidence.append(CONTROL, f"{ADOPTION_PREFIX}{generation:08d}", mine)
    elif mine is not recorded[-1]:
        raise Refusal("adoption_id_used", f"{adoption_id} is an older adoption of this home",
                      "use a new event id for a new adoption")
    crash_point("adoption-recorded")
    write_binding(evidence, mine["generation"], adoption_id)
    return {**mine, "binding": "current",
            "next": "reconcile-restore each scope with this adoption id before feedback resumes"}
