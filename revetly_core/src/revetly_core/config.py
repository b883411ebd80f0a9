"""revetly.toml: the instance's declared configuration, as frozen dataclasses.

The file is validated at the boundary by the pydantic models of `config_schema`, and the
validated values are copied into the dataclasses below, which every consumer reads. An unchanged
file is not validated again: `load_config` reuses the settings `config_cache` kept for the same
bytes, so opening an engine imports no pydantic (decisions/0025).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import importlib
import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from revetly_core.ids import DEFAULT_FAMILIES
from revetly_core.model import DEFAULT_PARENTS
from revetly_core.refusal import Refusal

if TYPE_CHECKING:
    from revetly_core.config_sources import AdrConnector as AdrConnector
    from revetly_core.config_sources import AzureDevOpsConnector as AzureDevOpsConnector
    from revetly_core.config_sources import BacklogMdConnector as BacklogMdConnector
    from revetly_core.config_sources import CommitsConnector as CommitsConnector
    from revetly_core.config_sources import GitHubConnector as GitHubConnector
    from revetly_core.config_sources import GitHubProjectsV2 as GitHubProjectsV2
    from revetly_core.config_sources import SourceRepoSettings as SourceRepoSettings
    from revetly_core.config_sources import TodoistConnector as TodoistConnector
    from revetly_core.embedding.settings import EmbeddingSection
    from revetly_core.llm.settings import LlmSection

CONFIG_FILE = "revetly.toml"
MAX_CONFIG_BYTES = 1_048_576
"""The longest revetly.toml read (a longer one is refused before it is read whole)."""

RANKING_SIGNALS = ("exact-id", "recency", "provenance", "link-count", "kind", "superseded")
RANKING_LEGS = ("feedback", "semantic", "recipe", "phrase")
"""[ranking] also sets the share of each optional leg (0 switches the leg off)."""

DEFAULT_BACKLOG_MD_STATUSES: dict[str, str] = {
    "To Do": "ready",
    "In Progress": "in-progress",
    "Done": "done",
}
"""Backlog.md status -> Revetly work item status, before a source's own `statuses` table."""

WorkItemType = Literal["epic", "feature", "story", "task", "bug"]


@dataclass(frozen=True)
class InstanceSection:
    name: str = "revetly"
    default_project: str | None = None


@dataclass(frozen=True)
class ProjectConfig:
    imports: list[str] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)
    """Folders of the instance repo whose artifacts belong to this project (empty: the default)."""


@dataclass(frozen=True)
class RepositoryConnector:
    paths: list[str] = field(default_factory=lambda: ["backlog", "notes", "records"])
    max_file_bytes: int = 1_000_000




@dataclass(frozen=True)
class ConnectorsSection:
    repository: RepositoryConnector = field(default_factory=RepositoryConnector)
    commits: list[CommitsConnector] = field(default_factory=list)
    backlog_md: list[BacklogMdConnector] = field(default_factory=list)
    """Written `[[connectors.backlog-md]]` in the file."""
    adr: list[AdrConnector] = field(default_factory=list)
    github: list[GitHubConnector] = field(default_factory=list)
    azure_devops: list[AzureDevOpsConnector] = field(default_factory=list)
    """Written `[[connectors.azure-devops]]` in the file."""
    todoist: list[TodoistConnector] = field(default_factory=list)


@dataclass(frozen=True)
class IdsSection:
    families: dict[str, str] = field(default_factory=lambda: dict(DEFAULT_FAMILIES))


@dataclass(frozen=True)
class BacklogSection:
    parents: dict[str, list[str]] = field(
        default_factory=lambda: {k: list(v) for k, v in DEFAULT_PARENTS.items()}
    )


@dataclass(frozen=True)
class ExtractionSection:
    aliases: dict[str, list[str]] = field(default_factory=dict)


@dataclass(frozen=True)
class ReadSection:
    budget: int = 32_768


