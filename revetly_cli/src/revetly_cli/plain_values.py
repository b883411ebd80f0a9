"""Plain coercion of the generated commands' text and whole-number values, without pydantic.

typer 0.29 coerces every value through a pydantic TypeAdapter built when the value is first
parsed; importing pydantic and building the adapters costs a one-shot read command more than
the read itself. The generated twins take only text, whole numbers, lists of text and on/off
flags, so `plain_coercion` gives those values a coercer that accepts exactly what typer's
adapter accepts and refuses the rest with typer's own message. Values of any other type, and
every command typer builds without this pass, keep typer's coercion.

This leans on one private seam of typer (`_TyperParameter._runtime_param`, the lazily built
coercer, and `typer._coercion.RuntimeParam`); `tests/cli/test_plain_values.py` pins that the
seam is there and that both coercers agree; with a typer that lacks the seam (before 0.25, which
coerces without pydantic anyway) the pass changes nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

try:
    from typer._click.exceptions import BadParameter
    from typer._coercion import RuntimeParam

    HAS_SEAM = True
except ImportError:  # pragma: no cover - typer before 0.25 coerces without pydantic
    HAS_SEAM = False
    RuntimeParam = object  # type: ignore[misc,assignment,unused-ignore]
    BadParameter = ValueError  # type: ignore[misc,assignment,unused-ignore]

NOT_AN_INTEGER = "Input should be a valid integer, unable to parse string as an integer"
"""typer's (pydantic's) message for a value that is not a whole number."""

NOT_A_BOOLEAN = "Input should be a valid boolean, unable to interpret input"
"""typer's (pydantic's) message for an on/off value it cannot read."""

_TRUE = frozenset({"1", "on", "t", "true", "y", "yes"})
_FALSE = frozenset({"0", "off", "f", "false", "n", "no"})
_INTEGER = re.compile(r"[+-]?[0-9]+(?:_[0-9]+)*(?:\.0*)?")
_SPACE = " \t\n\r\x0b\x0c"


def parse_integer(text: str) -> int:
    """A whole number as pydantic's lax mode reads it from text: ASCII digits with an optional
    sign, single underscores between digits, an optional zero fraction, surrounding space ignored.

    One difference is chosen: pydantic-core reads a minus after leading zeros (`0-1` as -1,
    `00-0` as 0); that text is not a number, and it is refused here."""
    stripped = text.strip(_SPACE)
    if _INTEGER.fullmatch(stripped) is None or stripped.endswith("."):
        raise ValueError(NOT_AN_INTEGER)
    return int(stripped.split(".", 1)[0])


def parse_boolean(value: object) -> bool:
    """An on/off value as typer's adapter reads it: a bool, 0 or 1, or a word of
    true/false, yes/no, on/off, t/f, y/n, 1/0 in any case; blank text is off."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        word = value.strip().lower()
        if word == "" or word in _FALSE:
            return False
        if word in _TRUE:
            return True
    raise ValueError(NOT_A_BOOLEAN)


@dataclass(frozen=True)
class PlainRuntimeParam(RuntimeParam):  # type: ignore[misc,unused-ignore]
    """typer's coercion contract for a text or whole-number value, without a TypeAdapter."""

    def _coerce_value(self, value: Any, param: Any, ctx: Any) -> Any:
        if self.annotation == list[str]:
            items = value if isinstance(value, list | tuple) else [value]
            return [self._one(str, item, param, ctx) for item in items]
        return self._one(self.annotation, value, param, ctx)

    @staticmethod
    def _one(kind: Any, value: Any, param: Any, ctx: Any) -> Any:
        if kind is bool:
            try:
                return parse_boolean(value)
            except ValueError as exc:
                raise BadParameter(str(exc), ctx=ctx, param=param) from exc
        if kind is int:
            if isinstance(value, int) and not isinstance(value, bool):
                return value
            try:
                return parse_integer(str(value))
            except ValueError as exc:
                raise BadParameter(str(exc), ctx=ctx, param=param) from exc
        if isinstance(value, bytes):
            return value.decode("utf-8", "replace")
        return value if isinstance(value, str) else str(value)


PLAIN_ANNOTATIONS = (str, int, bool, list[str])


def takes_plain_coercion(param: Any) -> bool:
    """A typer value whose type is text, a whole number, on/off or a list of text, with no parser,
    bounds or file handling of its own, and whose coercer is not built yet."""
    descriptor = getattr(param, "type_descriptor", None)
    if descriptor is None or getattr(param, "_runtime_param", False) is not None:
        return False
    info = descriptor.parameter_info
    return (descriptor.annotation in PLAIN_ANNOTATIONS and descriptor.file_annotation is None
            and info.parser is None and info.min is None and info.max is None)


def give_plain_coercion(param: Any) -> None:
    """Set the plain coercer on one value when it takes one (see `takes_plain_coercion`)."""
    if takes_plain_coercion(param):
        descriptor = param.type_descriptor
        param._runtime_param = PlainRuntimeParam(annotation=descriptor.annotation,
                                                 parameter_info=descriptor.parameter_info)


def plain_coercion(command: Any) -> Any:
    """Give every plain value of a click command tree, its --help options included (made per
    invocation), the plain coercer; returns the command."""
    if not HAS_SEAM:
        return command
    for param in getattr(command, "params", []):
        give_plain_coercion(param)
    make_help = command.get_help_option

    def help_option(ctx: Any) -> Any:
        option = make_help(ctx)
        if option is not None:
            give_plain_coercion(option)
        return option

    command.get_help_option = help_option
    for sub in getattr(command, "commands", {}).values():
        plain_coercion(sub)
    return command
