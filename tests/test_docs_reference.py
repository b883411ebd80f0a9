"""The reference pages keep up with the surface: every CLI command in docs/commands.md, every
MCP tool of the catalogue in docs/mcp.md. A failure lists every gap at once."""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import typer
from revetly_cli.app import app
from revetly_core.surface.catalogue import TOOLS

DOCS = Path(__file__).resolve().parents[1] / "docs"
_HEADING = re.compile(r"^(#{1,6})\s+(.*)$")
_SPAN = re.compile(r"`([^`]+)`")
_WORD = re.compile(r"^[a-z][a-z0-9-]*(?:\|[a-z][a-z0-9-]*)*$")


def cli_commands() -> list[str]:
    """Every command path of the typer app, sub-apps walked, groups included ('rag owner')."""

    def walk(command: Any, path: list[str]) -> Iterator[str]:
        if path and not getattr(command, "hidden", False):
            yield " ".join(path)
        for name, sub in sorted((getattr(command, "commands", None) or {}).items()):
            yield from walk(sub, [*path, name])

    return list(walk(typer.main.get_command(app), []))


def command_words(span: str) -> tuple[bool, list[list[str]]]:
    """(absolute, the word alternatives) a backticked span names: `revetly review list|show`
    is absolute with [[review], [list, show]]; `owner grant --days N` is relative."""
    words = span.split()
    absolute = bool(words) and words[0] == "revetly"
    out: list[list[str]] = []
    for word in words[1:] if absolute else words:
        if not _WORD.match(word):
            break
        out.append(word.split("|"))
    return absolute, out


def _paths(prefix: list[str], alternatives: list[list[str]]) -> set[str]:
    """Each full command path the alternatives spell under prefix, and every parent path."""
    found: set[str] = set()
    for combo in itertools.product(*alternatives):
        words = [*prefix, *combo]
        found.update(" ".join(words[:k]) for k in range(1, len(words) + 1))
    return found


def documented_commands(text: str) -> set[str]:
    """Commands docs/commands.md documents: named in a heading, or in the first cell of a table
    row under the heading of their group (a `revetly rag` heading, then a `sources` row)."""
    found: set[str] = set()
    prefix: list[str] = []
    prefix_level = 0
    for line in text.splitlines():
        heading = _HEADING.match(line)
        if heading:
            level = len(heading.group(1))
            if level <= prefix_level:
                prefix, prefix_level = [], 0
            spans = [command_words(s) for s in _SPAN.findall(heading.group(2))]
            named: list[list[list[str]]] = []
            for absolute, words in spans:
                if words and (absolute or named):
                    named.append(words)
                    found |= _paths([] if absolute else prefix_of(named[0]), words)
            if len(named) == 1 and all(len(alts) == 1 for alts in named[0]):
                prefix, prefix_level = [alts[0] for alts in named[0]], level
            continue
        if line.startswith("|"):
            cells = re.split(r"(?<!\\)\|", line.strip().strip("|"))  # a \| stays in its cell
            spans = _SPAN.findall(cells[0]) if cells else []
            if spans:
                absolute, words = command_words(spans[0])
                if words:
                    found |= _paths([] if absolute else prefix, words)
    return found


def prefix_of(first: list[list[str]]) -> list[str]:
    """The parent of the first command a heading names: siblings after it share that parent."""
    return [alts[0] for alts in first[:-1]]


def documented_tools(text: str) -> set[str]:
    """Tools docs/mcp.md gives a section: a heading whose first backticked word is the tool."""
    found: set[str] = set()
    for line in text.splitlines():
        heading = _HEADING.match(line)
        if heading:
            spans = _SPAN.findall(heading.group(2))
            if spans:
                found.add(spans[0].split("(")[0].strip())
    return found


def test_the_command_walk_sees_sub_apps_and_their_commands() -> None:
    commands = cli_commands()
    assert {"sync", "review", "review approve", "rag", "rag owner", "rag owner grant"} <= set(commands)


def test_the_docs_parser_reads_headings_alternatives_and_group_tables() -> None:
    text = ("## The twins: `revetly search`, `inspect`\n"
            "### `revetly review list|show`\n"
            "## `revetly init PATH --from KIND REPO`\n"
            "## `revetly rag`: the layer\n"
            "| command | what |\n| --- | --- |\n"
            "| `owner grant --days N` | grants |\n"
            "| `owner revoke (--grant ID \\| --file F)` | revokes |\n"
            "## Start-up\n"
            "| `sources` | after a heading with no command, not under rag |\n")
    assert documented_commands(text) == {"search", "inspect", "review", "review list",
                                         "review show", "init", "rag", "rag owner",
                                         "rag owner grant", "rag owner revoke", "sources"}


def test_every_cli_command_has_its_section_in_commands_md() -> None:
    documented = documented_commands((DOCS / "commands.md").read_text(encoding="utf-8"))
    missing = [c for c in cli_commands() if c not in documented]
    assert missing == [], ("docs/commands.md has no section (a heading naming `revetly CMD`, or a "
                           "row of its group's table) for: " + ", ".join(missing))


def test_every_mcp_tool_has_its_section_in_mcp_md() -> None:
    documented = documented_tools((DOCS / "mcp.md").read_text(encoding="utf-8"))
    missing = [spec.name for spec in TOOLS if spec.name not in documented]
    assert missing == [], ("docs/mcp.md has no section (a heading opening with `TOOL`) for: "
                           + ", ".join(missing))
