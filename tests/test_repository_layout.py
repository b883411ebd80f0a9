"""The repository's promises to CI and to newcomers: the README's commands and the layout."""

from __future__ import annotations

import ast
import re
import shlex
import subprocess
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _command_lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if "nox -s" in line]


def _ci_lines() -> list[str]:
    return [line for line in _command_lines((ROOT / ".ci/run").read_text())
            if not line.startswith("#")]


def _sessions(line: str) -> list[str]:
    """The nox sessions a command line runs: the words after its `-s`."""
    words = shlex.split(line.split("&&")[-1])
    return words[words.index("-s") + 1:] if "-s" in words else []


def test_ci_runs_the_readme_test_command_verbatim() -> None:
    readme = _command_lines((ROOT / "README.md").read_text())
    tests_cmd = [line for line in readme if line.endswith("nox -s tests")]
    assert len(tests_cmd) == 1
    ci = _ci_lines()
    assert ci[0] == tests_cmd[0]
    assert [line for line in ci if "tests" in _sessions(line)] == tests_cmd


def test_ci_runs_lint_and_typecheck_after_the_tests() -> None:
    ci = _ci_lines()
    after_tests = {s for line in ci[1:] for s in _sessions(line)}
    assert {"lint", "typecheck"} <= after_tests


def test_typecheck_covers_all_three_distributions() -> None:
    tree = ast.parse((ROOT / "noxfile.py").read_text())
    typed = next(ast.literal_eval(node.value) for node in tree.body if isinstance(node, ast.Assign)
                 and any(isinstance(t, ast.Name) and t.id == "TYPED" for t in node.targets))
    assert set(typed) == {"revetly_core/src/revetly_core", "revetly_cli/src/revetly_cli",
                          "revetly_mcp/src/revetly_mcp"}
    session = next(node for node in tree.body
                   if isinstance(node, ast.FunctionDef) and node.name == "typecheck")
    text = ast.unparse(session)
    assert "'--strict', *TYPED" in text


# Where the project once read files from outside its own tree. Spelled in pieces so that this
# file does not match itself.
_OUTSIDE = re.compile("|".join((
    r"\.\./+shared\b",  # the parent folder's shared tree, one or more levels up
    "/work" + r"/shared\b",  # the same tree by its absolute path on the build machine
    r"(?<![\w/.-])shared/(?:bench|spec|notes|eval|corpora)\b",  # its sub-folders, bare
    "gen_" + r"instance\.py",  # the outside generator's file name
)))


def _tracked_files() -> list[Path]:
    """The files git tracks (every file under the root when this is not a git checkout)."""
    try:
        out = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z"], capture_output=True,
                             check=True).stdout.decode()
        return [ROOT / name for name in out.split("\0") if name]
    except (OSError, subprocess.CalledProcessError):
        skip = {".git", ".venv", ".nox", "build", "__pycache__", ".mypy_cache", ".ruff_cache"}
        return [p for p in ROOT.rglob("*") if p.is_file() and not skip & set(p.parts)]


def outside_references(text: str) -> list[str]:
    """Every spelling in text of a path outside the repository that it used to read."""
    return [m.group(0) for m in _OUTSIDE.finditer(text)]


def test_the_outside_reference_pattern_spares_ordinary_words() -> None:
    up, shared = "..", "shared"
    assert outside_references(f"x = {up}/{shared}/bench/run.py") == [f"{up}/{shared}"]
    assert outside_references(f"see /work/{shared}/spec") == [f"/work/{shared}"]
    assert outside_references(f"python {shared}/bench/x.py") == [f"{shared}/bench"]
    assert outside_references("gen_" + "instance.py --n 3") == ["gen_" + "instance.py"]
    for fine in ("self._shared_searcher", "from mcp.shared.message import X",
                 'paths = ["notes/shared"]', "notes/shared/DEC-0002.md", "a shared billing email",
                 "shared_cache/bench"):
        assert outside_references(fine) == [], fine


def test_nothing_references_files_outside_the_repository() -> None:
    hits = []
    for path in _tracked_files():
        if not path.is_file():
            continue  # deleted in the work tree, not yet committed
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        for n, line in enumerate(text.splitlines(), 1):
            for found in outside_references(line):
                hits.append(f"{path.relative_to(ROOT)}:{n}: {found}")
    assert hits == [], "the project must be self-contained:\n" + "\n".join(hits)


def test_readme_has_a_demo_command() -> None:
    readme = _command_lines((ROOT / "README.md").read_text())
    assert any(line.endswith("nox -s demo") for line in readme)


def test_each_distribution_declares_lower_bounded_dependencies() -> None:
    for dist in ("revetly_core", "revetly_cli", "revetly_mcp"):
        project = tomllib.loads((ROOT / dist / "pyproject.toml").read_text())["project"]
        assert project["requires-python"] == ">=3.11"
        for dep in project["dependencies"]:
            assert ">=" in dep, f"{dist}: {dep} has no lower bound"


def test_cli_declares_the_revetly_console_script() -> None:
    project = tomllib.loads((ROOT / "revetly_cli/pyproject.toml").read_text())["project"]
    assert project["scripts"]["revetly"] == "revetly_cli:main"
