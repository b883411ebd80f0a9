#!/usr/bin/env python3
"""Benchmark of the governed layer: vault import, rag_search, rag_inspect, vault size, guarded_execute.

    python bench/bench_governed.py                 # 10,000 passages of ~200 words
    python bench/bench_governed.py --passages 2000 --searches 50
    python bench/bench_governed.py --only-guarded  # just guarded_execute against a direct call
    python bench/bench_governed.py --only-guarded --guarded-home-dir /dev/shm  # fsync taken out
    python bench/bench_governed.py --only-proposals  # proposal -> review -> active round trip

Builds a fresh home in a temporary folder, imports the passages through the owner-only
SQLiteRagProvider.put_documents in batches of 1,000 (encrypted, checkpointed), then times
in-process RagService.search (each with a new idempotency key, so each leaves a new encrypted
receipt) and RagService.inspect of retained hits. The first search, which builds the RAM FTS5
index for the source revision, is reported on its own. Size overhead is the home's bytes on disk
over the passages' UTF-8 bytes. Targets (issue 7): import <= 30 s, search p50 <= 150 ms,
inspect p50 <= 20 ms, overhead <= 1.5x. Prints a JSON report; --strict exits 1 on a miss.

guarded_execute (issue 19) is timed against a direct call of the same handler, the two
interleaved call by call in one run: each guarded call has a new idempotency key, so each
persists a new admission, a hold link and an acknowledgement (three fsynced appends) and
checks the tool's hold. The overhead reported is the median of the per-pair differences
(target: p50 <= 5 ms). One bare vault append, timed in the same loop, is the floor each of the
three durable writes costs on the machine.

The proposal leg (issue 19, items 3 and 4) times one round trip per rule, in-process against a
real instance as canonical memory: feedback_propose_rule (source snapshot, proposal record, REV-
record), the owner's approval (review and write locks, source recheck, decision, REV- answer),
a qualification by a bench-only trusted qualifier (attempt charged first), and activation
(every check again, then the activation receipt). Each step's p50 is reported beside the
whole round trip's. No target is set for it. Then RuleLifecycle.evaluate, with every rule of
the leg active, is timed EVALUATE_CALLS times (each call rechecks every active rule's sources;
the recheck cache of ADR 0037 answers them while the CONTEXT's revision stays the same).

--durability power runs every leg on a vault that fsyncs each commit (ADR 0037); the default is
process (commits survive kill -9, not a power loss).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Literal

from revetly_core.governed.evidence_db import Durability, check_durability
from revetly_core.governed.provider_sqlite import MAX_PUT_BATCH

from revetly_core import (
    Engine,
    EvidenceService,
    FeedbackService,
    GuardedDispatcher,
    GuardedTool,
    ProposalService,
    RagHit,
    RagQuery,
    RagService,
    RuleLifecycle,
    Scope,
    SQLiteRagProvider,
)

TARGETS = {"import_s": 30.0, "search_p50_ms": 150.0, "inspect_p50_ms": 20.0, "size_overhead": 1.5}
GUARDED_TARGETS = {"guarded_overhead_p50_ms": 5.0}
EVALUATE_CALLS = 50
SEARCH_TIMEOUT_S = 120.0
"""The bench's provider deadline: a cold first search builds the RAM index of a whole source
revision, which at 100,000 passages on a loaded machine exceeds RagService's 10 s default."""
DURABILITY: list[Durability] = ["process"]
"""The vault durability every leg runs at (--durability)."""
SEED = 7


def vocabulary(rng: random.Random, size: int = 6000) -> list[str]:
    """Pronounceable made-up words, a Zipf-ish pool to draw passages from."""
    syllables = ["ta", "re", "lo", "mi", "sa", "ven", "dor", "ki", "pal", "nu", "ber", "os", "fi", "gan"]
    return ["".join(rng.choice(syllables) for _ in range(rng.randint(2, 4))) for _ in range(size)]


def passages(count: int, words: int) -> list[str]:
    rng = random.Random(SEED)
    vocab = vocabulary(rng)
    weights = [1.0 / (rank + 1) for rank in range(len(vocab))]
    return [" ".join(rng.choices(vocab, weights, k=words)) + "." for _ in range(count)]


