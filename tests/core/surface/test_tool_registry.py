"""The tool registry: each tool declared once, and the declaration checked against the engine
call that answers it, so a renamed method or an argument the engine does not take fails here
(and in mypy, which reads the registry's ``Engine.<method>`` references) rather than silently
dropping a tool."""

from __future__ import annotations

import inspect

import pytest
from revetly_core.surface import TOOLS, Surface
from revetly_core.surface.catalogue import TOOLS_BY_NAME

from revetly_core import Engine
from tests.core.gitrepo import Instance

NAMES = [spec.name for spec in TOOLS]


def test_tool_names_are_declared_once() -> None:
    assert len(NAMES) == len(set(NAMES)) == len(TOOLS_BY_NAME)


@pytest.mark.parametrize("name", NAMES)
def test_a_tool_is_answered_by_the_engine_method_of_its_name(name: str) -> None:
    assert TOOLS_BY_NAME[name].call is getattr(Engine, name, None)


@pytest.mark.parametrize("name", NAMES)
def test_every_declared_argument_is_taken_by_the_engine_call(name: str) -> None:
    spec = TOOLS_BY_NAME[name]
    taken = inspect.signature(spec.call).parameters
    assert [a for a in spec.arguments if a not in taken] == []


@pytest.mark.parametrize("name", NAMES)
def test_a_declared_default_is_the_engine_calls_own(name: str) -> None:
    spec = TOOLS_BY_NAME[name]
    taken = inspect.signature(spec.call).parameters
    for argument, field in spec.parameters.model_fields.items():
        engine_default = taken[argument].default
        if field.is_required() or engine_default is inspect.Parameter.empty:
            continue
        assert field.default == engine_default, (name, argument)


@pytest.mark.parametrize("name", NAMES)
def test_a_required_argument_is_required_by_the_engine_call(name: str) -> None:
    spec = TOOLS_BY_NAME[name]
    taken = inspect.signature(spec.call).parameters
    for argument, field in spec.parameters.model_fields.items():
        if field.is_required():
            assert taken[argument].default is inspect.Parameter.empty, (name, argument)


@pytest.mark.parametrize("name", NAMES)
def test_every_tool_has_a_cli_twin_or_says_why_not(name: str) -> None:
    spec = TOOLS_BY_NAME[name]
    assert bool(spec.cli) != bool(spec.no_cli), (
        f"{name}: declare its CLI twin, or (only) the reason it has none")


@pytest.mark.parametrize("name", NAMES)
def test_a_twin_fixes_or_renames_only_arguments_the_tool_declares(name: str) -> None:
    spec = TOOLS_BY_NAME[name]
    named = [f for twin in spec.cli for f in twin.fixes] + [
        a for twin in spec.cli for a, _ in twin.renames]
    assert [a for a in named if a not in spec.arguments] == []


def test_the_surface_serves_every_declared_tool(instance: Instance) -> None:
    assert Surface(Engine.open(instance.root)).served() == NAMES
