"""Who a call resolves to locally, and which names read as machines or the service."""

from __future__ import annotations

from pathlib import Path

import pytest
from revetly_core.writes.principal import (
    SERVICE_SENTINEL,
    Principal,
    is_machine_name,
    is_service_identity,
    resolve_local_principal,
)

from tests.core.gitrepo import GitRepo


def test_actor_env_wins_over_git_config(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "r")
    repo.repo.config["user.name"] = "Git Person"
    p = resolve_local_principal(repo.root, env={"REVETLY_ACTOR": "Ana"})
    assert (p.name, p.kind, p.source, p.verified) == ("Ana", "person", "REVETLY_ACTOR", False)


def test_git_config_when_no_actor(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "r")
    repo.repo.config["user.name"] = "Git Person"
    repo.repo.config["user.email"] = "gp@example.com"
    p = resolve_local_principal(repo.root, env={})
    assert (p.name, p.source, p.email) == ("Git Person", "git-config", "gp@example.com")


def test_reviewer_env_only_when_reviewing(tmp_path: Path) -> None:
    env = {"REVETLY_ACTOR": "claude-agent", "REVETLY_REVIEWER": "Ana"}
    root = GitRepo(tmp_path / "r").root
    assert resolve_local_principal(root, env=env).name == "claude-agent"
    assert resolve_local_principal(root, env=env, reviewer=True).name == "Ana"


@pytest.mark.parametrize("name", ["github-actions[bot]", "ci-runner", "claude-code",
                                  "deploy bot", "renovate"])
def test_machine_names_are_flagged(name: str) -> None:
    assert is_machine_name(name)


@pytest.mark.parametrize("name", ["Dana Reyes", "Abbot Jones", "Cia"])
def test_person_names_are_not(name: str) -> None:
    assert not is_machine_name(name)


def test_actor_kind_machine_forces_machine(tmp_path: Path) -> None:
    root = GitRepo(tmp_path / "r").root
    p = resolve_local_principal(root, env={"REVETLY_ACTOR": "Helper", "REVETLY_ACTOR_KIND": "machine"})
    assert p.kind == "machine"


def test_service_identity() -> None:
    baked = Principal("builder", "person", False, "git-config")
    assert is_service_identity(baked, {"REVETLY_SERVICE_IDENTITY": "builder"})
    assert not is_service_identity(baked, {})
    assert is_service_identity(Principal(SERVICE_SENTINEL, "machine", False, "sentinel"), {})


def test_record_round_trip() -> None:
    p = Principal("Ana", "person", True, "token", "ana@example.com")
    assert Principal.from_record(p.record()) == p
