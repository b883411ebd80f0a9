"""`[connectors.github.projects_v2]`: the schema and the dataclass agree; bad values are
refused naming the setting; unset, a github source's settings are what they were."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from revetly_core.config import parse_config
from revetly_core.ids import DEFAULT_FAMILIES
from revetly_core.refusal import Refusal

from revetly_core import config as settings
from revetly_core import config_schema

FAMILIES = {**DEFAULT_FAMILIES, "GH": "story"}
BOARD = {"owner": "acme", "number": 3,
         "statuses": {"Todo": "ready", "In Progress": "in-progress", "Done": "done"}}


def _config(**project: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {"name": "app", "repo": "acme/app", "prefix": "GH"}
    if project:
        entry["projects_v2"] = project
    return {"ids": {"families": FAMILIES}, "connectors": {"github": [entry]}}


def test_the_table_declares_the_schema_fields_in_its_order() -> None:
    ours = [f.name for f in dataclasses.fields(settings.GitHubProjectsV2)]
    assert ours == list(config_schema.GitHubProjectsV2.model_fields)


def test_a_project_config_dumps_as_the_schema_dumps() -> None:
    data = _config(**BOARD)
    ours = parse_config(data)
    assert ours.model_dump_json() == config_schema.Config.model_validate(data).model_dump_json()
    board = ours.connectors.github[0].projects_v2
    assert board is not None and (board.owner, board.number, board.status_field) == (
        "acme", 3, "Status")
    assert board.statuses["In Progress"] == "in-progress"


def test_unset_there_is_no_project() -> None:
    assert parse_config(_config()).connectors.github[0].projects_v2 is None


@pytest.mark.parametrize(("change", "setting"), [
    ({"owner": "-acme"}, "connectors.github.0.projects_v2.owner"),
    ({"owner": "acme/app"}, "connectors.github.0.projects_v2.owner"),
    ({"number": 0}, "connectors.github.0.projects_v2.number"),
    ({"status_field": " "}, "connectors.github.0.projects_v2.status_field"),
    ({"statuses": {"Todo": "todo"}}, "connectors.github.0.projects_v2.statuses"),
    ({"url": "https://github.com/orgs/acme/projects/3"}, "connectors.github.0.projects_v2.url"),
])
def test_a_bad_project_setting_is_refused_naming_it(change: dict[str, Any], setting: str) -> None:
    with pytest.raises(Refusal) as exc:
        parse_config(_config(**{**BOARD, **change}))
    assert exc.value.code == "refused" and setting in exc.value.detail


def test_the_owner_and_number_are_required() -> None:
    with pytest.raises(Refusal) as exc:
        parse_config(_config(status_field="Status"))
    assert "connectors.github.0.projects_v2.owner" in exc.value.detail