@dataclass(frozen=True)
class IndexSection:
    backend: Literal["fts5", "whoosh"] = "fts5"


@dataclass(frozen=True)
class GrantsSection:
    """[auth.grants]: which projects a token's claim values reach (no section narrows nothing)."""

    claim: str = "groups"
    """The token claim read (a string or a list of strings)."""
    values: dict[str, list[str]] = field(default_factory=dict)
    """Claim value -> the projects it reaches."""


@dataclass(frozen=True)
class AuthSection:
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
    scopes: list[str] = field(default_factory=list)
    """Scopes a token must carry (and the document's scopes_supported)."""
    audit_log: str | None = None
    """The append-only file a served endpoint writes one audit line per call to."""
    grants: GrantsSection | None = None
    review_client_id: str = "revetly-review"
    """The client id the URL review page signs people in under (a public client, PKCE)."""


@dataclass(frozen=True)
class BackendSection:
    """[backend]: what the write adapters put on a tracker (revetly_core.writeback)."""

    tracker_note: bool = True
    """Post a ship's delivery record as a note on the tracker item (``delivery_note``)."""


@dataclass(frozen=True)
class ServedSection:
    """[served]: the Streamable HTTP endpoint (`revetly serve --http`)."""

    host: str = "127.0.0.1"
    port: int = 8765
    path: str = "/mcp"
    public_url: str | None = None
    """The address clients reach when a proxy stands in front (the resource tokens are for)."""
    allowed_origins: list[str] = field(default_factory=list)
    """Origins a client running in a page may call from (checked on every request)."""
    read_only: bool = False
    """Serve every read and refuse every write by name."""


@dataclass(frozen=True)
class Config:
    """The whole of revetly.toml. Unknown keys are refused, so a typo is never ignored."""

    instance: InstanceSection = field(default_factory=InstanceSection)
    projects: dict[str, ProjectConfig] = field(default_factory=dict)
    connectors: ConnectorsSection = field(default_factory=ConnectorsSection)
    ids: IdsSection = field(default_factory=IdsSection)
    backlog: BacklogSection = field(default_factory=BacklogSection)
    extraction: ExtractionSection = field(default_factory=ExtractionSection)
    ranking: dict[str, float] = field(default_factory=dict)
    read: ReadSection = field(default_factory=ReadSection)
    index: IndexSection = field(default_factory=IndexSection)
    auth: AuthSection = field(default_factory=AuthSection)
    served: ServedSection = field(default_factory=ServedSection)
    backend: BackendSection = field(default_factory=BackendSection)
    embedding: EmbeddingSection | None = None
    """[embedding]: the semantic leg's provider; absent (or provider = "none") is lite."""
    llm: LlmSection | None = None
    """[llm]: the full instance's extraction provider; absent (or provider = "none") is lite."""

    model_fields: ClassVar[dict[str, dataclasses.Field[Any]]]
    """The top-level setting names (pydantic's spelling, kept for callers that read it)."""

    @property
    def id_aliases(self) -> dict[str, str]:
        """Other words for a declared family (from backlog-md sources): alias -> family."""
        return {a: s.task_prefix for s in self.connectors.backlog_md for a in s.aliases}

    @property
    def dotted_families(self) -> list[str]:
        """Families whose ids take dotted sub-task parts (``BACK-24.1``)."""
        return sorted({f for s in self.connectors.backlog_md
                       for f in (s.task_prefix, s.draft_prefix, *s.legacy_families)})

    @property
    def default_project(self) -> str:
        """The project an artifact belongs to when nothing else says."""
        if self.instance.default_project:
            return self.instance.default_project
        if self.projects:
            return sorted(self.projects)[0]
        return self.instance.name

    @property
    def project_names(self) -> list[str]:
        return sorted(self.projects) or [self.default_project]

    def project_for_path(self, rel_path: str) -> str:
        """The project a repository file belongs to: the longest declared folder holding it."""
        best, best_len = self.default_project, -1
        for name, project in self.projects.items():
            for folder in project.paths:
                prefix = folder.strip("/") + "/"
                if rel_path.startswith(prefix) and len(prefix) > best_len:
                    best, best_len = name, len(prefix)
        return best

    def model_dump_json(self) -> str:
        """The settings as compact JSON, byte for byte what the schema model dumps (the read
        pass's config fingerprint is a digest of it)."""
        return compact_json(settings_of(self))

    def model_copy(self, *, update: dict[str, Any] | None = None) -> Config:
        """The same settings with some top-level ones replaced (not validated again)."""
        return dataclasses.replace(self, **(update or {}))


