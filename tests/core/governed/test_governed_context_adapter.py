"""A Revetly CONTEXT served as a governed source: the artifacts' own words, one revision per pass."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from revetly_core.governed.sources import passage_digest

from revetly_core import (
    Engine,
    EvidenceService,
    FeedbackService,
    RagQuery,
    RagService,
    Refusal,
    RevetlyContextAdapter,
    Scope,
)
from tests.core.gitrepo import Instance, md
from tests.core.governed.governed_world import START

STORY = "Finance wants invoices exported as CSV.\n\n## Acceptance criteria\n\n- One row per invoice\n"


@pytest.fixture()
def served(instance: Instance, tmp_path: Path):  # type: ignore[no-untyped-def]
    instance.git.write_and_commit({
        "backlog/STORY-0001.md": md("STORY-0001", "Export invoices as CSV", status="ready", body=STORY),
        "notes/DEC-0001.md": md("DEC-0001", "Ledger order for columns", "decision", status="accepted",
                                body="Columns follow the ledger order so finance can diff exports.\n"),
    })
    instance.sync()
    evidence, owner = EvidenceService.create(tmp_path / "homes", "v")
    feedback = FeedbackService(evidence)
    rag = RagService(feedback)
    scope = Scope("writer", "project")
    principal, token = evidence.principals.issue_credential(owner, "app")
    evidence.principals.grant(owner, principal, ["search", "inspect"], scope, START + timedelta(days=3650))
    adapter = RevetlyContextAdapter(Engine.open(instance.root))
    rag.register(owner, adapter.source("backlog", scope), adapter)
    yield instance, rag, evidence.principals.session(token, scope), adapter, owner
    rag.close()
    evidence.close()


def test_search_serves_the_artifacts_own_words(served) -> None:  # type: ignore[no-untyped-def]
    instance, rag, session, adapter, _ = served
    receipt = rag.search(session, RagQuery("backlog", "export invoices csv"), idempotency_key="k")
    hit = receipt["hits"][0]
    assert hit["document_id"] == "STORY-0001" and hit["chunk_id"] == "body"
    body = Engine.open(instance.root).get_artifact("STORY-0001")["body"].strip()
    assert hit["passage"] == body
    assert hit["sha256"] == passage_digest(body)
    assert hit["locator"] == "backlog/STORY-0001.md"
    assert receipt["sources"][0]["egress"] == "none"
    assert receipt["sources"][0]["revision"] == adapter.current_revision()


def test_unknown_validity_stays_explicit(served) -> None:  # type: ignore[no-untyped-def]
    _, rag, session, _, _ = served
    receipt = rag.search(session, RagQuery("backlog", "ledger order"), idempotency_key="k")
    assert receipt["hits"][0]["unknown"] == ["jurisdiction", "effective_from", "effective_to"]
    dated = rag.search(session, RagQuery("backlog", "ledger order", as_of="2026-01-01"),  # type: ignore[arg-type]
                       idempotency_key="k2")
    assert dated["hits"] == []


def test_a_new_read_pass_needs_a_new_registration(served) -> None:  # type: ignore[no-untyped-def]
    instance, rag, session, adapter, owner = served
    receipt = rag.search(session, RagQuery("backlog", "export"), idempotency_key="k")
    instance.git.write_and_commit({"backlog/STORY-0002.md": md("STORY-0002", "Import payments")})
    instance.sync()
    with pytest.raises(Refusal) as refused:
        rag.search(session, RagQuery("backlog", "export"), idempotency_key="k2")
    assert refused.value.code == "source_changed"
    rag.register(owner, adapter.source("backlog", session.scope), adapter)
    with pytest.raises(Refusal) as stale:
        rag.inspect(session, receipt["receipt_id"], "STORY-0001", "body")
    assert stale.value.code == "source_changed"
    assert rag.search(session, RagQuery("backlog", "import payments"), idempotency_key="k3")["hits"]


def test_adapter_inspect_reads_one_artifact(served) -> None:  # type: ignore[no-untyped-def]
    _, _, session, adapter, _ = served
    source = adapter.source("backlog", session.scope)
    assert adapter.inspect(source, "DEC-0001", "body", deadline=0.0).citation.startswith("DEC-0001")
    with pytest.raises(Refusal):
        adapter.inspect(source, "DEC-0001", "c1", deadline=0.0)
