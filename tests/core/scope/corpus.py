"""Small hand-made graphs for the scope reads, each piece there for one rule."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from revetly_core.engine import Engine

from tests.core.gitrepo import BASE_TIME, GitRepo, md

DAY = 86_400
STORY_BODY = ("Finance wants ledger exports.\n\n## Acceptance criteria\n\n"
              "- Rows follow the ledger\n- Totals match\n")
PLATFORM_DECISIONS = 18
"""Decisions the epic cites: more than an ancestor keeps, more than a bundle serves whole."""


def decision(did: str, title: str, body: str = "", type_: str = "decision", **fields: Any) -> str:
    return md(did, title, type_, body or f"## Decision\n\n{title}.\n", status="accepted", **fields)


@dataclass
class Corpus:
    root: Path
    git: GitRepo
    code: GitRepo
    commits: dict[str, str]

    def engine(self) -> Engine:
        return Engine.open(self.root)

    def binding(self, **kw: Any) -> dict[str, Any]:
        return self.engine().get_scope("binding", **kw)

    def rows(self, **kw: Any) -> dict[str, dict[str, Any]]:
        return {s["artifact_id"]: s for s in self.binding(**kw)["statements"]}


def build(tmp: Path) -> Corpus:
    """The binding graph (EPIC-0001 > FEAT-0002 > STORY-0003 > TASK-0005, sibling STORY-0004)
    with statements reached every way the rules name, and a code repository with a rename."""
    code = GitRepo(tmp / "app")
    commits: dict[str, str] = {}
    t = BASE_TIME
    code.write("src/app/export.py", "def export():\n    return 1\n")
    commits["add"] = code.commit("STORY-0003: add the ledger exporter", when=t + DAY)
    code.write("src/app/export.py", "def export():\n    return 2\n")
    commits["body"] = code.commit("Refactor the exporter\n\nPart of STORY-0004.", when=t + 2 * DAY)
    code.remove("src/app/export.py")
    code.write("src/app/csv_export.py", "def export():\n    return 2\n")
    commits["rename"] = code.commit("STORY-0004: rename the exporter", when=t + 3 * DAY)
    code.write("src/app/csv_export.py", "def export():\n    return 3\n")
    commits["tweak"] = code.commit("STORY-0004: tweak totals", when=t + 4 * DAY)
    code.write("README.md", "app\n")
    commits["other"] = code.commit("docs", when=t + 5 * DAY)

    root = tmp / "acme"
    Engine.init(root)
    git = GitRepo(root, create=False)
    with (root / "revetly.toml").open("a", encoding="utf-8") as fh:
        fh.write(f'\n[[connectors.commits]]\nname = "app"\npath = "{code.root.as_posix()}"\n'
                 '\n[[connectors.commits]]\nname = "self"\npath = "."\n')
    platform = [f"DEC-{30 + i:04d}" for i in range(PLATFORM_DECISIONS)]
    files: dict[str, str | bytes] = {
        "backlog/EPIC-0001.md": md("EPIC-0001", "Ledger platform", "epic", "The platform.\n",
                                   status="in-progress", cites=platform),
        "backlog/FEAT-0002.md": md("FEAT-0002", "Ledger exports", "feature", "Exports.\n",
                                   status="ready", parent="EPIC-0001"),
        "backlog/STORY-0003.md": md("STORY-0003", "Export the ledger as CSV", "story",
                                    STORY_BODY, status="done", parent="FEAT-0002",
                                    cites=["DEC-0010", "CONV-0020", "REF-0022", "DEC-0017",
                                           "DEC-0018"]),
        "backlog/STORY-0004.md": md("STORY-0004", "Export credit notes", "story",
                                    "Credit notes too.\n\n## Acceptance criteria\n\n- Negative rows\n",
                                    status="done", parent="FEAT-0002",
                                    cites=["DEC-0013", "DEC-0018", "DEC-0026"]),
        "backlog/TASK-0005.md": md("TASK-0005", "Write the writer", "task", "Code it.\n",
                                   status="in-progress", parent="STORY-0003",
                                   cites=["DEC-0012", "DEC-0017"]),
        "backlog/STORY-0006.md": md("STORY-0006", "Shipped without a record", "story",
                                    "Done.\n\n## Acceptance criteria\n\n- It works\n",
                                    status="done", parent="FEAT-0002"),
        "backlog/STORY-0007.md": md("STORY-0007", "Shipped with no criteria", "story",
                                    "No list.\n", status="done", parent="FEAT-0002"),
        "backlog/STORY-0008.md": md("STORY-0008", "A lone story", "story", "Alone.\n",
                                    status="draft"),
        "notes/DEC-0010.md": decision("DEC-0010", "Exports are CSV"),
        "notes/DEC-0011.md": decision("DEC-0011", "CSV uses a byte-order mark"),
        "notes/DEC-0012.md": decision("DEC-0012", "The writer streams rows", type_="constraint"),
        "notes/DEC-0013.md": decision("DEC-0013", "Credit notes carry negative amounts"),
        "notes/DEC-0015.md": decision("DEC-0015", "Exports are CSV or XLSX",
                                      supersedes=["DEC-0010"]),
        "notes/DEC-0016.md": decision("DEC-0016", "Totals round per line",
                                      revises=[{"id": "STORY-0003", "criteria": [2]}]),
        "notes/DEC-0017.md": decision("DEC-0017", "Exports run nightly"),
        "notes/DEC-0018.md": decision("DEC-0018", "Exports are UTF-8", type_="assumption"),
        "notes/CONV-0020.md": md("CONV-0020", "Call with finance", "conversation",
                                 "We agreed on the BOM.\n", cites=["DEC-0011"]),
        "notes/DEC-0021.md": decision("DEC-0021", "Delivery keeps a checksum"),
        "notes/REF-0022.md": md("REF-0022", "RFC 4180", "reference", "The CSV RFC.\n",
                                cites=["DEC-0023"]),
        "notes/DEC-0023.md": decision("DEC-0023", "Quote every field"),
        "notes/DEC-0024.md": decision("DEC-0024", "Export headers are English",
                                      "## Decision\n\nHeaders of STORY-0003 exports are English.\n"),
        "notes/DEC-0025.md": decision("DEC-0025", "Ledger rounding uses banker's rounding",
                                      "## Decision\n\nLedger rounding is banker's rounding.\n"),
        "notes/DEC-0026.md": decision("DEC-0026", "Keep csv_export.py free of I/O"),
        "records/DEL-0040.md": md("DEL-0040", "Delivery: ledger CSV", "delivery",
                                  "Delivered STORY-0003.\n\n## Criteria at delivery\n\n"
                                  "1. Rows follow the ledger (met)\n2. Totals match (met)\n",
                                  delivers="STORY-0003", cites=["DEC-0021"],
                                  created="2025-01-10",
                                  verdicts=[{"criterion": 1, "verdict": "met"},
                                            {"criterion": 2, "verdict": "met"}]),
        "records/DEL-0041.md": md("DEL-0041", "Delivery: credit notes", "delivery",
                                  "Delivered STORY-0004.\n\n## Criteria at delivery\n\n"
                                  "1. Negative rows for refunds (partial; no refunds yet)\n",
                                  delivers="STORY-0004", created="2025-02-10",
                                  implemented_by=[commits["tweak"]],
                                  verdicts=[{"criterion": 1, "verdict": "partial",
                                             "note": "no refunds yet"}]),
        "records/DEL-0042.md": md("DEL-0042", "Delivery: no criteria", "delivery",
                                  "Delivered STORY-0007.\n", delivers="STORY-0007",
                                  created="2025-03-10",
                                  verdicts=[{"criterion": 1, "verdict": "not-met",
                                             "note": "slow"}]),
    }
    for did in platform:
        files[f"notes/{did}.md"] = decision(did, f"Platform rule {did[-2:]}")
    git.write_and_commit(files, "seed the ledger backlog", when=BASE_TIME + 10 * DAY)
    git.write_and_commit({"notes/DEC-0019.md": decision("DEC-0019", "Commits are not steps")},
                         "STORY-0003 follows DEC-0019", when=BASE_TIME + 11 * DAY)
    git.write_and_commit({"backlog/TASK-0005.md": md(
        "TASK-0005", "Write the writer", "task", "Code it, streaming.\n", status="in-progress",
        parent="STORY-0003", cites=["DEC-0012", "DEC-0017"])}, "edit the task",
        when=BASE_TIME + 20 * DAY)
    Engine.open(root).sync()
    return Corpus(root, git, code, commits)