Config.model_fields = {f.name: f for f in dataclasses.fields(Config)}


# -- the validated values into the dataclasses, and back ------------------------------------------

_NESTED: dict[str, dict[str, tuple[str, str]]] = {
    "Config": {"instance": ("one", "InstanceSection"), "projects": ("map", "ProjectConfig"),
               "connectors": ("one", "ConnectorsSection"), "ids": ("one", "IdsSection"),
               "backlog": ("one", "BacklogSection"), "extraction": ("one", "ExtractionSection"),
               "read": ("one", "ReadSection"), "index": ("one", "IndexSection"),
               "auth": ("one", "AuthSection"), "served": ("one", "ServedSection"),
               "backend": ("one", "BackendSection"), "embedding": ("one", "EmbeddingSection"),
               "llm": ("one", "LlmSection")},
    "ConnectorsSection": {"repository": ("one", "RepositoryConnector"),
                          "commits": ("list", "CommitsConnector"),
                          "backlog_md": ("list", "BacklogMdConnector"),
                          "adr": ("list", "AdrConnector"), "github": ("list", "GitHubConnector"),
                          "azure_devops": ("list", "AzureDevOpsConnector"),
                          "todoist": ("list", "TodoistConnector")},
    "AuthSection": {"grants": ("one", "GrantsSection")},
    "GitHubConnector": {"projects_v2": ("one", "GitHubProjectsV2")},
}
"""Fields holding other sections: how (one, a list, a name -> section map) and which class, by
name (`section_class`), so a class defined elsewhere loads only when a value needs it."""

_SECTIONS_ELSEWHERE = {
    **dict.fromkeys(("AdrConnector", "AzureDevOpsConnector", "BacklogMdConnector",
                     "CommitsConnector", "GitHubConnector", "GitHubProjectsV2",
                     "SourceRepoSettings", "TodoistConnector"), "revetly_core.config_sources"),
    "EmbeddingSection": "revetly_core.embedding.settings",
    "LlmSection": "revetly_core.llm.settings",
}
"""The settings classes this module names but does not define, and the module of each."""


def section_class(name: str) -> type[Any]:
    """A settings class by name: one defined here, or one imported from its own module on first
    use (a file that declares no source never loads the sources' classes)."""
    home = _SECTIONS_ELSEWHERE.get(name)
    found: type[Any] = (getattr(importlib.import_module(home), name) if home is not None
                        else globals()[name])
    return found


def __getattr__(name: str) -> Any:
    """`revetly_core.config.GitHubConnector` and the other classes defined elsewhere, loaded
    when first named (PEP 562)."""
    if name in _SECTIONS_ELSEWHERE:
        return section_class(name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def build_settings(cls: type[Any], values: dict[str, Any]) -> Any:
    """A settings dataclass from validated values (the schema's dump or the cache's JSON);
    a value that does not fit raises KeyError, TypeError or ValueError."""
    nested = _NESTED.get(cls.__name__, {})
    kwargs: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        value = values[f.name]
        how, inner = nested.get(f.name, ("value", ""))
        if value is None or how == "value":
            kwargs[f.name] = value
        elif how == "one":
            kwargs[f.name] = build_settings(section_class(inner), value)
        elif how == "list":
            kwargs[f.name] = [build_settings(section_class(inner), v) for v in value]
        else:
            kwargs[f.name] = {k: build_settings(section_class(inner), v) for k, v in value.items()}
    if len(values) != len(kwargs):
        raise KeyError(f"{cls.__name__}: unexpected settings {sorted(set(values) - set(kwargs))}")
    return cls(**kwargs)


def settings_of(config: Config) -> dict[str, Any]:
    """The settings as plain values, in declaration order (dates as ISO strings)."""
    plain: dict[str, Any] = _plain(dataclasses.asdict(config))
    return plain


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, dt.date):
        return value.isoformat()
    return value


