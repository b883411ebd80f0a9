"""Ids for new files follow the padding the folder already uses."""

from __future__ import annotations

from pathlib import Path

from revetly_core.writes.instance_files import next_id


def test_next_id_keeps_the_folder_padding(tmp_path: Path) -> None:
    (tmp_path / "notes").mkdir()
    assert next_id(tmp_path, "notes", "CONV") == "CONV-0001"
    for name in ("CONV-001.md", "CONV-008.md", "DEC-0042.md"):
        (tmp_path / "notes" / name).write_text("x")
    assert next_id(tmp_path, "notes", "CONV") == "CONV-009"
    assert next_id(tmp_path, "notes", "DEC") == "DEC-0043"
    assert next_id(tmp_path, "missing", "DEL") == "DEL-0001"
