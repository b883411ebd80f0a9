"""Claims on in-progress work: who started it, when, and how a takeover is recorded."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal


@dataclass(frozen=True)
class Claim:
    """Who holds an item and since when; reason and taken_over_from where they apply."""

    by: str
    at: str
    reason: str | None = None
    taken_over_from: str | None = None

    def record(self) -> dict[str, Any]:
        out: dict[str, Any] = {"by": self.by, "at": self.at}
        if self.reason:
            out["reason"] = self.reason
        if self.taken_over_from:
            out["taken_over_from"] = self.taken_over_from
        return out

    @classmethod
    def from_front(cls, value: Any) -> Claim | None:
        """The claim block of a story's frontmatter, or None when it holds none."""
        if not isinstance(value, dict) or not value.get("by") or not value.get("at"):
            return None
        return cls(str(value["by"]), str(value["at"]), value.get("reason"),
                   value.get("taken_over_from"))


@dataclass(frozen=True)
class ClaimDecision:
    """What an in-progress flip does to the claim: new, kept, takeover or refused."""

    outcome: Literal["new", "kept", "takeover", "refused"]
    claim: Claim


def decide_claim(current: Claim | None, claimant: str, reason: str | None, now: str) -> ClaimDecision:
    """Same claimant keeps the start; another is refused unless a reason says why it takes over."""
    if current is None:
        return ClaimDecision("new", Claim(claimant, now, reason or None))
    if current.by == claimant:
        return ClaimDecision("kept", current)
    if reason and reason.strip():
        return ClaimDecision("takeover", Claim(claimant, now, reason.strip(), current.by))
    return ClaimDecision("refused", current)


def clears_claim(status: str) -> bool:
    """Every transition other than to in-progress clears the claim."""
    return status != "in-progress"
