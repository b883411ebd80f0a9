"""The owner workflows' shared opening (revetly_core.governed.local.owner_services)."""

from __future__ import annotations

from pathlib import Path

import pytest
from revetly_core.governed.local import owner_services
from revetly_core.governed.owner import init_home

from revetly_core import EvidenceService, Refusal


def assert_closed(evidence: EvidenceService, owner: str) -> None:
    with pytest.raises(Refusal) as refused:
        evidence.principals.grants(owner)
    assert "closed database" in refused.value.detail


def test_the_owner_credential_is_read_and_the_services_closed_after(tmp_path: Path) -> None:
    init_home(tmp_path / "homes", "vault", tmp_path / "owner.token")
    with owner_services(tmp_path / "homes", "vault", tmp_path / "owner.token") as (owner, services):
        evidence = services[0]
        assert owner == (tmp_path / "owner.token").read_text().strip()
        assert evidence.principals.grants(owner) == []
    assert_closed(evidence, owner)


def test_the_services_are_closed_when_the_call_is_refused(tmp_path: Path) -> None:
    init_home(tmp_path / "homes", "vault", tmp_path / "owner.token")
    with pytest.raises(Refusal), owner_services(
            tmp_path / "homes", "vault", tmp_path / "owner.token") as (owner, services):
        evidence = services[0]
        raise Refusal("bad_revoke", "refused inside", "nothing")
    assert_closed(evidence, owner)


def test_a_missing_owner_credential_is_refused_before_any_home_is_opened(tmp_path: Path) -> None:
    with pytest.raises(Refusal) as refused, owner_services(tmp_path / "none", "vault",
                                                           tmp_path / "missing.token"):
        pass
    assert "missing.token" in refused.value.detail
