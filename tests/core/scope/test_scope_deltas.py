"""get_scope(question='deltas'): a window on the source clock or the ingest clock."""

from __future__ import annotations

from typing import Any

from tests.core.scope.corpus import Corpus


def deltas(corpus: Corpus, **kw: Any) -> dict[str, Any]:
    return corpus.engine().get_scope("deltas", **kw)


def test_the_source_clock_places_a_change_where_git_dates_it(corpus: Corpus) -> None:
    out = deltas(corpus, since="2025-01-08")  # the task was edited on BASE_TIME + 20 days
    ids = [r["artifact_id"] for r in out["changed"]]
    assert ids == ["TASK-0005"]
    change = out["changed"][0]["changes"][0]
    assert change["clock"] == "source" and change["change"] in ("modified", "edited")


def test_every_served_time_names_its_clock(corpus: Corpus) -> None:
    for clock in ("source", "ingest"):
        out = deltas(corpus, clock=clock)
        assert out["window"]["clock"] == clock
        for row in out["changed"]:
            assert row["clock"] == clock
            assert all(e["clock"] == clock for e in row["changes"])


def test_the_ingest_clock_places_changes_where_this_instance_learned_of_them(corpus: Corpus) -> None:
    out = deltas(corpus, clock="ingest", since="2000-01-01")
    assert out["counts"]["artifacts"] > 30
    assert {e["change"] for r in out["changed"] for e in r["changes"]} == {"read"}
    assert deltas(corpus, clock="ingest", until="2000-01-01")["changed"] == []


def test_deltas_states_what_it_does_not_count(corpus: Corpus) -> None:
    out = deltas(corpus)
    assert out["edits"] == {"bodies_read": False}
    assert out["links"] == {"counted": False}
    assert out["provenance"] == {"inferred": False}
    assert out["undated"]["count"] == 0


def test_external_references_count_ids_never_ingested(corpus: Corpus) -> None:
    assert deltas(corpus)["external_references"] == {"count": 0}


def test_commits_are_counted_per_repository(corpus: Corpus) -> None:
    assert deltas(corpus)["commits"]["by_source"]["commits/app"] == 5


def test_deltas_rooted_at_an_artifact_reads_its_branch(corpus: Corpus) -> None:
    ids = {r["artifact_id"] for r in deltas(corpus, artifact_id="STORY-0003")["changed"]}
    assert ids == {"STORY-0003", "TASK-0005"}


def test_the_limit_cuts_the_tail_and_says_so(corpus: Corpus) -> None:
    out = deltas(corpus, limit=3)
    assert len(out["changed"]) == 3 and out["truncated_changed"]["listed"] == 3
