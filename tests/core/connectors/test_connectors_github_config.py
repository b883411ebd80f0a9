"""`[[connectors.github]]`: the schema and the settings dataclass agree; bad values are refused."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from revetly_core.config import parse_config
from revetly_core.connectors.github import GitHubConnector
from revetly_core.connectors.sources import declared_sources
from revetly_core.ids import DEFAULT_FAMILIES
from revetly_core.refusal import Refusal

from revetly_core import config as settings
from revetly_core import config_schema

FAMILIES = {**DEFAULT_FAMILIES, "GH": "story"}


def _config(**github: Any) -> dict[str, Any]:
    entry = {"name": "app", "repo": "acme/app", "prefix": "GH", **github}
    return {"ids": {"families": FAMILIES}, "connectors": {"github": [entry]}}


def test_the_section_declares_the_schema_fields_in_its_order() -> None:
    ours = [f.name for f in dataclasses.fields(settings.GitHubConnector)]
    assert ours == list(config_schema.GitHubConnector.model_fields)


def test_a_github_config_dumps_as_the_schema_dumps() -> None:
    data = _config(api_url="http://127.0.0.1:9/", token_env="GH_TOKEN",
                   types={"story": ["story", "feature"], "bug": ["bug"]}, max_wait_seconds=5)
    ours = parse_config(data)
    assert ours.model_dump_json() == config_schema.Config.model_validate(data).model_dump_json()
    gh = ours.connectors.github[0]
    assert gh.api_url == "http://127.0.0.1:9" and gh.types["story"] == ["story", "feature"]


def test_the_defaults() -> None:
    gh = parse_config(_config()).connectors.github[0]
    assert (gh.api_url, gh.token_env, gh.in_progress_label, gh.types) == (
        "https://api.github.com", None, "in-progress", {})


@pytest.mark.parametrize(("change", "setting"), [
    ({"repo": "acme"}, "connectors.github.0.repo"),
    ({"repo": "acme/../x"}, "connectors.github.0.repo"),
    ({"api_url": "ftp://x"}, "connectors.github.0.api_url"),
    ({"token_env": "not a name"}, "connectors.github.0.token_env"),
    ({"prefix": "gh"}, "connectors.github.0.prefix"),
    ({"types": {"issue": ["x"]}}, "connectors.github.0.types"),
    ({"types": {"story": [" "]}}, "connectors.github.0.types"),
    ({"token": "ghp_x"}, "connectors.github.0.token"),
])
def test_a_bad_setting_is_refused_naming_it(change: dict[str, Any], setting: str) -> None:
    with pytest.raises(Refusal) as exc:
        parse_config(_config(**change))
    assert exc.value.code == "refused" and setting in exc.value.detail


def test_the_prefix_must_be_a_declared_family() -> None:
    data = _config()
    data["ids"] = {"families": DEFAULT_FAMILIES}
    with pytest.raises(Refusal) as exc:
        parse_config(data)
    assert "connectors.github.0.prefix" in exc.value.detail and "'GH'" in exc.value.detail


def test_a_name_used_by_another_source_is_refused() -> None:
    data = _config()
    data["connectors"]["adr"] = [{"name": "app", "path": "../adr"}]
    data["ids"]["families"]["ADR"] = "decision"
    with pytest.raises(Refusal) as exc:
        parse_config(data)
    assert "connectors.github.0.name" in exc.value.detail


def test_each_declared_repository_is_one_connector(tmp_path: Any) -> None:
    sources = declared_sources(tmp_path, parse_config(_config()))
    assert [(type(s), s.source_id) for s in sources] == [(GitHubConnector, "github/app")]
