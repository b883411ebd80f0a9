"""TrackerHttp.send, the write side of the tracker client: idempotent requests retried, a
POST never sent twice, a 404 answered when asked for, the token kept on api_url's origin."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from revetly_core.connectors.tracker_http import TrackerHttp, TrackerStop

from tests.support.fake_github import FakeGitHub, serving

COMMENTS = "/repos/acme/app/issues/1/comments"


@pytest.fixture()
def fake() -> Iterator[FakeGitHub]:
    gh = FakeGitHub()
    with serving(gh):
        gh.add_issue(1, "Offline sync")
        yield gh


def _http(fake: FakeGitHub) -> TrackerHttp:
    return TrackerHttp(fake.url, {"Authorization": "Bearer t"}, sleep=lambda s: None,
                       retries=2)


def test_a_post_is_sent_once_whatever_the_server_answers(fake: FakeGitHub) -> None:
    fake.fail(COMMENTS, method="POST", status=503, times=5)
    with pytest.raises(TrackerStop) as exc:
        _http(fake).send("POST", COMMENTS, {"body": "x"}, idempotent=False)
    assert exc.value.code == "server-error" and exc.value.resumable
    assert [r.method for r in fake.requests] == ["POST"]


def test_a_dropped_post_is_not_sent_again(fake: FakeGitHub) -> None:
    fake.fail(COMMENTS, method="POST", disconnect=True, apply_first=True)
    with pytest.raises(TrackerStop) as exc:
        _http(fake).send("POST", COMMENTS, {"body": "x"}, idempotent=False)
    assert exc.value.code == "disconnected" and len(fake.comments_on(1)) == 1
    assert len(fake.requests) == 1


def test_an_idempotent_write_is_retried_through_a_5xx(fake: FakeGitHub) -> None:
    fake.fail("/repos/acme/app/issues/1", method="PATCH", status=502, times=2)
    page = _http(fake).send("PATCH", "/repos/acme/app/issues/1", {"state": "closed"},
                            idempotent=True)
    assert page.data["state"] == "closed" and len(fake.requests) == 3
    assert fake.requests[-1].body == {"state": "closed"}


def test_a_404_is_an_empty_answer_only_when_asked(fake: FakeGitHub) -> None:
    gone = "/repos/acme/app/issues/1/labels/nope"
    assert _http(fake).send("DELETE", gone, idempotent=True, missing_ok=True).data is None
    with pytest.raises(TrackerStop) as exc:
        _http(fake).send("DELETE", gone, idempotent=True)
    assert exc.value.code == "refused" and not exc.value.resumable


def test_a_write_elsewhere_is_refused_before_any_request(fake: FakeGitHub) -> None:
    with pytest.raises(TrackerStop) as exc:
        _http(fake).send("POST", "http://example.invalid/steal", {"body": "x"},
                         idempotent=False)
    assert exc.value.code == "refused" and fake.requests == []
