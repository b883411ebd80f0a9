"""The URL gate's one-time links: minted per raise, the latest one live, spent by a decision."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

from hypothesis import given
from hypothesis import strategies as st
from revetly_core.auth.review_links import (
    ReviewLinks,
    review_base_url,
    review_link_url,
    same_secret,
)


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_minted_link_is_live_under_its_own_nonce_only() -> None:
    links = ReviewLinks()
    link = links.mint("REV-0123456789abcdef")
    assert links.live("REV-0123456789abcdef", link.nonce) is link
    assert links.live("REV-0123456789abcdef", link.nonce + "x") is None
    assert links.live("REV-0123456789abcdef", None) is None
    assert links.live("REV-ffffffffffffffff", link.nonce) is None


def test_minting_again_kills_the_earlier_link() -> None:
    links = ReviewLinks()
    old = links.mint("REV-0123456789abcdef")
    new = links.mint("REV-0123456789abcdef")
    assert old.nonce != new.nonce and old.elicitation_id != new.elicitation_id
    assert links.live("REV-0123456789abcdef", old.nonce) is None
    assert links.live("REV-0123456789abcdef", new.nonce) is new


def test_a_spent_link_answers_nothing_afterwards() -> None:
    links = ReviewLinks()
    link = links.mint("REV-0123456789abcdef", session="the-session")
    spent = links.spend("REV-0123456789abcdef", link.nonce)
    assert spent is link and spent.session == "the-session"
    assert links.live("REV-0123456789abcdef", link.nonce) is None
    assert links.spend("REV-0123456789abcdef", link.nonce) is None


def test_a_link_expires_after_its_ttl() -> None:
    clock = Clock()
    links = ReviewLinks(ttl=60.0, clock=clock)
    link = links.mint("REV-0123456789abcdef")
    clock.now += 59.0
    assert links.live("REV-0123456789abcdef", link.nonce) is link
    clock.now += 2.0
    assert links.live("REV-0123456789abcdef", link.nonce) is None


def test_the_link_url_carries_the_review_and_its_nonce() -> None:
    link = ReviewLinks().mint("REV-0123456789abcdef")
    url = review_link_url("https://revetly.example/team/", link)
    parts = urlsplit(url)
    assert parts.path == "/team/review/REV-0123456789abcdef"
    assert parse_qs(parts.query) == {"nonce": [link.nonce]}


def test_the_page_base_is_the_resource_without_the_endpoint_path() -> None:
    assert review_base_url("http://127.0.0.1:8765/mcp", "/mcp") == "http://127.0.0.1:8765"
    assert review_base_url("https://x.example/team/mcp", "/mcp") == "https://x.example/team"
    assert review_base_url("https://x.example/other", "/mcp") == "https://x.example/other"


def test_secrets_compare_equal_only_when_equal() -> None:
    assert same_secret("abc", "abc")
    assert not same_secret("abd", "abc") and not same_secret(None, "abc")


@given(st.lists(st.sampled_from(["REV-000000000000000a", "REV-000000000000000b"]),
                min_size=1, max_size=12))
def test_only_the_latest_link_of_each_review_is_ever_live(raises: list[str]) -> None:
    links = ReviewLinks()
    minted = [links.mint(review_id) for review_id in raises]
    latest = {link.review_id: link for link in minted}
    for link in minted:
        assert (links.live(link.review_id, link.nonce) is not None) == \
            (latest[link.review_id] is link)
