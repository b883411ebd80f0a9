"""Who a call resolved to: the principal recorded on every record the call writes."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, Literal

ENV_ACTOR = "REVETLY_ACTOR"
"""Names who is acting (a person, or an agent naming itself)."""
ENV_ACTOR_KIND = "REVETLY_ACTOR_KIND"
"""'machine' flags REVETLY_ACTOR as a machine actor whatever its name."""
ENV_REVIEWER = "REVETLY_REVIEWER"
"""Names the person answering reviews at this terminal; it wins over REVETLY_ACTOR there."""
ENV_SERVICE_IDENTITY = "REVETLY_SERVICE_IDENTITY"
"""The engine's own baked-in identity (a container's git user.name), which never approves."""
SERVICE_SENTINEL = "revetly-service"
"""The name a call resolves to when nothing names anybody."""

_MACHINE = re.compile(
    r"(\[bot\]$|(^|[-_.\s])(bot|ci|agent|automation|service)($|[-_.\s])|^github-actions|"
    r"^dependabot|^renovate|^claude|^codex|^copilot)",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Principal:
    """A resolved caller: its name, whether it is a person or a machine, and how we know."""

    name: str
    kind: Literal["person", "machine"]
    verified: bool
    source: str
    email: str | None = None
    agent: str | None = None
    """The agent the call came through (an MCP client's name and version), when one is known."""

    def record(self) -> dict[str, Any]:
        """The principal as a record stores it."""
        out = asdict(self)
        for key in ("email", "agent"):
            if out[key] is None:
                del out[key]
        return out

    @classmethod
    def from_record(cls, data: Mapping[str, Any]) -> Principal:
        kind: Literal["person", "machine"] = (
            "machine" if data.get("kind") == "machine" else "person")
        return cls(str(data.get("name", "")), kind, bool(data.get("verified")),
                   str(data.get("source", "unknown")), data.get("email"), data.get("agent"))


AGENT_SOURCE = "mcp-client-info"
"""The source of a drafter known only by the agent it came through."""


def agent_label(name: str | None, version: str | None) -> str | None:
    """An MCP client's clientInfo as one label ('acme-agent 1.4.0'), or None when unnamed."""
    if not isinstance(name, str) or not name.strip():
        return None
    label = name.strip()[:120]
    if isinstance(version, str) and version.strip():
        label += f" {version.strip()[:40]}"
    return label


def drafting_principal(given: Principal | None, agent_name: str | None,
                       agent_version: str | None, local: Principal) -> Principal:
    """Who drafted: the principal the shell passed (a token's subject), else the agent itself
    (a machine known by its client info), else the local caller; the agent is kept beside it."""
    agent = agent_label(agent_name, agent_version)
    if given is not None:
        return replace(given, agent=agent or given.agent)
    if agent is not None and agent_name is not None:
        return Principal(agent_name.strip()[:120], "machine", False, AGENT_SOURCE, agent=agent)
    return local


def is_machine_name(name: str) -> bool:
    """A name that reads as a bot, CI job or agent (e.g. 'github-actions[bot]', 'ci-runner')."""
    return bool(_MACHINE.search(name.strip()))


def is_service_identity(p: Principal, env: Mapping[str, str] | None = None) -> bool:
    """The sentinel, or the name REVETLY_SERVICE_IDENTITY declares as the engine's own."""
    env = os.environ if env is None else env
    service = env.get(ENV_SERVICE_IDENTITY, "").strip()
    return p.name == SERVICE_SENTINEL or p.source == "sentinel" or (
        bool(service) and p.name.casefold() == service.casefold()
    )


def _git_identity(root: Path) -> tuple[str | None, str | None]:
    import pygit2

    config: Any
    try:
        config = pygit2.Repository(str(root)).config
    except pygit2.GitError:
        try:
            config = pygit2.Config.get_global_config()
        except (OSError, pygit2.GitError):
            return None, None

    def get(key: str) -> str | None:
        try:
            value = config[key]
        except (KeyError, pygit2.GitError):
            return None
        return str(value).strip() or None

    return get("user.name"), get("user.email")


def resolve_local_principal(
    root: Path, *, env: Mapping[str, str] | None = None, reviewer: bool = False
) -> Principal:
    """Local caller: REVETLY_REVIEWER (reviewing only), REVETLY_ACTOR, git config, else sentinel."""
    env = os.environ if env is None else env
    forced_machine = env.get(ENV_ACTOR_KIND, "").strip().lower() == "machine"
    if reviewer and env.get(ENV_REVIEWER, "").strip():
        name = env[ENV_REVIEWER].strip()
        return Principal(name, "machine" if is_machine_name(name) else "person", False,
                         ENV_REVIEWER)
    actor = env.get(ENV_ACTOR, "").strip()
    if actor:
        machine = forced_machine or is_machine_name(actor)
        return Principal(actor, "machine" if machine else "person", False, ENV_ACTOR)
    git_name, email = _git_identity(root)
    if git_name:
        machine = forced_machine or is_machine_name(git_name)
        return Principal(git_name, "machine" if machine else "person", False, "git-config", email)
    return Principal(SERVICE_SENTINEL, "machine", False, "sentinel")
