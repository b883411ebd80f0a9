"""The validated-config cache: reused only for the same bytes and code, never trusted stale."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from revetly_core.config import CONFIG_FILE, Config, load_config, parse_config
from revetly_core.config_cache import CACHE_FILE, cache_path, cached_config
from revetly_core.instance.scaffold import default_config_text
from revetly_core.refusal import Refusal

from revetly_core import config_cache

COMMITS = ('\n[[connectors.commits]]\nname = "code"\npath = "../code"\nsince = 2024-01-01\n'
           '\n[ranking]\nrecency = 2\nkind = 0.25\n')


def instance(tmp_path: Path, text: str | None = None) -> Path:
    root = tmp_path / "inst"
    (root / ".revetly").mkdir(parents=True)
    (root / CONFIG_FILE).write_text(text if text is not None else default_config_text("acme", []))
    return root


def refusal_of_load(root: Path) -> Refusal:
    with pytest.raises(Refusal) as info:
        load_config(root)
    return info.value


def test_a_validated_file_is_cached_and_read_back_equal(tmp_path: Path) -> None:
    root = instance(tmp_path, default_config_text("acme", []) + COMMITS)
    first = load_config(root)
    assert cache_path(root).is_file()
    raw = (root / CONFIG_FILE).read_bytes()
    assert cached_config(root, raw) == first
    assert load_config(root) == first
    assert first.connectors.commits[0].since.isoformat() == "2024-01-01"  # type: ignore[union-attr]


def test_changed_bytes_are_validated_again_and_refused_as_without_a_cache(tmp_path: Path) -> None:
    root = instance(tmp_path)
    load_config(root)
    (root / CONFIG_FILE).write_text(default_config_text("acme", []) + "\n[read]\nbudget = 10\n")
    cached = refusal_of_load(root)
    cache_path(root).unlink()
    fresh = refusal_of_load(root)
    assert cached.payload() == fresh.payload()
    assert fresh.extra["setting"] == "read.budget"


def test_a_refused_file_is_never_cached(tmp_path: Path) -> None:
    root = instance(tmp_path, "[instance]\nnmae = 'x'\n")
    refusal_of_load(root)
    assert not cache_path(root).exists()


def test_an_entry_from_other_code_is_a_miss(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = instance(tmp_path)
    load_config(root)
    raw = (root / CONFIG_FILE).read_bytes()
    monkeypatch.setattr(config_cache, "_code_digest", "another engine")
    assert cached_config(root, raw) is None


@pytest.mark.parametrize("content", [b"", b"{torn", b"[1, 2]", b'{"settings": {}}'])
def test_a_missing_torn_or_foreign_entry_is_a_miss(tmp_path: Path, content: bytes) -> None:
    root = instance(tmp_path)
    cache_path(root).write_bytes(content)
    raw = (root / CONFIG_FILE).read_bytes()
    assert cached_config(root, raw) is None
    config = load_config(root)
    assert config.instance.name == "acme"
    assert cached_config(root, raw) == config


def test_an_entry_whose_settings_do_not_fit_is_a_miss(tmp_path: Path) -> None:
    root = instance(tmp_path)
    load_config(root)
    raw = (root / CONFIG_FILE).read_bytes()
    entry = json.loads(cache_path(root).read_text())
    entry["settings"]["instance"]["unknown"] = 1
    cache_path(root).write_text(json.dumps(entry))
    assert cached_config(root, raw) is None


def test_without_a_state_folder_nothing_is_written(tmp_path: Path) -> None:
    root = tmp_path / "bare"
    root.mkdir()
    (root / CONFIG_FILE).write_text(default_config_text("acme", []))
    assert load_config(root).instance.name == "acme"
    assert not (root / ".revetly").exists()
    assert not (root / CACHE_FILE).exists()


def test_a_config_longer_than_the_bound_is_refused_unread(tmp_path: Path) -> None:
    from revetly_core.config import MAX_CONFIG_BYTES

    root = instance(tmp_path, "#" * (MAX_CONFIG_BYTES + 1))
    r = refusal_of_load(root)
    assert r.code == "refused"
    assert "longer than" in r.detail


# -- the dataclasses hold what the schema validated --------------------------------------------


def schema_config(data: dict[str, Any]) -> Any:
    from revetly_core import config_schema

    return config_schema.Config.model_validate(data)


def test_the_defaults_are_the_schema_defaults() -> None:
    assert parse_config({}) == Config()
    assert json.loads(Config().model_dump_json()) == schema_config({}).model_dump(mode="json")


def test_each_section_declares_the_schema_fields_in_its_order() -> None:
    import dataclasses

    from revetly_core import config as settings
    from revetly_core import config_schema

    for name in ("Config", "InstanceSection", "ProjectConfig", "RepositoryConnector",
                 "CommitsConnector", "BacklogMdConnector", "AdrConnector", "ConnectorsSection",
                 "IdsSection", "BacklogSection", "ExtractionSection", "ReadSection",
                 "IndexSection", "GrantsSection", "AuthSection", "ServedSection",
                 "EmbeddingSection"):
        ours = [f.name for f in dataclasses.fields(getattr(settings, name))]
        assert ours == list(getattr(config_schema, name).model_fields), name


FULL = {
    "instance": {"name": "acme", "default_project": "api"},
    "projects": {"api": {"paths": ["backlog/api"]}, "web": {"imports": ["api"]}},
    "connectors": {"commits": [{"name": "code", "path": "../code", "since": "2024-02-03"}],
                   "backlog-md": [{"name": "bm", "path": "../bm", "task_prefix": "BACK",
                                   "aliases": ["TASKX"], "statuses": {"Blocked": "parked"}}],
                   "adr": [{"name": "adr", "path": "../adr", "prefix": "ADR"}]},
    "ids": {"families": {"STORY": "story", "BACK": "task", "DRAFT": "story", "DECISION":
                         "decision", "DOC": "reference", "M": "epic", "ADR": "decision"}},
    "auth": {"verifier": "jwt", "issuer": "https://auth.example/", "scopes": ["r"],
             "grants": {"claim": "g", "values": {"team": ["api"]}}},
    "served": {"port": 9000, "allowed_origins": ["https://x.example"]},
    "embedding": {"provider": "openai-compatible", "model": "m", "timeout_seconds": 3},
    "extraction": {"aliases": {"STORY-1": ["the one"]}},
}


def test_a_full_config_dumps_as_the_schema_dumps() -> None:
    assert parse_config(FULL).model_dump_json() == schema_config(FULL).model_dump_json()


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.sampled_from(["recency", "kind", "semantic", "provenance"]),
                       st.floats(min_value=0, allow_nan=False) | st.integers(0, 10**6)
                       | st.floats(min_value=0, max_value=1e-3)
                       | st.sampled_from([1e-5, 1.2345678e-5, 1e-6, 1e15, 1e16, 5e-324])),
       st.text(max_size=12))
def test_the_fingerprint_text_is_the_schema_dump(ranking: dict[str, float], name: str) -> None:
    data = {"instance": {"name": name}, "ranking": ranking}
    assert parse_config(data).model_dump_json() == schema_config(data).model_dump_json()


def test_an_infinite_weight_dumps_as_null_like_the_schema() -> None:
    data = {"ranking": {"recency": math.inf}}
    assert parse_config(data).model_dump_json() == schema_config(data).model_dump_json()
