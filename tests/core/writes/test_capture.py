"""Capture handles: landed, pending, pending_elsewhere, failed and unknown."""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
import sys
import time

import pytest
from revetly_core.writes.capture import CaptureLedger, handle_for, still_starting

from revetly_core import Refusal
from tests.core.gitrepo import Instance
from tests.core.writes.write_engine import engine


def _wait_settled(e: object, handle: str) -> dict:  # type: ignore[type-arg]
    e.wait_for_captures(120)  # type: ignore[attr-defined]
    return e.context_health(capture=handle)["capture"]  # type: ignore[attr-defined,no-any-return]


def test_thread_capture_lands(winst: Instance) -> None:
    e = engine(winst, "thread")
    out = e.record_conversation("Standup", "Talked about invoices.")
    assert out["capture"] == handle_for(out["commit"])
    state = _wait_settled(e, out["capture"])
    assert state["state"] == "landed"
    assert e.get_artifact(out["conversation"]["artifact_id"])["title"] == "Standup"


def test_unknown_when_nothing_holds_or_covers_it(winst: Instance) -> None:
    e = engine(winst, "none")
    out = e.set_status("STORY-0001", "parked")
    assert e.context_health(capture=out["capture"])["capture"]["state"] == "unknown"
    e.sync()
    assert e.context_health(capture=out["capture"])["capture"]["state"] == "landed"


def test_pending_in_the_filing_process(winst: Instance) -> None:
    e = engine(winst, "none")
    out = e.set_status("STORY-0001", "parked")
    CaptureLedger(winst.root / ".revetly").file(out["capture"], out["commit"], os.getpid())
    assert e.context_health(capture=out["capture"])["capture"]["state"] == "pending"


def test_pending_elsewhere_names_who_runs_the_pass(winst: Instance) -> None:
    e = engine(winst, "none")
    out = e.set_status("STORY-0001", "parked")
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        CaptureLedger(winst.root / ".revetly").file(out["capture"], out["commit"], other.pid)
        state = e.context_health(capture=out["capture"])["capture"]
        assert state["state"] == "pending" and state["pending_elsewhere"] is True
        assert state["running"]["pid"] == other.pid
    finally:
        other.kill()
        other.wait()
    after = e.context_health(capture=out["capture"])["capture"]  # its detached pass may be starting
    assert after["state"] == "pending" and "starting" in after["note"]


def test_a_dead_filer_past_the_grace_reads_unknown(winst: Instance) -> None:
    e = engine(winst, "none")
    out = e.set_status("STORY-0001", "parked")
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    ledger = CaptureLedger(winst.root / ".revetly")
    entry = ledger.file(out["capture"], out["commit"], gone.pid)
    entry["filed_at"] = "2020-01-01T00:00:00+00:00"
    ledger.write(out["capture"], entry)
    assert e.context_health(capture=out["capture"])["capture"]["state"] == "unknown"


def test_still_starting_only_within_the_grace() -> None:
    now = dt.datetime(2026, 1, 1, 12, 0, 0, tzinfo=dt.UTC)
    entry = {"state": "pending", "filed_at": "2026-01-01T11:59:50+00:00"}
    assert still_starting(entry, now)
    assert not still_starting({**entry, "filed_at": "2026-01-01T11:00:00+00:00"}, now)
    assert not still_starting({**entry, "state": "landed"}, now)
    assert not still_starting({**entry, "filed_at": "garbage"}, now)


def test_failed_pass_is_reported(winst: Instance) -> None:
    e = engine(winst, "none")
    out = e.set_status("STORY-0001", "parked")
    ledger = CaptureLedger(winst.root / ".revetly")
    ledger.file(out["capture"], out["commit"], os.getpid())
    ledger.settle(out["capture"], "failed", error="disk full")
    state = e.context_health(capture=out["capture"])["capture"]
    assert state["state"] == "failed" and state["error"] == "disk full"


def test_process_capture_lands_after_the_writer_exits(winst: Instance) -> None:
    e = engine(winst, "process")
    out = e.set_status("STORY-0001", "parked")
    ledger = winst.root / ".revetly" / "captures" / f"{out['capture']}.json"
    for _ in range(600):  # the detached worker settles its ledger entry
        if json.loads(ledger.read_text()).get("state") != "pending":
            break
        time.sleep(0.1)
    assert e.context_health(capture=out["capture"])["capture"]["state"] == "landed"


@pytest.mark.parametrize("bad", ["cap-xyz", "../../x", "cap-" + "0" * 39, 5])
def test_bad_handle_refused(winst: Instance, bad: object) -> None:
    with pytest.raises(Refusal) as exc:
        engine(winst).context_health(capture=bad)
    assert exc.value.code == "bad-handle"


def test_health_without_capture_is_unchanged(winst: Instance) -> None:
    assert "capture" not in engine(winst).context_health()


def test_a_capture_stops_waiting_out_a_held_pass_lock_at_its_deadline(winst: Instance) -> None:
    from filelock import FileLock
    from revetly_core.instance.layout import InstancePaths
    from revetly_core.writes.capture import run_until_covered

    e = engine(winst, "none")
    out = e.set_status("STORY-0001", "parked")
    ledger = CaptureLedger(winst.root / ".revetly")
    ledger.file(out["capture"], out["commit"], os.getpid())
    held = FileLock(str(InstancePaths(winst.root).lock))
    held.acquire()
    try:
        run_until_covered(winst.root, [out["capture"]], ledger, deadline_s=0.3)
    finally:
        held.release()
    entry = ledger.read(out["capture"])
    assert entry is not None and entry["state"] == "failed"
    assert "held the lock for over 0.3 s" in entry["error"]
