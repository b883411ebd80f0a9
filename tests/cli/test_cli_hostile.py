"""Hostile files through the real `revetly` process: sync lands the rest (exit 0), check names
each hostile file (exit 1), nothing hangs, and text from files never reaches the terminal raw."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.core.gitrepo import Instance, md
from tests.core.hostile import GOOD, SECRET, plant_corpus

TIMEOUT = 120
"""Every subprocess is bounded: a read that blocks (a FIFO) fails the test, never hangs it."""


def revetly(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "REVETLY_INSTANCE"}
    return subprocess.run([sys.executable, "-m", "revetly_cli", *args, "--instance", str(root)],
                          capture_output=True, text=True, env=env, timeout=TIMEOUT)


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> tuple[Instance, list[str]]:
    base = tmp_path_factory.mktemp("hostile")
    instance = Instance(base / "acme")
    planted = plant_corpus(instance.git, base / "outside")
    return instance, [c.path for c in planted]


def test_sync_lands_the_good_files_and_exits_0(hostile: tuple[Instance, list[str]]) -> None:
    instance, _paths = hostile
    for _ in range(2):  # and the next pass is not poisoned
        done = revetly(instance.root, "sync", "--json")
        assert done.returncode == 0, done.stderr
        payload = json.loads(done.stdout)
        assert payload["outcome"] == "succeeded"
        assert [s["outcome"] for s in payload["sources"]] == ["succeeded"]
    status = json.loads(revetly(instance.root, "status", "--json").stdout)
    assert status["counts"]["artifacts"] == GOOD


def test_check_names_every_hostile_file_and_exits_1(hostile: tuple[Instance, list[str]]) -> None:
    instance, paths = hostile
    revetly(instance.root, "sync")
    done = revetly(instance.root, "check", "--json")
    assert done.returncode == 1, done.stderr
    named = {p["path"] for p in json.loads(done.stdout)["problems"]}
    assert set(paths) <= named
    human = revetly(instance.root, "check")
    assert human.returncode == 1 and "outside-instance" in human.stdout


def test_search_never_serves_the_file_a_link_points_out_to(
    hostile: tuple[Instance, list[str]],
) -> None:
    instance, _paths = hostile
    revetly(instance.root, "sync")
    found = json.loads(revetly(instance.root, "search", SECRET, "--json").stdout)
    assert found["artifacts"] == [] and found["passages"] == []
    assert revetly(instance.root, "inspect", "STORY-0900").returncode == 2


ESCAPES = ("\x1b]0;pwned\x07 clear\x1b[2J then "
           "\x1b]8;;https://evil.example\x1b\\a link\x1b]8;;\x1b\\ [link=https://evil]x[/link]")


@pytest.fixture(scope="module")
def escaping(tmp_path_factory: pytest.TempPathFactory) -> Instance:
    instance = Instance(tmp_path_factory.mktemp("esc") / "acme")
    instance.git.write_and_commit({"backlog/STORY-0001.md": md(
        "STORY-0001", ESCAPES, body=f"Body {ESCAPES}\n", owner="\x1b[31mmallory")})
    done = revetly(instance.root, "sync")
    assert done.returncode == 0, done.stderr
    return instance


@pytest.mark.parametrize("args", [("inspect", "STORY-0001"), ("search", "clear"),
                                  ("backlog",), ("branch", "STORY-0001")])
def test_terminal_escapes_in_a_title_are_shown_not_obeyed(
    escaping: Instance, args: tuple[str, ...],
) -> None:
    done = revetly(escaping.root, *args)
    assert done.returncode == 0, done.stderr
    assert "\x1b" not in done.stdout and "\x07" not in done.stdout
    assert "\\x1b" in done.stdout  # made visible, not dropped


def test_inspect_shows_markup_in_a_title_as_text(escaping: Instance) -> None:
    done = revetly(escaping.root, "inspect", "STORY-0001")
    assert "[link=https://evil]x[/link]" in done.stdout


def test_json_keeps_the_title_exactly(escaping: Instance) -> None:
    done = revetly(escaping.root, "inspect", "STORY-0001", "--json")
    assert json.loads(done.stdout)["title"] == ESCAPES
