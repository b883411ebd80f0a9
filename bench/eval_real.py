#!/usr/bin/env python3
"""Revetly on real, labelled Backlog.md corpora, beside a plain SQLite FTS5 index of the same files.

    python bench/eval_real.py CORPUS_DIR [CORPUS_DIR ...]            # one table per corpus
    python bench/eval_real.py CORPUS_DIR --ablate                    # plus one line per switch
    python bench/eval_real.py CORPUS_DIR --work DIR --json OUT.json  # keep the instances, save numbers
    python bench/eval_real.py CORPUS_DIR --embedding local           # keyword-only, semantic-only, fused
    python bench/eval_real.py CORPUS_DIR --misses DIR                # per-query ranks, for analysis
    nox -s eval -- CORPUS_DIR ...

A corpus folder holds `corpus/` (a Backlog.md repository with its git history) and `labels/`
(a_commit_to_task.jsonl, b_ac_to_task.jsonl, c_file_to_tasks.jsonl, d_structure.jsonl). Nothing of
a corpus is ever copied into the repository; CI never needs one. The instance is made the way a
user makes it (`init --from backlog-md`, then a pass), in --work (reused and synced when there)
or a temporary folder.

Sets: (a) commit subject -> the task it named, split into the hard half (subject is not the task's
title) and plain commits; (b) an item's first acceptance criterion, verbatim -> the item; (c) a
source file -> the tasks the commits touching it name (path binding); (d) declared parents and
dependencies (structure reads). Search is `search_context(query, limit=10)` with commit rows
skipped; ids are compared by their numbers (`TASK-24.02`, `task-24.2`, `BACK-24.2` are one id).
See bench/README.md ("Real corpora").
"""

from __future__ import annotations

import argparse
import json
import re
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

TOP = 10
"""Search answers are read to this depth (MRR@10, commit rows skipped)."""
PATH_TOP = 10
PATH_PRECISION_AT = 5
BASELINE_TITLE_WEIGHT = 3.0
BASELINE_MAX_TERMS = 64
BACKLOG_FOLDERS = ("tasks", "completed", "archive", "drafts", "milestones", "decisions", "docs")
"""The folders of a Backlog.md project whose markdown files are items (readme files aside)."""

_ID = re.compile(r"^\s*([A-Za-z]+)[- ]?(\d+(?:\.\d+)*)(?![\d.]*[A-Za-z0-9])")
_FILE_ID = re.compile(r"^([A-Za-z]+-\d+(?:\.\d+)*)")
_COMMENT = re.compile(r"<!--.*?-->", re.S)
_QUERY_WORD = re.compile(r"\w+")


# ------------------------------------------------------------------------------ ids
def id_number(artifact_id: str, task_families: frozenset[str]) -> str:
    """An id compared by its number: a task family's prefix dropped, each part an integer."""
    m = _ID.match(artifact_id)
    if m is None:
        return artifact_id.upper()
    number = ".".join(str(int(p)) for p in m.group(2).split("."))
    family = m.group(1).lower()
    return number if family in task_families else f"{family}-{number}"


def task_families(corpus: Path) -> frozenset[str]:
    """The prefixes that spell a task: the labels' BACK, task, and the corpus's own task_prefix."""
    families = {"back", "task"}
    config = corpus / "backlog" / "config.yml"
    if config.is_file():
        try:
            data = yaml.safe_load(config.read_text(encoding="utf-8", errors="replace")[:100_000])
        except yaml.YAMLError:
            data = None
        if isinstance(data, dict) and isinstance(data.get("task_prefix"), str):
            families.add(data["task_prefix"].lower())
    return frozenset(families)


