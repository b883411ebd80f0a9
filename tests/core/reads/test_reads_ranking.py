"""One test per ranking signal."""

from __future__ import annotations

import datetime as dt

from revetly_core.reads import ranking
from revetly_core.reads.ranking import Candidate


def cand(**kw: object) -> Candidate:
    base: dict[str, object] = dict(artifact_id="STORY-0001", artifact_type="story", family="STORY",
                                   when="2025-01-01", provenance="source-of-record", link_count=0,
                                   superseded=False)
    base.update(kw)
    return Candidate(**base)  # type: ignore[arg-type]


def test_exact_id_applies_only_to_backlog_families() -> None:
    assert ranking.exact_id_signal(cand(), {"STORY-0001"}, {"STORY"}, 4.0) == 4.0
    note = cand(artifact_id="DEC-0001", artifact_type="decision", family="DEC")
    assert ranking.exact_id_signal(note, {"DEC-0001"}, {"STORY"}, 4.0) == 1.0
    assert ranking.exact_id_signal(cand(), set(), {"STORY"}, 4.0) == 1.0


def test_recency_halves_per_half_life_behind_the_freshest_row() -> None:
    freshest = dt.date(2025, 1, 1) + dt.timedelta(days=30)
    assert ranking.recency_signal(cand(), freshest, 180) == 0.5 ** (30 / 180)
    assert ranking.recency_signal(cand(when=freshest.isoformat()), freshest, 180) == 1.0


def test_recency_never_weighs_an_old_row_below_its_floor() -> None:
    """Regression (issue 12): a 180-day half-life buried old items the words pointed at."""
    freshest = dt.date(2035, 1, 1)
    assert ranking.recency_signal(cand(), freshest, 180) == ranking.RECENCY_FLOOR


def test_recency_is_off_by_default() -> None:
    assert ranking.weights({})["recency"] == 0.0
    assert ranking.recency_signal(cand(), dt.date(2035, 1, 1), 0.0) == 1.0
    assert ranking.weights({"recency": 90.0})["recency"] == 90.0


def test_the_feedback_leg_is_off_by_default_and_an_instance_may_turn_it_on() -> None:
    assert ranking.leg_share({}, "feedback") == 0.0
    assert ranking.leg_share({"feedback": 0.5}, "feedback") == 0.5


def test_recency_never_ages_binding_notes() -> None:
    old = cand(artifact_type="decision", when="2020-01-01")
    assert ranking.recency_signal(old, dt.date(2025, 1, 1), 180) == 1.0
    assert ranking.recency_signal(cand(artifact_type="constraint", when="2020-01-01"),
                                  dt.date(2025, 1, 1), 180) == 1.0


def test_undated_rows_are_not_aged() -> None:
    assert ranking.recency_signal(cand(when=None), dt.date(2025, 1, 1), 180) == 1.0


def test_provenance_weighs_a_mirror_below_the_source_of_record() -> None:
    assert ranking.provenance_signal(cand(provenance="mirror"), 1.0) < ranking.provenance_signal(
        cand(), 1.0)


def test_link_count_favours_linked_rows_and_flattens() -> None:
    zero, one, ten, hundred = (ranking.link_count_signal(cand(link_count=n), 0.1)
                               for n in (0, 1, 10, 100))
    assert zero == 1.0 < one < ten < hundred
    assert (hundred - ten) < (ten - zero)


def test_a_commit_counts_for_its_kind_weight() -> None:
    assert ranking.kind_signal(cand(artifact_type="commit"), 0.6) == 0.6
    assert ranking.kind_signal(cand(), 0.6) == 1.0


def test_superseded_rows_are_halved() -> None:
    assert ranking.superseded_signal(cand(superseded=True), 0.5) == 0.5
    assert ranking.superseded_signal(cand(), 0.5) == 1.0


def test_instance_overrides_replace_defaults() -> None:
    w = ranking.weights({"kind": 0.3})
    assert w["kind"] == 0.3 and w["exact-id"] == 4.0


def test_weigh_multiplies_all_six() -> None:
    c = cand(artifact_type="commit", superseded=True)
    w = ranking.weights({})
    score = ranking.weigh(c, 1.0, w=w, query_ids=set(), backlog_families={"STORY"},
                          freshest=dt.date(2025, 1, 1))
    assert abs(score - 0.6 * 0.5) < 1e-9


def test_link_count_is_off_by_default() -> None:
    """Measured (issue 12, decision 0011): off wins every set on both real corpora."""
    assert ranking.weights({})["link-count"] == 0.0
    assert ranking.link_count_signal(cand(link_count=50), 0.0) == 1.0


def test_link_count_reads_no_tree_edge() -> None:
    """Regression (issue 12): every child's parent edge lifted the parent over the child."""
    assert ranking.counts_toward("depends_on")
    assert ranking.counts_toward("supersedes")
    assert not ranking.counts_toward("parent")


def test_an_inferred_edge_never_lifts_a_rank() -> None:
    """Only a declared link counts toward a row's link count, never an inferred one."""
    from revetly_core.operate.audit_links import LINK_METHODS
    from revetly_core.reads.inferred import INFERRED_METHOD

    assert [m for m in (*LINK_METHODS, INFERRED_METHOD) if ranking.lifts_rank(m)] == ["declared"]
    assert all(ranking.lifts_rank(m) for m in ranking.RANK_LINK_METHODS)


def test_links_are_read_only_when_link_count_weighs() -> None:
    """At weight 0 the signal is 1 for every row, so a search need not count links at all."""
    assert not ranking.reads_links(ranking.weights({}))
    assert ranking.reads_links(ranking.weights({"link-count": 0.1}))
