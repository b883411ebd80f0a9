"""The write-back's rules, one test each: markers, notes, GitHub's status table, the adapter
registry, the record's settling, and when a call is a repeat."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st
from revetly_core.config import Config, GitHubConnector
from revetly_core.model import Artifact
from revetly_core.writeback.github import GitHubWriter, has_label, issue_state_for, wants_label
from revetly_core.writeback.hook import carried_steps, criteria_of_item, is_repeat, tracker_moved
from revetly_core.writeback.markers import carries, claim_marker, delivery_marker, marked
from revetly_core.writeback.notes import claim_note_text, delivery_note_text, released_note_text
from revetly_core.writeback.protocol import Landed, RemoteItem
from revetly_core.writeback.record import (
    WritebackRecord,
    committed,
    load_record,
    save_record,
    settled_record,
)
from revetly_core.writeback.registry import native_id_of, source_kind, writer_for

from tests.core.gitrepo import GitRepo

SETTINGS = GitHubConnector(name="app", repo="acme/app", prefix="GH")
ITEM = RemoteItem("GH-1", "github/app", "1", "story")


def _art(**kw: object) -> Artifact:
    base: dict[str, object] = {"id": "GH-1", "type": "story", "title": "T",
                               "source": "github/app", "project": "p"}
    return Artifact(**{**base, **kw})  # type: ignore[arg-type]


def _record(**kw: object) -> WritebackRecord:
    base: dict[str, object] = {"artifact_id": "GH-1", "source": "github/app",
                               "status": "done", "at": "2026-01-01T00:00:00Z"}
    return WritebackRecord(**{**base, **kw})  # type: ignore[arg-type]


# -- markers -------------------------------------------------------------------------------

def test_markers_name_what_the_note_is_for() -> None:
    assert claim_marker("GH-12") == "<!-- revetly:claim GH-12 -->"
    assert delivery_marker("DEL-0003") == "<!-- revetly:delivery DEL-0003 -->"


def test_a_marker_counts_only_on_a_line_of_its_own() -> None:
    m = claim_marker("GH-1")
    assert carries(f"text\n{m}\n", m)
    assert not carries(f"quoting `{m}` inline", m)
    assert not carries(None, m) and not carries(claim_marker("GH-11"), m)


@given(st.text())
def test_a_marked_note_always_carries_its_marker(text: str) -> None:
    m = delivery_marker("DEL-0001")
    assert carries(marked(text, m), m)


@given(st.text().filter(lambda t: "<!--" not in t))
def test_text_without_a_marker_never_carries_one(text: str) -> None:
    assert not carries(text, claim_marker("GH-1"))


# -- notes ---------------------------------------------------------------------------------

def test_the_claim_note_names_the_holder_and_a_takeover() -> None:
    text = claim_note_text("GH-1", {"by": "b", "at": "t2", "reason": "a left",
                                    "taken_over_from": "a"})
    assert "with b since t2" in text and "Taken over from a: a left" in text
    assert carries(text, claim_marker("GH-1"))


def test_the_released_note_keeps_the_claim_marker() -> None:
    text = released_note_text("GH-1", "done", "Dana", "t3")
    assert "No longer in progress" in text and carries(text, claim_marker("GH-1"))


def test_the_delivery_note_quotes_each_criterion_with_its_verdict() -> None:
    text = delivery_note_text("GH-1", {"artifact_id": "DEL-0002", "verdicts": [
        {"criterion": 1, "text": "It syncs", "verdict": "met", "note": "on wifi"}],
        "implemented_by": ["a" * 40]})
    assert "1. It syncs — **met** (on wifi)" in text and "aaaaaaaaaaaa" in text
    assert carries(text, delivery_marker("DEL-0002"))


def test_a_delivery_without_criteria_says_none_was_ruled() -> None:
    text = delivery_note_text("GH-1", {"artifact_id": "DEL-0002", "verdicts": []})
    assert "none was ruled" in text


# -- GitHub's table ----------------------------------------------------------------------

def test_github_holds_four_statuses_as_state_and_reason() -> None:
    assert issue_state_for("in-progress") == ("open", None)
    assert issue_state_for("ready") == ("open", None)
    assert issue_state_for("done") == ("closed", "completed")
    assert issue_state_for("discarded") == ("closed", "not_planned")
    assert issue_state_for("parked") is None and issue_state_for("draft") is None


def test_only_in_progress_carries_the_label() -> None:
    assert wants_label("in-progress") and not wants_label("ready")


def test_labels_compare_case_blind() -> None:
    assert has_label([{"name": "In-Progress"}], "in-progress")
    assert not has_label([{"name": "bug"}], "in-progress") and not has_label(None, "x")


def test_the_refusal_names_the_status_and_the_source() -> None:
    refusal = GitHubWriter(SETTINGS).refuse_status(ITEM, "parked")
    assert refusal is not None and refusal.code == "tracker-cannot-hold"
    assert "parked" in refusal.detail and refusal.extra["source"] == "github/app"
    assert GitHubWriter(SETTINGS).refuse_status(ITEM, "done") is None


def test_landed_records_only_what_it_has() -> None:
    assert Landed("status", "set").record() == {"step": "status", "action": "set"}


# -- the registry -------------------------------------------------------------------------

def test_a_source_id_is_kind_and_name() -> None:
    assert source_kind("github/app") == ("github", "app")
    assert source_kind("github") == ("github", "")


def test_the_adapter_is_chosen_by_the_source() -> None:
    config = Config(connectors=Config().connectors.__class__(github=[SETTINGS]))
    assert isinstance(writer_for(config, "github/app", {}), GitHubWriter)
    assert writer_for(config, "github/other", {}) is None
    assert writer_for(config, "backlog-md/tasks", {}) is None
    assert writer_for(config, "github", {}) is None


def test_the_native_id_comes_from_metadata_else_the_id() -> None:
    assert native_id_of(_art(metadata={"number": 12})) == "12"
    assert native_id_of(_art(metadata={"native_id": "abc"})) == "abc"
    assert native_id_of(_art(id="GH-7")) == "7"


def test_criteria_come_from_context_else_the_body() -> None:
    assert criteria_of_item(_art(criteria=["a"])) == ["a"]
    body = "Text.\n\n## Acceptance criteria\n\n- [ ] It syncs\n"
    assert criteria_of_item(_art(body=body)) == ["It syncs"]


# -- the record ----------------------------------------------------------------------------

def test_a_record_round_trips(tmp_path: Path) -> None:
    rec = _record(steps=[{"step": "status", "state": "pending", "status": "done"}],
                  seen_updated="u1")
    save_record(tmp_path, rec)
    loaded = load_record(tmp_path, "GH-1")
    assert loaded is not None and loaded.to_json() == rec.to_json()


def test_an_unreadable_record_is_none(tmp_path: Path) -> None:
    (tmp_path / "writeback").mkdir()
    (tmp_path / "writeback" / "GH-1.json").write_text("{not json")
    assert load_record(tmp_path, "GH-1") is None


def test_a_record_whose_commit_never_landed_gives_way_to_its_prior(tmp_path: Path) -> None:
    GitRepo(tmp_path / "repo").write_and_commit({"a.md": "x\n"}, "seed")
    root, state = tmp_path / "repo", tmp_path / "state"
    prior = _record(status="in-progress", claim={"by": "a", "at": "t"})
    rec = _record(files={"records/DEL-0001.md": "0" * 64}, prior=prior.to_json())
    save_record(state, rec)
    assert not committed(root, rec)
    settled = settled_record(root, state, "GH-1")
    assert settled is not None and settled.status == "in-progress"
    assert load_record(state, "GH-1").to_json() == prior.to_json()  # type: ignore[union-attr]


def test_a_record_with_no_prior_and_no_commit_is_dropped(tmp_path: Path) -> None:
    GitRepo(tmp_path / "repo").write_and_commit({"a.md": "x\n"}, "seed")
    save_record(tmp_path / "state", _record(files={"b.md": "0" * 64}))
    assert settled_record(tmp_path / "repo", tmp_path / "state", "GH-1") is None
    assert load_record(tmp_path / "state", "GH-1") is None


# -- repeats -------------------------------------------------------------------------------

def test_the_tracker_moved_when_a_newer_read_shows_another_status() -> None:
    rec = _record(status="done", seen_updated="u1")
    assert not tracker_moved(_art(status="ready", source_updated_at="u1"), rec)  # not read yet
    assert not tracker_moved(_art(status="done", source_updated_at="u2"), rec)  # read: ours
    assert tracker_moved(_art(status="ready", source_updated_at="u2"), rec)  # reopened


def test_the_same_status_again_is_a_repeat_unless_the_tracker_moved() -> None:
    rec = _record(status="done", seen_updated="u1")
    assert is_repeat(rec, _art(status="ready", source_updated_at="u1"), "done", None)
    assert not is_repeat(rec, _art(status="ready", source_updated_at="u2"), "done", None)
    assert not is_repeat(None, _art(), "done", None)
    ip = _record(status="in-progress")
    assert is_repeat(ip, _art(), "in-progress", "kept")
    assert not is_repeat(ip, _art(), "in-progress", "takeover")


def test_only_unlanded_delivery_notes_are_carried() -> None:
    rec = _record(steps=[{"step": "status", "state": "not_landed"},
                         {"step": "delivery_note", "state": "not_landed"},
                         {"step": "delivery_note", "state": "landed"}])
    assert carried_steps(rec) == [{"step": "delivery_note", "state": "not_landed"}]