# ------------------------------------------------------------------------------ metrics
@dataclass
class Ranked:
    """Rank of the wanted id per query (None when not in the answer)."""

    ranks: list[int | None] = field(default_factory=list)

    def add(self, ranked: Sequence[str], wanted: str) -> None:
        self.ranks.append(ranked.index(wanted) + 1 if wanted in ranked[:TOP] else None)

    def recall(self, k: int) -> float:
        n = len(self.ranks)
        return sum(1 for r in self.ranks if r is not None and r <= k) / n if n else 0.0

    def mrr(self) -> float:
        n = len(self.ranks)
        return sum(1 / r for r in self.ranks if r is not None) / n if n else 0.0

    def row(self) -> dict[str, float | int]:
        return {"n": len(self.ranks), "r1": round(self.recall(1), 3),
                "r5": round(self.recall(5), 3), "mrr": round(self.mrr(), 3)}


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    if not path.is_file():
        return []
    with path.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


@dataclass
class Labels:
    hard: list[dict[str, Any]]
    plain: list[dict[str, Any]]
    b: list[dict[str, Any]]
    c: list[dict[str, Any]]
    d: list[dict[str, Any]]

    @classmethod
    def read(cls, folder: Path) -> Labels:
        a = read_jsonl(folder / "a_commit_to_task.jsonl")
        return cls(hard=[r for r in a if not r.get("equals_title")],
                   plain=[r for r in a if r.get("kind") == "commit"],
                   b=read_jsonl(folder / "b_ac_to_task.jsonl"),
                   c=read_jsonl(folder / "c_file_to_tasks.jsonl"),
                   d=read_jsonl(folder / "d_structure.jsonl"))

    def query_sets(self) -> list[tuple[str, list[dict[str, Any]]]]:
        return [("(a) hard", self.hard), ("(a) plain", self.plain), ("(b)", self.b)]


def score_sets(
    search: Callable[[str], list[str]], labels: Labels, families: frozenset[str],
    ranks: dict[str, list[int | None]] | None = None,
) -> dict[str, dict[str, float | int]]:
    """R@1 / R@5 / MRR per query set for one search function (ids already numbers); with
    `ranks`, each set's per-query ranks are kept there too (in the labels' order)."""
    out: dict[str, dict[str, float | int]] = {}
    cache: dict[str, list[str]] = {}
    for name, rows in labels.query_sets():
        ranked = Ranked()
        for r in rows:
            query = r["query"]
            if query not in cache:
                cache[query] = search(query)
            ranked.add(cache[query], id_number(r["label"], families))
        out[name] = ranked.row()
        if ranks is not None:
            ranks[name] = ranked.ranks
    return out


def per_query_rows(
    labels: Labels, ours: dict[str, list[int | None]], plain: dict[str, list[int | None]],
) -> list[dict[str, Any]]:
    """One row per query of each set where Revetly and the plain index differ or Revetly is not
    first: the query, its label, both ranks (None: outside the ten). For analysis, never committed."""
    rows: list[dict[str, Any]] = []
    for name, queries in labels.query_sets():
        for r, mine, theirs in zip(queries, ours[name], plain[name], strict=True):
            if mine != 1 or mine != theirs:
                rows.append({"set": name, "query": r["query"], "label": r["label"],
                             "revetly": mine, "fts5": theirs})
    return rows


# ------------------------------------------------------------------------------ the plain baseline
@dataclass(frozen=True)
class PlainItem:
    label: str
    title: str
    body: str


def split_frontmatter(text: str) -> tuple[dict[str, Any], str]:
    """(frontmatter mapping, body); an unreadable or absent block reads as empty."""
    if not text.startswith("---"):
        return {}, text
    end = text.find("\n---", 3)
    if end < 0:
        return {}, text
    try:
        data = yaml.safe_load(text[3:end])
    except yaml.YAMLError:
        data = None
    body = text[end + 4:].split("\n", 1)[1] if "\n" in text[end + 4:] else ""
    return (data if isinstance(data, dict) else {}), body


