"""The tracker HTTP seam against a real local server: rate limits, retries, bounds, ETags."""

from __future__ import annotations

import email.utils
from collections.abc import Iterator

import httpx
import pytest
from revetly_core.config import Config
from revetly_core.config import GitHubConnector as GitHubSettings
from revetly_core.connectors.github import GitHubConnector
from revetly_core.connectors.tracker_http import (
    TrackerHttp,
    TrackerStop,
    backoff_seconds,
    decode_json,
    rate_limit_wait,
    refusal_detail,
    same_origin,
)

from tests.support.fake_github import FakeGitHub, serving

ISSUES = "/repos/acme/app/issues"


@pytest.fixture()
def fake() -> Iterator[FakeGitHub]:
    gh = FakeGitHub()
    with serving(gh):
        for n in range(1, 151):
            gh.add_issue(n, f"Issue {n}")
        yield gh


def _connector(fake: FakeGitHub, slept: list[float], **settings: object) -> GitHubConnector:
    s = GitHubSettings(name="app", repo="acme/app", prefix="GH", api_url=fake.url,
                       **settings)  # type: ignore[arg-type]
    return GitHubConnector(s, Config(), sleep=slept.append, clock=lambda: 1_000_000.0)


def test_retry_after_is_waited_out_under_the_cap(fake: FakeGitHub) -> None:
    slept: list[float] = []
    fake.fail(ISSUES, status=429, headers={"Retry-After": "7"}, after=1)
    batch = _connector(fake, slept).read({}, {}, full=True, now="t")
    assert slept == [7.0] and batch.partial is False and len(batch.upserts) == 150


def test_a_primary_rate_limit_waits_until_the_reset(fake: FakeGitHub) -> None:
    slept: list[float] = []
    fake.fail(ISSUES, status=403, headers={"x-ratelimit-remaining": "0",
                                           "x-ratelimit-reset": "1000030"})
    batch = _connector(fake, slept).read({}, {}, full=True, now="t")
    assert slept == [30.0] and len(batch.upserts) == 150


def test_a_wait_past_the_cap_ends_the_read_partial_with_a_cursor_to_resume(
        fake: FakeGitHub) -> None:
    slept: list[float] = []
    fake.fail(ISSUES, status=429, headers={"Retry-After": "600"}, after=1)
    batch = _connector(fake, slept, max_wait_seconds=60).read({}, {}, full=True, now="t")
    assert slept == [] and batch.partial is True and len(batch.upserts) == 100
    assert batch.cursor["since"] == fake.items[100]["updated_at"]
    assert batch.removals == [] and batch.complete is False
    assert [p.code for p in batch.problems] == ["tracker-rate-limited"]


def test_5xx_is_retried_with_backoff_then_ends_the_read_partial(fake: FakeGitHub) -> None:
    slept: list[float] = []
    fake.fail(ISSUES, status=502, times=2)
    batch = _connector(fake, slept, retries=3).read({}, {}, full=True, now="t")
    assert slept == [0.5, 1.0] and not batch.partial and len(batch.upserts) == 150
    slept.clear()
    fake.fail(ISSUES, status=503, times=10)
    batch = _connector(fake, slept, retries=2).read({}, {}, full=True, now="t")
    assert slept == [0.5, 1.0] and batch.partial and batch.upserts == []
    assert batch.problems[0].code == "tracker-server-error"


def test_a_disconnect_mid_backfill_is_retried_then_reported(fake: FakeGitHub) -> None:
    slept: list[float] = []
    fake.fail(ISSUES, disconnect=True, after=1, times=5)
    batch = _connector(fake, slept, retries=1).read({}, {}, full=True, now="t")
    assert slept == [0.5] and batch.partial and len(batch.upserts) == 100
    assert batch.problems[0].code == "tracker-disconnected"
    resumed = _connector(fake, slept).read({}, batch.cursor, full=False, now="t")
    assert {a.id for a in resumed.upserts} >= {f"GH-{n}" for n in range(101, 151)}


def test_a_refusal_is_not_resumable_and_names_the_status(fake: FakeGitHub) -> None:
    slept: list[float] = []
    fake.fail(ISSUES, status=404, body=b'{"message": "Not Found"}')
    batch = _connector(fake, slept).read({}, {}, full=True, now="t")
    assert batch.partial is False and batch.problems[0].code == "tracker-refused"
    assert "404: Not Found" in batch.problems[0].detail


