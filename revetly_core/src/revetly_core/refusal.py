"""The one error type of the engine: a refusal is an answer, never a traceback."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from revetly_core.refusal_codes import check_registered


@dataclass
class Refusal(Exception):
    """A request the engine will not answer, with what to do instead.

    ``code`` is stable and meant to be branched on; ``detail`` says what was
    refused; ``fix`` says what to call or change in its place. ``extra`` carries
    named context such as ``setting`` for a configuration refusal. Every code is declared
    in ``revetly_core.refusal_codes``; the payload carries the spelling the call site gives.
    """

    code: str
    detail: str
    fix: str
    extra: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        check_registered(self.code)
        super().__init__(f"{self.code}: {self.detail}")

    def payload(self) -> dict[str, Any]:
        """The refusal as the read surface serves it: ``{"refusal": {...}}``."""
        body: dict[str, Any] = {"code": self.code, "detail": self.detail, "fix": self.fix}
        body.update(self.extra)
        return {"refusal": body}

    def __str__(self) -> str:
        return f"{self.detail} — {self.fix}"