def plain_items(corpus: Path, families: frozenset[str]) -> list[PlainItem]:
    """Every backlog item file: label (id number, else the path), frontmatter title, body."""
    root = corpus / "backlog"
    items: list[PlainItem] = []
    for folder in BACKLOG_FOLDERS:
        for path in sorted((root / folder).rglob("*.md")):
            if path.name.lower() == "readme.md" or not path.is_file():
                continue
            text = path.read_text(encoding="utf-8", errors="replace")[:1_000_000]
            meta, body = split_frontmatter(text)
            raw_id = meta.get("id")
            if not isinstance(raw_id, str | int):
                m = _FILE_ID.match(path.name)
                raw_id = m.group(1) if m else None
            label = (id_number(str(raw_id), families) if raw_id is not None
                     else str(path.relative_to(corpus)))
            title = meta.get("title")
            items.append(PlainItem(label, str(title) if title is not None else path.stem,
                                   _COMMENT.sub(" ", body)))
    return items


class PlainIndex:
    """One FTS5 row per item, porter stemming, bm25 with the title weighing 3, the query OR-ed."""

    def __init__(self, items: Iterable[PlainItem]) -> None:
        self.db = sqlite3.connect(":memory:")
        self.db.execute("CREATE VIRTUAL TABLE docs USING fts5(title, body, label UNINDEXED, "
                        "tokenize = 'porter unicode61')")
        self.db.executemany("INSERT INTO docs VALUES (?, ?, ?)",
                            [(i.title, i.body, i.label) for i in items])
        self.count = int(self.db.execute("SELECT count(*) FROM docs").fetchone()[0])

    def search(self, query: str) -> list[str]:
        words = list(dict.fromkeys(w.lower() for w in _QUERY_WORD.findall(query)))
        if not words:
            return []
        match = " OR ".join('"' + w.replace('"', '""') + '"' for w in words[:BASELINE_MAX_TERMS])
        rows = self.db.execute("SELECT label FROM docs WHERE docs MATCH ? "
                               "ORDER BY bm25(docs, ?, 1.0) LIMIT 200",
                               (match, BASELINE_TITLE_WEIGHT)).fetchall()
        return list(dict.fromkeys(r[0] for r in rows))[:TOP]


# ------------------------------------------------------------------------------ Revetly
def open_instance(corpus: Path, inst: Path, embedding: str | None = None) -> Any:
    """The instance over corpus, made as a user makes it (init --from backlog-md) and synced;
    with embedding, its revetly.toml declares that [embedding] provider before the pass."""
    from revetly_core import Engine

    if not (inst / "revetly.toml").is_file():
        Engine.init(inst, source=("backlog-md", str(corpus)))
    if embedding is not None:
        declare_embedding(inst / "revetly.toml", embedding)
    engine = Engine.open(inst)
    engine.sync()
    return engine


def with_ranking(engine: Any, overrides: dict[str, float]) -> Any:
    """The same instance read with these [ranking] values on top of its own."""
    from revetly_core import Engine

    ranking = {**engine.config.ranking, **overrides}
    return Engine(engine.root, engine.config.model_copy(update={"ranking": ranking}))


def declare_embedding(toml: Path, provider: str) -> None:
    """Set (or replace) the instance's [embedding] section to name this provider."""
    text = re.sub(r"\n\[embedding\]\n(?:[^\[].*\n?)*", "\n", toml.read_text(encoding="utf-8"))
    toml.write_text(text.rstrip("\n") + f'\n\n[embedding]\nprovider = "{provider}"\n',
                    encoding="utf-8")


SEMANTIC_SHARES = (0.25, 0.5, 0.75, 1.0)
"""The semantic leg's shares the fused lines are measured at (the default is one of them)."""


def semantic_only(engine: Any, families: frozenset[str]) -> Callable[[str], list[str]]:
    """The semantic leg alone: its nearest artifacts by cosine, commits skipped."""
    from revetly_core.reads.search import POOL
    from revetly_core.reads.semantic import semantic_hits
    from revetly_core.store.db import Store

    store = Store(engine.paths.db, readonly=True)

    def search(query: str) -> list[str]:
        ranked = []
        for artifact_id, _ in semantic_hits(engine.config, engine.index.directory, query, POOL):
            a = store.get(artifact_id)
            if a is not None and a.type != "commit" and not a.deleted:
                ranked.append(id_number(artifact_id, families))
            if len(ranked) == TOP:
                break
        return ranked
    return search


