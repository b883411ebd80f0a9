"""Fixtures for the write tests: a real instance with a story, synced, writes on no thread."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.core.gitrepo import Instance, md

STORY_BODY = """Finance wants a CSV of every invoice.

## Acceptance criteria

- A CSV holds one row per invoice
- Amounts keep two decimals
"""


@pytest.fixture()
def winst(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Instance:
    """An instance holding an epic, a story with two criteria and a decision, synced once."""
    monkeypatch.delenv("REVETLY_INSTANCE", raising=False)
    monkeypatch.setenv("REVETLY_ACTOR", "Dana Reyes")
    for name in ("REVETLY_REVIEWER", "REVETLY_ACTOR_KIND", "REVETLY_SERVICE_IDENTITY"):
        monkeypatch.delenv(name, raising=False)
    inst = Instance(tmp_path / "acme")
    inst.git.write_and_commit({
        "backlog/EPIC-0001.md": md("EPIC-0001", "Billing", "epic", "All about billing.\n",
                                   status="ready"),
        "backlog/STORY-0001.md": md("STORY-0001", "Export invoices as CSV", "story", STORY_BODY,
                                    status="ready", parent="EPIC-0001"),
        "notes/DEC-0001.md": md("DEC-0001", "Invoices are exported nightly", "decision",
                                "We export invoices every night.\n", status="accepted"),
    }, "seed")
    inst.sync()
    return inst
