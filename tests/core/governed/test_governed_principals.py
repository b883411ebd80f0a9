"""Credentials as hashes, grants with expiry, revocation on the next check, identity from the token."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from revetly_core.governed.principals import check_operations, token_hash
from revetly_core.governed.vault import CONTROL

from revetly_core import RagQuery, Refusal, Scope
from tests.core.governed.governed_world import START, World


def test_tokens_are_stored_only_as_hashes(world: World) -> None:
    stored = [record for _, record in world.evidence.records(CONTROL)]
    text = repr(stored)
    assert world.app_token not in text and world.owner not in text
    assert token_hash(world.app_token) in text


def test_a_grant_expires_by_the_injected_clock(world: World) -> None:
    world.rag.sources(world.session)
    world.clock.advance(days=1)
    with pytest.raises(Refusal) as refused:
        world.rag.sources(world.session)
    assert refused.value.code == "not_authorized"


def test_the_expiry_instant_itself_is_already_expired(world: World) -> None:
    world.clock.advance(days=1, seconds=-1)
    world.feedback.capabilities(world.session)
    world.clock.advance(seconds=1)
    with pytest.raises(Refusal):
        world.feedback.capabilities(world.session)


def test_revoking_a_grant_takes_effect_on_the_next_check(world: World) -> None:
    receipt = world.rag.search(world.session, RagQuery("law", "filing"), idempotency_key="k")
    world.evidence.principals.revoke_grant(world.owner, world.grant_id)
    for call in (lambda: world.rag.search(world.session, RagQuery("law", "filing"), idempotency_key="k"),
                 lambda: world.rag.inspect(world.session, receipt["receipt_id"], "filing", "c1"),
                 lambda: world.feedback.capabilities(world.session)):
        with pytest.raises(Refusal) as refused:
            call()
        assert refused.value.code == "not_authorized"


def test_revoking_the_credential_refuses_every_call(world: World) -> None:
    world.evidence.principals.revoke_principal(world.owner, world.principal_id)
    with pytest.raises(Refusal) as refused:
        world.rag.sources(world.session)
    assert refused.value.code == "credential_revoked"
    with pytest.raises(Refusal):
        world.evidence.principals.session(world.app_token, world.scope)


def test_a_grant_covers_only_its_operations(tmp_path: object) -> None:
    from pathlib import Path

    from tests.core.governed.governed_world import make_world

    w = make_world(Path(str(tmp_path)) / "h", operations=("search",))
    w.rag.search(w.session, RagQuery("law", "filing"), idempotency_key="k")
    with pytest.raises(Refusal) as refused:
        w.feedback.outcome(w.session, "out-0")
    assert refused.value.code == "not_authorized"
    assert refused.value.extra == {"operation": "read"}


def test_a_grant_covers_only_its_scope(world: World) -> None:
    elsewhere = world.evidence.principals.session(world.app_token, Scope("writer", "other"))
    with pytest.raises(Refusal) as refused:
        world.rag.sources(elsewhere)
    assert refused.value.code == "not_authorized"


def test_identity_comes_from_the_credential(world: World) -> None:
    other_id, other_token = world.evidence.principals.issue_credential(world.owner, "other app")
    other = world.evidence.principals.session(other_token, world.scope)
    assert other.principal_id == other_id != world.session.principal_id
    with pytest.raises(Refusal):
        world.rag.sources(other)


def test_an_unknown_credential_is_refused(world: World) -> None:
    with pytest.raises(Refusal) as refused:
        world.evidence.principals.session("rva_not-a-real-token", world.scope)
    assert refused.value.code == "credential_invalid"


def test_owner_operations_need_the_owner_credential(world: World) -> None:
    with pytest.raises(Refusal) as refused:
        world.evidence.principals.grant(world.app_token, world.principal_id, ["search"], world.scope,
                                        START + timedelta(days=2))
    assert refused.value.code == "not_owner"
    with pytest.raises(Refusal):
        world.provider.put_documents(world.app_token, world.source, [])


def test_a_grant_must_expire_in_the_future(world: World) -> None:
    with pytest.raises(Refusal) as refused:
        world.evidence.principals.grant(world.owner, world.principal_id, ["search"], world.scope, START)
    assert refused.value.code == "bad_expiry"


def test_granted_operations_are_known_names() -> None:
    assert check_operations(["search", "inspect", "search"]) == ("inspect", "search")
    assert check_operations(["verify", "execute"]) == ("execute", "verify")
    for bad in ([], ["delete"], ["search", "administer"]):
        with pytest.raises(Refusal):
            check_operations(bad)


def test_grants_lists_state_for_the_owner(world: World) -> None:
    world.evidence.principals.revoke_grant(world.owner, world.grant_id)
    (listed,) = world.evidence.principals.grants(world.owner)
    assert listed["revoked"] is True and listed["live"] is False


def test_the_session_never_shows_its_credential(world: World) -> None:
    assert world.app_token not in repr(world.session)
    assert "credential" not in repr(world.session)


def test_an_older_database_cannot_bring_a_revoked_grant_back(world: World, tmp_path: Path) -> None:
    import shutil

    from revetly_core import EvidenceService

    home = world.evidence.home
    world.evidence.close()
    shutil.copy(home.database, tmp_path / "before-revocation.db")
    owner_side = EvidenceService.open(home.path.parent, home.path.name, clock=world.clock)
    owner_side.principals.revoke_grant(world.owner, world.grant_id)
    owner_side.close()
    for suffix in ("-wal", "-shm"):
        Path(str(home.database) + suffix).unlink(missing_ok=True)
    shutil.copy(tmp_path / "before-revocation.db", home.database)
    restored = EvidenceService.open(home.path.parent, home.path.name, clock=world.clock)
    with pytest.raises(Refusal) as refused:
        restored.principals.session(world.app_token, world.scope)
    assert refused.value.code == "evidence_integrity"
