"""The CLI's words: commands instead of MCP tool names, and one time style."""

from __future__ import annotations

from revetly_cli.render_time import day, when
from revetly_cli.wording import TOOL_COMMANDS, as_commands


def test_every_tool_name_becomes_its_command() -> None:
    for tool, command in TOOL_COMMANDS.items():
        assert as_commands(f"call {tool} first") == f"call {command} first"


def test_the_longest_tool_name_wins() -> None:
    assert as_commands("get_scope(question='drift')") == "`revetly drift`"


def test_times_print_in_utc_to_the_minute() -> None:
    assert when("2026-03-01T10:15:00+02:00") == "2026-03-01 08:15 UTC"
    assert when("2026-03-01T08:15:59Z") == "2026-03-01 08:15 UTC"
    assert when("2026-03-01") == "2026-03-01"
    assert when(None) == "never"
    assert when("not a time") == "not a time"
    assert day("2026-03-01T23:30:00-02:00") == "2026-03-02"
    assert day(None) == ""
