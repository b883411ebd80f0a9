"""The test suite is a package: helpers are imported as tests.… modules, never via sys.path."""

from __future__ import annotations

from pathlib import Path

TESTS = Path(__file__).resolve().parent


def test_every_folder_of_test_code_is_a_package() -> None:
    folders = {p.parent for p in TESTS.rglob("*.py") if "__pycache__" not in p.parts}
    assert sorted(str(f.relative_to(TESTS)) for f in folders if not (f / "__init__.py").exists()) == []


def test_no_test_module_edits_sys_path() -> None:
    edits = [str(p.relative_to(TESTS)) for p in TESTS.rglob("*.py")
             if "sys.path.insert" in p.read_text(encoding="utf-8") and p != Path(__file__).resolve()]
    assert edits == []
