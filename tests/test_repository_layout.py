"""The repository's promises to CI and to newcomers: the README's commands and the layout."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _command_lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if "nox -s" in line]


def test_ci_runs_the_readme_test_command_verbatim() -> None:
    readme = _command_lines((ROOT / "README.md").read_text())
    ci = [line for line in _command_lines((ROOT / ".ci/run").read_text())
          if not line.startswith("#")]
    tests_cmd = [line for line in readme if line.endswith("nox -s tests")]
    assert len(tests_cmd) == 1
    assert ci == tests_cmd


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
