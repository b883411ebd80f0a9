"""The fixed scope every grant, source, receipt and observation belongs to: agent and workspace."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal

from revetly_core.refusal import Refusal

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")

NameKind = Literal["agent", "workspace", "source_id", "collection", "revision", "provider_id",
                   "outcome_id", "schedule_id"]
# The spelling each kind has always been refused with: aliases of the one code bad-name.
BAD_NAME_CODES: dict[str, str] = {
    "agent": "bad_agent", "workspace": "bad_workspace", "source_id": "bad_source_id",
    "collection": "bad_collection", "revision": "bad_revision", "provider_id": "bad_provider_id",
    "outcome_id": "bad_outcome_id", "schedule_id": "bad_schedule_id",
}


def check_name(value: str, what: NameKind) -> str:
    """Scope names and ids are 1-64 characters from A-Z a-z 0-9 . _ - (no paths, no spaces)."""
    if not isinstance(value, str) or not _NAME.match(value):
        raise Refusal(BAD_NAME_CODES[what], f"{value!r} is not a valid {what}",
                      "use 1-64 characters from A-Z a-z 0-9 . _ - starting with a letter or digit")
    return value


@dataclass(frozen=True)
class Scope:
    """One agent in one workspace. A tenant or subject level can be added as optional fields."""

    agent: str
    workspace: str

    def __post_init__(self) -> None:
        check_name(self.agent, "agent")
        check_name(self.workspace, "workspace")

    @property
    def key(self) -> str:
        """The canonical text form, used to name vault partitions."""
        return f"{self.workspace}/{self.agent}"

    def to_dict(self) -> dict[str, Any]:
        return {"agent": self.agent, "workspace": self.workspace}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Scope:
        return cls(agent=data["agent"], workspace=data["workspace"])

    def partition(self, kind: str) -> str:
        """The vault partition holding this scope's records of one kind (receipts, outcomes ...)."""
        return f"scope:{self.key}#{kind}"
