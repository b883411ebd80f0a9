"""The settings of the sources read from elsewhere: ``[[connectors.commits]]``, ``backlog-md``,
``adr``, ``github``, ``azure-devops`` and ``todoist``, as frozen dataclasses.

They are part of revetly.toml's settings (`revetly_core.config` names every one of them) but live
in their own module, which loads only when a file declares such a source or code reads one: an
instance that declares none opens without building these classes (decisions/0025, the start-up
amendment).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

from revetly_core.config import DEFAULT_BACKLOG_MD_STATUSES, WorkItemType

__all__ = ["AdrConnector", "AzureDevOpsConnector", "BacklogMdConnector", "CommitsConnector",
           "GitHubConnector", "GitHubProjectsV2", "SourceRepoSettings", "TodoistConnector"]


def _date(value: dt.date | str | None) -> dt.date | None:
    if value is None or isinstance(value, dt.date):
        return value
    return dt.date.fromisoformat(value)


@dataclass(frozen=True)
class CommitsConnector:
    name: str
    path: str
    since: dt.date | None = None
    project: str | None = None

    def __post_init__(self) -> None:
        """`since` given as ISO text (as a caller or the cache writes it) is held as a date."""
        object.__setattr__(self, "since", _date(self.since))


@dataclass(frozen=True)
class SourceRepoSettings:
    """What every source read from another git repository declares: a name and a path."""

    name: str
    path: str
    folder: str | None = None
    """The folder inside the repository (found by convention when unset)."""
    project: str | None = None

    def prefixes(self) -> dict[str, str]:
        """Setting name -> the id family it declares (checked against [ids.families])."""
        return {}


@dataclass(frozen=True)
class BacklogMdConnector(SourceRepoSettings):
    """A Backlog.md project folder inside a git repository, read in place."""

    task_prefix: str = "TASK"
    draft_prefix: str = "DRAFT"
    decision_prefix: str = "DECISION"
    doc_prefix: str = "DOC"
    milestone_prefix: str = "M"
    aliases: list[str] = field(default_factory=list)
    """Other words commit messages and prose use for the task prefix (``TASK`` for ``BACK``)."""
    legacy_families: list[str] = field(default_factory=list)
    """Declared families a task file name may carry after the task prefix: with ``EPIC``,
    ``task-epic-11.2 - Title.md`` reads as EPIC-11.2 (old notes kept without frontmatter)."""
    task_type: WorkItemType = "task"
    milestone_type: WorkItemType = "epic"
    statuses: dict[str, str] = field(default_factory=dict)
    """Backlog.md status -> Revetly status, over the defaults (To Do, In Progress, Done)."""
    max_file_bytes: int = 1_000_000
    write_back: bool = False
    """Write approved drafts and status flips back into the project, in its own format
    (revetly_core/writeback/backlog_md.py); off, the project is only read."""

    def prefixes(self) -> dict[str, str]:
        return {"task_prefix": self.task_prefix, "draft_prefix": self.draft_prefix,
                "decision_prefix": self.decision_prefix, "doc_prefix": self.doc_prefix,
                "milestone_prefix": self.milestone_prefix}

    def status_table(self) -> dict[str, str]:
        """The declared status table: defaults, then this source's own entries, case-folded."""
        table = {k.casefold(): v for k, v in DEFAULT_BACKLOG_MD_STATUSES.items()}
        table.update({k.casefold(): v for k, v in self.statuses.items()})
        return table


@dataclass(frozen=True)
class AdrConnector(SourceRepoSettings):
    """An architecture-decision folder (MADR or adr-tools) inside a git repository."""

    prefix: str = "ADR"
    max_file_bytes: int = 1_000_000

    def prefixes(self) -> dict[str, str]:
        return {"prefix": self.prefix}


# -- [[connectors.github]] (issue 17, the read side) -----------------------------------------

@dataclass(frozen=True)
class GitHubProjectsV2:
    """One GitHub Project (v2) whose single-select values ride on the repository's issues
    (``[connectors.github.projects_v2]``, docs/sources.md#github-projects)."""

    owner: str
    """The organization or user login that owns the project."""
    number: int
    """The project's number (``…/projects/<number>`` in its URL)."""
    status_field: str = "Status"
    """The single-select field whose value sets an item's status."""
    statuses: dict[str, str] = field(default_factory=dict)
    """That field's option names -> our statuses (draft, ready, in-progress, done, parked,
    discarded); an option left out is kept in metadata and named by ``check``."""


