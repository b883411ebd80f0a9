"""Restore detection: the Home's content-free machine binding, adoption and the feedback gate.

In-process cases check each rule; the restart case runs the real `revetly` CLI in separate
processes (adopt, then report, reconcile, report again), since the gate must hold across them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from revetly_core.governed.adoption import (
    GATED_OPERATIONS,
    adopt,
    binding_key,
    binding_problem,
    binding_status,
    machine_digest,
    machine_identity,
    open_binding,
    preflight,
    read_binding,
    require_feedback_allowed,
    seal_binding,
    write_binding,
)
from revetly_core.governed.restore import reconcile_after_restore
from revetly_core.writes.crash import CRASH_EXIT, ENV_CRASH_AT

from revetly_core import EvidenceService, RagQuery, Refusal
from tests.core.governed.governed_world import World

REPORT = {"run_id": "run-1", "task_id": "task-1", "status": "succeeded"}


def regrant(world: World) -> None:
    """What the owner does after reconciling: grant the application again, deliberately."""
    world.evidence.principals.grant(world.owner, world.principal_id, ["read", "report", "search"],
                                    world.scope, world.clock() + timedelta(hours=1))


def refusal_code(call: Any) -> str:
    with pytest.raises(Refusal) as refused:
        call()
    return refused.value.code


# ---- the rules, one test each ----

def test_machine_identity_is_the_first_non_empty_machine_id_file(tmp_path: Path) -> None:
    empty, real = tmp_path / "empty", tmp_path / "real"
    empty.write_text("\n")
    real.write_text("0123abcd\n")
    assert machine_identity((tmp_path / "absent", empty, real)) == b"0123abcd"
    with pytest.raises(Refusal) as none:
        machine_identity((tmp_path / "absent", empty))
    assert none.value.code == "no_machine_identity"


def test_a_machine_is_named_by_an_hmac_never_by_its_identity() -> None:
    digest = machine_digest(b"k" * 32, b"0123abcd")
    assert "0123abcd" not in digest and len(digest) == 64
    assert digest != machine_digest(b"j" * 32, b"0123abcd")


def test_a_binding_opens_only_with_its_key_and_unchanged() -> None:
    body = {"format": 1, "machine": "m", "generation": 2, "adoption_id": "adopt-1"}
    sealed = seal_binding(b"k" * 32, body)
    assert open_binding(b"k" * 32, sealed) == body
    altered = sealed.replace(b'"generation": 2', b'"generation": 3')
    for data, key in ((sealed, b"j" * 32), (altered, b"k" * 32), (b"not json", b"k" * 32),
                      (b"[]", b"k" * 32)):
        with pytest.raises(Refusal) as refused:
            open_binding(key, data)
        assert refused.value.code == "home_binding_corrupt"


def test_a_binding_holds_only_for_this_machine_at_the_latest_adoption() -> None:
    binding = {"machine": "here", "generation": 1, "adoption_id": "a1"}
    recorded = [{"generation": 1, "adoption_id": "a1"}]
    assert binding_problem(binding, "here", recorded) is None
    assert (binding_problem(binding, "there", recorded) or ("",))[0] == "other_machine"
    newer = [*recorded, {"generation": 2, "adoption_id": "a2"}]
    assert (binding_problem(binding, "here", newer) or ("",))[0] == "stale"
    assert (binding_problem(binding, "here", []) or ("",))[0] == "stale"  # a binding ahead of the vault
    assert binding_problem({"machine": "here", "generation": 0, "adoption_id": None}, "here", []) is None


def test_only_evidence_appending_operations_are_gated() -> None:
    assert {"execute", "propose", "report", "search", "verify"} == GATED_OPERATIONS


# ---- the gate over a real vault ----

def test_a_new_home_is_bound_to_this_machine_and_feedback_runs(world: World) -> None:
    assert binding_status(world.evidence)["state"] == "current"
    assert world.feedback.report_outcome(world.session, REPORT, "k-1")["verification"] == "unverified"
    raw = world.evidence.home.binding_path.read_bytes()
    assert machine_identity() not in raw  # content-free
    assert oct(world.evidence.home.binding_path.stat().st_mode & 0o777) == "0o600"


def test_a_home_moved_to_another_machine_refuses_feedback_but_not_reading(world: World) -> None:
    outcome_id = world.feedback.report_outcome(world.session, REPORT, "k-1")["outcome_id"]
    write_binding(world.evidence, 0, None, identity=b"another-machine-id")  # as the copy arrives here
    assert binding_status(world.evidence)["state"] == "other_machine"
    report = lambda: world.feedback.report_outcome(world.session, REPORT, "k-2")  # noqa: E731
    assert refusal_code(report) == "home_not_adopted"
    search = lambda: world.rag.search(world.session, RagQuery("law", "filing"), idempotency_key="s")  # noqa: E731
    assert refusal_code(search) == "home_not_adopted"
    kept = world.feedback.outcome(world.session, outcome_id)  # inspection is unchanged
    assert kept["outcome_id"] == outcome_id


@pytest.mark.parametrize("damage", ["missing", "corrupt"])
def test_missing_or_corrupt_binding_state_fails_closed(world: World, damage: str) -> None:
    path = world.evidence.home.binding_path
    if damage == "missing":
        path.unlink()
    else:
        path.write_bytes(path.read_bytes().replace(b'"generation": 0', b'"generation": 9'))
    expected = "home_not_adopted" if damage == "missing" else "home_binding_corrupt"
    assert refusal_code(lambda: world.feedback.report_outcome(world.session, REPORT, "k")) == expected
    assert binding_status(world.evidence)["state"] == damage


def test_after_adoption_feedback_waits_for_the_scopes_reconciliation(world: World) -> None:
    write_binding(world.evidence, 0, None, identity=b"another-machine-id")
    done = adopt(world.evidence, world.owner, "adopt-1", confirm="adopt-1")
    assert done["generation"] == 1 and done["found"] == "other_machine"
    assert preflight(world.evidence, world.owner)["scopes_to_reconcile"] == [world.scope.key]
    refused = refusal_code(lambda: world.feedback.report_outcome(world.session, REPORT, "k"))
    assert refused == "restore_reconciliation_required"
    reconcile_after_restore(world.rag, world.owner, world.scope, "adopt-1", confirm="adopt-1")
    assert preflight(world.evidence, world.owner)["scopes_to_reconcile"] == []
    regrant(world)
    assert world.feedback.report_outcome(world.session, REPORT, "k")["outcome_id"]


def test_an_old_reconciliation_id_cannot_clear_a_newer_adoption(world: World) -> None:
    adopt(world.evidence, world.owner, "adopt-1", confirm="adopt-1")
    reconcile_after_restore(world.rag, world.owner, world.scope, "adopt-1", confirm="adopt-1")
    adopt(world.evidence, world.owner, "adopt-2", confirm="adopt-2")
    regrant(world)
    again = reconcile_after_restore(world.rag, world.owner, world.scope, "adopt-1", confirm="adopt-1")
    assert again["replayed"] is True
    assert refusal_code(lambda: require_feedback_allowed(world.evidence, world.scope, "report")) == \
        "restore_reconciliation_required"
    other = reconcile_after_restore(world.rag, world.owner, world.scope, "manual-1", confirm="manual-1")
    assert other["adoption_generation"] is None  # a restore event the operator names clears nothing
    assert refusal_code(lambda: require_feedback_allowed(world.evidence, world.scope, "report")) == \
        "restore_reconciliation_required"
    reconcile_after_restore(world.rag, world.owner, world.scope, "adopt-2", confirm="adopt-2")
    require_feedback_allowed(world.evidence, world.scope, "report")


def test_adoption_ids_are_idempotent_and_never_reused(world: World) -> None:
    first = adopt(world.evidence, world.owner, "adopt-1", confirm="adopt-1")
    again = adopt(world.evidence, world.owner, "adopt-1", confirm="adopt-1")
    assert again["generation"] == first["generation"] == 1
    reconcile_after_restore(world.rag, world.owner, world.scope, "manual-1", confirm="manual-1")
    assert refusal_code(lambda: adopt(world.evidence, world.owner, "manual-1", confirm="manual-1")) == \
        "adoption_id_used"
    adopt(world.evidence, world.owner, "adopt-2", confirm="adopt-2")
    assert refusal_code(lambda: adopt(world.evidence, world.owner, "adopt-1", confirm="adopt-1")) == \
        "adoption_id_used"
    assert refusal_code(lambda: adopt(world.evidence, world.owner, "adopt-3", confirm="adopt-4")) == \
        "preview_mismatch"
    stranger = lambda: adopt(world.evidence, "rvo_wrong", "adopt-3", confirm="adopt-3")  # noqa: E731
    assert refusal_code(stranger) == "not_owner"


def test_an_adoption_recorded_but_not_bound_fails_closed_until_repeated(world: World) -> None:
    adopt(world.evidence, world.owner, "adopt-1", confirm="adopt-1")
    write_binding(world.evidence, 0, None)  # as if the binding write had not happened
    assert binding_status(world.evidence)["state"] == "stale"
    assert refusal_code(lambda: require_feedback_allowed(world.evidence, world.scope, "report")) == \
        "home_not_adopted"
    adopt(world.evidence, world.owner, "adopt-1", confirm="adopt-1")
    assert read_binding(world.evidence)["generation"] == 1
    assert binding_key(world.evidence) == binding_key(world.evidence)


# ---- across processes: the real CLI ----

def cli(work: Path, credential: str, *args: str, code: int = 0,
        crash_at: str | None = None) -> dict[str, Any]:
    env = {k: v for k, v in os.environ.items() if k != ENV_CRASH_AT}
    if crash_at:
        env[ENV_CRASH_AT] = crash_at
    done = subprocess.run([sys.executable, "-m", "revetly_cli", "rag", "--root", str(work / "homes"),
                           "--vault-id", "v1", "--agent", "writer", "--workspace", "project",
                           "--credential-file", str(work / credential), *args],
                          capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == code, done.stdout + done.stderr
    return {} if code == CRASH_EXIT else dict(json.loads(done.stdout))


def test_the_gate_holds_across_process_restarts_until_reconciliation(tmp_path: Path) -> None:
    cli(tmp_path, "owner.token", "owner", "init")
    cli(tmp_path, "owner.token", "owner", "grant", "--app-credential-file", str(tmp_path / "app.token"),
        "--operations", "report,read", "--days", "1")
    (tmp_path / "outcome.json").write_text(json.dumps(REPORT))
    cli(tmp_path, "app.token", "report", "--file", str(tmp_path / "outcome.json"), "--key", "k-1")
    preflight_before = cli(tmp_path, "owner.token", "owner", "adopt-preflight")
    assert preflight_before["state"] == "current" and preflight_before["adoption_id"] is None
    evidence = EvidenceService.open(tmp_path / "homes", "v1")
    try:  # the home as it arrives from another machine: its binding names that machine
        write_binding(evidence, 0, None, identity=b"the-machine-it-came-from")
    finally:
        evidence.close()
    moved = cli(tmp_path, "app.token", "report", "--file", str(tmp_path / "outcome.json"), "--key", "k-2",
                code=2)
    assert moved["refusal"]["code"] == "home_not_adopted"
    assert cli(tmp_path, "owner.token", "owner", "adopt-preflight")["state"] == "other_machine"
    cli(tmp_path, "owner.token", "owner", "adopt", "--adoption-id", "adopt-1", "--confirm", "adopt-1",
        code=CRASH_EXIT, crash_at="adoption-recorded")  # killed between the vault record and the binding
    stale = cli(tmp_path, "app.token", "report", "--file", str(tmp_path / "outcome.json"), "--key", "k-2",
                code=2)
    assert stale["refusal"]["code"] == "home_not_adopted"
    cli(tmp_path, "owner.token", "owner", "adopt", "--adoption-id", "adopt-1", "--confirm", "adopt-1")
    for key in ("k-2", "k-3"):  # two fresh processes, both refused
        refused = cli(tmp_path, "app.token", "report", "--file", str(tmp_path / "outcome.json"),
                      "--key", key, code=2)
        assert refused["refusal"]["code"] == "restore_reconciliation_required"
    pending = cli(tmp_path, "owner.token", "owner", "adopt-preflight")["scopes_to_reconcile"]
    assert pending == ["project/writer"]
    cli(tmp_path, "owner.token", "owner", "reconcile-restore", "--restore-id", "adopt-1",
        "--confirm", "adopt-1")
    cli(tmp_path, "owner.token", "owner", "grant", "--app-credential-file", str(tmp_path / "app.token"),
        "--operations", "report,read", "--days", "1")
    done = cli(tmp_path, "app.token", "report", "--file", str(tmp_path / "outcome.json"), "--key", "k-2")
    assert done["verification"] == "unverified"