def test_a_response_over_the_bound_is_refused_unread(fake: FakeGitHub) -> None:
    slept: list[float] = []
    batch = _connector(fake, slept, max_response_bytes=4096).read({}, {}, full=True, now="t")
    assert batch.problems[0].code == "tracker-too-large" and batch.upserts == []


def test_an_etag_is_sent_only_for_the_url_it_answered(fake: FakeGitHub) -> None:
    slept: list[float] = []
    gh = _connector(fake, slept)
    first = gh.read({}, {}, full=True, now="t")
    assert first.cursor["etag"] is None  # the full listing's ETag answers no later URL
    second = gh.read({}, first.cursor, full=False, now="t")
    assert second.cursor["etag"] and second.cursor["etag_since"] == first.cursor["since"]
    fake.requests.clear()
    third = gh.read({}, second.cursor, full=False, now="t")
    assert gh.requests == 1 and third.upserts == [] and third.cursor == second.cursor
    assert fake.requests[0].headers["if-none-match"] == second.cursor["etag"]


def test_the_transport_is_a_seam() -> None:
    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json=[{"n": request.url.params["per_page"]}])

    http = TrackerHttp("https://tracker.example", {}, transport=httpx.MockTransport(answer))
    assert http.get("/x", {"per_page": "100"}).data == [{"n": "100"}]


def test_a_link_to_another_origin_is_refused_before_the_token_is_sent() -> None:
    sent: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        return httpx.Response(200, json=[], headers={
            "Link": '<https://evil.example/repos/acme/app/issues?page=2>; rel="next"'})

    http = TrackerHttp("https://api.github.com", {"Authorization": "Bearer secret"},
                       transport=httpx.MockTransport(answer))
    page = http.get("/repos/acme/app/issues")
    assert page.next_url == "https://evil.example/repos/acme/app/issues?page=2"
    with pytest.raises(TrackerStop) as stopped:
        http.get(page.next_url)
    assert stopped.value.code == "refused" and not stopped.value.resumable
    assert [r.url.host for r in sent] == ["api.github.com"]


def test_same_origin_is_scheme_host_and_port() -> None:
    root = "https://api.github.com"
    assert same_origin("/repos/a/b/issues", root)
    assert same_origin("https://api.github.com/repos/a/b/issues?page=2", root)
    assert same_origin("https://API.github.com:443/x", root)
    assert not same_origin("http://api.github.com/x", root)
    assert not same_origin("https://api.github.com.evil.example/x", root)
    assert not same_origin("https://api.github.com:8443/x", root)
    assert not same_origin("//evil.example/x", root)
    assert same_origin("http://127.0.0.1:9000/x?page=2", "http://127.0.0.1:9000")


def test_rate_limit_waits_read_the_documented_headers() -> None:
    assert rate_limit_wait(429, {"retry-after": "12"}, 0) == 12.0
    date = email.utils.formatdate(100.0, usegmt=True)
    assert rate_limit_wait(403, {"retry-after": date}, 40.0) == 60.0
    assert rate_limit_wait(403, {"x-ratelimit-remaining": "0", "x-ratelimit-reset": "90"},
                           30.0) == 60.0
    assert rate_limit_wait(403, {"x-ratelimit-remaining": "12"}, 0) is None
    assert rate_limit_wait(500, {"retry-after": "1"}, 0) is None


def test_backoff_doubles() -> None:
    assert [backoff_seconds(i) for i in range(4)] == [0.5, 1.0, 2.0, 4.0]


def test_malformed_json_is_a_resumable_stop() -> None:
    with pytest.raises(TrackerStop) as exc:
        decode_json(b'[{"a": 1,')
    assert exc.value.code == "malformed" and exc.value.resumable


def test_a_refusal_names_the_apis_message_and_the_token_hint() -> None:
    assert refusal_detail(401, b'{"message": "Bad credentials"}') == (
        "the server answered 401: Bad credentials (check the token and its scopes)")
    assert refusal_detail(410, b"gone") == "the server answered 410"


def test_the_read_reports_progress_per_page(fake: FakeGitHub) -> None:
    seen: list[tuple[str, int, int]] = []
    _connector(fake, []).read({}, {}, full=True, now="t",
                              progress=lambda phase, done, total: seen.append((phase, done, total)))
    assert seen == [("read github/app", 100, 0), ("read github/app", 150, 0)]
