"""`[[connectors.todoist]]`: the schema and the settings dataclass agree; bad values are refused."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from revetly_core.config import parse_config
from revetly_core.connectors.sources import declared_sources
from revetly_core.connectors.todoist import TodoistConnector
from revetly_core.ids import DEFAULT_FAMILIES
from revetly_core.refusal import Refusal

from revetly_core import config as settings
from revetly_core import config_schema

FAMILIES = {**DEFAULT_FAMILIES, "TD": "story"}


def _config(**todoist: Any) -> dict[str, Any]:
    entry = {"name": "app", "project": "App", "prefix": "TD", **todoist}
    return {"ids": {"families": FAMILIES}, "connectors": {"todoist": [entry]}}


def test_the_section_declares_the_schema_fields_in_its_order() -> None:
    ours = [f.name for f in dataclasses.fields(settings.TodoistConnector)]
    assert ours == list(config_schema.TodoistConnector.model_fields)


def test_a_todoist_config_dumps_as_the_schema_dumps() -> None:
    data = _config(api_url="http://127.0.0.1:9/api/v1/", token_env="TODOIST_TOKEN",
                   types={"story": ["story"], "bug": ["bug"]}, completed_days=30)
    ours = parse_config(data)
    assert ours.model_dump_json() == config_schema.Config.model_validate(data).model_dump_json()
    td = ours.connectors.todoist[0]
    assert td.api_url == "http://127.0.0.1:9/api/v1" and td.completed_days == 30


def test_the_defaults() -> None:
    td = parse_config(_config()).connectors.todoist[0]
    assert (td.api_url, td.token_env, td.revetly_project, td.types, td.completed_days) == (
        "https://api.todoist.com/api/v1", None, None, {}, 365)


@pytest.mark.parametrize(("change", "setting"), [
    ({"project": " "}, "connectors.todoist.0.project"),
    ({"api_url": "ftp://x"}, "connectors.todoist.0.api_url"),
    ({"token_env": "not a name"}, "connectors.todoist.0.token_env"),
    ({"prefix": "td"}, "connectors.todoist.0.prefix"),
    ({"types": {"item": ["x"]}}, "connectors.todoist.0.types"),
    ({"types": {"story": [" "]}}, "connectors.todoist.0.types"),
    ({"completed_days": -1}, "connectors.todoist.0.completed_days"),
    ({"token": "0123"}, "connectors.todoist.0.token"),
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
    assert "connectors.todoist.0.prefix" in exc.value.detail and "'TD'" in exc.value.detail


def test_a_name_used_by_another_source_is_refused() -> None:
    data = _config()
    data["connectors"]["github"] = [{"name": "app", "repo": "acme/app", "prefix": "TD"}]
    with pytest.raises(Refusal) as exc:
        parse_config(data)
    assert "connectors.todoist.0.name" in exc.value.detail


def test_the_revetly_project_must_be_declared() -> None:
    data = _config(revetly_project="mobile")
    data["projects"] = {"web": {"paths": ["web"]}}
    data["instance"] = {"default_project": "web"}
    with pytest.raises(Refusal) as exc:
        parse_config(data)
    assert "connectors.todoist.0.revetly_project" in exc.value.detail


def test_each_declared_project_is_one_connector(tmp_path: Any) -> None:
    sources = declared_sources(tmp_path, parse_config(_config()))
    assert [(type(s), s.source_id) for s in sources] == [(TodoistConnector, "todoist/app")]
