"""A file named from the working folder, as the path its declared code repository uses."""

from __future__ import annotations

from pathlib import Path

from tests.core.gitrepo import Instance


def test_a_file_from_the_working_folder_becomes_its_repository_path(floored: Instance,
                                                                   tmp_path: Path) -> None:
    engine = floored.engine()
    assert engine.repository_path("m3.py", cwd=tmp_path / "app" / "src") == "src/m3.py"
    assert engine.repository_path("app/src/m3.py", cwd=tmp_path) == "src/m3.py"


def test_a_path_that_is_no_file_here_is_passed_on_as_written(floored: Instance,
                                                            tmp_path: Path) -> None:
    assert floored.engine().repository_path("src/m3.py", cwd=tmp_path) == "src/m3.py"


def test_a_file_outside_every_code_repository_is_passed_on(floored: Instance,
                                                          tmp_path: Path) -> None:
    (tmp_path / "loose.py").write_text("")
    assert floored.engine().repository_path("loose.py", cwd=tmp_path) == "loose.py"
