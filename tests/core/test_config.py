"""revetly.toml: validation at the boundary, and every bad setting refused by name with a fix."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from revetly_core.config import CONFIG_FILE, Config, load_config, parse_config
from revetly_core.ids import DEFAULT_FAMILIES
from revetly_core.instance.scaffold import default_config_text
from revetly_core.model import DEFAULT_PARENTS
from revetly_core.refusal import Refusal


def refusal_of(data: dict[str, Any]) -> Refusal:
    with pytest.raises(Refusal) as info:
        parse_config(data)
    return info.value


# -- defaults and derived values ------------------------------------------------------------


def test_empty_config_takes_every_default() -> None:
    config = parse_config({})
    assert config.instance.name == "revetly"
    assert config.ids.families == DEFAULT_FAMILIES
    assert config.connectors.repository.paths == ["backlog", "notes", "records"]
    assert config.connectors.repository.max_file_bytes == 1_000_000
    assert config.connectors.commits == []
    assert config.backlog.parents == {k: list(v) for k, v in DEFAULT_PARENTS.items()}
    assert config.read.budget == 32_768
    assert config.default_project == "revetly"
    assert config.project_names == ["revetly"]


def test_default_project_is_declared_then_first_project_then_instance_name() -> None:
    assert parse_config({"instance": {"name": "acme"}}).default_project == "acme"
    two = {"instance": {"name": "acme"}, "projects": {"web": {}, "api": {}}}
    assert parse_config(two).default_project == "api"
    assert parse_config(two).project_names == ["api", "web"]
    chosen = {**two, "instance": {"name": "acme", "default_project": "web"}}
    assert parse_config(chosen).default_project == "web"


def test_project_for_path_picks_the_longest_declared_folder() -> None:
    config = parse_config({
        "instance": {"default_project": "core"},
        "projects": {
            "core": {},
            "web": {"paths": ["backlog/web"]},
            "web-checkout": {"paths": ["backlog/web/checkout/"], "imports": ["web"]},
        },
    })
    assert config.project_for_path("backlog/STORY-0001.md") == "core"
    assert config.project_for_path("backlog/web/STORY-0002.md") == "web"
    assert config.project_for_path("backlog/web/checkout/STORY-0003.md") == "web-checkout"
    # a folder name that merely starts the same is not the folder
    assert config.project_for_path("backlog/website/STORY-0004.md") == "core"


def test_config_is_frozen() -> None:
    config = parse_config({})
    with pytest.raises(Exception):  # noqa: B017 - pydantic's frozen-instance error
        config.instance = None  # type: ignore[misc,assignment]


def test_commits_connector_settings_parse_dates() -> None:
    config = parse_config({"connectors": {"commits": [
        {"name": "api", "path": "../api", "since": "2024-01-31"},
    ]}})
    (c,) = config.connectors.commits
    assert c.name == "api"
    assert c.since is not None and c.since.isoformat() == "2024-01-31"


def test_default_config_text_is_a_valid_config_declaring_the_commit_repositories() -> None:
    text = default_config_text("acme", [("api", "../api"), ("web.app", "/src/web")])
    config = parse_config(tomllib.loads(text))
    assert config.instance.name == "acme"
    assert config.default_project == "acme"
    assert list(config.projects) == ["acme"]
    assert [(c.name, c.path) for c in config.connectors.commits] == [
        ("api", "../api"), ("web.app", "/src/web")]


# -- bad settings: refused, named, with a fix -----------------------------------------------

BAD_SETTINGS: list[tuple[str, dict[str, Any], str]] = [
    ("unknown top-level key", {"instanse": {"name": "x"}}, "instanse"),
    ("unknown nested key", {"instance": {"nmae": "x"}}, "instance.nmae"),
    ("unknown repository key", {"connectors": {"repository": {"path": ["x"]}}},
     "connectors.repository.path"),
    ("lower-case family", {"ids": {"families": {"story": "story"}}}, "ids.families"),
    ("family of an unknown type", {"ids": {"families": {"STORY": "saga"}}}, "ids.families"),
    ("absolute repository folder", {"connectors": {"repository": {"paths": ["/etc"]}}},
     "connectors.repository.paths"),
    ("repository folder outside the repo", {"connectors": {"repository": {"paths": ["../x"]}}},
     "connectors.repository.paths"),
    ("zero file limit", {"connectors": {"repository": {"max_file_bytes": 0}}},
     "connectors.repository.max_file_bytes"),
    ("bad commits name", {"connectors": {"commits": [{"name": "-x", "path": "p"}]}},
     "connectors.commits.0.name"),
    ("commits without a path", {"connectors": {"commits": [{"name": "x"}]}},
     "connectors.commits.0.path"),
    ("bad since date", {"connectors": {"commits": [{"name": "x", "path": "p", "since": "soon"}]}},
     "connectors.commits.0.since"),
    ("parent type not a work item", {"backlog": {"parents": {"story": ["decision"]}}},
     "backlog.parents"),
    ("read budget too small", {"read": {"budget": 10}}, "read.budget"),
    ("unknown index backend", {"index": {"backend": "lucene"}}, "index.backend"),
    ("ranking weight not a number", {"ranking": {"title": "high"}}, "ranking.title"),
]


@pytest.mark.parametrize(("case", "data", "setting"), BAD_SETTINGS, ids=[c[0] for c in BAD_SETTINGS])
def test_a_bad_setting_is_refused_naming_it(case: str, data: dict[str, Any], setting: str) -> None:
    r = refusal_of(data)
    assert r.code == "refused"
    assert r.extra["setting"] == setting
    assert setting in r.detail
    assert r.fix and setting in r.fix
    assert r.payload()["refusal"]["setting"] == setting


def test_an_unknown_key_is_told_to_be_removed_or_renamed() -> None:
    r = refusal_of({"instance": {"nmae": "x"}})
    assert "remove or rename" in r.fix


# Settings checked across sections: the refusal must still name the setting at fault, not the
# whole file ("(root)"), so a user (or an agent) knows which line of revetly.toml to change.
CROSS_SETTINGS: list[tuple[str, dict[str, Any], str]] = [
    ("imports names an unknown project",
     {"projects": {"web": {"imports": ["api"]}}}, "projects.web.imports"),
    ("two commits repositories share a name",
     {"connectors": {"commits": [{"name": "api", "path": "a"}, {"name": "api", "path": "b"}]}},
     "connectors.commits"),
    ("default project not declared",
     {"instance": {"default_project": "zz"}, "projects": {"web": {}}},
     "instance.default_project"),
    ("commits repository of an unknown project",
     {"projects": {"web": {}}, "connectors": {"commits": [{"name": "api", "path": "a",
                                                            "project": "zz"}]}},
     "connectors.commits"),
    ("bad project name", {"projects": {"-web": {}}}, "projects"),
]


@pytest.mark.parametrize(("case", "data", "setting"), CROSS_SETTINGS,
                         ids=[c[0] for c in CROSS_SETTINGS])
def test_a_bad_cross_section_setting_is_refused_naming_it(
    case: str, data: dict[str, Any], setting: str
) -> None:
    r = refusal_of(data)
    assert r.code == "refused"
    assert r.fix
    named = r.extra["setting"]
    assert named.startswith(setting), f"the refusal names {named!r}, not the setting {setting!r}"


def test_imports_naming_a_declared_project_is_accepted() -> None:
    config = parse_config({"projects": {"web": {"imports": ["api"]}, "api": {}}})
    assert config.projects["web"].imports == ["api"]


_KNOWN = set(Config.model_fields)


@given(st.from_regex(r"[a-z][a-z_]{0,11}", fullmatch=True).filter(lambda k: k not in _KNOWN))
def test_any_unknown_top_level_key_is_refused_by_its_name(key: str) -> None:
    r = refusal_of({key: 1})
    assert r.code == "refused"
    assert r.extra["setting"] == key


# -- load_config -------------------------------------------------------------------------------


def test_load_config_reads_revetly_toml(tmp_path: Path) -> None:
    (tmp_path / CONFIG_FILE).write_text(default_config_text("acme", []))
    assert load_config(tmp_path).instance.name == "acme"


def test_load_config_without_a_file_is_no_instance(tmp_path: Path) -> None:
    with pytest.raises(Refusal) as info:
        load_config(tmp_path)
    assert info.value.code == "no-instance"
    assert "revetly init" in info.value.fix


def test_bad_toml_is_refused_naming_the_file_and_the_fix(tmp_path: Path) -> None:
    (tmp_path / CONFIG_FILE).write_text("[instance\nname = 'x'\n")
    with pytest.raises(Refusal) as info:
        load_config(tmp_path)
    r = info.value
    assert r.code == "refused"
    assert r.extra["setting"] == "(file)"
    assert "not valid TOML" in r.detail
    assert str(tmp_path / CONFIG_FILE) in r.fix


def test_non_utf8_config_is_refused(tmp_path: Path) -> None:
    (tmp_path / CONFIG_FILE).write_bytes(b"[instance]\nname = '\xff'\n")
    with pytest.raises(Refusal) as info:
        load_config(tmp_path)
    assert info.value.code == "refused"
    assert info.value.fix


def test_a_bad_setting_in_the_file_is_refused_naming_it(tmp_path: Path) -> None:
    (tmp_path / CONFIG_FILE).write_text("[ids.families]\nSTORY = 'saga'\n")
    with pytest.raises(Refusal) as info:
        load_config(tmp_path)
    assert info.value.extra["setting"] == "ids.families"
    assert CONFIG_FILE in info.value.detail


# -- backlog-md and adr sources ------------------------------------------------------------------

BACKLOG_FAMILIES = {"BACK": "task", "DRAFT": "task", "DECISION": "decision", "DOC": "reference",
                    "M": "epic"}


def _refused_setting(data: dict) -> str:  # type: ignore[type-arg]
    from revetly_core.config import parse_config
    from revetly_core.refusal import Refusal

    with pytest.raises(Refusal) as err:
        parse_config(data)
    return str(err.value.extra["setting"])


def test_backlog_md_source_parses_with_its_families_declared() -> None:
    from revetly_core.config import parse_config

    config = parse_config({"ids": {"families": BACKLOG_FAMILIES},
                           "connectors": {"backlog-md": [{"name": "t", "path": "../t",
                                                          "task_prefix": "BACK",
                                                          "aliases": ["TASK"]}]}})
    assert config.id_aliases == {"TASK": "BACK"}
    assert config.dotted_families == ["BACK", "DRAFT"]
    assert config.connectors.backlog_md[0].status_table()["to do"] == "ready"


def test_an_undeclared_prefix_is_refused_naming_it() -> None:
    assert _refused_setting({"connectors": {"backlog-md": [
        {"name": "t", "path": ".", "task_prefix": "BACK"}]}}) == "connectors.backlog-md.0.task_prefix"


def test_an_alias_that_is_a_family_is_refused() -> None:
    assert _refused_setting({"ids": {"families": {**BACKLOG_FAMILIES, "TASK": "task"}},
                             "connectors": {"backlog-md": [
                                 {"name": "t", "path": ".", "task_prefix": "BACK",
                                  "aliases": ["TASK"]}]}}) == "connectors.backlog-md.0.aliases"


def test_a_status_mapped_to_no_revetly_status_is_refused() -> None:
    assert _refused_setting({"ids": {"families": {**BACKLOG_FAMILIES, "TASK": "task"}},
                             "connectors": {"backlog-md": [
                                 {"name": "t", "path": ".", "statuses": {"Blocked": "stuck"}}]}}
                            ) == "connectors.backlog-md.0.statuses"


def test_adr_folder_outside_the_repository_and_lower_case_prefix_are_refused() -> None:
    assert _refused_setting({"connectors": {"adr": [
        {"name": "a", "path": ".", "folder": "../x"}]}}) == "connectors.adr.0.folder"
    assert _refused_setting({"connectors": {"adr": [
        {"name": "a", "path": ".", "prefix": "adr"}]}}) == "connectors.adr.0.prefix"


def test_two_sources_with_one_name_are_refused() -> None:
    assert _refused_setting({"ids": {"families": {"ADR": "decision"}}, "connectors": {
        "adr": [{"name": "a", "path": "."}, {"name": "a", "path": "x"}]}}) == "connectors.adr.1.name"


def test_ranking_takes_the_feedback_legs_share_beside_the_signal_weights() -> None:
    config = parse_config({"ranking": {"feedback": 0.5, "recency": 90.0}})
    assert config.ranking == {"feedback": 0.5, "recency": 90.0}
    assert "legs: feedback" in refusal_of({"ranking": {"freshness": 1.0}}).detail
