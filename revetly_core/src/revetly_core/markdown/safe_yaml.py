"""YAML from files we did not write: bounded before it is built, and only values JSON can hold.

Every frontmatter reader (the instance's files, Backlog.md, ADR records, their config files)
loads YAML through :func:`load_yaml`. It refuses, as a :class:`YamlRefused` naming a problem
code, anything that could poison a read pass: nesting or alias expansion past a bound (the
"billion laughs" file), values the constructor cannot build (``2025-02-30``, a 5,000-digit
integer), and values JSON cannot hold (NaN, infinities, integers past 2**53, non-text keys,
binary, sets, text that is not valid Unicode).
"""

from __future__ import annotations

import datetime as dt
import math
from typing import Any

import yaml

try:  # the C loader is an order of magnitude faster on large instances
    Loader: Any = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - depends on how PyYAML was built
    Loader = yaml.SafeLoader

MAX_DEPTH = 32
"""Deepest nesting of lists and mappings a frontmatter block may have."""

MAX_NODES = 10_000
"""Most values a block may expand to, every alias counted as a copy of what it names."""

MAX_INT = 2**53
"""Integers are held exactly within ±2**53 (what every JSON reader keeps exact)."""

_OPENS = (yaml.SequenceStartEvent, yaml.MappingStartEvent)
_CLOSES = (yaml.SequenceEndEvent, yaml.MappingEndEvent)


class YamlRefused(ValueError):
    """YAML that is not loaded: ``code`` is the problem code, the message says why."""

    def __init__(self, code: str, detail: str) -> None:
        super().__init__(detail)
        self.code = code


def yaml_problem(exc: yaml.YAMLError, first_line: int = 1) -> str:
    """A YAML syntax error in one line: what is wrong and where (the text's first line is
    ``first_line``)."""
    mark = getattr(exc, "problem_mark", None)
    where = f" (line {mark.line + first_line})" if mark is not None else ""
    problem = getattr(exc, "problem", None) or (str(exc).splitlines() or ["unreadable"])[0]
    return f"not valid YAML{where}: {problem}"


def check_bounds(text: str) -> None:
    """Refuse YAML nested deeper than MAX_DEPTH or expanding past MAX_NODES, before building it.

    Reads the event stream only (nothing is constructed); an alias counts as the size of what
    its anchor holds, so nested aliases are measured without being expanded.
    """
    open_: list[list[Any]] = []  # [anchor, expanded size so far] per open collection
    sizes: dict[str, int] = {}
    total = 0
    for event in yaml.parse(text, Loader=Loader):
        if isinstance(event, _OPENS):
            if len(open_) >= MAX_DEPTH:
                raise YamlRefused("yaml-bounds", f"nested deeper than {MAX_DEPTH} levels")
            open_.append([event.anchor, 1])
            continue
        if isinstance(event, _CLOSES):
            anchor, size = open_.pop()
            if anchor is not None:
                sizes[anchor] = size
        elif isinstance(event, yaml.ScalarEvent):
            size = 1
            if event.anchor is not None:
                sizes[event.anchor] = 1
        elif isinstance(event, yaml.AliasEvent):
            if event.anchor not in sizes:
                raise YamlRefused("yaml-bounds", f"alias *{event.anchor} names no complete "
                                                 "anchor before it (a recursive alias)")
            size = sizes[event.anchor]
        else:
            continue
        if open_:
            open_[-1][1] += size
            if open_[-1][1] > MAX_NODES:
                raise YamlRefused("yaml-bounds", f"expands to more than {MAX_NODES} values "
                                                 "(aliases counted as copies)")
        else:
            total += size
            if total > MAX_NODES:
                raise YamlRefused("yaml-bounds", f"expands to more than {MAX_NODES} values")


