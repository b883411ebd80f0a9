"""The approver's floor: who may never approve a draft, whatever the transport."""

from __future__ import annotations

from collections.abc import Mapping

from revetly_core.refusal import Refusal
from revetly_core.writes.principal import ENV_REVIEWER, Principal, is_service_identity


def _floor(detail: str, fix: str, rule: str) -> Refusal:
    return Refusal("approver-floor", detail, fix, {"rule": rule, "review_left": "pending"})


def refuse_service_identity(approver: Principal, env: Mapping[str, str] | None = None) -> None:
    """An approval signed by the engine's own identity (baked-in git config, sentinel) is refused."""
    if is_service_identity(approver, env):
        raise _floor(
            f"this approval would be signed by the engine's own service identity "
            f"({approver.name!r}, from {approver.source}), which approves nothing",
            f"set {ENV_REVIEWER} to the name of the person answering, then approve again",
            "service-identity",
        )


def refuse_machine(approver: Principal) -> None:
    """A machine actor never approves."""
    if approver.kind == "machine":
        raise _floor(
            f"{approver.name!r} is a machine actor, and a machine never approves a draft",
            f"have a person approve it (at a terminal: {ENV_REVIEWER}=<your name> "
            "revetly review approve ID)",
            "machine-actor",
        )


def refuse_self_asserted_when_served(approver: Principal, served: bool) -> None:
    """On a served endpoint a name the caller asserted (not a verified token) never approves."""
    if served and not approver.verified:
        raise _floor(
            f"{approver.name!r} is self-asserted ({approver.source}); on a served endpoint only "
            "a verified principal approves",
            "approve with a token the instance's issuer signed, or at a terminal on the instance",
            "self-asserted",
        )


def refuse_self_approval(approver: Principal, drafted_by: Principal, may_draft: bool) -> None:
    """A verified principal does not approve its own draft unless [auth] approver_may_draft."""
    if may_draft or not approver.verified:
        return
    same = approver.name == drafted_by.name and approver.source == drafted_by.source
    if same:
        raise _floor(
            f"{approver.name!r} raised this draft and may not approve it too",
            "have another person approve it, or declare [auth] approver_may_draft = true",
            "self-approval",
        )


def check_approver(
    approver: Principal, drafted_by: Principal, *, served: bool, may_draft: bool,
    env: Mapping[str, str] | None = None,
) -> None:
    """Every floor rule in turn; the first that applies refuses and the review stays pending."""
    refuse_service_identity(approver, env)
    refuse_machine(approver)
    refuse_self_asserted_when_served(approver, served)
    refuse_self_approval(approver, drafted_by, may_draft)
