"""get_authoring_context: the nearest backlog, related, and what binds that backlog."""

from __future__ import annotations

from typing import Any

import pytest
from revetly_core.reads.budget import ENV_READ_BUDGET, payload_bytes
from revetly_core.scope import authoring

from tests.core.scope.corpus import Corpus


def bundle(corpus: Corpus, topic: str = "export the ledger as csv", **kw: Any) -> dict[str, Any]:
    return corpus.engine().get_authoring_context(topic, **kw)


def test_the_backlog_rows_are_slim_briefs(corpus: Corpus) -> None:
    rows = {r["artifact_id"]: r for r in bundle(corpus)["backlog"]}
    row = rows["STORY-0003"]
    assert row["acceptance_criteria"] == ["Rows follow the ledger", "Totals match"]
    assert row["parent"] == "FEAT-0002" and row["method"].startswith("keyword")
    assert set(row["declared_links"]) == {"cites", "parent"}
    assert len(row["body"]) <= authoring.BODY_HEAD_CHARS


def test_a_revised_backlog_row_carries_revised_by_and_the_scope_does_not_repeat_it(
    corpus: Corpus,
) -> None:
    out = bundle(corpus)
    row = next(r for r in out["backlog"] if r["artifact_id"] == "STORY-0003")
    assert row["revised_by"][0]["id"] == "DEC-0016"
    revised = out["binding"]["scope"].get("revised", [])
    assert "STORY-0003" not in {r["artifact_id"] for r in revised}


def test_only_work_items_are_the_backlog(corpus: Corpus) -> None:
    types = {r["artifact_type"] for r in bundle(corpus)["backlog"]}
    assert types <= {"epic", "feature", "story", "task", "bug"}


def test_related_does_not_repeat_the_backlog(corpus: Corpus) -> None:
    out = bundle(corpus)
    backlog = {r["artifact_id"] for r in out["backlog"]}
    related = out["related"]
    assert not backlog & {r["artifact_id"] for r in related["artifacts"]}
    assert set(related["artifacts_in_backlog"]) <= backlog


def test_binding_serves_fifteen_whole_and_the_rest_as_pointers(corpus: Corpus) -> None:
    out = bundle(corpus, "ledger platform exports")
    statements = out["binding"]["statements"]
    assert len(statements) > authoring.STATEMENTS_WHOLE
    assert "statement" in statements[0] and "source_path" not in statements[0]
    assert set(statements[authoring.STATEMENTS_WHOLE]) == set(authoring.POINTER_KEYS)
    assert out["binding"]["pointers"]["from"] == authoring.STATEMENTS_WHOLE + 1
    assert len(statements) <= authoring.STATEMENTS_SERVED


def test_the_topic_gather_joins_after_the_walks_statements(corpus: Corpus) -> None:
    out = bundle(corpus, "ledger rounding export")
    ids = [s["artifact_id"] for s in out["binding"]["statements"]]
    assert ids.count("DEC-0025") == 1
    assert ids[-1] == "DEC-0025"  # the walk reached it nowhere; the topic's own words did


def test_a_bundle_that_found_no_backlog_says_binding_gathered_nothing(corpus: Corpus) -> None:
    out = bundle(corpus, "zeppelin mooring")
    assert out["backlog"] == [] and out["binding"]["statements"] == []
    assert "gathered nothing" in out["binding"]["note"]


def test_a_budget_cut_names_the_cut_statements_and_keeps_one(
    corpus: Corpus, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ENV_READ_BUDGET, "5000")
    out = bundle(corpus, "ledger platform exports")
    assert payload_bytes(out) <= 5000
    assert out["binding"]["statements"]
    assert out["binding"]["truncated_ids"] or out["binding"].get("truncated_ids_more")


def test_a_failed_topic_gather_keeps_the_walks_statements_and_says_why(
    corpus: Corpus, monkeypatch: pytest.MonkeyPatch
) -> None:
    from revetly_core.refusal import Refusal

    def fails(*_args: Any, **_kw: Any) -> Any:
        raise Refusal("not-synced", "the keyword index is missing or torn", "run `revetly sync`")

    monkeypatch.setattr(authoring, "match_topic", fails)
    out = bundle(corpus)
    assert out["binding"]["topic_error"]["code"] == "not-synced"
    assert out["binding"]["statements"]
