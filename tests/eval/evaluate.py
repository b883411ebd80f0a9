"""Search-quality evaluation of Revetly's search_context on the acme example instance.

    python tests/eval/evaluate.py                      # build acme in a temp dir, evaluate, print a table
    python tests/eval/evaluate.py --instance PATH      # reuse a built acme instance (synced here)
    python tests/eval/evaluate.py --json               # the whole result as JSON
    python tests/eval/evaluate.py --losses             # also list the queries Revetly loses

Every labelled query of ``queries.toml`` runs through ``Engine.search_context(limit=10)`` and
through a baseline: SQLite FTS5 in memory over every live artifact (``porter unicode61``,
columns title and body, ranked by ``bm25(fts, 3.0, 1.0)``), the query's words OR-ed.
Reported per query kind and overall: recall@5 (share of the relevant ids in the top 5,
averaged over queries) and MRR@10 (1 / rank of the first relevant id in the top 10, 0 if none).
"""

from __future__ import annotations

import argparse
import json
import re
import sqlite3
import subprocess
import sys
import tempfile
import tomllib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO_ROOT = HERE.parents[1]
BUILD_SCRIPT = REPO_ROOT / "examples" / "build_acme.py"
QUERIES_FILE = HERE / "queries.toml"

KINDS = ("topic", "paraphrase", "id", "criteria", "decision")
SEARCH_LIMIT = 10
RECALL_AT = 5
MRR_AT = 10
TITLE_WEIGHT = 3.0
BODY_WEIGHT = 1.0
MAX_RELEVANT = 4

Ranker = Callable[[str], list[str]]


# ------------------------------------------------------------------------------ labels


@dataclass(frozen=True)
class Query:
    """One labelled query: the text, its kind, and the ids wanted back (best first)."""

    text: str
    kind: str
    relevant: tuple[str, ...]
    note: str = ""


def load_queries(path: Path = QUERIES_FILE) -> list[Query]:
    """The labelled queries of ``path``; malformed entries raise ValueError."""
    with path.open("rb") as fh:
        data = tomllib.load(fh)
    queries: list[Query] = []
    for n, entry in enumerate(data.get("query", []), start=1):
        text = str(entry.get("text", "")).strip()
        kind = entry.get("kind")
        relevant = entry.get("relevant")
        if not text:
            raise ValueError(f"query {n}: empty text")
        if kind not in KINDS:
            raise ValueError(f"query {n} ({text!r}): kind {kind!r} is not one of {KINDS}")
        if (not isinstance(relevant, list) or not 1 <= len(relevant) <= MAX_RELEVANT
                or len(set(relevant)) != len(relevant)):
            raise ValueError(f"query {n} ({text!r}): relevant must be 1-{MAX_RELEVANT} distinct ids")
        queries.append(Query(text, kind, tuple(str(r) for r in relevant), str(entry.get("note", ""))))
    if not queries:
        raise ValueError(f"{path} holds no [[query]] entries")
    return queries


# ------------------------------------------------------------------------------ instance


def build_acme(out_dir: Path) -> Path:
    """Build the acme example into ``out_dir`` (replacing any earlier build); the instance path."""
    subprocess.run(
        [sys.executable, str(BUILD_SCRIPT), str(out_dir), "--force"],
        check=True, capture_output=True, text=True,
    )
    return out_dir / "acme"


def open_synced(instance: Path) -> Any:
    """The Engine of ``instance`` after a read pass."""
    from revetly_core import Engine

    engine = Engine.open(instance)
    engine.sync()
    return engine


@dataclass(frozen=True)
class Doc:
    """A live artifact as the baseline indexes it."""

    id: str
    type: str
    title: str
    body: str


def live_artifacts(engine: Any) -> list[Doc]:
    """Every live (non-deleted) artifact in the engine's store."""
    from revetly_core.store.db import Store

    store = Store(engine.paths.db, readonly=True)
    try:
        return [Doc(a.id, a.type, a.title or "", a.body or "") for a in store.artifacts("deleted=0")]
    finally:
        store.close()


def missing_labels(queries: Iterable[Query], live_ids: Iterable[str]) -> dict[str, list[str]]:
    """Query text -> the labelled ids that are not live artifacts of the instance."""
    known = set(live_ids)
    missing: dict[str, list[str]] = {}
    for q in queries:
        absent = [r for r in q.relevant if r not in known]
        if absent:
            missing[q.text] = absent
    return missing


