"""`revetly audit-links`: live links counted by the method that found them."""

from __future__ import annotations

from revetly_core.operate.audit_links import LINK_METHODS, count_by_method

from tests.core.gitrepo import Instance


def test_every_method_is_counted_even_at_zero() -> None:
    counted = count_by_method([])
    assert list(counted) == list(LINK_METHODS)
    assert all(entry["links"] == 0 for entry in counted.values())


def test_an_unexpected_method_is_counted_under_its_own_name() -> None:
    counted = count_by_method([("declared", "parent", 2), ("ml-guess", "related", 1)])
    assert counted["declared"] == {"links": 2, "by_relation": {"parent": 2}}
    assert counted["ml-guess"]["links"] == 1


def test_audit_counts_the_instance_links_by_method(floored: Instance) -> None:
    report = floored.engine().audit_links()
    by = report["by_method"]
    assert by["declared"]["by_relation"].get("parent") == 1
    assert by["explicit-ref"]["links"] == 1  # STORY-0002 named in STORY-0001's body
    assert by["title-mention"]["links"] == 1  # "reconcile payouts" in prose
    assert by["inferred"]["links"] == 0
    assert report["live_links"] == sum(m["links"] for m in by.values())
    assert report["stated_share"] == 1.0
