"""Owner workflows over files: expiry parsing, passage import lines, JSON files, key rules."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from revetly_core.governed.idempotency import check_key
from revetly_core.governed.local import MAX_JSON_FILE, load_json_file
from revetly_core.governed.owner import parse_expiry, read_hits
from revetly_core.governed.rag_service import adapter_matches_source

from revetly_core import RagSource, Refusal, Scope
from tests.core.governed.governed_world import World

NOW = datetime(2026, 1, 1, tzinfo=UTC)
SOURCE = RagSource("law", Scope("writer", "project"), "c", "r1", "none", "sqlite-vault")


def test_an_expiry_is_days_from_now_or_an_instant_with_a_zone() -> None:
    assert parse_expiry(None, 2, NOW) == NOW + timedelta(days=2)
    assert parse_expiry("2026-02-01T00:00:00Z", None, NOW) == datetime(2026, 2, 1, tzinfo=UTC)
    for expires, days in ((None, None), ("2026-02-01T00:00:00Z", 1.0), ("2026-02-01T00:00:00", None),
                          ("soon", None)):
        with pytest.raises(Refusal) as refused:
            parse_expiry(expires, days, NOW)
        assert refused.value.code == "bad_expiry"


def test_import_lines_become_hits_with_digests(tmp_path: Path) -> None:
    path = tmp_path / "p.jsonl"
    path.write_text(json.dumps({"document_id": "d", "chunk_id": "1", "passage": "text",
                                "effective_from": "2025-01-01"}) + "\n\n")
    (hit,) = read_hits(path, SOURCE)
    assert hit.citation == "d" and hit.effective_from is not None and hit.sha256


@pytest.mark.parametrize("line", ['{"document_id": "d"}', "not json", '{"document_id": "d", '
                                  '"chunk_id": "1", "passage": "t", "sql": "drop"}',
                                  '{"document_id": "d", "chunk_id": 1, "passage": "t"}'])
def test_a_bad_import_line_is_refused_by_number(tmp_path: Path, line: str) -> None:
    path = tmp_path / "p.jsonl"
    path.write_text('{"document_id": "d", "chunk_id": "0", "passage": "ok"}\n' + line + "\n")
    with pytest.raises(Refusal) as refused:
        list(read_hits(path, SOURCE))
    assert refused.value.code == "bad_import" and "p.jsonl:2" in refused.value.detail


def test_json_files_are_bounded_and_parsed(tmp_path: Path) -> None:
    (tmp_path / "ok.json").write_text('{"a": 1}')
    assert load_json_file(tmp_path / "ok.json") == {"a": 1}
    (tmp_path / "big.json").write_text(" " * (MAX_JSON_FILE + 1))
    (tmp_path / "bad.json").write_text("{")
    for name, code in (("big.json", "message_too_large"), ("bad.json", "bad_json"), ("none.json", "no_file")):
        with pytest.raises(Refusal) as refused:
            load_json_file(tmp_path / name)
        assert refused.value.code == code


@pytest.mark.parametrize("key", ["", "has space", "x" * 129, "ünicode", "tab\tkey"])
def test_idempotency_keys_are_printable_ascii(key: str) -> None:
    with pytest.raises(Refusal) as refused:
        check_key(key)
    assert refused.value.code == "bad_idempotency_key"


def test_an_adapter_declaring_another_provider_is_refused(world: World) -> None:
    class Other:
        provider_id = "other"

        def search(self, source: object, query: object, *, deadline: float) -> tuple[()]:
            return ()

        def inspect(self, source: object, d: str, c: str, *, deadline: float) -> None:
            return None

    with pytest.raises(Refusal) as refused:
        adapter_matches_source(SOURCE, Other())
    assert refused.value.code == "bad_adapter"
    with pytest.raises(Refusal):
        adapter_matches_source(SOURCE, object())


def test_reregistering_a_source_in_another_scope_is_refused(world: World) -> None:
    moved = RagSource("law", Scope("writer", "elsewhere"), "statutes", "r1", "none", "sqlite-vault")
    with pytest.raises(Refusal) as refused:
        world.rag.register(world.owner, moved, world.provider)
    assert refused.value.code == "source_conflict"