def percentile(samples: list[float], fraction: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def home_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def run(count: int, words: int, searches: int) -> dict[str, Any]:
    texts = passages(count, words)
    plaintext = sum(len(t.encode()) for t in texts)
    with tempfile.TemporaryDirectory(prefix="revetly-governed-bench-") as tmp:
        evidence, owner = EvidenceService.create(Path(tmp), "bench", durability=DURABILITY[0])
        feedback = FeedbackService(evidence)
        rag = RagService(feedback, timeout=SEARCH_TIMEOUT_S)
        provider = SQLiteRagProvider(feedback)
        scope = Scope("bench", "bench")
        principal, token = evidence.principals.issue_credential(owner, "bench")
        evidence.principals.grant(owner, principal, ["search", "inspect"], scope,
                                  datetime.now(UTC) + timedelta(hours=1))
        session = evidence.principals.session(token, scope)
        source = provider.source("corpus", scope, "synthetic", "r1")
        rag.register(owner, source, provider)
        hits = [RagHit.make(source, f"doc-{i // 4:05d}", f"c{i % 4}", text, f"Doc {i // 4} ¶{i % 4}",
                            jurisdiction="XX", effective_from="2020-01-01") for i, text in enumerate(texts)]

        start = time.perf_counter()
        for offset in range(0, len(hits), MAX_PUT_BATCH):
            provider.put_documents(owner, source, hits[offset:offset + MAX_PUT_BATCH])
        import_s = time.perf_counter() - start

        with sqlite3.connect(evidence.home.database) as db:
            db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        stored = home_bytes(evidence.home.path)

        rng = random.Random(SEED + 1)
        queries = [" ".join(rng.sample(texts[rng.randrange(count)].rstrip(".").split(), 3))
                   for _ in range(searches + 1)]
        start = time.perf_counter()
        first = rag.search(session, RagQuery("corpus", queries[0]), idempotency_key="q-0")
        cold_ms = (time.perf_counter() - start) * 1000
        search_ms: list[float] = []
        receipts = [first]
        for n, text in enumerate(queries[1:], start=1):
            start = time.perf_counter()
            receipts.append(rag.search(session, RagQuery("corpus", text), idempotency_key=f"q-{n}"))
            search_ms.append((time.perf_counter() - start) * 1000)

        inspect_ms: list[float] = []
        for receipt in receipts:
            for hit in receipt["hits"][:2]:
                start = time.perf_counter()
                rag.inspect(session, receipt["receipt_id"], hit["document_id"], hit["chunk_id"])
                inspect_ms.append((time.perf_counter() - start) * 1000)
        rag.close()
        evidence.close()

    return {
        "passages": count, "words_per_passage": words, "plaintext_bytes": plaintext,
        "import_s": round(import_s, 3), "home_bytes": stored,
        "size_overhead": round(stored / plaintext, 3),
        "first_search_ms_index_build": round(cold_ms, 1),
        "search_p50_ms": round(statistics.median(search_ms), 2),
        "search_p95_ms": round(percentile(search_ms, 0.95), 2),
        "inspect_p50_ms": round(statistics.median(inspect_ms), 2),
        "inspect_p95_ms": round(percentile(inspect_ms, 0.95), 2),
        "searches": len(search_ms), "inspects": len(inspect_ms),
        "hits_per_search": round(statistics.mean(len(r["hits"]) for r in receipts), 1),
    }


class Counter:
    """The handler both legs call: a definitive in-memory effect."""

    def __init__(self) -> None:
        self.count = 0

    def invoke(self, arguments: dict[str, Any]) -> dict[str, Any]:
        self.count += 1
        return {"n": self.count, "echo": arguments["text"]}


def run_guarded(calls: int, home_dir: str | None = None) -> dict[str, Any]:
    """guarded_execute against a direct call of the same handler, interleaved call by call
    (home_dir: where the temporary home goes, e.g. a tmpfs to take the disk's fsync out)."""
    tool = GuardedTool("notify", "1", "bench", {"type": "object", "required": ["text"],
                                                "properties": {"text": {"type": "string"}}})
    with tempfile.TemporaryDirectory(prefix="revetly-guarded-bench-", dir=home_dir) as tmp:
        evidence, owner = EvidenceService.create(Path(tmp), "bench", durability=DURABILITY[0])
        feedback = FeedbackService(evidence)
        dispatcher = GuardedDispatcher(feedback)
        scope = Scope("bench", "bench")
        principal, token = evidence.principals.issue_credential(owner, "bench")
        evidence.principals.grant(owner, principal, ["execute"], scope,
                                  datetime.now(UTC) + timedelta(hours=1))
        session = evidence.principals.session(token, scope)
        handler = Counter()
        dispatcher.register(owner, scope, tool, handler)
        dispatcher.execute(session, "notify", {"text": "warm"}, idempotency_key="warm")
        direct_ms: list[float] = []
        guarded_ms: list[float] = []
        append_ms: list[float] = []
        for n in range(calls):
            arguments = {"text": f"call {n}"}
            start = time.perf_counter()
            handler.invoke(dict(arguments))
            direct_ms.append((time.perf_counter() - start) * 1000)
            start = time.perf_counter()
            dispatcher.execute(session, "notify", arguments, idempotency_key=f"k-{n}")
            guarded_ms.append((time.perf_counter() - start) * 1000)
            start = time.perf_counter()
            evidence.append("bench#appends", f"a-{n}", {"n": n})
            append_ms.append((time.perf_counter() - start) * 1000)
        dispatcher.close()
        evidence.close()
    overhead = [g - d for g, d in zip(guarded_ms, direct_ms, strict=True)]
    return {"guarded_calls": calls,
            "direct_p50_ms": round(statistics.median(direct_ms), 4),
            "guarded_p50_ms": round(statistics.median(guarded_ms), 2),
            "guarded_p95_ms": round(percentile(guarded_ms, 0.95), 2),
            "guarded_overhead_p50_ms": round(statistics.median(overhead), 2),
            "guarded_overhead_p95_ms": round(percentile(overhead, 0.95), 2),
            "vault_append_p50_ms": round(statistics.median(append_ms), 2)}


class BenchQualifier:
    """Bench-only trusted qualifier: it accepts at once (not qualification evidence)."""

    name = "bench-trusted"
    kind: Literal["diagnostic", "trusted"] = "trusted"

    def qualify(self, proposal: dict[str, Any], runtime_versions: dict[str, str]) -> dict[str, Any]:
        return {"verdict": "accepted", "evidence": {"bench": True}}


DECISION_NOTE = ("---\nid: DEC-0001\ntitle: Refund approvals\ntype: decision\nstatus: accepted\n---\n"
                 "Refunds above 500 EUR need a second approver from finance.\n")


def rule_candidate(n: int) -> dict[str, Any]:
    """The n-th rule of the leg: distinct titles, one memory source."""
    return {"title": f"Large refunds need approval {n}", "tool": "issue_refund",
            "applies_when": [{"kind": "argument_equals", "argument": "tier", "value": "large"}],
            "requires": [{"kind": "argument_present", "argument": "reason"}, {"kind": "approval_required"}],
            "sources": [{"kind": "memory", "artifact_id": "DEC-0001"}]}


def run_proposals(rounds: int, home_dir: str | None = None) -> dict[str, Any]:
    """proposal -> review -> qualification -> active, per rule, with each step's p50."""
    with tempfile.TemporaryDirectory(prefix="revetly-proposals-bench-", dir=home_dir) as tmp:
        Engine.init(Path(tmp) / "acme")
        (Path(tmp) / "acme" / "notes" / "DEC-0001.md").write_text(DECISION_NOTE, encoding="utf-8")
        engine = Engine.open(Path(tmp) / "acme")
        engine.sync()
        evidence, owner = EvidenceService.create(Path(tmp) / "homes", "bench", durability=DURABILITY[0])
        proposals = ProposalService(FeedbackService(evidence), engine)
        lifecycle = RuleLifecycle(proposals)
        scope = Scope("bench", "bench")
        principal, token = evidence.principals.issue_credential(owner, "bench")
        evidence.principals.grant(owner, principal, ["propose"], scope,
                                  datetime.now(UTC) + timedelta(hours=1))
        session = evidence.principals.session(token, scope)
        steps: dict[str, list[float]] = {"propose": [], "review": [], "qualify": [], "activate": [],
                                         "round_trip": []}
        for n in range(rounds):
            marks = [time.perf_counter()]
            receipt = proposals.propose_rule(session, rule_candidate(n), f"p-{n}")
            marks.append(time.perf_counter())
            proposals.review(owner, scope, receipt["proposal_id"], "approve", reviewer="bench")
            marks.append(time.perf_counter())
            answer = lifecycle.qualify(owner, scope, receipt["proposal_id"], BenchQualifier(),
                                       idempotency_key=f"q-{n}",
                                       expires_at=datetime.now(UTC) + timedelta(days=1))
            marks.append(time.perf_counter())
            lifecycle.activate(owner, scope, receipt["proposal_id"],
                               answer["qualification"]["qualification_id"])
            marks.append(time.perf_counter())
            for name, start, end in zip(("propose", "review", "qualify", "activate"), marks, marks[1:],
                                        strict=False):
                steps[name].append((end - start) * 1000)
            steps["round_trip"].append((marks[-1] - marks[0]) * 1000)
        evaluate_ms: list[float] = []
        for n in range(EVALUATE_CALLS):
            start = time.perf_counter()
            lifecycle.evaluate(scope, "issue_refund", {"tier": "large", "reason": f"call {n}"})
            evaluate_ms.append((time.perf_counter() - start) * 1000)
        evidence.close()
    return {"proposal_rounds": rounds,
            **{f"proposal_{name}_p50_ms": round(statistics.median(values), 2)
               for name, values in steps.items()},
            "proposal_round_trip_p95_ms": round(percentile(steps["round_trip"], 0.95), 2),
            "evaluate_active_rules": rounds, "evaluate_calls": EVALUATE_CALLS,
            "evaluate_p50_ms": round(statistics.median(evaluate_ms), 2),
            "evaluate_p95_ms": round(percentile(evaluate_ms, 0.95), 2)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--passages", type=int, default=10_000)
    parser.add_argument("--words", type=int, default=200)
    parser.add_argument("--searches", type=int, default=200)
    parser.add_argument("--guarded-calls", type=int, default=500)
    parser.add_argument("--only-guarded", action="store_true", help="skip the retrieval legs")
    parser.add_argument("--only-proposals", action="store_true", help="only the proposal round trip")
    parser.add_argument("--proposal-rounds", type=int, default=50)
    parser.add_argument("--guarded-home-dir", default=None,
                        help="folder for the guarded leg's home (default: the system temp folder)")
    parser.add_argument("--durability", default="process", choices=["process", "power"],
                        help="the vault durability of every leg (ADR 0037)")
    parser.add_argument("--strict", action="store_true", help="exit 1 when a target is missed")
    args = parser.parse_args(argv)
    DURABILITY[0] = check_durability(args.durability)
    if args.only_proposals:
        report = run_proposals(args.proposal_rounds, args.guarded_home_dir)
        report["load_1min"] = round(os.getloadavg()[0], 2)
        report["durability"] = DURABILITY[0]
        print(json.dumps(report, indent=2))
        return 0
    report = {} if args.only_guarded else run(args.passages, args.words, args.searches)
    report.update(run_guarded(args.guarded_calls, args.guarded_home_dir))
    report.update(run_proposals(args.proposal_rounds, args.guarded_home_dir))
    targets = {**({} if args.only_guarded else TARGETS), **GUARDED_TARGETS}
    report["load_1min"] = round(os.getloadavg()[0], 2)
    report["durability"] = DURABILITY[0]
    report["targets"] = targets
    report["missed"] = [name for name, limit in targets.items() if report[name] > limit]
    print(json.dumps(report, indent=2))
    return 1 if args.strict and report["missed"] else 0


if __name__ == "__main__":
    sys.exit(main())
