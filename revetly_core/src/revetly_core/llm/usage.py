"""What the extraction provider reported it spent: calls and tokens, summed per pass."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass
class Usage:
    """Model calls and the tokens the provider's answers declared (`usage`)."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0

    def add(self, body: Any) -> None:
        """Count one chat answer: a call, plus whatever `usage` it declares (absent: none)."""
        self.calls += 1
        usage = body.get("usage") if isinstance(body, dict) else None
        if isinstance(usage, dict):
            self.prompt_tokens += _count(usage.get("prompt_tokens"))
            self.completion_tokens += _count(usage.get("completion_tokens"))

    def payload(self) -> dict[str, int]:
        return {"model_calls": self.calls, "prompt_tokens": self.prompt_tokens,
                "completion_tokens": self.completion_tokens}


def _count(value: Any) -> int:
    """A token count as declared: a non-negative int, anything else is zero."""
    return value if isinstance(value, int) and value >= 0 else 0
