"""The `revetly.declared` line: what a served session's client declared, and the gate it got."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from revetly_core.writes.gate import APP_EXTENSION, ClientDeclaration, select_gate

DECLARED_LOGGER = "revetly.declared"


def declared_line(decl: ClientDeclaration, sessions_from_client: int) -> str:
    """One line: client, protocol, elicitation, the Apps extension (or the other extensions
    declared instead), the gate core selects, and this client's session count since start."""
    who = " ".join(p for p in (decl.name or "unnamed-client", decl.version) if p)
    parts = [f"client declared: {who}", f"protocol={decl.protocol}",
             f"elicitation={decl.form_elicitation or decl.url_elicitation}"
             + (" (url)" if decl.url_elicitation else "")]
    app = decl.extensions.get(APP_EXTENSION)
    if isinstance(app, dict):
        parts.append(f"{APP_EXTENSION}=True (mimeTypes={app.get('mimeTypes')!r})")
    else:
        parts.append(f"{APP_EXTENSION}=False")
    others = sorted(k for k in decl.extensions if k != APP_EXTENSION)
    if others:
        parts.append(f"other extensions declared={others!r}")
    parts.append(f"gate={select_gate(decl).kind}")
    parts.append(f"sessions from this client since start={sessions_from_client}")
    return " | ".join(parts)


@dataclass
class DeclaredCounter:
    """Sessions per client name since the process started."""

    counts: Counter[str] = field(default_factory=Counter)

    def next(self, decl: ClientDeclaration) -> int:
        key = decl.name or "unnamed-client"
        self.counts[key] += 1
        return self.counts[key]
