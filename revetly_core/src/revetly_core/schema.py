"""The frontmatter schema of instance files, validated with pydantic."""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

from revetly_core.model import (
    ARTIFACT_TYPES,
    DECISION_STATUSES,
    STATEMENT_NOTE_TYPES,
    WORK_ITEM_STATUSES,
    WORK_ITEM_TYPES,
)


def _as_list(value: Any) -> Any:
    """A single id where a list is expected is read as a one-item list."""
    if value is None:
        return []
    if isinstance(value, str | int):
        return [str(value)]
    return value


def _as_text(value: Any) -> Any:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    return value


def _as_when(value: Any) -> Any:
    """A date or date-time, kept as its ISO text; anything else is refused."""
    if isinstance(value, dt.datetime | dt.date):
        return value.isoformat()
    if isinstance(value, str):
        try:
            dt.datetime.fromisoformat(value.strip())
        except ValueError:
            raise ValueError(f"{value!r} is not an ISO date such as 2025-02-19") from None
        return value.strip()
    raise ValueError(f"{value!r} is not an ISO date such as 2025-02-19")


IdList = Annotated[list[str], BeforeValidator(_as_list)]
Text = Annotated[str, BeforeValidator(_as_text)]
When = Annotated[str, BeforeValidator(_as_when)]


class RevisesEntry(BaseModel):
    """One revises: entry in its long form: the item, criteria positions and fingerprints."""

    model_config = ConfigDict(extra="forbid")
    id: Text
    criteria: list[int] = Field(default_factory=list)
    criteria_fp: list[str] | None = None

    @field_validator("criteria", mode="before")
    @classmethod
    def _positions(cls, value: Any) -> Any:
        """Positions are whole numbers from 1; true, 1.5 or "2" are not positions."""
        if not isinstance(value, list):
            raise ValueError("criteria positions are whole numbers from 1")
        for p in value:
            if isinstance(p, bool) or not isinstance(p, int) or p < 1:
                raise ValueError("criteria positions are whole numbers from 1")
        return value

    @model_validator(mode="after")
    def _fps(self) -> RevisesEntry:
        if self.criteria_fp is not None and len(self.criteria_fp) != len(self.criteria):
            raise ValueError("criteria_fp must list one fingerprint per criteria position")
        return self


def _revises_item(value: Any) -> Any:
    if isinstance(value, str):
        return {"id": value}
    return value


class Verdict(BaseModel):
    model_config = ConfigDict(extra="allow")
    criterion: int = Field(ge=1)
    verdict: Literal["met", "partial", "not-met"]
    note: Text | None = None


class Frontmatter(BaseModel):
    """Every key an instance file may declare; unknown keys are kept as metadata."""

    model_config = ConfigDict(extra="allow")

    id: Text
    title: Text
    type: Literal[ARTIFACT_TYPES]  # type: ignore[valid-type]
    status: Text | None = None
    parent: Text | None = None
    owner: Text | None = None
    created: When | None = None
    updated: When | None = None
    cites: IdList = Field(default_factory=list)
    references: IdList = Field(default_factory=list)
    related_ids: IdList = Field(default_factory=list)
    supersedes: IdList = Field(default_factory=list)
    revises: list[Annotated[RevisesEntry, BeforeValidator(_revises_item)]] = Field(
        default_factory=list
    )
    delivers: Text | None = None
    implemented_by: IdList = Field(default_factory=list)
    delivered_by: Text | None = None
    verdicts: list[Verdict] = Field(default_factory=list)
    aliases: IdList = Field(default_factory=list)
    withheld: bool = False

    @field_validator("revises", mode="before")
    @classmethod
    def _revises_list(cls, value: Any) -> Any:
        return _as_list(value) if not isinstance(value, list) else value

    @field_validator("title")
    @classmethod
    def _title(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("title is empty")
        return value.strip()

    @model_validator(mode="after")
    def _status_fits_type(self) -> Frontmatter:
        if self.status is None:
            return self
        if self.type in WORK_ITEM_TYPES and self.status not in WORK_ITEM_STATUSES:
            raise ValueError(
                f"status {self.status!r} is not a work item status ({', '.join(WORK_ITEM_STATUSES)})"
            )
        if self.type in STATEMENT_NOTE_TYPES and self.status not in DECISION_STATUSES:
            raise ValueError(
                f"status {self.status!r} is not a decision status ({', '.join(DECISION_STATUSES)})"
            )
        return self

    def extra_metadata(self) -> dict[str, Any]:
        """Keys the schema does not name, kept as the artifact's metadata."""
        return dict(self.model_extra or {})


def describe_error(exc: ValidationError) -> str:
    """One line naming the first field that broke the schema and why."""
    err = exc.errors()[0]
    where = ".".join(str(p) for p in err["loc"]) or "frontmatter"
    msg = err["msg"].removeprefix("Value error, ")
    if err["type"] == "missing":
        return f"{where} is required"
    return f"{where}: {msg}"