def compact_json(value: Any) -> str:
    """JSON as pydantic writes it: no spaces, UTF-8 kept, infinities and NaN as null, floats as
    Python writes them except that exponent -5 is spelled out (0.00001) and a negative exponent
    is not zero-padded (1e-6)."""
    if isinstance(value, dict):
        return "{" + ",".join(f"{json.dumps(k, ensure_ascii=False)}:{compact_json(v)}"
                              for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ",".join(compact_json(v) for v in value) + "]"
    if isinstance(value, float):
        return _float_json(value)
    return json.dumps(value, ensure_ascii=False)


def _float_json(value: float) -> str:
    if not math.isfinite(value):
        return "null"
    text = repr(value)
    if "e-" not in text:
        return text
    mantissa, exponent = text.split("e-")
    sign, digits = ("-", mantissa[1:]) if mantissa.startswith("-") else ("", mantissa)
    if int(exponent) == 5:
        return f"{sign}0.0000{digits.replace('.', '')}"
    return f"{mantissa}e-{int(exponent)}"


# -- reading the file ---------------------------------------------------------------------------


def parse_config(data: dict[str, Any], origin: str = CONFIG_FILE) -> Config:
    """Validate a parsed revetly.toml; a bad setting is refused naming it and the fix."""
    from revetly_core.config_schema import validated_settings

    built: Config = build_settings(Config, validated_settings(data, origin))
    return built


def read_config_bytes(instance_root: Path) -> bytes:
    """The bytes of the instance's revetly.toml, bounded before they are read."""
    path = instance_root / CONFIG_FILE
    try:
        with path.open("rb") as fh:
            raw = fh.read(MAX_CONFIG_BYTES + 1)
    except FileNotFoundError:
        raise Refusal(
            "no-instance",
            f"{instance_root} has no {CONFIG_FILE}",
            "run `revetly init PATH` or point --instance at an instance",
        ) from None
    except OSError as exc:
        raise Refusal("refused", f"cannot read {path}: {exc}", "check the file") from None
    if len(raw) > MAX_CONFIG_BYTES:
        raise Refusal("refused", f"cannot read {path}: longer than {MAX_CONFIG_BYTES} bytes",
                      "check the file")
    return raw


def config_from_bytes(raw: bytes, path: Path) -> Config:
    """Decode, parse and validate revetly.toml's bytes (text-mode newlines, as a text read)."""
    import tomllib

    try:
        text = raw.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")
    except UnicodeDecodeError as exc:
        raise Refusal("refused", f"cannot read {path}: {exc}", "check the file") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise Refusal(
            "refused", f"{CONFIG_FILE} is not valid TOML: {exc}", f"fix the syntax of {path}",
            {"setting": "(file)"},
        ) from None
    return parse_config(data)


def load_config(instance_root: Path) -> Config:
    """Read the instance's revetly.toml: the cached settings when its bytes are unchanged,
    else validated (and cached for the next read)."""
    from revetly_core.config_cache import cached_config, remember_config

    raw = read_config_bytes(instance_root)
    config = cached_config(instance_root, raw)
    if config is None:
        config = config_from_bytes(raw, instance_root / CONFIG_FILE)
        remember_config(instance_root, raw, config)
    return config
