"""Which review gate a client gets: a pure function of what it declared at initialize."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

APP_MIME = "text/html;profile=mcp-app"
APP_EXTENSION = "io.modelcontextprotocol/ui"

GateKind = Literal["url", "elicitation", "app", "parked"]


@dataclass(frozen=True)
class ClientDeclaration:
    """What a client declared at initialize, as far as the review gate cares."""

    name: str | None = None
    version: str | None = None
    protocol: str | None = None
    form_elicitation: bool = False
    url_elicitation: bool = False
    extensions: Mapping[str, Any] = field(default_factory=dict)
    issuer: str | None = None

    @classmethod
    def from_initialize(
        cls, params: Mapping[str, Any], *, issuer: str | None = None
    ) -> ClientDeclaration:
        """Read the raw initialize params (protocolVersion, capabilities, clientInfo)."""
        caps = params.get("capabilities")
        caps = caps if isinstance(caps, Mapping) else {}
        info = params.get("clientInfo")
        info = info if isinstance(info, Mapping) else {}
        form, url = elicitation_modes(caps.get("elicitation"))
        ext = caps.get("extensions")
        protocol = params.get("protocolVersion")
        return cls(
            name=_text(info.get("name")),
            version=_text(info.get("version")),
            protocol=_text(protocol),
            form_elicitation=form,
            url_elicitation=url,
            extensions=dict(ext) if isinstance(ext, Mapping) else {},
            issuer=issuer,
        )


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def elicitation_modes(value: Any) -> tuple[bool, bool]:
    """(form, url) from capabilities.elicitation: an object with neither key counts as form."""
    if not isinstance(value, Mapping):
        return False, False
    has_form, has_url = "form" in value, "url" in value
    if not has_form and not has_url:
        return True, False
    return has_form, has_url


def declares_app(decl: ClientDeclaration) -> bool:
    """The Apps extension is declared and names the app mime type."""
    ext = decl.extensions.get(APP_EXTENSION)
    if not isinstance(ext, Mapping):
        return False
    mimes = ext.get("mimeTypes")
    return isinstance(mimes, list | tuple) and APP_MIME in mimes


def url_gate_available(decl: ClientDeclaration) -> bool:
    """url-mode elicitation counts only on an endpoint that declares an issuer."""
    return decl.url_elicitation and bool(decl.issuer)


@dataclass(frozen=True)
class GateChoice:
    """The gate a submit uses; for parked, ``needs`` says what the client would have to declare."""

    kind: GateKind
    needs: dict[str, Any] = field(default_factory=dict)


def parked_needs(decl: ClientDeclaration) -> dict[str, Any]:
    """What a client that declared no usable gate would need, in fields it can act on."""
    needs: dict[str, Any] = {
        "any_of": [
            {"capabilities.elicitation": {}},
            {f"capabilities.extensions.{APP_EXTENSION}": {"mimeTypes": [APP_MIME]}},
            {"capabilities.elicitation.url": {}, "endpoint_issuer": "required"},
        ],
        "declared": {
            "form_elicitation": decl.form_elicitation,
            "url_elicitation": decl.url_elicitation,
            "app": declares_app(decl),
            "issuer": decl.issuer,
        },
    }
    others = sorted(k for k in decl.extensions if k != APP_EXTENSION)
    if others:
        needs["other_extensions_declared"] = others
    if decl.url_elicitation and not decl.issuer:
        needs["note"] = "url-mode elicitation was declared, but this endpoint declares no issuer"
    if APP_EXTENSION in decl.extensions and not declares_app(decl):
        needs["note"] = f"{APP_EXTENSION} was declared without the mime type {APP_MIME}"
    return needs


def select_gate(decl: ClientDeclaration) -> GateChoice:
    """url (with an issuer) first, then the app over the dialog, then the dialog, else parked."""
    if url_gate_available(decl):
        return GateChoice("url")
    if declares_app(decl):
        return GateChoice("app")
    if decl.form_elicitation:
        return GateChoice("elicitation")
    return GateChoice("parked", parked_needs(decl))


def reviewer_tools_withheld(decl: ClientDeclaration) -> bool:
    """Elicitation declared and no app: resolve/state/withdraw are neither listed nor served."""
    return (decl.form_elicitation or decl.url_elicitation) and not declares_app(decl)
