"""The inferred half of a read on a full instance: what a model extracted, kept below the stated.

Two rules hold: nothing stated is ever cut to make room for something inferred
(`cut_inferred_before_stated`), and an inferred edge never lifts a rank — ranking counts the
store's declared links only (`reads.search._declared_link_counts`); inferred links live in
`store.inferred`, which ranking never opens.
On a lite instance none of this runs and every inferred key reads absent with the reason lite.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, TypeVar

from revetly_core.reads.budget import BUDGET_REASON, Cut, fit, payload_bytes
from revetly_core.refusal import Refusal

if TYPE_CHECKING:
    from collections.abc import Iterable

    from revetly_core.answers.artifact import ArtifactBrief, InferredLinkRow
    from revetly_core.store.inferred import ArtifactInferred, InferredLink, InferredStore
    from revetly_core.store.protocols import Store

SUMMARY_SENTENCES = 2
"""Sentences of an inferred summary served unless inferred='all' is asked."""
INFERRED_METHOD = "inferred (graphiti extraction)"
"""The method every inferred link carries: a model read it, no source declared it."""

INFERRED_VALUES = (None, "all")
"""What a read's inferred argument takes: absent (the cap holds) or 'all' (the budget alone)."""

T = TypeVar("T")

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")


def check_inferred(inferred: object, read: str) -> bool:
    """inferred is absent or 'all' (anything else is refused by name); whether 'all' was asked."""
    if inferred not in INFERRED_VALUES:
        raise Refusal("invalid-argument", f"inferred={inferred!r} is not a value {read} takes",
                      "omit inferred, or pass 'all'", {"argument": "inferred"})
    return inferred == "all"


def sentences(text: str) -> list[str]:
    """The text's sentences: split after . ! ? or at a line break, blanks dropped."""
    return [s.strip() for s in _SENTENCE_END.split(text) if s.strip()]


def fitted_summary(text: str, limit: int = SUMMARY_SENTENCES) -> tuple[str, int]:
    """The summary's first `limit` sentences and how many it holds in all."""
    parts = sentences(text)
    return " ".join(parts[:limit]), len(parts)


def retired_sources(store: Store, ids: Iterable[str]) -> set[str]:
    """Those of ids whose source has since revised, withdrawn, superseded or discarded them: a
    live note declares it revises one, its source withdrew it, a live note supersedes it, or
    its status is discarded."""
    wanted = sorted(set(ids))
    if not wanted:
        return set()
    out = {i for i, a in store.held_artifacts(wanted).items()
           if a.deleted or a.status == "discarded"}
    out |= store.superseded_among(wanted)
    out |= {reviser.item for reviser in store.live_revisers(wanted)}
    return out


def sources_retired(sources: set[str], retired: set[str]) -> bool:
    """An inferred row was read only out of retired bodies: every source episode it came from
    is retired (a row with no known source stays live)."""
    return bool(sources) and sources <= retired


def retired_last(rows: list[T], retired: list[bool]) -> list[T]:
    """The live inferred rows, then the retired ones, each in the order given: demoted, none
    removed."""
    return ([r for r, gone in zip(rows, retired, strict=True) if not gone]
            + [r for r, gone in zip(rows, retired, strict=True) if gone])


def names_an_endpoint(link: InferredLink, artifact_id: str) -> bool:
    """Whether the fact's own sentence names either end it joins (else unnamed_endpoints)."""
    fact = link.fact.lower()
    return artifact_id.lower() in fact or link.name.lower() in fact


def link_row(link: InferredLink, artifact_id: str) -> InferredLinkRow:
    """One inferred link as served: the far node, the fact, the method, and the warning where
    the sentence names neither end."""
    row: InferredLinkRow = {"name": link.name, "target_id": link.target_id,
                            "relation": link.relation, "fact": link.fact,
                            "method": INFERRED_METHOD}
    if not names_an_endpoint(link, artifact_id):
        row["unnamed_endpoints"] = True
    return row


