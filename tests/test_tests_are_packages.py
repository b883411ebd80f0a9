"""The test suite is a package: helpers are imported as tests.… modules, never via sys.path."""

from __future__ import annotations

import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent


def test_every_folder_of_test_code_is_a_package() -> None:
    folders = {p.parent for p in TESTS.rglob("*.py") if "__pycache__" not in p.parts}
    assert sorted(str(f.relative_to(TESTS)) for f in folders if not (f / "__init__.py").exists()) == []


def test_no_test_module_edits_sys_path() -> None:
    edits = [str(p.relative_to(TESTS)) for p in TESTS.rglob("*.py")
             if "sys.path.insert" in p.read_text(encoding="utf-8") and p != Path(__file__).resolve()]
    assert edits == []


def test_no_script_sits_beside_a_package_named_like_the_standard_library() -> None:
    """A script run as `python tests/…/x.py` has its folder first on sys.path, where a test
    package such as tests/mcp/http would shadow the standard library's http."""
    shadowing = []
    for script in TESTS.rglob("*.py"):
        if 'if __name__ == "__main__"' not in script.read_text(encoding="utf-8"):
            continue
        for sibling in script.parent.iterdir():
            if (sibling / "__init__.py").exists() and sibling.name in sys.stdlib_module_names:
                shadowing.append(f"{script.relative_to(TESTS)} beside {sibling.name}/")
    assert shadowing == []
