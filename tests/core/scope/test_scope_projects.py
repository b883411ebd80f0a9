"""A binding answers a question: it reaches the project asked and what it imports, no further."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.core.gitrepo import Instance, md

CONFIG = """\
[instance]
name = "multi"
default_project = "app"

[projects.app]
imports = ["shared"]
paths = ["backlog", "notes/app"]

[projects.shared]
paths = ["notes/shared"]

[projects.other]
paths = ["notes/other"]
"""


def test_binding_reaches_what_the_project_imports_and_nothing_else(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("REVETLY_INSTANCE", raising=False)
    inst = Instance(tmp_path / "multi", config_text=CONFIG)
    inst.git.write_and_commit({
        "backlog/STORY-0001.md": md("STORY-0001", "Export invoices", "story", "Body.\n",
                                    status="ready", cites=["DEC-0002", "DEC-0003"]),
        "notes/shared/DEC-0002.md": md("DEC-0002", "Shared rule", "decision", "Shared.\n",
                                       status="accepted"),
        "notes/other/DEC-0003.md": md("DEC-0003", "Other team's rule", "decision", "Other.\n",
                                      status="accepted"),
    }, "seed")
    inst.sync()
    out = inst.engine().get_scope("binding", artifact_id="STORY-0001")
    assert [s["artifact_id"] for s in out["statements"]] == ["DEC-0002"]
    assert out["project"] == "app"
