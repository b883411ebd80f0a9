"""record_conversation: notes, decisions, supersedes, revises checked before anything lands."""

from __future__ import annotations

import pytest
import yaml
from revetly_core.markdown.criteria import criteria_fingerprint

from revetly_core import Refusal
from tests.core.gitrepo import Instance
from tests.core.writes.write_engine import engine


def _front(inst: Instance, rel: str) -> dict:  # type: ignore[type-arg]
    return yaml.safe_load((inst.root / rel).read_text().split("---\n")[1])


def test_plain_note_writes_no_empty_keys(winst: Instance) -> None:
    out = engine(winst).record_conversation("Standup", "We talked about invoices.",
                                            decisions=[], related_ids=[])
    front = _front(winst, out["conversation"]["path"])
    assert front["type"] == "conversation" and front["recorded_by"] == "Dana Reyes"
    assert "related_ids" not in front and "supersedes" not in front
    assert out["decisions"] == [] and out["wrote"] is True


def test_decision_with_supersedes_marks_the_older_note(winst: Instance) -> None:
    out = engine(winst).record_conversation(
        "Export timing", "We agreed to export hourly.", related_ids=["STORY-0001"],
        decisions=[{"decision": "Invoices are exported hourly.", "supersedes": ["DEC-0001"]}])
    dec = out["decisions"][0]
    assert dec["artifact_id"] == "DEC-0002" and out["superseded"] == ["DEC-0001"]
    old = _front(winst, "notes/DEC-0001.md")
    assert old["superseded_by"] == ["DEC-0002"] and old["status"] == "superseded"
    assert _front(winst, dec["path"])["supersedes"] == ["DEC-0001"]
    assert _front(winst, out["conversation"]["path"])["related_ids"] == ["STORY-0001"]
    commit = winst.git.repo[winst.git.repo.head.target]
    assert len(commit.parents) == 1
    changed = winst.git.repo.diff(commit.parents[0].tree, commit.tree)
    assert {d.new_file.path for d in changed.deltas} == {
        "notes/DEC-0001.md", "notes/DEC-0002.md", out["conversation"]["path"]}


def test_revises_written_with_fingerprints(winst: Instance) -> None:
    out = engine(winst).record_conversation(
        "Decimals", "Three decimals for crypto.",
        decisions=[{"decision": "Crypto amounts keep three decimals.",
                    "revises": [{"id": "STORY-0001", "criteria": [2]}, "EPIC-0001"]}])
    revises = _front(winst, out["decisions"][0]["path"])["revises"]
    assert revises == [{"id": "STORY-0001", "criteria": [2],
                        "criteria_fp": [criteria_fingerprint("Amounts keep two decimals")]},
                       "EPIC-0001"]


def test_empty_revises_writes_no_key(winst: Instance) -> None:
    out = engine(winst).record_conversation("x", "y", decisions=[{"decision": "z", "revises": []}])
    assert "revises" not in _front(winst, out["decisions"][0]["path"])


@pytest.mark.parametrize(("revises", "code"), [
    (["STORY-0099"], "not-a-live-work-item"),
    (["DEC-0001"], "not-a-live-work-item"),
    ([{"id": "STORY-0001", "criteria": [3]}], "bad-revises"),
    ([{"id": "STORY-0001", "criteria": [0]}], "bad-revises"),
    ([{"id": "STORY-0001", "criteria": ["1"]}], "bad-revises"),
    ([{"criteria": [1]}], "bad-revises"),
    (["../../etc/passwd"], "bad-id"),
])
def test_bad_revises_refused_and_nothing_lands(winst: Instance, revises: list[object],
                                               code: str) -> None:
    head = winst.git.head
    before = sorted(p.name for p in (winst.root / "notes").iterdir())
    with pytest.raises(Refusal) as exc:
        engine(winst).record_conversation(
            "t", "b", decisions=[{"decision": "fine", "supersedes": ["DEC-0001"]},
                                 {"decision": "bad one", "revises": revises}])
    assert exc.value.code == code
    assert winst.git.head == head
    assert sorted(p.name for p in (winst.root / "notes").iterdir()) == before
    assert "superseded_by" not in _front(winst, "notes/DEC-0001.md")


def test_supersedes_unknown_note_refused(winst: Instance) -> None:
    with pytest.raises(Refusal) as exc:
        engine(winst).record_conversation("t", "b", decisions=[{"decision": "d",
                                                                "supersedes": ["DEC-0077"]}])
    assert "DEC-0077" in exc.value.detail


def test_unknown_decision_key_refused(winst: Instance) -> None:
    with pytest.raises(Refusal):
        engine(winst).record_conversation("t", "b", decisions=[{"decision": "d", "why": "x"}])


def test_written_notes_read_back_through_a_pass(winst: Instance) -> None:
    e = engine(winst)
    out = e.record_conversation(
        "Export timing", "We agreed to export hourly.",
        decisions=[{"decision": "Hourly exports.", "supersedes": ["DEC-0001"],
                    "revises": [{"id": "STORY-0001", "criteria": [1]}]}])
    e.sync()
    assert winst.problems() == []
    check = e.check()
    assert check["ok"], check
    got = e.get_artifact(out["decisions"][0]["artifact_id"])
    assert "STORY-0001" in str(got["declared_links"])