def score_semantic(engine: Any, labels: Labels, families: frozenset[str]) -> dict[str, Any]:
    """keyword-only (share 0), semantic-only, and fused at each of SEMANTIC_SHARES."""
    out: dict[str, Any] = {
        "keyword-only": score_sets(revetly_search(with_ranking(engine, {"semantic": 0.0}), families),
                                   labels, families),
        "semantic-only": score_sets(semantic_only(engine, families), labels, families),
    }
    for share in SEMANTIC_SHARES:
        out[f"fused {share}"] = score_sets(
            revetly_search(with_ranking(engine, {"semantic": share}), families), labels, families)
    return out


def revetly_search(engine: Any, families: frozenset[str]) -> Callable[[str], list[str]]:
    def search(query: str) -> list[str]:
        from revetly_core import Refusal

        try:
            payload = engine.search_context(query, limit=TOP)
        except Refusal:
            return []
        return [id_number(a["artifact_id"], families) for a in payload["artifacts"]
                if a["artifact_type"] != "commit"]
    return search


# ------------------------------------------------------------------------------ (c) path binding
def commit_ids_by_file(corpus: Path, families: frozenset[str]) -> dict[str, Counter[str]]:
    """file -> Counter(task id number -> commits touching the file that name it): the git-log way."""
    finder = re.compile(r"\b(" + "|".join(sorted(families)) + r")-(\d+(?:\.\d+)*)", re.I)
    out = subprocess.run(
        ["git", "-C", str(corpus), "log", "--no-renames", "--name-only", "--format=%x00%B%x01"],
        capture_output=True, text=True, errors="replace", check=False).stdout
    by_file: dict[str, Counter[str]] = {}
    for chunk in out.split("\x00")[1:]:
        message, _, files = chunk.partition("\x01")
        named = {id_number(f"{m.group(1)}-{m.group(2)}", families)
                 for m in finder.finditer(message)}
        if not named:
            continue
        for name in files.split("\n"):
            name = name.strip()
            if name:
                by_file.setdefault(name, Counter()).update(named)
    return by_file


def path_scores(ranked: Sequence[str], wanted: set[str]) -> tuple[float, float]:
    """(recall@10 over min(10, |wanted|), precision@5 over five) of one ranked answer: a ranking
    whose first ten rows are all wanted scores recall 1.0 however many are wanted."""
    if not wanted:
        return 0.0, 0.0
    top = ranked[:PATH_TOP]
    recall = len(set(top) & wanted) / min(len(wanted), PATH_TOP)
    precision = len(set(ranked[:PATH_PRECISION_AT]) & wanted) / PATH_PRECISION_AT
    return recall, precision


def score_paths(
    engine: Any, corpus: Path, rows: list[dict[str, Any]], families: frozenset[str]
) -> dict[str, Any]:
    from revetly_core import Refusal

    git_log = commit_ids_by_file(corpus, families)
    sums = {"revetly": [0.0, 0.0], "git log": [0.0, 0.0]}
    failed: Counter[str] = Counter()
    for r in rows:
        wanted = {id_number(x, families) for x in r["labels"]}
        try:
            payload = engine.get_scope("binding", path=str(corpus / r["file"]), limit=PATH_TOP)
            behind = [id_number(b["artifact_id"], families) for b in payload.get("behind", [])]
        except Refusal as refusal:
            failed[refusal.code] += 1
            behind = []
        except Exception as exc:  # a crash is a finding of the run, never the end of it
            failed[type(exc).__name__] += 1
            behind = []
        counts = git_log.get(r["file"], Counter())
        baseline = [i for i, _ in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))]
        for name, ranked in (("revetly", behind), ("git log", baseline)):
            rec, prec = path_scores(ranked, wanted)
            sums[name][0] += rec
            sums[name][1] += prec
    n = len(rows)
    scores: dict[str, Any] = {
        name: {"n": n, "recall@10": round(s[0] / n, 3) if n else 0.0,
               "precision@5": round(s[1] / n, 3) if n else 0.0} for name, s in sums.items()}
    scores["revetly"]["failed"] = dict(failed)
    return scores


