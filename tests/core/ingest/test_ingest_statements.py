"""Statements: what a decision, constraint or assumption states, read without a model."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from revetly_core.ingest.statements import MAX_STATEMENT_CHARS, statement_rows, statement_text
from revetly_core.model import NOTE_TYPES, STATEMENT_NOTE_TYPES, WORK_ITEM_TYPES, Artifact


def note(body: str, typ: str = "decision", title: str = "Use Postgres",
         created_at: str | None = "2024-01-01T00:00:00+00:00") -> Artifact:
    return Artifact(id="DEC-0001", type=typ, title=title, source="repository", project="acme",
                    body=body, created_at=created_at)


def test_the_decision_section_is_the_statement() -> None:
    body = ("## Context\n\nWe need a database.\n\n## Decision\n\nWe use Postgres\nfor all "
            "invoices.\n\nSecond paragraph.\n\n## Consequences\n\nOps learns it.\n")
    assert statement_text(note(body)) == "Use Postgres: We use Postgres for all invoices."


def test_a_heading_starting_with_decision_counts() -> None:
    body = "Intro.\n\n### Decision outcome\n\nPostgres it is.\n"
    assert statement_text(note(body)) == "Use Postgres: Postgres it is."


def test_without_a_decision_heading_the_first_paragraph_is_the_statement() -> None:
    body = "\n# Title\n\nResponses stay under\n200 ms.\n\n## Rationale\n\nUsers leave.\n"
    assert statement_text(note(body, "constraint", "Latency")) == (
        "Latency: Responses stay under 200 ms.")


def test_an_empty_body_states_the_title() -> None:
    assert statement_text(note("", "assumption", "Admins sync weekly")) == "Admins sync weekly"
    assert statement_text(note("# Only a heading\n", "assumption", "T")) == "T"


def test_a_long_statement_is_cut_at_a_word_with_an_ellipsis() -> None:
    words = " ".join(f"word{i}" for i in range(400))
    text = statement_text(note(f"## Decision\n\n{words}\n"))
    assert text is not None
    chosen = text.removeprefix("Use Postgres: ")
    assert chosen.endswith("…")
    assert len(chosen) <= MAX_STATEMENT_CHARS + 1
    assert words.startswith(chosen[:-1])
    assert chosen[:-1].split(" ")[-1].startswith("word")  # no half word before the ellipsis
    assert chosen[-2] != " "


@pytest.mark.parametrize("typ", [t for t in (*WORK_ITEM_TYPES, *NOTE_TYPES, "delivery", "commit")
                                 if t not in STATEMENT_NOTE_TYPES])
def test_other_types_state_nothing(typ: str) -> None:
    a = note("## Decision\n\nSomething.\n", typ=typ)
    assert statement_text(a) is None
    assert statement_rows(a) == []


@pytest.mark.parametrize("typ", STATEMENT_NOTE_TYPES)
def test_statement_rows(typ: str) -> None:
    a = note("Body.\n", typ=typ)
    assert statement_rows(a) == [("DEC-0001#statement", "DEC-0001", "Use Postgres: Body.",
                                  "2024-01-01T00:00:00+00:00")]


@given(st.lists(st.text(alphabet=st.characters(whitelist_categories=["L", "N", "P", "Zs"]),
                        max_size=80), max_size=20).map("\n".join))
def test_a_statement_is_bounded_and_opens_with_the_title(body: str) -> None:
    text = statement_text(note(body))
    assert text is not None
    assert text.startswith("Use Postgres")
    assert len(text) <= len("Use Postgres: ") + MAX_STATEMENT_CHARS + 1
    assert "\n" not in text
