"""search_context's inferred half on a full instance: concepts, and the inferred fact band
after the two stated ones, each fitted by count under inferred_cap and cut before anything stated.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from revetly_core.reads.budget import BUDGET_REASON, Cut, fit, payload_bytes
from revetly_core.reads.inferred import (
    INFERRED_METHOD,
    SUMMARY_SENTENCES,
    fitted_summary,
    retired_last,
    retired_sources,
    sources_retired,
)

if TYPE_CHECKING:
    from revetly_core.answers.search import ConceptRow, Fact, InferredCap
    from revetly_core.store.inferred import Concept, InferredFact, InferredStore
    from revetly_core.store.protocols import Store

CAP_CONCEPTS = 5
"""Concepts a search serves unless inferred='all' was asked."""
CAP_FACTS = 5
"""Inferred facts a search serves (within limit) unless inferred='all' was asked."""
CAP_REASON = "inferred-cap"


def concept_row(concept: Concept, sentences: int | None) -> ConceptRow:
    """A concept as served: its name, its summary fitted to `sentences` (None: whole) with the
    whole length beside it, the artifacts that mentioned it, and what it is."""
    summary, total = fitted_summary(concept.summary, sentences if sentences is not None else 10**6)
    return {"name": concept.name, "summary": summary, "summary_sentences_total": total,
            "mentioned_by": list(concept.artifact_ids), "method": INFERRED_METHOD}


def inferred_fact_row(fact: InferredFact) -> Fact:
    """An inferred fact on the shelf's third band, its endpoints the ids (or names) it joins."""
    return {"fact": fact.fact, "relation": fact.relation,
            "endpoints": [fact.artifact_id, fact.target_id or fact.name], "band": "inferred",
            "matched": True}


def cap_report(total: int, listed: int) -> dict[str, Any]:
    return {"reason": CAP_REASON, "total": total, "listed": listed,
            "note": "inferred rows are fitted by count; inferred='all' serves them all"}


def demote_retired_facts(store: Store, inferred: InferredStore, facts: list[InferredFact]
                         ) -> tuple[list[InferredFact], int]:
    """The facts read only out of retired bodies follow the live ones (`sources_retired`);
    returns the reordered facts and how many are retired (they come last)."""
    sources = inferred.fact_sources([f.fact for f in facts])
    retired = retired_sources(store, {i for ids in sources.values() for i in ids})
    flags = [sources_retired(sources.get(f.fact, {f.artifact_id}), retired) for f in facts]
    return retired_last(facts, flags), sum(flags)


def add_search_inferred(payload: Any, inferred: InferredStore, words: list[str],
                        served: list[str], limit: int, everything: bool, store: Store) -> None:
    """Concepts and the inferred fact band for the served rows, under the cap (or every one
    under the read budget alone with inferred='all'); the stated facts keep their room, and the
    facts whose every source was retired follow the live ones, marked."""
    near = set(served)
    concepts = [c for c in inferred.concepts_matching(words) if near & set(c.artifact_ids)]
    facts, retired = demote_retired_facts(
        store, inferred, [f for f in inferred.facts_matching(words) if f.artifact_id in near])
    if retired:
        payload["inferred_retired"] = {"count": retired}
    first_retired = len(facts) - retired
    cap_c = len(concepts) if everything else CAP_CONCEPTS
    room = max(0, limit - len(payload["facts"]))
    cap_f = room if everything else min(CAP_FACTS, room)
    payload["concepts"] = [concept_row(c, None if everything else SUMMARY_SENTENCES)
                           for c in concepts[:cap_c]]
    for n, fact in enumerate(facts[:cap_f]):
        row = inferred_fact_row(fact)
        if n >= first_retired:
            row["sources_retired"] = True
        payload["facts"].append(row)
    payload["inferred_facts"] = {"served": min(len(facts), cap_f), "total": len(facts),
                                 "method": INFERRED_METHOD}
    cap: InferredCap = {"concepts": len(payload["concepts"]),
                        "facts": min(len(facts), cap_f),
                        "summary_sentences": None if everything else SUMMARY_SENTENCES}
    payload["inferred_cap"] = cap
    if len(concepts) > cap_c:
        payload["truncated_concepts"] = cap_report(len(concepts), cap_c)
    if len(facts) > cap_f:
        payload["truncated_facts"] = cap_report(len(facts), cap_f)


def cut_search_inferred_first(payload: Any, budget: int) -> None:
    """Over budget, the concepts go first, then the inferred facts (the shelf's tail), then the
    surviving concepts' sentences; the stated passages, facts and artifacts are cut only after,
    so nothing stated is ever cut to make room for something inferred."""
    if payload_bytes(payload) <= budget:
        return
    fit(payload, [Cut(("concepts",), "truncated_concepts")], budget)
    facts = payload["facts"]
    dropped = 0
    while payload_bytes(payload) > budget and facts and facts[-1]["band"] == "inferred":
        facts.pop()
        dropped += 1
    if dropped:
        served = payload["inferred_facts"]["served"] - dropped
        payload["inferred_facts"]["served"] = served
        payload["truncated_facts"] = {"reason": BUDGET_REASON,
                                      "total": payload["inferred_facts"]["total"],
                                      "listed": served,
                                      "note": f"inferred facts cut to fit the {budget}-byte "
                                              "read budget"}
    for row in payload.get("concepts", []):
        if payload_bytes(payload) <= budget:
            break
        row["summary"] = ""
