"""`revetly check` names a doubled criteria section; --repair folds it and logs 'amended'."""

from __future__ import annotations

import yaml

from tests.core.gitrepo import Instance, md
from tests.core.writes.write_engine import engine

DOUBLED = """Intro line.

## Acceptance criteria

- Old criterion

## Design

Keep this paragraph.

## Acceptance criteria

- A CSV holds one row per invoice
- Amounts keep two decimals
"""


def test_check_names_doubled_section_and_repair_folds_it(winst: Instance) -> None:
    winst.git.write_and_commit({"backlog/STORY-0002.md": md("STORY-0002", "Doubled", "story",
                                                             DOUBLED, status="ready")}, "doubled")
    e = engine(winst)
    found = e.check()
    assert [p["code"] for p in found["problems"]] == ["doubled-criteria"]
    out = e.check(repair=True)
    assert out["ok"] and out["repair"]["repaired"] == [{"path": "backlog/STORY-0002.md"}]
    text = (winst.root / "backlog" / "STORY-0002.md").read_text()
    front = yaml.safe_load(text.split("---\n")[1])
    assert front["review_log"][-1]["action"] == "amended"
    body = text.split("---\n", 2)[2]
    assert "Old criterion" not in body and body.count("## Acceptance criteria") == 1
    assert body.index("Intro line.") < body.index("Keep this paragraph.")
    assert "check --repair" in winst.git.repo[winst.git.repo.head.target].message
    assert e.check(repair=True)["repair"]["wrote"] is False


def test_revises_aimed_at_a_note_is_named(winst: Instance) -> None:
    winst.git.write_and_commit({"notes/DEC-0002.md": md("DEC-0002", "x", "decision", "y\n",
                                                         revises=["DEC-0001"])}, "bad")
    codes = [p["code"] for p in engine(winst).check()["problems"]]
    assert "revises-not-work-item" in codes
