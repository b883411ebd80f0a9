"""The binding order as pure functions: one rule each, and independent of the read order."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from revetly_core.scope import binding_order
from revetly_core.scope.binding_order import Ranked, order_statements, summarise_ancestors


def row(aid: str, method: str = "cites", position: int = 0, at: str = "2025-01-01",
        superseded: bool = False, share: float = 0.0, bears_on: str = "S",
        above: bool = False) -> Ranked:
    return Ranked(aid, method, position, at, share, superseded, bears_on, above)


def ids(rows: list[Ranked]) -> list[str]:
    return [r.artifact_id for r in rows]


def test_live_statements_come_before_superseded_ones() -> None:
    assert ids(order_statements([row("A", superseded=True), row("B")])) == ["B", "A"]


def test_topic_word_share_comes_first_within_a_tier() -> None:
    assert ids(order_statements([row("A", share=0.5), row("B", share=1.0)])) == ["B", "A"]


def test_the_stronger_method_comes_first() -> None:
    assert ids(order_statements([row("A", "title-mention"), row("B", "supersedes")])) == ["B", "A"]


def test_explicit_ref_ranks_with_cites() -> None:
    assert binding_order.strength("explicit-ref") == binding_order.strength("cites")


def test_own_then_beneath_then_above() -> None:
    rows = [row("A", position=2), row("B", position=0), row("C", position=1)]
    assert ids(order_statements(rows)) == ["B", "C", "A"]


def test_newest_first_then_the_id() -> None:
    rows = [row("A", at="2025-01-01"), row("C", at="2025-02-01"), row("B", at="2025-02-01")]
    assert ids(order_statements(rows)) == ["B", "C", "A"]


def test_a_revises_edge_ranks_after_supersedes_and_ahead_of_cites() -> None:
    assert (binding_order.strength("supersedes") < binding_order.strength("revises")
            < binding_order.strength("cites"))


def test_the_method_is_named_by_relation_for_declared_edges() -> None:
    assert binding_order.method_of("cites", "declared") == "cites"
    assert binding_order.method_of("references", "explicit-ref") == "explicit-ref"
    assert binding_order.method_of("mentions", "title-mention") == "title-mention"
    assert binding_order.method_of("related", "declared") == "related"


def test_ancestors_keep_a_few_each() -> None:
    rows = [row(f"D{i}", bears_on="EPIC", above=True) for i in range(5)] + [row("X")]
    kept, dropped = summarise_ancestors(rows, keep=2)
    assert ids(kept) == ["D0", "D1", "X"] and dropped == {"EPIC": 3}


rows_strategy = st.lists(
    st.builds(row, st.text("ABCDEFG", min_size=1, max_size=3),
              st.sampled_from(sorted(binding_order.METHOD_STRENGTH)), st.integers(0, 2),
              st.sampled_from(["2025-01-01", "2025-02-01", ""]), st.booleans(),
              st.sampled_from([0.0, 0.5, 1.0])),
    max_size=12, unique_by=lambda r: r.artifact_id)


@given(rows_strategy, st.randoms())
def test_the_order_does_not_depend_on_the_read_order(rows: list[Ranked], rnd: object) -> None:
    shuffled = list(rows)
    rnd.shuffle(shuffled)  # type: ignore[attr-defined]
    assert ids(order_statements(shuffled)) == ids(order_statements(rows))
