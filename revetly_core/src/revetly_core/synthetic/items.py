"""The planned artifacts of a synthetic instance: what each file says, and when it changes."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final


@dataclass(frozen=True)
class Kind:
    """One artifact type as the generator writes it."""

    name: str
    family: str
    folder: str
    share: float
    """Share of the instance's live artifacts (delivery records take what is left)."""
    words: int
    """Median body length in words."""


KINDS: Final = (
    Kind("epic", "EPIC", "backlog", 0.01, 240),
    Kind("feature", "FEAT", "backlog", 0.05, 180),
    Kind("story", "STORY", "backlog", 0.58, 130),
    Kind("task", "TASK", "backlog", 0.05, 70),
    Kind("bug", "BUG", "backlog", 0.04, 90),
    Kind("decision", "DEC", "notes", 0.08, 300),
    Kind("constraint", "DEC", "notes", 0.02, 100),
    Kind("assumption", "DEC", "notes", 0.02, 90),
    Kind("conversation", "CONV", "notes", 0.07, 260),
    Kind("reference", "REF", "notes", 0.02, 110),
    Kind("delivery", "DEL", "records", 0.0, 70),
)
KIND: Final = {k.name: k for k in KINDS}
WORK_ITEMS: Final = ("epic", "feature", "story", "task", "bug")
NOTES_WITH_STATUS: Final = ("decision", "constraint", "assumption")
FAMILIES: Final = ("EPIC", "FEAT", "STORY", "TASK", "BUG", "DEC", "CONV", "REF", "DEL")


@dataclass
class Revision:
    """A `revises` entry: the whole item, or some criteria positions (with fingerprints or not)."""

    target: str
    positions: list[int] | None = None
    fingerprints: list[str] | None = None


@dataclass
class Edit:
    """A later change to a live file, on a day after the main history."""

    day: int
    what: str
    """'reword criterion N', 'append paragraph' or 'status A -> B'."""
    criteria: list[str] | None = None
    body: str | None = None
    status: str | None = None


@dataclass(eq=False)
class Item:
    """One artifact, from its first commit to its last (or its deletion)."""

    kind: str
    created: int
    order: int
    """Creation order among all items: breaks ties between items of one day."""
    id: str = ""
    updated: int = 0
    status: str | None = None
    first_status: str | None = None
    parent: str | None = None
    owner: str | None = None
    title: str = ""
    topics: list[str] = field(default_factory=list)
    criteria: list[str] | None = None
    body: str = ""
    cites: list[str] = field(default_factory=list)
    references: list[str] = field(default_factory=list)
    related: list[str] = field(default_factory=list)
    supersedes: list[str] = field(default_factory=list)
    revises: list[Revision] = field(default_factory=list)
    delivers: str | None = None
    delivered_by: str | None = None
    verdicts: list[tuple[str, str | None]] = field(default_factory=list)
    implemented_by: list[str] = field(default_factory=list)
    dated: bool = True
    """Whether the frontmatter carries created/updated (else git history dates the file)."""
    doomed: bool = False
    """Created, then deleted by a later commit: not in the final tree."""
    deleted: int | None = None
    edit: Edit | None = None
    names_id: str | None = None
    """An id the body names in prose (an explicit reference the linker should find)."""
    names_title: str | None = None
    """The id of an artifact whose title the body repeats (a title mention)."""

    @property
    def family(self) -> str:
        return KIND[self.kind].family

    @property
    def folder(self) -> str:
        return KIND[self.kind].folder

    @property
    def path(self) -> str:
        return f"{self.folder}/{self.id}.md"

    @property
    def number(self) -> int:
        return int(self.id.rsplit("-", 1)[1])