# ------------------------------------------------------------------------------ rankers


def revetly_ranker(engine: Any, limit: int = SEARCH_LIMIT) -> Ranker:
    """Ids in the order ``search_context`` serves them."""

    def rank(text: str) -> list[str]:
        payload = engine.search_context(text, limit=limit)
        return [row["artifact_id"] for row in payload.get("artifacts", [])]

    return rank


class Fts5Baseline:
    """SQLite FTS5 in memory: porter stemming, bm25 with the title weighted 3x, words OR-ed."""

    def __init__(self, docs: Iterable[Doc]) -> None:
        items = list(docs)
        self.ids = [d.id for d in items]
        self.conn = sqlite3.connect(":memory:")
        self.conn.execute("CREATE VIRTUAL TABLE fts USING fts5(title, body, tokenize='porter unicode61')")
        self.conn.executemany("INSERT INTO fts (rowid, title, body) VALUES (?, ?, ?)",
                              ((n, d.title, d.body) for n, d in enumerate(items)))

    @staticmethod
    def match_expression(text: str) -> str:
        """The query's words, each quoted (no FTS syntax survives), OR-ed; '' if none."""
        words = dict.fromkeys(w.lower() for w in re.findall(r"\w+", text))
        return " OR ".join('"' + w.replace('"', '""') + '"' for w in words)

    def search(self, text: str, limit: int = SEARCH_LIMIT) -> list[str]:
        expr = self.match_expression(text)
        if not expr:
            return []
        rows = self.conn.execute(
            "SELECT rowid FROM fts WHERE fts MATCH ? ORDER BY bm25(fts, ?, ?), rowid LIMIT ?",
            (expr, TITLE_WEIGHT, BODY_WEIGHT, limit),
        )
        return [self.ids[r[0]] for r in rows]

    def ranker(self, limit: int = SEARCH_LIMIT) -> Ranker:
        return lambda text: self.search(text, limit)

    def close(self) -> None:
        self.conn.close()


# ------------------------------------------------------------------------------ metrics


def recall_at(ranked: Sequence[str], relevant: Sequence[str], k: int = RECALL_AT) -> float:
    """Share of the relevant ids found in the first ``k`` of ``ranked``."""
    return len(set(ranked[:k]) & set(relevant)) / len(relevant)


def reciprocal_rank(ranked: Sequence[str], relevant: Sequence[str], k: int = MRR_AT) -> float:
    """1 / rank of the first relevant id in the first ``k`` of ``ranked``; 0 if there is none."""
    wanted = set(relevant)
    for rank, artifact_id in enumerate(ranked[:k], start=1):
        if artifact_id in wanted:
            return 1.0 / rank
    return 0.0


@dataclass
class Scores:
    """Mean recall@5 and MRR@10 over ``n`` queries."""

    n: int = 0
    recall_at_5: float = 0.0
    mrr_at_10: float = 0.0


def mean_scores(pairs: Sequence[tuple[float, float]]) -> Scores:
    if not pairs:
        return Scores()
    return Scores(len(pairs), sum(p[0] for p in pairs) / len(pairs), sum(p[1] for p in pairs) / len(pairs))


@dataclass
class QueryResult:
    """One query's answers and scores from both systems."""

    text: str
    kind: str
    relevant: list[str]
    revetly: list[str]
    baseline: list[str]
    revetly_recall: float
    revetly_rr: float
    baseline_recall: float
    baseline_rr: float

    @property
    def revetly_loses(self) -> bool:
        """The baseline ranks the first relevant id higher, or ties on that and recalls more."""
        if self.revetly_rr != self.baseline_rr:
            return self.revetly_rr < self.baseline_rr
        return self.revetly_recall < self.baseline_recall


@dataclass
class Evaluation:
    """Per-query results and per-kind / overall means for both systems."""

    queries: list[QueryResult]
    revetly: dict[str, Scores] = field(default_factory=dict)
    baseline: dict[str, Scores] = field(default_factory=dict)

    def losses(self) -> list[QueryResult]:
        return [q for q in self.queries if q.revetly_loses]

    def to_json(self) -> dict[str, Any]:
        return {
            "metrics": {"recall_at": RECALL_AT, "mrr_at": MRR_AT, "search_limit": SEARCH_LIMIT},
            "revetly": {k: asdict(v) for k, v in self.revetly.items()},
            "baseline": {k: asdict(v) for k, v in self.baseline.items()},
            "queries": [asdict(q) | {"revetly_loses": q.revetly_loses} for q in self.queries],
            "losses": [q.text for q in self.losses()],
        }


