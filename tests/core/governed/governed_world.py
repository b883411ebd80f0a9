"""Helpers of the governed-layer tests: a real vault home in a temp folder, a movable clock."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from revetly_core import (
    EvidenceService,
    FeedbackService,
    RagHit,
    RagService,
    RagSource,
    Scope,
    Session,
    SQLiteRagProvider,
)

START = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)


@dataclass
class World:
    root: Path
    clock: Clock
    evidence: EvidenceService
    owner: str
    feedback: FeedbackService
    rag: RagService
    provider: SQLiteRagProvider
    scope: Scope
    principal_id: str
    app_token: str
    grant_id: str
    session: Session
    source: RagSource


PASSAGES = {
    ("filing", "c1"): ("The filing deadline for annual returns is the last day of April.", "XX",
                       "2025-01-01", None),
    ("filing", "c2"): ("Late filing incurs a penalty of ten percent of the tax due.", "XX",
                       "2024-01-01", "2026-01-01"),
    ("parking", "c1"): ("Parking permits are renewed every year before March.", "YY", None, None),
    ("holidays", "c1"): ("Public holidays move to the next working day.", None, "2020-01-01", None),
}


def law_hits(source: RagSource) -> list[RagHit]:
    return [RagHit.make(source, doc, chunk, text, f"Law {doc} §{chunk}", f"{doc}#{chunk}", juris,
                        start, end)
            for (doc, chunk), (text, juris, start, end) in PASSAGES.items()]


def make_world(root: Path, operations: tuple[str, ...] = ("inspect", "read", "report", "search")) -> World:
    clock = Clock()
    evidence, owner = EvidenceService.create(root, "vault", clock=clock)
    feedback = FeedbackService(evidence)
    rag = RagService(feedback, timeout=5.0)
    provider = SQLiteRagProvider(feedback)
    scope = Scope(agent="writer", workspace="project")
    principal_id, app_token = evidence.principals.issue_credential(owner, "test app")
    grant = evidence.principals.grant(owner, principal_id, operations, scope, START + timedelta(days=1))
    source = provider.source("law", scope, "statutes", "r1")
    rag.register(owner, source, provider)
    provider.put_documents(owner, source, law_hits(source))
    session = evidence.principals.session(app_token, scope)
    return World(root, clock, evidence, owner, feedback, rag, provider, scope, principal_id, app_token,
                 grant.grant_id, session, source)