def link_rows(half: ArtifactInferred | None, artifact_id: str) -> list[InferredLinkRow]:
    """Every inferred link of the artifact, in extraction order."""
    return [] if half is None else [link_row(link, artifact_id) for link in half.links]


def add_brief_keys(brief: ArtifactBrief, half: ArtifactInferred | None,
                   everything: bool = False) -> None:
    """The brief's inferred keys on a full instance: the summary (two sentences, or whole with
    inferred='all'; beside the stated words, never instead of them), the entity types
    extracted, the full-record counts."""
    whole = 10**6
    summary, total = fitted_summary(half.summary if half else "",
                                    whole if everything else SUMMARY_SENTENCES)
    if summary:
        brief["inferred_summary"] = summary
        if total > SUMMARY_SENTENCES and not everything:
            brief["inferred_summary_truncated"] = {
                "reason": "inferred-cap", "sentences_total": total,
                "sentences_served": SUMMARY_SENTENCES}
    brief["entity_types_present"] = list(half.entity_types) if half else []
    hint = brief.get("full_record")
    if hint is not None:
        hint["inferred_links"] = len(half.links) if half else 0
        hint["inferred_summary"] = bool(summary)


def cut_inferred_before_stated(payload: Any, budget: int) -> None:
    """Over budget, the inferred rows go first (weakest tail first), then the inferred summary;
    only what still does not fit is left to the stated cuts, so nothing stated is ever cut to
    make room for something inferred."""
    if payload_bytes(payload) <= budget:
        return
    if isinstance(payload.get("inferred_links"), list):
        fit(payload, [Cut(("inferred_links",), "inferred_links_truncated")], budget)
    if payload_bytes(payload) > budget and "inferred_summary" in payload:
        total = len(sentences(payload.pop("inferred_summary")))
        payload.pop("inferred_summary_truncated", None)
        payload["inferred_summary_truncated"] = {
            "reason": BUDGET_REASON, "sentences_total": total, "sentences_served": 0}


BRANCH_SCAN = 500
"""Branch artifacts whose inferred links one read counts (past it the total is a floor)."""
BRANCH_SAMPLE = 10
"""Inferred edges a branch lists, one per artifact in turn so the sample spans the branch."""


def branch_inferred(inferred: InferredStore, ids: list[str],
                    sample: int | None = BRANCH_SAMPLE) -> dict[str, Any]:
    """The inferred edges about a branch's artifacts, beside the tree: counted (total,
    unnamed_endpoints), sampled one per artifact in turn (`sample` at most; None, as
    inferred='all' asks, lists every one counted); none is a node or moves one."""
    per_artifact: list[list[InferredLinkRow]] = []
    total = unnamed = 0
    for artifact_id in ids[:BRANCH_SCAN]:
        rows = link_rows(inferred.of_artifact(artifact_id), artifact_id)
        total += len(rows)
        unnamed += sum(1 for r in rows if r.get("unnamed_endpoints"))
        if rows:
            per_artifact.append([{**r, "artifact_id": artifact_id} for r in rows])  # type: ignore[typeddict-unknown-key]
    listed: list[dict[str, Any]] = []
    cap = total if sample is None else sample
    turn = 0
    while len(listed) < cap and any(turn < len(rows) for rows in per_artifact):
        for rows in per_artifact:
            if turn < len(rows) and len(listed) < cap:
                listed.append(dict(rows[turn]))
        turn += 1
    out: dict[str, Any] = {"total": total, "unnamed_endpoints": unnamed, "listed": listed,
                           "method": INFERRED_METHOD}
    if len(ids) > BRANCH_SCAN:
        out["total_is_floor"] = True
    return out


def drop_branch_sample(block: dict[str, Any]) -> bool:
    """Take the listed sample off a branch's inferred block (the counts stay) before any node of
    the tree is cut; whether there was one to take."""
    listed = block.get("listed")
    if not listed:
        return False
    block["listed"] = []
    block["listed_truncated"] = {"reason": BUDGET_REASON, "total": len(listed), "listed": 0,
                                 "note": "the inferred sample goes before any node of the tree"}
    return True