@dataclass(frozen=True)
class GitHubConnector:
    """A GitHub repository's issues, read over the REST API (docs/sources.md)."""

    name: str
    repo: str
    """``owner/name``."""
    prefix: str
    """The id family of its items (``GH`` reads issue 12 as ``GH-12``)."""
    api_url: str = "https://api.github.com"
    token_env: str | None = None
    """The environment variable holding the token (unset: anonymous)."""
    token_file: str | None = None
    """A credential file holding the token (absolute or ~ path, mode 0600): instead of
    ``token_env``, never beside it."""
    project: str | None = None
    types: dict[str, list[str]] = field(default_factory=dict)
    """Artifact type -> the labels or GitHub issue-type names that make an item that type."""
    in_progress_label: str = "in-progress"
    max_wait_seconds: int = 60
    """The longest one rate-limit wait; a longer one ends the read partial."""
    retries: int = 3
    max_response_bytes: int = 20_000_000
    max_body_bytes: int = 1_000_000
    projects_v2: GitHubProjectsV2 | None = None
    """The GitHub Project (v2) read beside the issues (unset: issues only)."""

    def prefixes(self) -> dict[str, str]:
        return {"prefix": self.prefix}


# -- [[connectors.azure-devops]] (issue 17, the Azure DevOps source) --------------------------

@dataclass(frozen=True)
class AzureDevOpsConnector:
    """An Azure DevOps project's work items, read over the REST API (docs/sources.md)."""

    name: str
    organization: str
    project: str
    """The Azure DevOps project (not a Revetly project: that is ``revetly_project``)."""
    prefix: str
    """The id family of its items (``ADO`` reads work item 12 as ``ADO-12``)."""
    api_url: str = "https://dev.azure.com"
    token_env: str | None = None
    """The environment variable holding the personal access token (unset: anonymous)."""
    token_file: str | None = None
    """A credential file holding the token (absolute or ~ path, mode 0600): instead of
    ``token_env``, never beside it."""
    area: str | None = None
    """An area path: only work items under it are read."""
    revetly_project: str | None = None
    types: dict[str, list[str]] = field(default_factory=dict)
    """Artifact type -> the work item type names that make an item that type."""
    max_wait_seconds: int = 60
    """The longest one rate-limit wait; a longer one ends the read partial."""
    retries: int = 3
    max_response_bytes: int = 20_000_000
    max_body_bytes: int = 1_000_000

    def prefixes(self) -> dict[str, str]:
        return {"prefix": self.prefix}


# -- [[connectors.todoist]] (issue 17, the Todoist source) ------------------------------------

@dataclass(frozen=True)
class TodoistConnector:
    """One Todoist project's tasks, read over Todoist's API v1 (docs/sources.md)."""

    name: str
    project: str
    """The Todoist project: its id, or its name (case-folded)."""
    prefix: str
    """The id family of its tasks (``TD`` numbers them ``TD-1``, ``TD-2``, ... as first read)."""
    api_url: str = "https://api.todoist.com/api/v1"
    token_env: str | None = None
    """The environment variable holding the token (Todoist has no anonymous reads)."""
    token_file: str | None = None
    """A credential file holding the token (absolute or ~ path, mode 0600): instead of
    ``token_env``, never beside it."""
    revetly_project: str | None = None
    """The Revetly project its tasks belong to (unset: the instance's default project)."""
    types: dict[str, list[str]] = field(default_factory=dict)
    """Artifact type -> the labels that make a task that type (Todoist has no native types)."""
    completed_days: int = 365
    """How far back the first pass reads completed tasks (the completed endpoint's window)."""
    max_wait_seconds: int = 60
    retries: int = 3
    max_response_bytes: int = 20_000_000
    max_body_bytes: int = 1_000_000

    def prefixes(self) -> dict[str, str]:
        return {"prefix": self.prefix}
