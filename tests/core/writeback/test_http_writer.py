"""The write adapters' shared client side: one client, a failed step, the upsert by marker."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest
from revetly_core.config import GitHubConnector as GitHubSettings
from revetly_core.connectors.tracker_http import TrackerStop
from revetly_core.writeback.http_writer import (
    HttpWriter,
    claim_landed,
    failed,
    upsert_by_marker,
)
from revetly_core.writeback.protocol import STEP_CLAIM, STEP_DELIVERY_NOTE, Landed, WritebackFailed

SETTINGS = GitHubSettings(name="gh", repo="o/r", prefix="GH", token_env="TIDY_TOKEN")


def test_failed_keeps_the_stop_code_and_words() -> None:
    got = failed(TrackerStop("rate-limited", "wait 60 s", resumable=True))
    assert (got.code, got.detail) == ("rate-limited", "wait 60 s")


def test_the_writer_builds_one_client_on_first_use_with_its_token() -> None:
    writer = HttpWriter(SETTINGS, "github:gh", transport=None, environ={"TIDY_TOKEN": "s3"})
    assert writer.requests == 0
    http = writer.http()
    assert writer.http() is http
    assert http.headers["Authorization"] == "Bearer s3"
    assert http.headers["Accept"] == "application/json"
    writer.close()


def test_upsert_edits_the_note_it_finds() -> None:
    edited: list[Mapping[str, Any]] = []

    def edit(found: Mapping[str, Any]) -> Any:
        edited.append(found)
        return {"id": 7}

    got = upsert_by_marker(lambda: {"id": 7}, edit, lambda: pytest.fail("posted"),
                           post_if_missing=True)
    assert got == ("edited", {"id": 7}) and edited == [{"id": 7}]


def test_upsert_posts_a_missing_note_once_or_leaves_it() -> None:
    posts: list[int] = []

    def post() -> Any:
        posts.append(1)
        return {"id": 8}

    assert upsert_by_marker(lambda: None, lambda f: pytest.fail("edited"), post,
                            post_if_missing=True) == ("posted", {"id": 8})
    assert upsert_by_marker(lambda: None, lambda f: pytest.fail("edited"), post,
                            post_if_missing=False) is None
    assert posts == [1]


def test_upsert_turns_a_stopped_request_into_a_failed_step() -> None:
    def find() -> Mapping[str, Any] | None:
        raise TrackerStop("server-error", "502 twice", resumable=True)

    with pytest.raises(WritebackFailed) as caught:
        upsert_by_marker(find, lambda f: None, lambda: None, post_if_missing=True)
    assert (caught.value.code, caught.value.detail) == ("server-error", "502 twice")


def test_a_claim_note_edited_when_no_longer_held_is_released() -> None:
    edited = Landed(STEP_CLAIM, "edited", "5", "https://x/5")
    assert claim_landed(edited, held=False) == Landed(STEP_CLAIM, "released", "5", "https://x/5")
    assert claim_landed(edited, held=True) is edited
    posted = Landed(STEP_DELIVERY_NOTE, "posted", "6")
    assert claim_landed(posted, held=False) is posted
