"""The refusal registry: every code a call site raises is declared once, in one dialect."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from revetly_core.governed.scope import BAD_NAME_CODES
from revetly_core.refusal import Refusal
from revetly_core.refusal_codes import (
    REFUSAL_CODES,
    STRICT_ENV,
    canonical_code,
    is_registered,
    refusal_code,
)

ROOT = Path(__file__).resolve().parents[2]
SOURCES = [ROOT / pkg / "src" for pkg in ("revetly_core", "revetly_cli", "revetly_mcp")]
KEBAB = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$")
# A code that is not a literal at its Refusal( call is forwarded by one of these expressions,
# whose own literals (parameter defaults, `code=` arguments, the BAD_NAME_CODES table) are scanned.
FORWARDED = {"code", "BAD_NAME_CODES[what]"}
# Helpers that take the code as their fourth positional argument.
POSITIONAL_CODE_HELPERS = {"invalid": 3}


def _call_name(node: ast.Call) -> str | None:
    if isinstance(node.func, ast.Name):
        return node.func.id
    if isinstance(node.func, ast.Attribute):
        return node.func.attr
    return None


def _raised_codes() -> tuple[dict[str, str], list[str]]:
    """Each literal code in the source with one place it is raised, and any dynamic code."""
    codes: dict[str, str] = {}
    dynamic: list[str] = []
    for root in SOURCES:
        for path in sorted(root.rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                where = f"{path.relative_to(ROOT)}:{getattr(node, 'lineno', 0)}"
                if isinstance(node, ast.Call):
                    name = _call_name(node)
                    literals: list[ast.expr] = [k.value for k in node.keywords if k.arg == "code"]
                    if name == "Refusal" and node.args:
                        first = node.args[0]
                        if isinstance(first, ast.Constant):
                            literals.append(first)
                        elif ast.unparse(first) not in FORWARDED:
                            dynamic.append(f"{where}: {ast.unparse(first)}")
                    at = POSITIONAL_CODE_HELPERS.get(name or "")
                    if at is not None and len(node.args) > at:
                        literals.append(node.args[at])
                    for lit in literals:
                        if isinstance(lit, ast.Constant) and isinstance(lit.value, str):
                            codes.setdefault(lit.value, where)
                elif isinstance(node, ast.FunctionDef) and node.returns is not None and \
                        ast.unparse(node.returns) == "Refusal":
                    args = node.args
                    defaults = list(zip(args.args[len(args.args) - len(args.defaults):],
                                        args.defaults, strict=True))
                    defaults += [(a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults,
                                                        strict=True) if d is not None]
                    for arg, default in defaults:
                        if arg.arg == "code" and isinstance(default, ast.Constant):
                            codes.setdefault(str(default.value), where)
    return codes, dynamic


def test_every_raised_code_is_registered() -> None:
    codes, _ = _raised_codes()
    unregistered = {code: where for code, where in codes.items() if not is_registered(code)}
    assert unregistered == {}


def test_the_scan_sees_the_codes_helpers_forward() -> None:
    codes, _ = _raised_codes()
    assert {"invalid-argument", "unknown-question", "bad_argument", "bad-argument"} <= set(codes)


def test_no_code_is_computed_at_its_call_site() -> None:
    _, dynamic = _raised_codes()
    assert dynamic == []


def test_bad_name_codes_are_registered_aliases_of_bad_name() -> None:
    assert {canonical_code(code) for code in BAD_NAME_CODES.values()} == {"bad-name"}


def test_canonical_names_are_kebab_case() -> None:
    assert [c.name for c in REFUSAL_CODES if not KEBAB.match(c.name)] == []


def test_every_spelling_is_declared_once() -> None:
    spellings = [s for c in REFUSAL_CODES for s in c.spellings]
    assert len(spellings) == len(set(spellings))


def test_every_code_has_a_meaning_and_a_fix() -> None:
    assert [c.name for c in REFUSAL_CODES if not c.meaning or not c.fix] == []


def test_an_alias_stands_for_its_canonical_code() -> None:
    assert canonical_code("invalid-argument") == "bad-argument"
    assert canonical_code("bad_expiry") == "bad-expiry"
    assert canonical_code("bad-expiry") == "bad-expiry"
    code = refusal_code("not_authorized")
    assert code is not None and code.name == "not-authorized"


def test_an_unregistered_spelling_maps_to_itself() -> None:
    assert canonical_code("no-such-code") == "no-such-code"
    assert refusal_code("no-such-code") is None


def test_the_payload_keeps_the_spelling_the_call_site_gives() -> None:
    assert Refusal("bad_expiry", "d", "f").payload()["refusal"]["code"] == "bad_expiry"


def test_strict_mode_rejects_an_unregistered_code(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(STRICT_ENV, "1")
    with pytest.raises(ValueError, match="no-such-code"):
        Refusal("no-such-code", "d", "f")


def test_strict_mode_accepts_every_registered_spelling(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(STRICT_ENV, "1")
    for code in REFUSAL_CODES:
        for spelling in code.spellings:
            assert Refusal(spelling, "d", "f").code == spelling


def test_outside_strict_mode_an_unregistered_code_is_still_an_answer(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(STRICT_ENV, "0")
    assert Refusal("no-such-code", "d", "f").payload()["refusal"]["code"] == "no-such-code"


def test_strict_mode_is_the_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(STRICT_ENV, raising=False)
    with pytest.raises(ValueError, match="no-such-code"):
        Refusal("no-such-code", "d", "f")


def test_docs_list_every_code_and_alias() -> None:
    text = (ROOT / "docs" / "refusals.md").read_text(encoding="utf-8")
    listed = set(re.findall(r"`([a-z0-9_-]+)`", text))
    missing = [s for c in REFUSAL_CODES for s in c.spellings if s not in listed]
    assert missing == []