# ------------------------------------------------------------------------------ (d) structure
def score_structure(
    engine: Any, rows: list[dict[str, Any]], families: frozenset[str]
) -> dict[str, dict[str, float | int]]:
    """Share of declared parents (get_artifact(child).parent) and dependencies read back."""
    from revetly_core import Refusal

    found: dict[str, list[int]] = {"parent": [0, 0], "depends_on": [0, 0]}
    for r in rows:
        relation = r.get("relation")
        if relation == "parent":
            source, want = r["child"], r["parent"]
        elif relation == "depends_on":
            source, want = r["task"], r["dependency"]
        else:
            continue
        found[relation][1] += 1
        try:
            payload = engine.get_artifact(_spelled(engine, source))
        except Refusal:
            continue
        if relation == "parent":
            held = [payload.get("parent") or ""]
        else:
            held = list(payload.get("declared_links", {}).get("depends_on", []))
        if id_number(want, families) in {id_number(h, families) for h in held if h}:
            found[relation][0] += 1
    return {k: {"n": v[1], "read": round(v[0] / v[1], 3) if v[1] else 0.0}
            for k, v in found.items()}


def _spelled(engine: Any, label: str) -> str:
    """A label's BACK-n spelled with the instance's task prefix (TASK-n)."""
    m = _ID.match(label)
    if m is None:
        return label
    for source in engine.config.connectors.backlog_md:
        return f"{source.task_prefix}-{m.group(2)}"
    return label


# ------------------------------------------------------------------------------ ablation
def ablation_switches() -> list[tuple[str, dict[str, float]]]:
    """One switch per signal and optional leg: each flipped from its default, the rest kept."""
    from revetly_core.reads import ranking, retrieval

    neutral = {"exact-id": 1.0, "recency": 0.0, "provenance": 0.0, "link-count": 0.0,
               "kind": 1.0, "superseded": 1.0}
    spec = {"recency": 180.0, "link-count": 0.1, "kind": 0.6, "exact-id": 4.0,
            "provenance": 1.0, "superseded": 0.5}
    switches: list[tuple[str, dict[str, float]]] = []
    for name, default in ranking.DEFAULT_WEIGHTS.items():
        if default != neutral[name]:
            switches.append((f"{name} off", {name: neutral[name]}))
        else:
            switches.append((f"{name} on ({spec[name]:g})", {name: spec[name]}))
    for leg, share in ranking.LEG_SHARES.items():
        switches.append((f"{leg} leg off", {leg: 0.0}) if share > 0
                        else (f"{leg} leg on (0.5)", {leg: retrieval.FEEDBACK_SHARE}))
    return switches


