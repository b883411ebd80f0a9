"""No module of revetly_core imports another module's private (underscored) names."""

from __future__ import annotations

import ast
from pathlib import Path

CORE = Path(__file__).resolve().parents[2] / "revetly_core" / "src" / "revetly_core"
KNOWN: set[tuple[str, str, str]] = set()


def private_imports() -> set[tuple[str, str, str]]:
    """(importing file, module, name) for each `from revetly_core.X import _name`."""
    found: set[tuple[str, str, str]] = set()
    for path in sorted(CORE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("revetly_core"):
                for alias in node.names:
                    if alias.name.startswith("_") and not alias.name.startswith("__"):
                        found.add((path.relative_to(CORE).as_posix(), node.module or "", alias.name))
    return found


def test_no_private_import_across_modules() -> None:
    assert private_imports() - KNOWN == set()


def test_scope_read_uses_the_public_artifact_lookup() -> None:
    assert not any(f == "scope/read.py" for f, _, _ in private_imports())
