"""Gate selection over every combination of what a client can declare."""

from __future__ import annotations

import itertools

import pytest
from revetly_core.writes.gate import (
    APP_EXTENSION,
    APP_MIME,
    ClientDeclaration,
    GateChoice,
    elicitation_modes,
    reviewer_tools_withheld,
    select_gate,
)


def _decl(form: bool, url: bool, app: bool, issuer: bool) -> ClientDeclaration:
    ext = {APP_EXTENSION: {"mimeTypes": [APP_MIME]}} if app else {}
    return ClientDeclaration("c", "1", "2025-11-25", form, url, ext,
                             "https://auth.example.com/" if issuer else None)


def _expected(form: bool, url: bool, app: bool, issuer: bool) -> str:
    if url and issuer:
        return "url"
    if app:
        return "app"
    if form:
        return "elicitation"
    return "parked"


COMBOS = list(itertools.product([False, True], repeat=4))


@pytest.mark.parametrize(("form", "url", "app", "issuer"), COMBOS)
def test_select_gate_every_combination(form: bool, url: bool, app: bool, issuer: bool) -> None:
    choice = select_gate(_decl(form, url, app, issuer))
    assert choice.kind == _expected(form, url, app, issuer)
    assert (choice.needs != {}) == (choice.kind == "parked")


@pytest.mark.parametrize(("form", "url", "app", "issuer"), COMBOS)
def test_reviewer_tools_withheld_every_combination(form: bool, url: bool, app: bool,
                                                   issuer: bool) -> None:
    assert reviewer_tools_withheld(_decl(form, url, app, issuer)) == ((form or url) and not app)


def test_app_preferred_over_dialog() -> None:
    assert select_gate(_decl(True, False, True, False)).kind == "app"


def test_url_without_issuer_is_not_the_url_gate() -> None:
    choice = select_gate(_decl(False, True, False, False))
    assert choice.kind == "parked"
    assert "issuer" in choice.needs["note"]


def test_parked_names_what_the_client_would_need() -> None:
    choice = select_gate(ClientDeclaration(extensions={"acme/ui": {}}))
    assert choice == GateChoice("parked", choice.needs)
    assert choice.needs["other_extensions_declared"] == ["acme/ui"]
    assert any(f"capabilities.extensions.{APP_EXTENSION}" in alt for alt in choice.needs["any_of"])


def test_extension_without_the_mime_type_is_no_app() -> None:
    decl = ClientDeclaration(extensions={APP_EXTENSION: {"mimeTypes": ["text/html"]}})
    assert select_gate(decl).kind == "parked"


@pytest.mark.parametrize(("value", "modes"), [
    ({}, (True, False)), ({"form": {}}, (True, False)), ({"url": {}}, (False, True)),
    ({"form": {}, "url": {}}, (True, True)), (None, (False, False)), ("yes", (False, False)),
])
def test_elicitation_modes(value: object, modes: tuple[bool, bool]) -> None:
    assert elicitation_modes(value) == modes


def test_from_initialize_reads_raw_params() -> None:
    params = {"protocolVersion": "2025-11-25",
              "capabilities": {"elicitation": {},
                               "extensions": {APP_EXTENSION: {"mimeTypes": [APP_MIME]}}},
              "clientInfo": {"name": "acme-agent", "version": "1.4.0"}}
    decl = ClientDeclaration.from_initialize(params, issuer="https://auth.example.com/")
    assert (decl.name, decl.version, decl.protocol) == ("acme-agent", "1.4.0", "2025-11-25")
    assert decl.form_elicitation and not decl.url_elicitation
    assert decl.issuer == "https://auth.example.com/"
    assert select_gate(decl).kind == "app"


def test_from_initialize_tolerates_garbage() -> None:
    decl = ClientDeclaration.from_initialize({"capabilities": "x", "clientInfo": 3})
    assert select_gate(decl).kind == "parked"
