"""The schema of revetly.toml: pydantic models that validate the file at the boundary.

Only a miss of the validated-config cache (revetly_core.config_cache) or a caller validating a
dict imports this module; every consumer reads the frozen dataclasses of revetly_core.config
that the validated values are copied into. Class names are those of the dataclasses, because
pydantic names them in its messages (and so in the refusals)."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from revetly_core.config import CONFIG_FILE, RANKING_LEGS, RANKING_SIGNALS
from revetly_core.ids import DEFAULT_FAMILIES
from revetly_core.model import ARTIFACT_TYPES, DEFAULT_PARENTS, WORK_ITEM_STATUSES, WORK_ITEM_TYPES
from revetly_core.refusal import Refusal

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


def source_name(value: str) -> str:
    """A declared source's name: letters, digits, '.', '_' or '-' (it becomes part of the
    source id)."""
    if not _NAME.match(value):
        raise ValueError("use letters, digits, '.', '_' or '-'")
    return value


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class InstanceSection(_Strict):
    name: str = "revetly"
    default_project: str | None = None


class ProjectConfig(_Strict):
    imports: list[str] = Field(default_factory=list)
    paths: list[str] = Field(default_factory=list)
    """Folders of the instance repo whose artifacts belong to this project (empty: the default)."""


class RepositoryConnector(_Strict):
    paths: list[str] = Field(default_factory=lambda: ["backlog", "notes", "records"])
    max_file_bytes: int = Field(default=1_000_000, gt=0)

    @field_validator("paths")
    @classmethod
    def _relative(cls, value: list[str]) -> list[str]:
        for p in value:
            if Path(p).is_absolute() or ".." in Path(p).parts:
                raise ValueError(f"{p!r} must be a folder inside the instance repository")
        return value


class CommitsConnector(_Strict):
    name: str
    path: str
    since: dt.date | None = None
    project: str | None = None

    @field_validator("name")
    @classmethod
    def _name(cls, value: str) -> str:
        return source_name(value)


class _SourceRepo(_Strict):
    """What every source read from another git repository declares: a name and a path."""

    name: str
    path: str
    folder: str | None = None
    """The folder inside the repository (found by convention when unset)."""
    project: str | None = None

    @field_validator("name")
    @classmethod
    def _name(cls, value: str) -> str:
        return source_name(value)

    @field_validator("folder")
    @classmethod
    def _inside(cls, value: str | None) -> str | None:
        if value is not None and (Path(value).is_absolute() or ".." in Path(value).parts):
            raise ValueError(f"{value!r} must be a folder inside the repository")
        return value

    def prefixes(self) -> dict[str, str]:
        """Setting name -> the id family it declares (checked against [ids.families])."""
        return {}


_PREFIX = re.compile(r"^[A-Z][A-Z0-9]*$")


def _prefix(value: str) -> str:
    if not _PREFIX.match(value):
        raise ValueError(f"{value!r} must be upper-case letters and digits (an id family)")
    return value


class BacklogMdConnector(_SourceRepo):
    """A Backlog.md project folder inside a git repository, read in place."""

    task_prefix: str = "TASK"
    draft_prefix: str = "DRAFT"
    decision_prefix: str = "DECISION"
    doc_prefix: str = "DOC"
    milestone_prefix: str = "M"
    aliases: list[str] = Field(default_factory=list)
    """Other words commit messages and prose use for the task prefix (``TASK`` for ``BACK``)."""
    legacy_families: list[str] = Field(default_factory=list)
    """Declared families a task file name may carry after the task prefix: with ``EPIC``,
    ``task-epic-11.2 - Title.md`` reads as EPIC-11.2 (old notes kept without frontmatter)."""
    task_type: Literal["epic", "feature", "story", "task", "bug"] = "task"
    milestone_type: Literal["epic", "feature", "story", "task", "bug"] = "epic"
    statuses: dict[str, str] = Field(default_factory=dict)
    """Backlog.md status -> Revetly status, over the defaults (To Do, In Progress, Done)."""
    max_file_bytes: int = Field(default=1_000_000, gt=0)
    write_back: bool = False
    """Write approved drafts and status flips back into the project, in its own format."""

    @field_validator("task_prefix", "draft_prefix", "decision_prefix", "doc_prefix",
                     "milestone_prefix")
    @classmethod
    def _prefixes(cls, value: str) -> str:
        return _prefix(value)

    @field_validator("aliases", "legacy_families")
    @classmethod
    def _aliases(cls, value: list[str]) -> list[str]:
        return [_prefix(v) for v in value]

    @field_validator("statuses")
    @classmethod
    def _statuses(cls, value: dict[str, str]) -> dict[str, str]:
        for written, status in value.items():
            if status not in WORK_ITEM_STATUSES:
                raise ValueError(f"{written!r} maps to {status!r}, not a work item status "
                                 f"({', '.join(WORK_ITEM_STATUSES)})")
        return value

    def prefixes(self) -> dict[str, str]:
        return {"task_prefix": self.task_prefix, "draft_prefix": self.draft_prefix,
                "decision_prefix": self.decision_prefix, "doc_prefix": self.doc_prefix,
                "milestone_prefix": self.milestone_prefix}


class AdrConnector(_SourceRepo):
    """An architecture-decision folder (MADR or adr-tools) inside a git repository."""

    prefix: str = "ADR"
    max_file_bytes: int = Field(default=1_000_000, gt=0)

    @field_validator("prefix")
    @classmethod
    def _prefix(cls, value: str) -> str:
        return _prefix(value)

    def prefixes(self) -> dict[str, str]:
        return {"prefix": self.prefix}


# -- [[connectors.github]] (issue 17, the read side) -----------------------------------------

_REPO = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$")
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_LOGIN = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$")


class GitHubProjectsV2(_Strict):
    """One GitHub Project (v2) whose single-select values ride on the repository's issues
    (``[connectors.github.projects_v2]``, docs/sources.md#github-projects)."""

    owner: str
    number: int = Field(ge=1)
    status_field: str = "Status"
    statuses: dict[str, str] = Field(default_factory=dict)

    @field_validator("owner")
    @classmethod
    def _owner(cls, value: str) -> str:
        if not _LOGIN.match(value):
            raise ValueError(f"{value!r} must be a GitHub organization or user login")
        return value

    @field_validator("status_field")
    @classmethod
    def _status_field(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("name the project's single-select status field")
        return value

    @field_validator("statuses")
    @classmethod
    def _statuses(cls, value: dict[str, str]) -> dict[str, str]:
        for option, status in value.items():
            if status not in WORK_ITEM_STATUSES:
                raise ValueError(f"option {option!r} maps to {status!r}, not a status "
                                 f"({', '.join(WORK_ITEM_STATUSES)})")
        return value


class _TrackerSettings(_Strict):
    """What every tracker source checks of its token: one source of it at the most."""

    @model_validator(mode="after")
    def _one_token_source(self) -> _TrackerSettings:
        if getattr(self, "token_env", None) and getattr(self, "token_file", None):
            raise ValueError("declare token_env or token_file, not both")
        return self


class GitHubConnector(_TrackerSettings):
    """A GitHub repository's issues, read over the REST API (docs/sources.md)."""

    name: str
    repo: str
    prefix: str
    api_url: str = "https://api.github.com"
    token_env: str | None = None
    token_file: str | None = None
    project: str | None = None
    types: dict[str, list[str]] = Field(default_factory=dict)
    in_progress_label: str = "in-progress"
    max_wait_seconds: int = Field(default=60, ge=0, le=3600)
    retries: int = Field(default=3, ge=0, le=10)
    max_response_bytes: int = Field(default=20_000_000, ge=1024)
    max_body_bytes: int = Field(default=1_000_000, ge=1)
    projects_v2: GitHubProjectsV2 | None = None

    @field_validator("name")
    @classmethod
    def _name(cls, value: str) -> str:
        return source_name(value)

    @field_validator("repo")
    @classmethod
    def _repo(cls, value: str) -> str:
        if not _REPO.match(value) or ".." in value:
            raise ValueError(f"{value!r} must be owner/name")
        return value

    @field_validator("prefix")
    @classmethod
    def _prefix(cls, value: str) -> str:
        return _prefix(value)

    @field_validator("api_url")
    @classmethod
    def _api_url(cls, value: str) -> str:
        if not re.match(r"^https?://[^/\s]+", value):
            raise ValueError(f"{value!r} must be an http(s) URL")
        return value.rstrip("/")

    @field_validator("token_env")
    @classmethod
    def _token_env(cls, value: str | None) -> str | None:
        if value is not None and not _ENV_NAME.match(value):
            raise ValueError(f"{value!r} must be an environment variable's name")
        return value

    @field_validator("token_file")
    @classmethod
    def _token_file(cls, value: str | None) -> str | None:
        if value is not None and (not value.startswith(("/", "~")) or "\0" in value):
            raise ValueError(f"{value!r} must be an absolute path or start with ~ (a credential "
                             "file outside the instance)")
        return value

    @field_validator("types")
    @classmethod
    def _types(cls, value: dict[str, list[str]]) -> dict[str, list[str]]:
        for typ, words in value.items():
            if typ not in WORK_ITEM_TYPES:
                raise ValueError(f"{typ!r} is not a work item type ({', '.join(WORK_ITEM_TYPES)})")
            if any(not w.strip() for w in words):
                raise ValueError(f"{typ!r} lists an empty label")
        return value

    def prefixes(self) -> dict[str, str]:
        return {"prefix": self.prefix}


# -- [[connectors.azure-devops]] (issue 17, the Azure DevOps source) --------------------------

_GITHUB_RULED = ("name", "prefix", "api_url", "token_env", "token_file", "types")
"""The settings every tracker source checks as `[[connectors.github]]` does."""


def _as_github(cls: Any, value: Any, info: ValidationInfo) -> Any:
    """A tracker setting checked by the rule `[[connectors.github]]` has for it."""
    return getattr(GitHubConnector, f"_{info.field_name}")(value)


_ADO_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 ._-]*$")


class AzureDevOpsConnector(_TrackerSettings):
    """An Azure DevOps project's work items, read over the REST API (docs/sources.md)."""

    name: str
    organization: str
    project: str
    prefix: str
    api_url: str = "https://dev.azure.com"
    token_env: str | None = None
    token_file: str | None = None
    area: str | None = None
    revetly_project: str | None = None
    types: dict[str, list[str]] = Field(default_factory=dict)
    max_wait_seconds: int = Field(default=60, ge=0, le=3600)
    retries: int = Field(default=3, ge=0, le=10)
    max_response_bytes: int = Field(default=20_000_000, ge=1024)
    max_body_bytes: int = Field(default=1_000_000, ge=1)

    _like_github = field_validator(*_GITHUB_RULED)(_as_github)

    @field_validator("organization", "project")
    @classmethod
    def _org_or_project(cls, value: str) -> str:
        if not _ADO_NAME.match(value) or value != value.strip():
            raise ValueError(f"{value!r} must be an Azure DevOps name (letters, digits, "
                             "spaces, '.', '_' or '-')")
        return value

    @field_validator("area")
    @classmethod
    def _area(cls, value: str | None) -> str | None:
        if value is not None and (not value.strip() or any(c in value for c in "\n\r")):
            raise ValueError(f"{value!r} must be one area path, e.g. 'Fabrikam\\\\Web'")
        return value

    def prefixes(self) -> dict[str, str]:
        return {"prefix": self.prefix}


# -- [[connectors.todoist]] (issue 17, the Todoist source) ------------------------------------

class TodoistConnector(_TrackerSettings):
    """One Todoist project's tasks, read over Todoist's API v1 (docs/sources.md)."""

    name: str
    project: str
    prefix: str
    api_url: str = "https://api.todoist.com/api/v1"
    token_env: str | None = None
    token_file: str | None = None
    revetly_project: str | None = None
    types: dict[str, list[str]] = Field(default_factory=dict)
    completed_days: int = Field(default=365, ge=0, le=36_500)
    max_wait_seconds: int = Field(default=60, ge=0, le=3600)
    retries: int = Field(default=3, ge=0, le=10)
    max_response_bytes: int = Field(default=20_000_000, ge=1024)
    max_body_bytes: int = Field(default=1_000_000, ge=1)

    @field_validator("project")
    @classmethod
    def _project(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("name the Todoist project by its id or its name")
        return value

    _like_github = field_validator(*_GITHUB_RULED)(_as_github)

    def prefixes(self) -> dict[str, str]:
        return {"prefix": self.prefix}


class ConnectorsSection(_Strict):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    repository: RepositoryConnector = Field(default_factory=RepositoryConnector)
    commits: list[CommitsConnector] = Field(default_factory=list)
    backlog_md: list[BacklogMdConnector] = Field(default_factory=list, alias="backlog-md")
    adr: list[AdrConnector] = Field(default_factory=list)
    github: list[GitHubConnector] = Field(default_factory=list)
    azure_devops: list[AzureDevOpsConnector] = Field(default_factory=list, alias="azure-devops")
    todoist: list[TodoistConnector] = Field(default_factory=list)


class IdsSection(_Strict):
    families: dict[str, str] = Field(default_factory=lambda: dict(DEFAULT_FAMILIES))

    @field_validator("families")
    @classmethod
    def _families(cls, value: dict[str, str]) -> dict[str, str]:
        for prefix, typ in value.items():
            if not re.fullmatch(r"[A-Z][A-Z0-9]*", prefix):
                raise ValueError(f"family {prefix!r} must be upper-case letters and digits")
            if typ not in ARTIFACT_TYPES:
                raise ValueError(f"family {prefix!r} names unknown type {typ!r}")
        return value


class BacklogSection(_Strict):
    parents: dict[str, list[str]] = Field(
        default_factory=lambda: {k: list(v) for k, v in DEFAULT_PARENTS.items()}
    )

    @field_validator("parents")
    @classmethod
    def _parents(cls, value: dict[str, list[str]]) -> dict[str, list[str]]:
        for child, parents in value.items():
            for t in (child, *parents):
                if t not in WORK_ITEM_TYPES:
                    raise ValueError(f"{t!r} is not a work item type ({', '.join(WORK_ITEM_TYPES)})")
        return value


class ExtractionSection(_Strict):
    aliases: dict[str, list[str]] = Field(default_factory=dict)


class ReadSection(_Strict):
    budget: int = Field(default=32_768, ge=1_024)


class IndexSection(_Strict):
    backend: Literal["fts5", "whoosh"] = "fts5"


class GrantsSection(_Strict):
    """[auth.grants]: which projects a token's claim values reach (no section narrows nothing)."""

    claim: str = "groups"
    """The token claim read (a string or a list of strings)."""
    values: dict[str, list[str]] = Field(default_factory=dict)
    """Claim value -> the projects it reaches."""


class AuthSection(_Strict):
    """[auth]: who may approve what (the writes' approver floor reads approver_may_draft), and
    the verifier a served endpoint checks every bearer token with (revetly_core.auth)."""

    approver_may_draft: bool = False
    verifier: Literal["jwt"] | None = None
    """How a served endpoint verifies a bearer token; none declared authenticates nobody."""
    issuer: str | None = None
    """The authorization server (its `iss`), named in the RFC 9728 document."""
    jwks_uri: str | None = None
    """Where the issuer's signing keys are (found from its metadata when unset)."""
    introspection_url: str | None = None
    """An RFC 7662 endpoint asked on every request, so a revoked token stops mid-session."""
    introspection_client_id: str | None = None
    introspection_secret_env: str = "REVETLY_INTROSPECTION_SECRET"
    """The environment variable holding the introspection client's secret (never in the file)."""
    scopes: list[str] = Field(default_factory=list)
    """Scopes a token must carry (and the document's scopes_supported)."""
    audit_log: str | None = None
    """The append-only file a served endpoint writes one audit line per call to."""
    grants: GrantsSection | None = None
    review_client_id: str = "revetly-review"
    """The client id the URL review page signs people in under (a public client, PKCE)."""

    @field_validator("issuer", "jwks_uri", "introspection_url")
    @classmethod
    def _http_url(cls, value: str | None) -> str | None:
        if value is not None and not re.match(r"^https?://[^/\s]+", value):
            raise ValueError(f"{value!r} must be an http(s) URL")
        return value


class BackendSection(_Strict):
    """[backend]: what the write adapters put on a tracker (revetly_core.writeback)."""

    tracker_note: bool = True
    """Post a ship's delivery record as a note on the tracker item (``delivery_note``)."""


class ServedSection(_Strict):
    """[served]: the Streamable HTTP endpoint (`revetly serve --http`)."""

    host: str = "127.0.0.1"
    port: int = Field(default=8765, ge=0, le=65535)
    path: str = "/mcp"
    public_url: str | None = None
    """The address clients reach when a proxy stands in front (the resource tokens are for)."""
    allowed_origins: list[str] = Field(default_factory=list)
    """Origins a client running in a page may call from (checked on every request)."""
    read_only: bool = False
    """Serve every read and refuse every write by name."""

    @field_validator("path")
    @classmethod
    def _path(cls, value: str) -> str:
        if not re.fullmatch(r"/[A-Za-z0-9._~/-]*", value) or (value.endswith("/") and value != "/"):
            raise ValueError(f"{value!r} must be an absolute path like /mcp, without a trailing /")
        return value

    @field_validator("public_url")
    @classmethod
    def _public(cls, value: str | None) -> str | None:
        if value is not None and not re.match(r"^https?://[^/\s]+", value):
            raise ValueError(f"{value!r} must be an http(s) URL")
        return value


class EmbeddingSection(_Strict):
    """[embedding]: the declared provider (revetly_core.embedding.settings holds the values)."""

    provider: Literal["none", "local", "openai-compatible"] = "none"
    model: str | None = None
    api_url: str | None = None
    token_env: str | None = None
    timeout_seconds: float = Field(default=10.0, gt=0, le=120)


class LlmSection(_Strict):
    """[llm]: the extraction provider (revetly_core.llm.settings holds the values)."""

    provider: Literal["none", "openai-compatible"] = "none"
    model: str | None = None
    api_url: str | None = None
    token_env: str | None = None
    timeout_seconds: float = Field(default=60.0, gt=0, le=600)


class Config(_Strict):
    """The whole of revetly.toml. Unknown keys are refused, so a typo is never ignored."""

    instance: InstanceSection = Field(default_factory=InstanceSection)
    projects: dict[str, ProjectConfig] = Field(default_factory=dict)
    connectors: ConnectorsSection = Field(default_factory=ConnectorsSection)
    ids: IdsSection = Field(default_factory=IdsSection)
    backlog: BacklogSection = Field(default_factory=BacklogSection)
    extraction: ExtractionSection = Field(default_factory=ExtractionSection)
    ranking: dict[str, float] = Field(default_factory=dict)
    read: ReadSection = Field(default_factory=ReadSection)
    index: IndexSection = Field(default_factory=IndexSection)
    auth: AuthSection = Field(default_factory=AuthSection)
    served: ServedSection = Field(default_factory=ServedSection)
    backend: BackendSection = Field(default_factory=BackendSection)
    embedding: EmbeddingSection | None = None
    llm: LlmSection | None = None

    @field_validator("ranking")
    @classmethod
    def _ranking(cls, value: dict[str, float]) -> dict[str, float]:
        for name, weight in value.items():
            if name not in RANKING_SIGNALS + RANKING_LEGS:
                raise ValueError(f"unknown signal {name!r} (signals: {', '.join(RANKING_SIGNALS)}; "
                                 f"legs: {', '.join(RANKING_LEGS)})")
            if weight < 0:
                raise ValueError(f"signal {name!r} needs a weight ≥ 0")
        return value

    @model_validator(mode="after")
    def _cross(self) -> Config:
        names = set(self.projects)
        for name, project in self.projects.items():
            if not _NAME.match(name):
                raise ValueError(f"projects.{name}: use letters, digits, '.', '_' or '-', "
                                 "starting with a letter or digit")
            for imp in project.imports:
                if imp not in names:
                    raise ValueError(f"projects.{name}.imports: names unknown project {imp!r}")
        default = self.instance.default_project
        if default is not None and names and default not in names:
            raise ValueError(f"instance.default_project: {default!r} is not under [projects]")
        seen: set[str] = set()
        for i, c in enumerate(self.connectors.commits):
            if c.name in seen:
                raise ValueError(f"connectors.commits.{i}.name: two repositories are named "
                                 f"{c.name!r}")
            seen.add(c.name)
            if c.project is not None and names and c.project not in names:
                raise ValueError(f"connectors.commits.{i}.project: unknown project {c.project!r}")
        _check_sources(self, names)
        return self


def _check_sources(config: Config, names: set[str]) -> None:
    """Rules across sections for backlog-md, adr, github and azure-devops sources; each names
    its setting."""
    families = config.ids.families
    seen: dict[str, str] = {}
    kinds: tuple[tuple[str, Sequence[_SourceRepo | GitHubConnector | AzureDevOpsConnector]],
                 ...] = (
        ("backlog-md", config.connectors.backlog_md),
        ("adr", config.connectors.adr), ("github", config.connectors.github),
        ("azure-devops", config.connectors.azure_devops))
    for kind, sources in kinds:
        for i, src in enumerate(sources):
            where = f"connectors.{kind}.{i}"
            if src.name in seen:
                raise ValueError(f"{where}.name: {src.name!r} already names another source "
                                 f"({seen[src.name]})")
            seen[src.name] = kind
            setting, into = _instance_project(src)
            if into is not None and names and into not in names:
                raise ValueError(f"{where}.{setting}: unknown project {into!r}")
            for setting, family in src.prefixes().items():
                if family not in families:
                    raise ValueError(f"{where}.{setting}: family {family!r} is not declared "
                                     "under [ids.families]")
            for legacy in getattr(src, "legacy_families", []):
                if legacy not in families:
                    raise ValueError(f"{where}.legacy_families: family {legacy!r} is not "
                                     "declared under [ids.families]")
            for alias in getattr(src, "aliases", []):
                if alias in families:
                    raise ValueError(f"{where}.aliases: {alias!r} is a declared family, so it "
                                     "cannot also spell another one")
    _check_todoist_sources(config, names, seen)


def _check_todoist_sources(config: Config, names: set[str], seen: dict[str, str]) -> None:
    """The same rules for todoist sources, whose Revetly project is ``revetly_project``
    (their ``project`` names the Todoist project)."""
    families = config.ids.families
    for i, src in enumerate(config.connectors.todoist):
        where = f"connectors.todoist.{i}"
        if src.name in seen:
            raise ValueError(f"{where}.name: {src.name!r} already names another source "
                             f"({seen[src.name]})")
        seen[src.name] = "todoist"
        if src.revetly_project is not None and names and src.revetly_project not in names:
            raise ValueError(f"{where}.revetly_project: unknown project {src.revetly_project!r}")
        if src.prefix not in families:
            raise ValueError(f"{where}.prefix: family {src.prefix!r} is not declared "
                             "under [ids.families]")


def _instance_project(src: _SourceRepo | GitHubConnector | AzureDevOpsConnector,
                      ) -> tuple[str, str | None]:
    """(setting, value) naming the Revetly project a source's items land in: `project`, or
    `revetly_project` on Azure DevOps, whose `project` is its own."""
    if isinstance(src, AzureDevOpsConnector):
        return "revetly_project", src.revetly_project
    return "project", src.project


def _setting_of(loc: tuple[int | str, ...]) -> str:
    return ".".join(str(p) for p in loc) or "(root)"


def validated_settings(data: dict[str, Any], origin: str = CONFIG_FILE) -> dict[str, Any]:
    """Validate a parsed revetly.toml into its settings (python values, defaults filled in); a
    bad setting is refused naming it and the fix."""
    try:
        return Config.model_validate(data).model_dump()
    except ValidationError as exc:
        err = exc.errors()[0]
        setting = _setting_of(err["loc"])
        msg = err["msg"].removeprefix("Value error, ")
        if not err["loc"] and ": " in msg:  # a rule across sections names its setting first
            setting, msg = msg.split(": ", 1)
        if err["type"] == "extra_forbidden":
            fix = f"remove or rename {setting!r}; see docs/configuration.md for the settings"
        else:
            fix = f"correct {setting!r} in {origin}; see docs/configuration.md"
        raise Refusal(
            "refused", f"{origin}: {setting}: {msg}", fix, {"setting": setting}
        ) from None