def evaluate_rankers(queries: Sequence[Query], revetly: Ranker, baseline: Ranker) -> Evaluation:
    """Run every query through both rankers and score them."""
    results: list[QueryResult] = []
    for q in queries:
        ours, theirs = revetly(q.text), baseline(q.text)
        results.append(QueryResult(
            q.text, q.kind, list(q.relevant), ours[:SEARCH_LIMIT], theirs[:SEARCH_LIMIT],
            recall_at(ours, q.relevant), reciprocal_rank(ours, q.relevant),
            recall_at(theirs, q.relevant), reciprocal_rank(theirs, q.relevant),
        ))
    evaluation = Evaluation(results)
    groups = [k for k in KINDS if any(r.kind == k for r in results)]
    for group in [*groups, "overall"]:
        rows = [r for r in results if group in ("overall", r.kind)]
        evaluation.revetly[group] = mean_scores([(r.revetly_recall, r.revetly_rr) for r in rows])
        evaluation.baseline[group] = mean_scores([(r.baseline_recall, r.baseline_rr) for r in rows])
    return evaluation


def evaluate_instance(engine: Any, queries: Sequence[Query]) -> Evaluation:
    """Evaluate a synced engine against the FTS5 baseline built from its own store."""
    baseline = Fts5Baseline(live_artifacts(engine))
    try:
        return evaluate_rankers(queries, revetly_ranker(engine), baseline.ranker())
    finally:
        baseline.close()


# ------------------------------------------------------------------------------ output


def format_table(evaluation: Evaluation) -> str:
    header = f"{'kind':<12}{'n':>4}  {'Revetly R@5':>11}{'MRR@10':>9}  {'FTS5 R@5':>9}{'MRR@10':>9}"
    lines = [header, "-" * len(header)]
    for group, ours in evaluation.revetly.items():
        theirs = evaluation.baseline[group]
        if group == "overall":
            lines.append("-" * len(header))
        lines.append(f"{group:<12}{ours.n:>4}  {ours.recall_at_5:>11.3f}{ours.mrr_at_10:>9.3f}"
                     f"  {theirs.recall_at_5:>9.3f}{theirs.mrr_at_10:>9.3f}")
    return "\n".join(lines)


def format_losses(evaluation: Evaluation) -> str:
    losses = evaluation.losses()
    lines = [f"Queries where Revetly loses to the baseline: {len(losses)}"]
    for q in losses:
        lines.append(f"- [{q.kind}] {q.text!r}  relevant={', '.join(q.relevant)}")
        for name, rr, recall, top in (("Revetly", q.revetly_rr, q.revetly_recall, q.revetly),
                                      ("FTS5", q.baseline_rr, q.baseline_recall, q.baseline)):
            lines.append(f"    {name:<8} RR={rr:.2f} R@5={recall:.2f}  top5: {', '.join(top[:5])}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--instance", type=Path, help="a built acme instance to reuse (it is synced)")
    parser.add_argument("--queries", type=Path, default=QUERIES_FILE, help="the labelled queries")
    parser.add_argument("--json", action="store_true", help="print the whole result as JSON")
    parser.add_argument("--losses", action="store_true", help="list the queries Revetly loses")
    args = parser.parse_args(argv)

    queries = load_queries(args.queries)
    with tempfile.TemporaryDirectory(prefix="revetly-eval-") as tmp:
        instance = args.instance if args.instance is not None else build_acme(Path(tmp))
        engine = open_synced(instance)
        missing = missing_labels(queries, (d.id for d in live_artifacts(engine)))
        evaluation = evaluate_instance(engine, queries)

    if args.json:
        print(json.dumps(evaluation.to_json() | {"missing_labels": missing}, indent=2))
        return 0
    print(f"{len(queries)} queries; Revetly search_context(limit={SEARCH_LIMIT}) vs SQLite FTS5 bm25")
    print(format_table(evaluation))
    if missing:
        print("\nLabelled ids that are not live artifacts:")
        for text, ids in missing.items():
            print(f"- {text!r}: {', '.join(ids)}")
    if args.losses:
        print()
        print(format_losses(evaluation))
    return 0


if __name__ == "__main__":
    sys.exit(main())
