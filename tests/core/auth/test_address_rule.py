"""The address rule: loopback authenticates nobody; any other bind needs a resolving verifier."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from revetly_core.auth import check_address_rule, is_loopback_host
from revetly_core.config import AuthSection

from revetly_core import Refusal


@pytest.mark.parametrize("host", ["127.0.0.1", "127.8.9.10", "::1", "[::1]", "localhost",
                                  "LOCALHOST"])
def test_loopback_hosts_are_loopback(host: str) -> None:
    assert is_loopback_host(host)


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "10.0.0.5", "192.168.1.2", "example.com",
                                  "revetly.internal"])
def test_other_hosts_are_not(host: str) -> None:
    assert not is_loopback_host(host)


@given(st.ip_addresses())
def test_an_ip_is_loopback_exactly_when_the_stdlib_says_so(ip: object) -> None:
    assert is_loopback_host(str(ip)) == ip.is_loopback  # type: ignore[attr-defined]


def test_a_loopback_bind_starts_without_auth() -> None:
    check_address_rule("127.0.0.1", AuthSection())


def test_a_non_loopback_bind_without_a_verifier_is_refused_naming_the_setting() -> None:
    with pytest.raises(Refusal) as refused:
        check_address_rule("0.0.0.0", AuthSection())
    assert refused.value.code == "refused"
    assert refused.value.extra["setting"] == "auth.verifier"


def test_a_verifier_without_an_issuer_is_refused_naming_the_issuer() -> None:
    with pytest.raises(Refusal) as refused:
        check_address_rule("10.0.0.5", AuthSection(verifier="jwt"))
    assert refused.value.extra["setting"] == "auth.issuer"


def test_a_declared_verifier_admits_any_bind() -> None:
    check_address_rule("0.0.0.0", AuthSection(verifier="jwt", issuer="https://auth.example/"))
