"""get_scope(question='drift'): criteria at delivery against verdicts, stated only."""

from __future__ import annotations

from typing import Any

from revetly_core.model import Artifact
from revetly_core.scope.drift import quoted_criteria

from tests.core.scope.corpus import Corpus


def drift(corpus: Corpus, **kw: Any) -> dict[str, Any]:
    return corpus.engine().get_scope("drift", **kw)


def test_drift_is_stated_only(corpus: Corpus) -> None:
    assert drift(corpus)["provenance"] == {"inferred": False}


def test_a_delivery_with_every_criterion_met_is_clean(corpus: Corpus) -> None:
    out = drift(corpus)
    assert "STORY-0003" in out["clean"]


def test_a_partial_verdict_is_a_departure_with_its_note(corpus: Corpus) -> None:
    dep = next(d for d in drift(corpus)["departures"] if d["artifact_id"] == "STORY-0004")
    assert dep["verdict"] == "partial" and dep["note"] == "no refunds yet"
    assert dep["criterion_declared"] is True


def test_a_criterion_reworded_since_delivery_is_marked(corpus: Corpus) -> None:
    dep = next(d for d in drift(corpus)["departures"] if d["artifact_id"] == "STORY-0004")
    assert dep["text"] == "Negative rows for refunds" and dep["reworded_since"] is True


def test_done_without_a_record_is_named(corpus: Corpus) -> None:
    ids = [r["artifact_id"] for r in drift(corpus)["done_without_record"]]
    assert "STORY-0006" in ids and "STORY-0003" not in ids


def test_no_criteria_declared_states_its_departures_as_undeclared(corpus: Corpus) -> None:
    out = drift(corpus)
    assert {"artifact_id": "STORY-0007", "record": "DEL-0042"} in out["no_criteria_declared"]
    dep = next(d for d in out["departures"] if d["artifact_id"] == "STORY-0007")
    assert dep["criterion_declared"] is False and dep["verdict"] == "not-met"


def test_a_window_counts_deliveries_by_the_time_their_record_states(corpus: Corpus) -> None:
    out = drift(corpus, since="2025-02-01", until="2025-03-01")
    assert [r["record"] for r in out["delivered"]] == ["DEL-0041"]
    assert out["window"]["clock"] == "source"


def test_drift_rooted_at_an_artifact_reads_its_branch(corpus: Corpus) -> None:
    out = drift(corpus, artifact_id="STORY-0004")
    assert [r["artifact_id"] for r in out["delivered"]] == ["STORY-0004"]
    assert out["scope"] == {"kind": "artifact", "artifact_id": "STORY-0004"}


def test_quoted_criteria_are_read_from_the_record_without_the_verdicts() -> None:
    record = Artifact("DEL-1", "delivery", "d", "repository", "p",
                      body="x\n\n## Criteria at delivery\n\n1. Alpha (met)\n2. Beta (partial; meh)\n")
    assert quoted_criteria(record) == ["Alpha", "Beta"]
