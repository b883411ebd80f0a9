#!/usr/bin/env python3
"""Benchmark of the governed layer: vault import, rag_search, rag_inspect, vault size.

    python bench/bench_governed.py                 # 10,000 passages of ~200 words
    python bench/bench_governed.py --passages 2000 --searches 50

Builds a fresh home in a temporary folder, imports the passages through the owner-only
SQLiteRagProvider.put_documents in batches of 1,000 (encrypted, checkpointed), then times
in-process RagService.search (each with a new idempotency key, so each leaves a new encrypted
receipt) and RagService.inspect of retained hits. The first search, which builds the RAM FTS5
index for the source revision, is reported on its own. Size overhead is the home's bytes on disk
over the passages' UTF-8 bytes. Targets (issue 7): import <= 30 s, search p50 <= 150 ms,
inspect p50 <= 20 ms, overhead <= 1.5x. Prints a JSON report; --strict exits 1 on a miss.
"""

from __future__ import annotations

import argparse
import json
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from revetly_core.governed.provider_sqlite import MAX_PUT_BATCH

from revetly_core import (
    EvidenceService,
    FeedbackService,
    RagHit,
    RagQuery,
    RagService,
    Scope,
    SQLiteRagProvider,
)

TARGETS = {"import_s": 30.0, "search_p50_ms": 150.0, "inspect_p50_ms": 20.0, "size_overhead": 1.5}
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
        evidence, owner = EvidenceService.create(Path(tmp), "bench")
        feedback = FeedbackService(evidence)
        rag = RagService(feedback)
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--passages", type=int, default=10_000)
    parser.add_argument("--words", type=int, default=200)
    parser.add_argument("--searches", type=int, default=200)
    parser.add_argument("--strict", action="store_true", help="exit 1 when a target is missed")
    args = parser.parse_args(argv)
    report = run(args.passages, args.words, args.searches)
    report["targets"] = TARGETS
    report["missed"] = [name for name, limit in TARGETS.items() if report[name] > limit]
    print(json.dumps(report, indent=2))
    return 1 if args.strict and report["missed"] else 0


if __name__ == "__main__":
    sys.exit(main())
