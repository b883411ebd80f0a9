"""The scaffolding every tracker adapter shares: the client, a stopped read, removals."""

from __future__ import annotations

from revetly_core.config import GitHubConnector as GitHubSettings
from revetly_core.connectors.base import KnownArtifact, SourceBatch
from revetly_core.connectors.tracker_http import TrackerStop
from revetly_core.connectors.tracker_read import (
    TrackerSource,
    bearer,
    held_numbers,
    record_stop,
    removals_of_unseen,
    stop_words,
    tracker_client,
)

SETTINGS = GitHubSettings(name="gh", repo="o/r", prefix="GH", token_env="TIDY_TOKEN",
                          api_url="https://tracker.example", retries=5,
                          max_wait_seconds=7, max_response_bytes=1234)


def _known(artifact_id: str, *, deleted: bool = False) -> KnownArtifact:
    return KnownArtifact(artifact_id, None, None, deleted, None, None)


def test_bearer_renders_the_authorization_value() -> None:
    assert bearer("t0k") == "Bearer t0k"


def test_tracker_client_carries_the_token_and_the_settings_limits() -> None:
    http = tracker_client(SETTINGS, {"Accept": "application/json"}, bearer,
                          {"TIDY_TOKEN": "secret"})
    assert http.api_url == "https://tracker.example"
    assert dict(http.headers) == {"Accept": "application/json",
                                  "Authorization": "Bearer secret"}
    assert (http.retries, http.max_wait_seconds, http.max_response_bytes) == (5, 7, 1234)


def test_tracker_client_sends_no_authorization_without_the_token_variable() -> None:
    http = tracker_client(SETTINGS, {"Accept": "application/json"}, bearer, {})
    assert "Authorization" not in http.headers


def test_stop_words_say_what_comes_next() -> None:
    assert stop_words(TrackerStop("rate-limited", "wait", resumable=True)) == \
        "the read stopped: wait; the next pass resumes where it stopped"
    assert stop_words(TrackerStop("refused", "401", resumable=False), "the project read") == \
        "the project read: 401; fix the cause, then sync again"


def test_record_stop_marks_the_batch_partial_only_when_resumable() -> None:
    batch = SourceBatch(source="github:gh")
    record_stop(batch, "issues", TrackerStop("server-error", "502", resumable=True))
    assert batch.partial
    assert batch.gaps == ["server-error: 502"]
    problem = batch.problems[0]
    assert (problem.source, problem.path, problem.code, problem.severity) == (
        "github:gh", "issues", "tracker-server-error", "warning")
    refused = SourceBatch(source="github:gh")
    record_stop(refused, "issues", TrackerStop("refused", "401", resumable=False))
    assert not refused.partial


def test_removals_of_unseen_skip_the_seen_and_the_deleted_in_id_order() -> None:
    known = {k.id: k for k in (_known("GH-3"), _known("GH-1"), _known("GH-2"),
                               _known("GH-4", deleted=True))}
    removals = removals_of_unseen(known, {"GH-2"}, "2026-01-01T00:00:00Z", "gone")
    assert [(r.artifact_id, r.deleted_at, r.clock, r.note) for r in removals] == [
        ("GH-1", "2026-01-01T00:00:00Z", "found", "gone"),
        ("GH-3", "2026-01-01T00:00:00Z", "found", "gone")]


def test_held_numbers_are_the_digits_after_the_last_dash() -> None:
    known = {k.id: k for k in (_known("GH-12"), _known("MY-PRJ-7"), _known("GH-x"))}
    assert held_numbers(known) == {12, 7}


def test_tracker_client_waits_and_tells_time_through_the_seams_it_is_given() -> None:
    def sleep(seconds: float) -> None:
        del seconds

    def clock() -> float:
        return 42.0

    http = tracker_client(SETTINGS, {}, bearer, {}, sleep=sleep, clock=clock)
    assert http.sleep is sleep and http.clock is clock


def test_a_tracker_source_counts_the_requests_of_the_client_it_is_done_with() -> None:
    source = TrackerSource("github:gh", "default", transport=None, sleep=lambda s: None,
                           clock=lambda: 0.0, environ={"TIDY_TOKEN": "s3"})
    http = source.client(SETTINGS, {}, bearer)
    assert http.headers["Authorization"] == "Bearer s3" and http.clock() == 0.0
    http.requests = 4
    source.done_with(http)
    assert source.requests == 4
