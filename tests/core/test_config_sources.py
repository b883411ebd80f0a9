"""The source settings live in config_sources and load only when named (the start-up rule)."""

from __future__ import annotations

import json
import subprocess
import sys

import revetly_core.config as config
import revetly_core.config_sources as config_sources
from revetly_core.config import Config, build_settings, parse_config, section_class, settings_of

from tests.core.gitrepo import Instance, env_without_instance, md

SOURCE_CLASSES = ("AdrConnector", "AzureDevOpsConnector", "BacklogMdConnector", "CommitsConnector",
                  "GitHubConnector", "GitHubProjectsV2", "SourceRepoSettings", "TodoistConnector")

PROBE = """
import json, sys
from revetly_core.engine import Engine
answer = Engine.open(sys.argv[1]).search_context("invoice export")
print(json.dumps({"served": [a["artifact_id"] for a in answer["artifacts"]],
                  "loaded": "revetly_core.config_sources" in sys.modules}))
"""


def test_config_names_every_source_class_as_the_one_of_config_sources() -> None:
    for name in SOURCE_CLASSES:
        assert getattr(config, name) is getattr(config_sources, name)
        assert section_class(name) is getattr(config_sources, name)


def test_section_class_finds_a_class_defined_in_config_itself() -> None:
    assert section_class("ServedSection") is config.ServedSection


def test_an_unknown_name_is_no_attribute_of_config() -> None:
    assert not hasattr(config, "NoSuchSection")


def test_declared_sources_are_built_into_their_classes_and_dumped_back() -> None:
    parsed = parse_config({"ids": {"families": {"GH": "story"}}, "connectors": {
        "commits": [{"name": "app", "path": "../app", "since": "2026-01-02"}],
        "github": [{"name": "gh", "repo": "acme/app", "prefix": "GH",
                    "projects_v2": {"owner": "acme", "number": 3}}]}})
    commits = parsed.connectors.commits[0]
    github = parsed.connectors.github[0]
    assert isinstance(commits, config_sources.CommitsConnector)
    assert isinstance(github.projects_v2, config_sources.GitHubProjectsV2)
    assert build_settings(Config, settings_of(parsed)) == parsed


def test_a_search_on_an_instance_without_sources_loads_no_source_settings(
        instance: Instance) -> None:
    instance.git.write_and_commit({"backlog/STORY-001.md": md(
        "STORY-001", "Export invoices as CSV", body="The invoice export writes one row.\n")})
    instance.sync(full=True)
    instance.engine()  # validates revetly.toml once and caches it
    done = subprocess.run([sys.executable, "-c", PROBE, str(instance.root)], capture_output=True,
                          text=True, timeout=300, check=True, env=env_without_instance())
    result = json.loads(done.stdout)
    assert result["served"] == ["STORY-001"]
    assert result["loaded"] is False
