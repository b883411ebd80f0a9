"""Proposals and the rule lifecycle over files and an explicit memory binding (what the CLI runs).

Every workflow names its canonical memory explicitly (the instance folder of a Revetly CONTEXT)
with the tenant and egress class it is bound to; nothing opens a default store. Credentials are
read from their private files; candidates are JSON files of at most 256 KiB. The CLI has only
the built-in diagnostic qualifier, so it can qualify but never accept: an accepted
qualification comes from the application's own trusted qualifier, through the Python API.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from revetly_core.governed.lifecycle import RuleLifecycle
from revetly_core.governed.local import load_json_file, open_local, owner_services
from revetly_core.governed.owner import expiry_after_days
from revetly_core.governed.proposals import ProposalService
from revetly_core.governed.qualification import DiagnosticQualifier
from revetly_core.governed.scope import Scope
from revetly_core.refusal import Refusal


@dataclass(frozen=True)
class MemoryOptions:
    """The explicit canonical-memory binding a command names: instance, tenant, egress class."""

    instance: Path | str | None
    tenant_id: str = "local"
    egress_class: str = "remote"


def bound_proposals(feedback: Any, memory: MemoryOptions) -> ProposalService:
    """A ProposalService over the named instance; no binding named is the memory-not-bound refusal."""
    if memory.instance is None:
        raise Refusal("memory-not-bound", "proposals need an explicit canonical-memory binding",
                      "name the Revetly instance with --memory (and --memory-tenant if it is not local)")
    from revetly_core.engine import Engine

    return ProposalService(feedback, Engine.open(memory.instance), memory_tenant_id=memory.tenant_id,
                           egress_class=memory.egress_class)


def propose_file(root: Path | str, vault_id: str, credential_file: Path | str, scope: Scope,
                 memory: MemoryOptions, kind: Literal["rule", "profile"], candidate_file: Path | str,
                 key: str) -> dict[str, Any]:
    """Propose the candidate in a file as the application credential's principal, in its scope."""
    candidate = load_json_file(candidate_file)
    if not isinstance(candidate, dict):
        raise Refusal("bad-candidate", f"{candidate_file} does not hold a JSON object",
                      "put one candidate object in the file")
    local = open_local(root, vault_id, credential_file, scope.agent, scope.workspace)
    try:
        proposals = bound_proposals(local.feedback, memory)
        if kind == "rule":
            return proposals.propose_rule(local.session, candidate, key)
        return proposals.propose_profile(local.session, candidate, key)
    finally:
        local.close()


@contextmanager
def owner_lifecycle(root: Path | str, vault_id: str, owner_credential_file: Path | str,
                    memory: MemoryOptions) -> Iterator[tuple[str, RuleLifecycle]]:
    """The owner credential and a lifecycle over the home and the bound memory, closed after."""
    with owner_services(root, vault_id, owner_credential_file) as (owner, (_, feedback, _, _)):
        yield owner, RuleLifecycle(bound_proposals(feedback, memory))


OwnerCall = Callable[[str, RuleLifecycle], dict[str, Any]]


def run_owner(root: Path | str, vault_id: str, owner_credential_file: Path | str, memory: MemoryOptions,
              call: OwnerCall) -> dict[str, Any]:
    """Run one owner call with the credential and the lifecycle."""
    with owner_lifecycle(root, vault_id, owner_credential_file, memory) as (owner, lifecycle):
        return call(owner, lifecycle)


def review_call(scope: Scope, proposal_id: str, decision: str, reviewer: str,
                reason: str | None) -> OwnerCall:
    """The owner's review of one proposal (approve rechecks the sources under lock)."""
    if decision not in ("approve", "reject"):
        raise Refusal("bad-argument", f"decision {decision!r} is neither approve nor reject",
                      "pass --decision approve or --decision reject", {"field": "decision"})
    return lambda owner, lc: lc.proposals.review(owner, scope, proposal_id, decision,  # type: ignore[arg-type]
                                                 reviewer=reviewer, reason=reason)


def qualify_call(scope: Scope, proposal_id: str, key: str, days: float) -> OwnerCall:
    """A diagnostic qualification attempt (always inconclusive), charged before it runs."""
    def call(owner: str, lc: RuleLifecycle) -> dict[str, Any]:
        expires = expiry_after_days(days, lc.evidence.clock())
        return lc.qualify(owner, scope, proposal_id, DiagnosticQualifier(), idempotency_key=key,
                          expires_at=expires)
    return call


def history_call(scope: Scope, rule_id: str) -> OwnerCall:
    """Every activation receipt of a rule or profile."""
    def call(owner: str, lc: RuleLifecycle) -> dict[str, Any]:
        lc.evidence.principals.require_owner(owner)
        history = lc.history(scope, rule_id)
        return {"rule_id": rule_id, "scope": scope.to_dict(), "generations": history,
                "current": history[-1] if history else None}
    return call
