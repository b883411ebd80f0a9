"""The one seed the write tests and the kill harness start from: an epic, a story, a decision."""

from __future__ import annotations

from tests.core.gitrepo import md

STORY_BODY = """Finance wants a CSV of every invoice.

## Acceptance criteria

- A CSV holds one row per invoice
- Amounts keep two decimals
"""


def seed_files() -> dict[str, str]:
    """The seed's files by path: an epic, a story with two criteria under it, and a decision."""
    return {
        "backlog/EPIC-0001.md": md("EPIC-0001", "Billing", "epic", "All about billing.\n",
                                   status="ready"),
        "backlog/STORY-0001.md": md("STORY-0001", "Export invoices as CSV", "story", STORY_BODY,
                                    status="ready", parent="EPIC-0001"),
        "notes/DEC-0001.md": md("DEC-0001", "Invoices are exported nightly", "decision",
                                "We export invoices every night.\n", status="accepted"),
    }
