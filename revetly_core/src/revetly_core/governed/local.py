"""Opening the governed layer of an existing home for one application credential and scope.

This is what the CLI and a local stdio server do: open the vault (permissions checked), read
the credential from an owner-private file, authenticate it for the given agent and workspace,
and re-attach the built-in sqlite-vault provider to the sources the owner already registered.
No default store is created or opened.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from revetly_core.governed.feedback import FeedbackService
from revetly_core.governed.principals import Session, read_credential_file
from revetly_core.governed.provider_sqlite import SQLiteRagProvider
from revetly_core.governed.rag_service import RagService
from revetly_core.governed.scope import Scope
from revetly_core.governed.vault import Clock, EvidenceService
from revetly_core.refusal import Refusal


@dataclass
class LocalGoverned:
    """The services of one opened home, and the authenticated session."""

    evidence: EvidenceService
    feedback: FeedbackService
    rag: RagService
    provider: SQLiteRagProvider
    session: Session

    def close(self) -> None:
        self.rag.close()
        self.evidence.close()


def open_services(root: Path | str, vault_id: str, *, clock: Clock | None = None
                  ) -> tuple[EvidenceService, FeedbackService, RagService, SQLiteRagProvider]:
    """Open an existing home's services, with sqlite-vault sources re-attached."""
    evidence = EvidenceService.open(root, vault_id, clock=clock)
    feedback = FeedbackService(evidence)
    rag = RagService(feedback)
    provider = SQLiteRagProvider(feedback)
    rag.attach_registered(provider)
    return evidence, feedback, rag, provider


@contextmanager
def owner_services(root: Path | str, vault_id: str, owner_credential_file: Path | str
                   ) -> Iterator[tuple[str, tuple[EvidenceService, FeedbackService, RagService,
                                                  SQLiteRagProvider]]]:
    """The owner credential read from its file, then the home's services, closed after."""
    owner = read_credential_file(owner_credential_file)
    evidence, feedback, rag, provider = open_services(root, vault_id)
    try:
        yield owner, (evidence, feedback, rag, provider)
    finally:
        rag.close()
        evidence.close()


def open_local(root: Path | str, vault_id: str, credential_file: Path | str, agent: str, workspace: str,
               *, clock: Clock | None = None) -> LocalGoverned:
    """Open a home and authenticate the application credential in the file for one scope."""
    scope = Scope(agent=agent, workspace=workspace)
    token = read_credential_file(credential_file)
    evidence, feedback, rag, provider = open_services(root, vault_id, clock=clock)
    try:
        session = evidence.principals.session(token, scope)
    except BaseException:
        rag.close()
        evidence.close()
        raise
    return LocalGoverned(evidence, feedback, rag, provider, session)


MAX_JSON_FILE = 256 * 1024


def load_json_file(path: Path | str) -> object:
    """A JSON document from a file of at most 256 KiB (a report or a schedule), or a refusal."""
    file = Path(path)
    if not file.is_file():
        raise Refusal("no_file", f"{file} does not exist", "check the path")
    if file.stat().st_size > MAX_JSON_FILE:
        raise Refusal("message_too_large", f"{file} is larger than {MAX_JSON_FILE} bytes", "send less")
    try:
        return json.loads(file.read_bytes())
    except ValueError:
        raise Refusal("bad_json", f"{file} is not JSON", "fix the file") from None
