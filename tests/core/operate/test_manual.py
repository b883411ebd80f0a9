"""`revetly manual`: the docs, shipped as package data, read offline."""

from __future__ import annotations

from pathlib import Path

import pytest
from revetly_core.operate.manual import manual_page, manual_topics, page_title
from revetly_core.refusal import Refusal

DOCS = Path(__file__).resolve().parents[3] / "docs"


def test_every_doc_page_is_a_topic() -> None:
    topics = {row["topic"] for row in manual_topics()["topics"]}
    assert {p.stem for p in DOCS.glob("*.md")} <= topics
    assert any(t.startswith("decisions/") for t in topics)


def test_a_page_reads_as_the_doc_says() -> None:
    page = manual_page("commands")
    assert page["text"] == (DOCS / "commands.md").read_text(encoding="utf-8")
    assert page["title"] == "Commands"


def test_a_unique_part_of_a_topic_finds_it() -> None:
    assert manual_page("connect")["topic"] == "connecting"


def test_an_unknown_topic_is_refused_naming_the_topics() -> None:
    with pytest.raises(Refusal) as info:
        manual_page("no-such-page")
    assert info.value.code == "unknown-topic"
    assert "commands" in info.value.fix


def test_the_title_is_the_first_heading() -> None:
    assert page_title("intro\n# The title\n") == "The title"
    assert page_title("no heading\n") == "no heading"


def test_the_manual_is_declared_as_package_data() -> None:
    import tomllib

    pyproject = Path(__file__).resolve().parents[3] / "revetly_core" / "pyproject.toml"
    data = tomllib.loads(pyproject.read_text())["tool"]["setuptools"]["package-data"]
    assert "manual_docs/*.md" in data["revetly_core"]