# ------------------------------------------------------------------------------ report
def write_misses(path: Path, rows: list[dict[str, Any]]) -> None:
    """The per-query rows as JSON lines (outside the repository: they hold the corpus's text)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")


def fmt_sets(result: dict[str, dict[str, float | int]]) -> str:
    return "  ".join(f"{name} {r['r1']:.3f}/{r['r5']:.3f}/{r['mrr']:.3f}"
                     for name, r in result.items())


def evaluate(
    folder: Path, work: Path, ablate: bool, embedding: str | None = None,
    misses: Path | None = None,
) -> dict[str, Any]:
    corpus, labels = folder / "corpus", Labels.read(folder / "labels")
    families = task_families(corpus)
    t0 = time.time()
    engine = open_instance(corpus, work / folder.name / "inst", embedding)
    plain = PlainIndex(plain_items(corpus, families))
    report: dict[str, Any] = {"corpus": str(folder), "plain_items": plain.count}
    plain_ranks: dict[str, list[int | None]] = {}
    our_ranks: dict[str, list[int | None]] = {}
    report["fts5"] = score_sets(plain.search, labels, families, plain_ranks)
    report["revetly"] = score_sets(revetly_search(engine, families), labels, families, our_ranks)
    if misses is not None:
        write_misses(misses / f"{folder.name}.jsonl", per_query_rows(labels, our_ranks, plain_ranks))
    if labels.c:
        report["paths"] = score_paths(engine, corpus, labels.c, families)
    if labels.d:
        report["structure"] = score_structure(engine, labels.d, families)
    if ablate:
        report["ablation"] = {
            name: score_sets(revetly_search(with_ranking(engine, overrides), families),
                             labels, families)
            for name, overrides in ablation_switches()
        }
    if embedding is not None:
        report["semantic"] = score_semantic(engine, labels, families)
    report["seconds"] = round(time.time() - t0, 1)
    return report


def print_report(r: dict[str, Any]) -> None:
    print(f"\n== {r['corpus']}  ({r['plain_items']} backlog files; {r['seconds']} s)")
    print(f"{'set':12} {'n':>5}  {'FTS5 R@1':>8} {'R@5':>6} {'MRR':>6}   "
          f"{'Revetly R@1':>11} {'R@5':>6} {'MRR':>6}  {'ΔMRR':>6}")
    for name, base in r["fts5"].items():
        ours = r["revetly"][name]
        print(f"{name:12} {base['n']:5d}  {base['r1']:8.3f} {base['r5']:6.3f} {base['mrr']:6.3f}   "
              f"{ours['r1']:11.3f} {ours['r5']:6.3f} {ours['mrr']:6.3f}  "
              f"{ours['mrr'] - base['mrr']:+6.3f}")
    if "paths" in r:
        p = r["paths"]
        print(f"(c) paths    {p['revetly']['n']:5d}  recall@10 / precision@5: Revetly "
              f"{p['revetly']['recall@10']:.3f} / {p['revetly']['precision@5']:.3f}, git log "
              f"{p['git log']['recall@10']:.3f} / {p['git log']['precision@5']:.3f}"
              + (f"; failed: {p['revetly']['failed']}" if p["revetly"]["failed"] else ""))
    if "structure" in r:
        s = r["structure"]
        print("(d) structure " + ", ".join(f"{k} {v['read']:.3f} of {v['n']}" for k, v in s.items()))
    if "semantic" in r:
        print("semantic leg (R@1/R@5/MRR):")
        for name, result in r["semantic"].items():
            print(f"  {name:24} {fmt_sets(result)}")
    if "ablation" in r:
        print("ablation (R@1/R@5/MRR):")
        print(f"  {'defaults':24} {fmt_sets(r['revetly'])}")
        for name, result in r["ablation"].items():
            print(f"  {name:24} {fmt_sets(result)}")


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("corpora", nargs="+", type=Path, help="folders holding corpus/ and labels/")
    ap.add_argument("--work", type=Path, help="where instances are made (kept; synced when there)")
    ap.add_argument("--ablate", action="store_true", help="one line per signal and leg switched")
    ap.add_argument("--json", type=Path, help="also write the numbers here")
    ap.add_argument("--misses", type=Path, metavar="DIR",
                    help="write DIR/CORPUS.jsonl: each query Revetly misses or ranks unlike FTS5")
    ap.add_argument("--embedding", choices=("local",),
                    help="declare this [embedding] provider and report the semantic leg")
    args = ap.parse_args(argv)
    for folder in args.corpora:
        if not (folder / "corpus").is_dir() or not (folder / "labels").is_dir():
            print(f"{folder}: needs corpus/ and labels/ inside", file=sys.stderr)
            return 2
    with tempfile.TemporaryDirectory(prefix="revetly-eval-") as tmp:
        work = args.work or Path(tmp)
        reports = []
        for folder in args.corpora:
            report = evaluate(folder.resolve(), work.resolve(), args.ablate, args.embedding,
                              args.misses)
            print_report(report)
            reports.append(report)
    if args.json:
        args.json.write_text(json.dumps(reports, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
