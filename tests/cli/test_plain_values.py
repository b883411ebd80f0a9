"""The generated commands' plain coercion: what typer's pydantic adapters accept, without pydantic."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from revetly_cli.app import command
from revetly_cli.plain_values import (
    NOT_A_BOOLEAN,
    NOT_AN_INTEGER,
    PlainRuntimeParam,
    parse_boolean,
    parse_integer,
    takes_plain_coercion,
)
from typer._adapters import build_adapter
from typer.models import OptionInfo

from tests.core.gitrepo import Instance, env_without_instance, md

INTEGER_TEXT = st.text(alphabet="0123456789+-_. \t\n\x0b٣x", max_size=8)
BOOLEAN_TEXT = st.one_of(
    st.sampled_from(["1", "0", "true", "False", "YES", "no", "On", "off", "t", "F", "y", "N", "",
                     " yes ", "2", "maybe", "truth"]),
    st.text(alphabet="tTrRuUeEfFaAlLsSyYnNoO01 ", max_size=6))


def typer_reading(kind: type, value: object) -> tuple[str, object]:
    """What typer's own adapter makes of a value: ("ok", result) or ("refused", message)."""
    from pydantic import ValidationError

    try:
        return "ok", build_adapter(kind, OptionInfo()).validate_python(value)
    except ValidationError as exc:
        return "refused", exc.errors()[0]["msg"]


def plain_reading(parse: object, value: object) -> tuple[str, object]:
    try:
        return "ok", parse(value)  # type: ignore[operator]
    except ValueError as exc:
        return "refused", str(exc)


MINUS_AFTER_LEADING_ZEROS = re.compile(r"0+-")
"""Text pydantic-core reads as a number (`0-1` is -1) and the plain reading refuses."""


@given(INTEGER_TEXT)
def test_a_whole_number_is_read_exactly_as_typer_reads_it(text: str) -> None:
    if MINUS_AFTER_LEADING_ZEROS.match(text.strip(" \t\n\r\x0b\x0c")):
        assert plain_reading(parse_integer, text) == ("refused", NOT_AN_INTEGER)
    else:
        assert plain_reading(parse_integer, text) == typer_reading(int, text)


def test_a_minus_after_leading_zeros_is_refused_where_pydantic_reads_a_number() -> None:
    """Regression: hypothesis found `0-0`, which pydantic-core reads as 0."""
    for text in ("0-0", "0-1", "00-0", " 0-7 "):
        assert plain_reading(parse_integer, text) == ("refused", NOT_AN_INTEGER)


@given(BOOLEAN_TEXT)
def test_an_on_off_value_is_read_exactly_as_typer_reads_it(text: str) -> None:
    assert plain_reading(parse_boolean, text) == typer_reading(bool, text)


def test_the_refusal_messages_are_typers_own() -> None:
    assert typer_reading(int, "abc") == ("refused", NOT_AN_INTEGER)
    assert typer_reading(bool, "maybe") == ("refused", NOT_A_BOOLEAN)


def test_every_text_number_flag_or_list_value_takes_the_plain_coercion() -> None:
    root = command()
    plain, kept = 0, []
    for name, sub in root.commands.items():
        for group_or_command in getattr(sub, "commands", {name: sub}).values():
            for param in group_or_command.params:
                if isinstance(param._runtime_param, PlainRuntimeParam):
                    plain += 1
                else:
                    kept.append(param.type_descriptor.annotation)
    assert plain > 100
    assert all(kind not in (str, int, bool, list[str]) for kind in kept), kept


def test_a_value_with_bounds_keeps_typers_coercion() -> None:
    import typer

    app = typer.Typer()

    @app.command()
    def bounded(count: int = typer.Option(1, min=0)) -> None:
        """A bounded number."""

    built = typer.main.get_command(app)
    assert not takes_plain_coercion(next(p for p in built.params if p.name == "count"))


def test_a_bad_number_is_refused_with_typers_message_and_exit_two(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "revetly_cli", "search", "invoices", "--limit",
                           "many"], capture_output=True, text=True, timeout=300, cwd=tmp_path,
                          env={**env_without_instance(), "COLUMNS": "200"})
    assert done.returncode == 2
    assert "Invalid value for '--limit' / '-n': " + NOT_AN_INTEGER in done.stderr


def test_a_list_option_keeps_every_value_in_order() -> None:
    param = PlainRuntimeParam(annotation=list[str], parameter_info=OptionInfo())
    assert param._coerce_value(("b", "a", "b"), None, None) == ["b", "a", "b"]


@pytest.mark.parametrize("argv", [["search", "invoice export", "--json", "--limit", "3"],
                                  ["inspect", "STORY-001", "--json"]])
def test_a_one_shot_read_command_loads_no_pydantic(tmp_path: Path, argv: list[str]) -> None:
    instance = Instance(tmp_path / "acme")
    instance.git.write_and_commit({
        "backlog/STORY-001.md": md("STORY-001", "Export invoices as CSV",
                                   body="The invoice export writes one row per line item.\n")})
    instance.sync(full=True)
    instance.engine()  # validates revetly.toml once and caches it, as the first read does
    probe = ("import sys, runpy; sys.argv = ['revetly', *sys.argv[1:]]\n"
             "try:\n    runpy.run_module('revetly_cli', run_name='__main__')\n"
             "except SystemExit:\n    pass\n"
             "print('\\nLOADED', sorted(m for m in ('pydantic', 'typer._adapters') "
             "if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", probe, *argv, "--instance", str(instance.root)],
                          capture_output=True, text=True, timeout=300, env=env_without_instance())
    answer, _, loaded = done.stdout.rpartition("\nLOADED ")
    assert json.loads(answer), done.stderr
    assert loaded.strip() == "[]"
