"""reconcile_after_restore: a restored scope's grants, sources and export consents are disabled."""

from __future__ import annotations

from datetime import timedelta

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey
from revetly_core.governed.export import ExampleExportService
from revetly_core.governed.restore import check_restore_confirmation, reconcile_after_restore

from revetly_core import RagQuery, Refusal
from tests.core.governed.governed_world import World


def _consent(world: World) -> str:
    raw = X25519PrivateKey.generate().public_key().public_bytes(serialization.Encoding.Raw,
                                                                 serialization.PublicFormat.Raw)
    return str(ExampleExportService(world.feedback, world.rag).consent(
        world.owner, world.scope, purpose="p", recipient_public_key=raw,
        expires_at=world.clock() + timedelta(days=1))["consent_id"])


def test_the_confirmation_repeats_the_restore_id() -> None:
    assert check_restore_confirmation("restore-1", "restore-1") == "restore-1"
    with pytest.raises(Refusal) as mismatch:
        check_restore_confirmation("restore-1", "restore-2")
    assert mismatch.value.code == "preview_mismatch"
    with pytest.raises(Refusal) as bad:
        check_restore_confirmation("../x", "../x")
    assert bad.value.code == "bad_restore_id"


def test_reconcile_after_restore_disables_grants_sources_and_consents(world: World) -> None:
    consent_id = _consent(world)
    done = reconcile_after_restore(world.rag, world.owner, world.scope, "restore-1", confirm="restore-1")
    assert done["revoked_grants"] == [world.grant_id]
    assert done["revoked_sources"] == ["law"] and done["withdrawn_consents"] == [consent_id]
    with pytest.raises(Refusal) as search:
        world.rag.search(world.session, RagQuery("law", "filing"), idempotency_key="k")
    assert search.value.code == "not_authorized"
    assert world.rag.registration("law") is None
    with pytest.raises(Refusal) as export:
        ExampleExportService(world.feedback, world.rag).preview(world.owner, world.scope, consent_id,
                                                                ["out-x"])
    assert export.value.code == "export_withdrawn"


def test_the_same_restore_id_returns_the_retained_reconciliation(world: World) -> None:
    first = reconcile_after_restore(world.rag, world.owner, world.scope, "restore-1", confirm="restore-1")
    world.evidence.principals.grant(world.owner, world.principal_id, ["search"], world.scope,
                                    world.clock() + timedelta(hours=1))  # the owner regrants
    again = reconcile_after_restore(world.rag, world.owner, world.scope, "restore-1", confirm="restore-1")
    assert again["replayed"] is True and again["revoked_grants"] == first["revoked_grants"]
    assert world.evidence.principals.live_grants(world.session)  # the regrant stands
    newer = reconcile_after_restore(world.rag, world.owner, world.scope, "restore-2", confirm="restore-2")
    assert len(newer["revoked_grants"]) == 1 and newer["revoked_sources"] == []


def test_reconcile_after_restore_is_owner_only(world: World) -> None:
    with pytest.raises(Refusal) as refused:
        reconcile_after_restore(world.rag, world.app_token, world.scope, "r", confirm="r")
    assert refused.value.code == "not_owner"
