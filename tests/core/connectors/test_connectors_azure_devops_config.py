"""`[[connectors.azure-devops]]`: the schema and the settings dataclass agree; bad values are
refused naming the setting."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from revetly_core.config import parse_config
from revetly_core.connectors.azure_devops import AzureDevOpsConnector
from revetly_core.connectors.sources import declared_sources
from revetly_core.ids import DEFAULT_FAMILIES
from revetly_core.refusal import Refusal

from revetly_core import config as settings
from revetly_core import config_schema

FAMILIES = {**DEFAULT_FAMILIES, "ADO": "story"}


def _config(**ado: Any) -> dict[str, Any]:
    entry = {"name": "web", "organization": "fabrikam", "project": "Fabrikam Web",
             "prefix": "ADO", **ado}
    return {"ids": {"families": dict(FAMILIES)}, "connectors": {"azure-devops": [entry]}}


def test_the_section_declares_the_schema_fields_in_its_order() -> None:
    ours = [f.name for f in dataclasses.fields(settings.AzureDevOpsConnector)]
    assert ours == list(config_schema.AzureDevOpsConnector.model_fields)


def test_an_azure_devops_config_dumps_as_the_schema_dumps() -> None:
    data = _config(api_url="http://127.0.0.1:9/", token_env="ADO_PAT", area="Fabrikam Web\\App",
                   types={"story": ["User Story"], "bug": ["Bug"]}, max_wait_seconds=5)
    ours = parse_config(data)
    assert ours.model_dump_json() == config_schema.Config.model_validate(data).model_dump_json()
    ado = ours.connectors.azure_devops[0]
    assert ado.api_url == "http://127.0.0.1:9" and ado.area == "Fabrikam Web\\App"
    assert ado.types["story"] == ["User Story"]


def test_the_defaults() -> None:
    ado = parse_config(_config()).connectors.azure_devops[0]
    assert (ado.api_url, ado.token_env, ado.area, ado.revetly_project, ado.types) == (
        "https://dev.azure.com", None, None, None, {})


@pytest.mark.parametrize(("change", "setting"), [
    ({"organization": "fab/rikam"}, "connectors.azure-devops.0.organization"),
    ({"project": " Web"}, "connectors.azure-devops.0.project"),
    ({"api_url": "ftp://x"}, "connectors.azure-devops.0.api_url"),
    ({"token_env": "not a name"}, "connectors.azure-devops.0.token_env"),
    ({"prefix": "ado"}, "connectors.azure-devops.0.prefix"),
    ({"name": "a/b"}, "connectors.azure-devops.0.name"),
    ({"types": {"issue": ["Issue"]}}, "connectors.azure-devops.0.types"),
    ({"area": "Web\nApp"}, "connectors.azure-devops.0.area"),
    ({"token": "secret"}, "connectors.azure-devops.0.token"),
    ({"retries": 11}, "connectors.azure-devops.0.retries"),
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
    assert "connectors.azure-devops.0.prefix" in exc.value.detail and "'ADO'" in exc.value.detail


def test_the_revetly_project_must_be_declared_and_the_ado_project_need_not_be() -> None:
    data = _config(revetly_project="mobile")
    data["projects"] = {"web": {"paths": ["web"]}}
    with pytest.raises(Refusal) as exc:
        parse_config(data)
    assert "connectors.azure-devops.0.revetly_project" in exc.value.detail
    data["connectors"]["azure-devops"][0]["revetly_project"] = "web"
    assert parse_config(data).connectors.azure_devops[0].project == "Fabrikam Web"


def test_a_name_used_by_another_source_is_refused() -> None:
    data = _config()
    data["connectors"]["github"] = [{"name": "web", "repo": "acme/web", "prefix": "ADO"}]
    with pytest.raises(Refusal) as exc:
        parse_config(data)
    assert "connectors.azure-devops.0.name" in exc.value.detail


def test_each_declared_project_is_one_connector(tmp_path: Any) -> None:
    sources = declared_sources(tmp_path, parse_config(_config()))
    assert [(type(s), s.source_id) for s in sources] == [
        (AzureDevOpsConnector, "azure-devops/web")]
