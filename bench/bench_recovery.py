#!/usr/bin/env python3
"""Benchmark of recovery and rotation in the governed layer (issue 19, item 6).

    python bench/bench_recovery.py                       # 200 calls, 100 partitions
    python bench/bench_recovery.py --calls 500 --partitions 1000

Times, in-process on a fresh home in a temporary folder:

- the feedback gate (``adoption.require_feedback_allowed``: the machine binding read and
  authenticated, the adoption records compared) on its own, interleaved call by call with
  ``FeedbackService.authorize`` (grant checks plus the gate) and ``report_outcome`` (one fsynced
  append), so the gate's share of a call is read side by side;
- ``reconcile_after_restore`` of one scope after an adoption (grants, sources, consents,
  quarantine), and the gated call before and after it;
- ``rotate_master_key`` over a vault of N partitions (one data key each), and the first open
  after it. Rotation cost grows with the number of data keys, not with records.

Prints a JSON report. No target is set; the numbers go to bench/README.md.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

from revetly_core.governed.adoption import adopt, require_feedback_allowed
from revetly_core.governed.restore import reconcile_after_restore

from revetly_core import EvidenceService, FeedbackService, RagService, Scope


def ms(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    return {"p50_ms": round(statistics.median(ordered) * 1000, 3),
            "p95_ms": round(ordered[int(len(ordered) * 0.95) - 1] * 1000, 3), "n": len(ordered)}


def timed(call: Any) -> float:
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


def gate_leg(root: Path, calls: int) -> dict[str, Any]:
    evidence, owner = EvidenceService.create(root, "gate")
    feedback = FeedbackService(evidence)
    scope = Scope("bench", "recovery")
    principal, token = evidence.principals.issue_credential(owner, "bench")
    expiry = evidence.clock() + timedelta(days=1)
    evidence.principals.grant(owner, principal, ["report", "read"], scope, expiry)
    session = evidence.principals.session(token, scope)
    gate, authorize, report = [], [], []
    for n in range(calls):
        gate.append(timed(lambda: require_feedback_allowed(evidence, scope, "report")))
        authorize.append(timed(lambda: feedback.authorize(session, "report")))
        report.append(timed(lambda n=n: feedback.report_outcome(
            session, {"run_id": f"run-{n}", "task_id": "t", "status": "succeeded"}, f"k-{n}")))
    rag = RagService(feedback)
    adopt(evidence, owner, "adopt-1", confirm="adopt-1")
    reconcile = timed(lambda: reconcile_after_restore(rag, owner, scope, "adopt-1", confirm="adopt-1"))
    after = [timed(lambda: require_feedback_allowed(evidence, scope, "report")) for _ in range(calls)]
    rag.close()
    evidence.close()
    return {"gate": ms(gate), "authorize_with_gate": ms(authorize), "report_outcome": ms(report),
            "reconcile_after_restore_ms": round(reconcile * 1000, 3), "gate_after_adoption": ms(after)}


def rotation_leg(root: Path, partitions: int) -> dict[str, Any]:
    evidence, owner = EvidenceService.create(root, "rotate")
    for n in range(partitions):
        evidence.append(f"bench#p{n:05d}", "r-1", {"n": n})
    rotate = timed(lambda: evidence.rotate_master_key(owner, "rotate-1"))
    evidence.close()
    reopen = timed(lambda: EvidenceService.open(root, "rotate").close())
    return {"partitions": partitions, "rotate_master_key_ms": round(rotate * 1000, 3),
            "open_after_rotation_ms": round(reopen * 1000, 3)}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--partitions", type=int, default=100)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        report = {"load_1min": round(os.getloadavg()[0], 2),
                  "gate": gate_leg(Path(tmp) / "a", args.calls),
                  "rotation": rotation_leg(Path(tmp) / "b", args.partitions)}
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