def json_ready(value: Any, where: str = "", depth: int = 0) -> Any:
    """A loaded YAML value as JSON holds it: dates as ISO text; anything else JSON lacks refused,
    and so is nesting deeper than MAX_DEPTH."""
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise YamlRefused("bad-value", f"{where or 'a value'} is not valid Unicode text") \
                from None
        return value
    if isinstance(value, int):
        if not -MAX_INT <= value <= MAX_INT:
            raise YamlRefused("bad-value", f"{where or 'a value'} is an integer outside ±2**53")
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise YamlRefused("bad-value", f"{where or 'a value'} is {value!r}, which JSON "
                                           "cannot hold")
        return value
    if isinstance(value, dt.datetime | dt.date):
        return value.isoformat()
    if isinstance(value, list | tuple | dict) and depth >= MAX_DEPTH:
        raise YamlRefused("yaml-bounds", f"nested deeper than {MAX_DEPTH} levels")
    if isinstance(value, list | tuple):
        return [json_ready(v, f"{where}[{i}]", depth + 1) for i, v in enumerate(value)]
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for k, v in value.items():
            if not isinstance(k, str):
                raise YamlRefused("bad-value", f"key {k!r}{' under ' + where if where else ''} "
                                               "is not text (quote it)")
            out[json_ready(k, where)] = json_ready(v, f"{where}.{k}" if where else k, depth + 1)
        return out
    raise YamlRefused("bad-value", f"{where or 'a value'} is a {type(value).__name__}, "
                                   "which JSON cannot hold")


def may_alias(text: str) -> bool:
    """True when the text could hold an anchor or alias (``&`` or ``*``): only then can a small
    block expand to a large value, so only then are its events walked before it is built."""
    return "&" in text or "*" in text


_STR, _SEQ, _MAP = ("tag:yaml.org,2002:str", "tag:yaml.org,2002:seq", "tag:yaml.org,2002:map")
_SCALAR_TAGS = frozenset(f"tag:yaml.org,2002:{t}" for t in ("null", "bool", "int", "float",
                                                            "timestamp"))
"""The scalars SafeLoader builds besides text, each by one plain constructor call."""


class _NotPlain(Exception):
    """A node the plain build leaves to PyYAML's own constructor."""


def _plain(loader: Any, node: Any, depth: int) -> Any:
    """The value SafeLoader builds for a tree of text, scalars, lists and mappings with scalar
    keys; _NotPlain for anything else (a merge key, an explicit tag on a collection, a key
    that is a collection, nesting past MAX_DEPTH), which PyYAML then builds itself."""
    tag = node.tag
    kind = type(node)
    if tag == _STR and kind is yaml.ScalarNode:
        return node.value
    if depth >= MAX_DEPTH:
        raise _NotPlain
    if tag == _MAP and kind is yaml.MappingNode:
        out: dict[Any, Any] = {}
        for key_node, value_node in node.value:
            if type(key_node) is not yaml.ScalarNode or not (
                    key_node.tag == _STR or key_node.tag in _SCALAR_TAGS):
                raise _NotPlain
            out[_plain(loader, key_node, depth + 1)] = _plain(loader, value_node, depth + 1)
        return out
    if tag == _SEQ and kind is yaml.SequenceNode:
        return [_plain(loader, child, depth + 1) for child in node.value]
    if tag in _SCALAR_TAGS and kind is yaml.ScalarNode:
        return loader.yaml_constructors[tag](loader, node)
    raise _NotPlain


def load_document(text: str) -> Any:
    """Exactly ``yaml.load(text, Loader)``, built without PyYAML's generic constructor where
    the document is plain (its per-node bookkeeping is most of a small block's load). Any
    failure is PyYAML's own: a value that fails is built again by it, in its order."""
    loader = Loader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        try:
            return _plain(loader, node, 0)
        except Exception:  # _NotPlain, or a value that fails: PyYAML's own build (and error)
            return loader.construct_document(node)
    finally:
        loader.dispose()


def load_yaml(text: str, *, first_line: int = 1) -> Any:
    """The one safe load of untrusted YAML: bounded, built, made JSON-ready; refused otherwise."""
    try:
        if may_alias(text):
            check_bounds(text)
        data = load_document(text)
    except YamlRefused:
        raise
    except yaml.YAMLError as exc:
        raise YamlRefused("bad-yaml", yaml_problem(exc, first_line)) from None
    except (ValueError, OverflowError, TypeError, RecursionError, MemoryError) as exc:
        # the constructor's own failures: 2025-02-30, a 5,000-digit integer, ...
        raise YamlRefused("bad-value", f"a value cannot be read: {exc}") from None
    return json_ready(data)  # bounds the nesting of a block without aliases
