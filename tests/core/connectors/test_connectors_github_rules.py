"""The github source's rules, one test each: type map, status, closing references, URLs."""

from __future__ import annotations

from revetly_core.config import GitHubConnector as GitHubSettings
from revetly_core.connectors.github import (
    closing_references,
    comment_entry,
    iso_time,
    issue_number_of_url,
    issue_status,
    native_type_of,
    parse_issue,
)
from revetly_core.connectors.tracker_types import item_type

TYPES = {"story": ["story", "feature"], "bug": ["bug"], "epic": ["epic"]}


def test_a_native_type_the_map_names_types_the_item_before_its_labels() -> None:
    reading = item_type("Bug", ["story"], TYPES, "issue")
    assert (reading.type, reading.typed_by, reading.why) == ("bug", "native_type:Bug", None)


def test_a_mapped_label_types_the_item_case_folded() -> None:
    reading = item_type(None, ["Needs-Design", "Feature"], TYPES, "issue")
    assert (reading.type, reading.typed_by) == ("story", "label:Feature")
    assert reading.metadata() == {"typed_by": "label:Feature"}


def test_an_item_no_map_covers_keeps_its_own_word_and_says_why() -> None:
    untyped = item_type(None, ["question"], TYPES, "issue")
    unmapped = item_type("Spike", ["question"], TYPES, "issue")
    assert (untyped.type, untyped.why) == ("issue", "untyped")
    assert (unmapped.type, unmapped.why) == ("issue", "unmapped")
    assert unmapped.metadata() == {"untyped_why": "unmapped"}
    assert item_type("Bug", ["bug"], {}, "issue").why == "unmapped"  # no map: no default type


def test_state_and_the_in_progress_label_give_the_status() -> None:
    assert issue_status("open", None, [], "in-progress") == "ready"
    assert issue_status("open", None, ["In-Progress"], "in-progress") == "in-progress"
    assert issue_status("closed", "completed", ["in-progress"], "in-progress") == "done"
    assert issue_status("closed", None, [], "in-progress") == "done"
    assert issue_status("closed", "not_planned", [], "in-progress") == "discarded"


def test_closing_words_name_this_repositorys_issues_only() -> None:
    body = "Closes #3. fixes: #4, Resolved acme/App#5, fixes other/repo#9, see #6, closes #3"
    assert closing_references(body, "acme/app") == [3, 4, 5]
    assert closing_references("prefix#3 and closes#4", "acme/app") == []


def test_an_issue_url_names_a_number_only_in_this_repository() -> None:
    assert issue_number_of_url("https://api.github.com/repos/acme/app/issues/12", "acme/app") == 12
    assert issue_number_of_url("https://api.github.com/repos/acme/web/issues/12", "acme/app") is None
    assert issue_number_of_url(None, "acme/app") is None


def test_times_read_as_utc_iso_or_none() -> None:
    assert iso_time("2024-01-02T03:04:05Z") == "2024-01-02T03:04:05Z"
    assert iso_time("2024-01-02T05:04:05+02:00") == "2024-01-02T03:04:05Z"
    assert iso_time("yesterday") is None and iso_time(7) is None


def test_the_native_type_is_the_issue_types_name() -> None:
    assert native_type_of({"type": {"name": "Bug", "id": 1}}) == "Bug"
    assert native_type_of({"type": None}) is None


def test_the_parent_is_declared_only_from_this_repository() -> None:
    settings = GitHubSettings(name="app", repo="acme/app", prefix="GH")
    raw = {"number": 2, "title": "t", "state": "open", "updated_at": "2024-01-02T03:04:05Z",
           "parent_issue_url": "https://api.github.com/repos/acme/app/issues/1"}
    assert parse_issue(raw, settings=settings, source_id="github/app", project="p").parent == "GH-1"
    raw["parent_issue_url"] = "https://api.github.com/repos/other/repo/issues/1"
    assert parse_issue(raw, settings=settings, source_id="github/app", project="p").parent is None


def test_a_comment_is_a_change_note_on_its_issues_path() -> None:
    number, entry = comment_entry({"id": 9, "issue_url": "https://x/repos/acme/app/issues/4",
                                   "created_at": "2024-01-02T03:04:05Z",
                                   "updated_at": "2024-01-03T03:04:05Z", "body": "\n  Hi there\nmore",
                                   "user": {"login": "ana"}}, "acme/app")
    assert number == 4
    assert (entry.artifact_id, entry.revision, entry.change, entry.author, entry.summary) == (
        "issues/4", "comment/9", "comment-edited", "ana", "Hi there")
