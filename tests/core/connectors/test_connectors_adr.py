"""The adr source: MADR and adr-tools folders read in place, supersession as declared edges."""

from __future__ import annotations

from pathlib import Path

import pytest
from revetly_core.connectors.adr import record_numbers, status_lines, supersession

from revetly_core import Engine
from tests.fixtures.fixture_repo import ADR_MADR, ADR_TOOLS, build_fixture_repo


def _open(base: Path, fixture: Path, name: str) -> Engine:
    repo = build_fixture_repo(fixture, base / name)
    Engine.init(base / f"{name}-inst", source=("adr", str(repo)))
    engine = Engine.open(base / f"{name}-inst")
    engine.sync()
    return engine


@pytest.fixture(scope="module")
def madr(tmp_path_factory: pytest.TempPathFactory) -> Engine:
    return _open(tmp_path_factory.mktemp("madr"), ADR_MADR, "ledgerly")


@pytest.fixture(scope="module")
def tools(tmp_path_factory: pytest.TempPathFactory) -> Engine:
    return _open(tmp_path_factory.mktemp("tools"), ADR_TOOLS, "bookings")


def test_record_numbers_read_links_then_id_words() -> None:
    assert record_numbers("Superseded by [5. GraphQL](0005-graphql.md)") == [5]
    assert record_numbers("superseded by ADR-0006") == [6]


def test_status_comes_from_frontmatter_section_or_line() -> None:
    assert status_lines({"status": "accepted"}, "")[0] == "accepted"
    assert status_lines({}, "## Status\n\nProposed\n\n## Context\n")[0] == "Proposed"
    assert status_lines({}, "* Status: accepted\n")[0] == "accepted"


def test_supersession_joins_both_sides() -> None:
    from revetly_core.connectors.adr import AdrRecord
    from revetly_core.model import Artifact

    def rec(n: int, sup: list[int], by: list[int]) -> AdrRecord:
        return AdrRecord(Artifact(f"ADR-{n}", "decision", "t", "s", "p"), n, sup, by)

    assert supersession({1: rec(1, [], [3]), 2: rec(2, [], []), 3: rec(3, [], []),
                         4: rec(4, [2], [])}) == {3: [1], 4: [2]}


def test_madr_records_become_decision_notes(madr: Engine) -> None:
    a = madr.get_artifact("ADR-0001")
    assert a["title"] == "PostgreSQL as the ledger store" and a["status"] == "accepted"
    assert a["artifact_type"] == "decision"
    assert madr.get_artifact("ADR-4")["status"] == "accepted"  # "* Status:" line, unpadded id


def test_madr_supersession_from_the_status_frontmatter(madr: Engine) -> None:
    assert madr.get_artifact("ADR-0006")["declared_links"]["supersedes"] == ["ADR-0003"]
    assert madr.get_artifact("ADR-0003")["status"] == "superseded"


def test_a_status_section_without_frontmatter_and_id_words_supersede(madr: Engine) -> None:
    assert madr.get_artifact("ADR-0022")["status"] == "accepted"
    assert madr.get_artifact("ADR-0021")["declared_links"]["supersedes"] == ["ADR-0020"]
    assert madr.get_artifact("ADR-0023")["title"] == "Latin-1 encoded record"


def test_adr_tools_supersedes_and_superseded_by_links(tools: Engine) -> None:
    assert tools.get_artifact("ADR-0016")["declared_links"]["supersedes"] == ["ADR-0014"]
    assert tools.get_artifact("ADR-0005")["declared_links"]["supersedes"] == ["ADR-0003"]
    assert tools.get_artifact("ADR-0008")["declared_links"]["supersedes"] == ["ADR-0006"]
    assert tools.get_artifact("ADR-0003")["status"] == "superseded"
    assert tools.get_artifact("ADR-0001")["title"] == "Record architecture decisions"


def test_amendments_are_related_not_superseding(tools: Engine) -> None:
    assert tools.get_artifact("ADR-0007")["declared_links"] == {"related": ["ADR-0004"]}


def test_search_marks_the_superseded_record_below_its_successor(tools: Engine) -> None:
    ids = [a["artifact_id"] for a in tools.search_context("REST API GraphQL gateway")["artifacts"]]
    assert ids.index("ADR-0005") < ids.index("ADR-0003")


def test_commits_name_records(madr: Engine) -> None:
    from revetly_core.store.db import Store

    store = Store(madr.paths.db, readonly=True)
    try:
        rows = {tuple(r) for r in store.conn.execute(
            "SELECT a.title, l.dst FROM links l JOIN artifacts a ON a.id=l.src "
            "WHERE a.type='commit' AND l.invalid_at IS NULL")}
    finally:
        store.close()
    assert ("ADR-0006 supersedes ADR-0003: webhooks for authorisation", "ADR-0003") in rows
    assert ("adr-2: idempotency keys; middleware", "ADR-0002") in rows


def test_check_names_every_messy_record(madr: Engine, tools: Engine) -> None:
    named = {p["path"]: p["detail"] for p in madr.check()["problems"]}
    assert set(named) == {
        "docs/decisions/0008-drop-the-soap-gateway.md",
        "docs/decisions/0010-settlement-batches-nightly.md",
        "docs/decisions/0011-ledger-read-replicas.md",
        "docs/decisions/0023-latin1-encoded.md",
        "docs/decisions/notes-on-retries.md",
    }
    assert "Latin-1" in named["docs/decisions/0023-latin1-encoded.md"]
    assert "'maybe later'" in named["docs/decisions/0011-ledger-read-replicas.md"]
    assert "'@ops-team'" in named["docs/decisions/0010-settlement-batches-nightly.md"]
    codes = {(p["path"], p["code"]) for p in tools.check()["problems"]}
    assert codes == {("doc/adr/0009-no-status-section.md", "duplicate-id")}


def test_a_new_superseded_by_line_updates_the_newer_record(tmp_path: Path) -> None:
    repo = build_fixture_repo(ADR_TOOLS, tmp_path / "b")
    Engine.init(tmp_path / "inst", source=("adr", str(repo)))
    engine = Engine.open(tmp_path / "inst")
    engine.sync()
    path = repo / "doc/adr/0002-use-a-monorepo.md"
    path.write_text(path.read_text().replace(
        "Accepted\n", "Superseded by [6. Feature flags](0006-feature-flags.md)\n", 1))
    result = engine.sync()
    source = next(s for s in result["sources"] if s["source"] == "adr/b")
    assert source["counts"]["updated"] == 2  # the edited record and the one now superseding it
    assert engine.get_artifact("ADR-0006")["declared_links"]["supersedes"] == ["ADR-0002"]
    assert engine.get_artifact("ADR-0002")["status"] == "superseded"


def test_records_without_a_status_are_notes_and_check_passes(madr: Engine) -> None:
    result = madr.check()
    by_path = {p["path"]: p["severity"] for p in result["problems"]}
    assert by_path["docs/decisions/0011-ledger-read-replicas.md"] == "note"
    assert by_path["docs/decisions/notes-on-retries.md"] == "warning"
    assert result["ok"] is True
    assert result["severity_counts"] == {"error": 0, "warning": 1, "note": 4}


def test_an_adr_tools_summary_starts_with_the_prose(tools: Engine) -> None:
    rows = tools.search_context("monorepo")["artifacts"]
    row = next(r for r in rows if r["artifact_id"] == "ADR-0002")
    assert row["summary"].startswith("Use a monorepo — The web client")
