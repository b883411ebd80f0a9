"""The pass's last check before the store: an artifact the store cannot hold fails its file."""

from __future__ import annotations

import pytest
from revetly_core.connectors.base import KnownArtifact, Removal, SourceBatch
from revetly_core.ingest.readpass import keep_storable, redates, storable_row, unstorable
from revetly_core.model import Artifact
from revetly_core.store.rows import artifact_row


def art(artifact_id: str = "STORY-0001", **kw: object) -> Artifact:
    fields: dict[str, object] = {"title": "t", **kw}
    return Artifact(id=artifact_id, type="story", source="repository", project="acme",
                    source_path=f"backlog/{artifact_id}.md", **fields)  # type: ignore[arg-type]


def test_a_plain_artifact_is_storable() -> None:
    assert unstorable(art()) is None


@pytest.mark.parametrize("bad", [
    {"metadata": {"w": float("nan")}},
    {"metadata": {"w": float("inf")}},
    {"title": "\ud800"},
    {"body": "ok \udce9"},
])
def test_a_value_json_or_sqlite_cannot_hold_is_unstorable(bad: dict[str, object]) -> None:
    assert unstorable(art(**bad)) is not None


def test_keep_storable_moves_the_bad_artifact_to_a_problem_naming_its_file() -> None:
    batch = SourceBatch(source="repository",
                        upserts=[art("STORY-0001"), art("STORY-0002", title="\ud800")])
    keep_storable(batch)
    assert [a.id for a in batch.upserts] == ["STORY-0001"]
    (problem,) = batch.problems
    assert (problem.path, problem.code) == ("backlog/STORY-0002.md", "unstorable")
    assert "backlog/STORY-0002.md" in batch.cleared_paths


def test_a_commit_dates_a_removal_first_found_missing() -> None:
    found = KnownArtifact("STORY-0001", "backlog/a.md", "b", True, "2025-01-01", "found")
    dated = KnownArtifact("STORY-0001", "backlog/a.md", "b", True, "2025-01-01",
                          "source-declared")
    by_commit = Removal("STORY-0001", "2025-01-02", "source-declared", "removed by commit x")
    assert redates(found, by_commit)
    assert not redates(dated, by_commit)
    assert not redates(found, Removal("STORY-0001", "2025-01-02", "found"))


@pytest.mark.parametrize("fields", [
    {},
    {"metadata": {"w": float("nan")}},
    {"metadata": {"w": float("inf")}},
    {"metadata": {"b": 1, "a": [2, {"z": None}]}},
    {"metadata": {1: "x", "a": "y"}},
    {"title": "\ud800"},
    {"body": "ok \udce9"},
    {"aliases": ["a", "\udce9"]},
])
def test_storable_row_agrees_with_unstorable_and_is_the_row_written(fields: dict[str, object]) -> None:
    """The row built once for check and write is None exactly when unstorable names a reason,
    and otherwise is the row upsert_artifacts would write."""
    a = art(**fields)
    row = storable_row(a, "2025-01-01T00:00:00+00:00")
    assert (row is None) == (unstorable(a) is not None)
    if row is not None:
        assert row == artifact_row(a, "2025-01-01T00:00:00+00:00")
