"""context_health: whether the last read pass landed, per source, and what CONTEXT holds."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from revetly_core.inferred.instance import is_full
from revetly_core.reads.outside import outside_counts

if TYPE_CHECKING:
    from revetly_core.answers.common import Freshness
    from revetly_core.answers.health import HealthAnswer, SourceHealth
    from revetly_core.config import Config
    from revetly_core.store.inferred import InferredStore
    from revetly_core.store.protocols import KeywordIndex, Store


def history_block(sources: Sequence[Mapping[str, Any]]) -> dict[str, Any] | None:
    """floors / gaps / partial for the sources that have a floor; None when none has one."""
    floors = {s["source"]: s["floor"] for s in sources if s.get("floor")}
    gaps = {s["source"]: s["gaps"] for s in sources if s.get("gaps")}
    partial = sorted(s["source"] for s in sources if s.get("partial"))
    if not floors and not gaps and not partial:
        return None
    block: dict[str, Any] = {"floors": floors}
    if gaps:
        block["gaps"] = gaps
    if partial:
        block["partial"] = partial
    return block


def freshness(sources: Sequence[Mapping[str, Any]], watching: bool = False) -> Freshness:
    """When the oldest source was last read, and whether a watcher keeps it fresh."""
    read = [s["last_read_at"] for s in sources if s.get("last_read_at")]
    return {"oldest_source_read_at": min(read) if read else None, "watch": watching}


def watching(store: Store) -> bool:
    """Whether `revetly watch` is running on the instance this store belongs to."""
    from revetly_core.operate.watch import watch_running

    return watch_running(store.path.parent)


def context_health(config: Config, store: Store, index: KeywordIndex) -> HealthAnswer:
    """The health payload: last pass, each source's last read, revision, history and counts."""
    last = store.last_pass()
    sources: list[SourceHealth] = []
    for row in store.sources():
        ledger = store.last_ledger(row["source"])
        entry: SourceHealth = {
            "source": row["source"],
            "project": row["project"],
            "last_read_at": row["last_read_at"],
            "outcome": row["last_outcome"],
            "floor": row["floor"],
            "gaps": json.loads(row["gaps"]),
            "partial": bool(row["partial"]),
        }
        if ledger is not None:
            entry["last_counts"] = json.loads(ledger["counts"])
            if ledger["note"]:
                entry["note"] = ledger["note"]
        sources.append(entry)
    revision = store.revision
    payload: HealthAnswer = {
        "instance": config.instance.name,
        "project": config.default_project,
        "corpus_revision": revision,
        "last_pass": None,
        "sources": sources,
        "freshness": freshness(sources, watching(store)),
        "counts": store.counts(),
        "problems": len(store.problems()),
        "index": {"backend": index.backend_name, "revision": index.revision(),
                  "current": index.revision() == revision},
    }
    if last is not None:
        payload["last_pass"] = {
            "pass_id": last["pass_id"], "outcome": last["outcome"], "full": bool(last["full"]),
            "started_at": last["started_at"], "ended_at": last["ended_at"],
            "changed": json.loads(last["counts"]),
        }
        if last["outcome"] == "failed":
            payload["context_health"] = {
                "last_pass_failed": True, "error": last["error"],
                "serving_revision": revision,
                "note": "CONTEXT serves what it held before the failed pass",
            }
    hist = history_block(sources)
    if hist is not None:
        payload["history"] = hist
    unparsed = store.unparsed_criteria_by_source()
    if unparsed:
        payload["criteria_unparsed"] = unparsed
    payload["outside_backlog"] = outside_counts(store)
    if is_full(config):  # the inferred store is read on a full instance only
        from revetly_core.store.inferred import InferredStore

        payload["inferred"] = inferred_health(InferredStore(index.directory), revision)
    return payload


def inferred_health(inferred: InferredStore, revision: int) -> dict[str, Any]:
    """The inferred half on a full instance: episodes held, whether it is current, and, where
    the last extraction failed, that it is degraded (the stated half never is, by it)."""
    meta = inferred.meta()
    error = meta.get("error")
    out: dict[str, Any] = {"engine": "graphiti-core + kuzu", "episodes": inferred.episode_count(),
                           "revision": int(meta["revision"]) if "revision" in meta else None,
                           "pending": int(meta.get("pending", "0")), "degraded": bool(error)}
    out["current"] = out["revision"] == revision and not error
    if error:
        out["error"] = error
        out["note"] = ("the inferred half only: stated reads are unaffected; the next "
                       "`revetly sync` retries the pending artifacts")
    return out
