"""The review record: pending first, id shape, corrupt records, and the reviewer's answers."""

from __future__ import annotations

import json

import pytest
from revetly_core.writes.drafts import already_answered, raising_session
from revetly_core.writes.gate import GateChoice
from revetly_core.writes.principal import Principal
from revetly_core.writes.reviews import ReviewRecord, ReviewStore, is_review_id, new_review_id

from revetly_core import Refusal
from tests.core.gitrepo import Instance
from tests.core.writes.write_engine import engine

APP = GateChoice("app")
CRITERIA = ["Reminders go out after 7 days", "A paid invoice gets no reminder"]


def _submit(inst: Instance, gate: GateChoice | None = APP, **kw: object) -> dict:  # type: ignore[type-arg]
    return engine(inst).submit_draft("Dunning reminders", "Remind customers who have not paid.",
                                     CRITERIA, **kw, gate=gate)


def test_new_review_ids_have_the_shape() -> None:
    for _ in range(50):
        assert is_review_id(new_review_id())


@pytest.mark.parametrize("bad", ["REV-123", "REV-9F2A1C4D7B3E8051", "rev-9f2a1c4d7b3e8051",
                                 "REV-9f2a1c4d7b3e8051/../x", "REV-9f2a1c4d7b3e80511",
                                 "../REV-9f2a1c4d7b3e8051", "REV-9f2a1c4d7b3e805\x00", "", 7])
def test_other_shapes_are_not_on_record(winst: Instance, bad: object) -> None:
    e = engine(winst)
    for call in (e.review_state, e.raise_review, e.withdraw_review):
        with pytest.raises(Refusal) as exc:
            call(bad)
        assert exc.value.code == "not-on-record"


def test_unknown_well_shaped_id_is_not_on_record(winst: Instance) -> None:
    with pytest.raises(Refusal) as exc:
        engine(winst).review_state("REV-0000000000000000")
    assert exc.value.code == "not-on-record"


def test_submit_records_pending_review_first(winst: Instance) -> None:
    out = _submit(winst)
    assert out["status"] == "awaiting-review" and out["gate"] == "app"
    assert out["resolve_tool"] == "resolve_review" and out["wrote"] is False
    path = winst.root / ".revetly" / "reviews" / f"{out['review_id']}.json"
    stored = json.loads(path.read_text())
    assert stored["status"] == "pending"
    assert stored["drafted_by"]["name"] == "Dana Reyes"
    assert not list((winst.root / "backlog").glob("STORY-0002.md"))


def test_no_gate_parks_with_needs(winst: Instance) -> None:
    needs = {"any_of": []}
    out = _submit(winst, gate=GateChoice("parked", needs))
    assert out["status"] == "parked" and out["wrote"] is False and out["needs"] == needs
    listed = engine(winst).list_reviews()
    assert [r["review_id"] for r in listed["reviews"]] == [out["review_id"]]


def test_raise_review_puts_it_back_on_a_gate(winst: Instance) -> None:
    out = _submit(winst, gate=None)
    again = engine(winst).raise_review(out["review_id"], gate=GateChoice("elicitation"),
                                       session_id="s2")
    assert again["status"] == "awaiting-review" and again["gate"] == "elicitation"
    pages = engine(winst).review_pages(out["review_id"])
    assert pages[-1]["kind"] == "decision" and pages[-1]["withdraw"] is True


def test_review_pages_paginate_under_the_limit(winst: Instance) -> None:
    e = engine(winst)
    long = "\n".join(f"Line {i} of a long description." for i in range(400))
    out = e.submit_draft("Long one", long, CRITERIA, gate=APP)
    pages = e.review_pages(out["review_id"], body_limit=500)
    assert len(pages) > 3
    assert all(len(p["body"]) <= 500 for p in pages)
    assert [p["kind"] for p in pages].count("decision") == 1
    assert pages[-1]["withdraw"] is False
    joined = "\n".join(p["body"] for p in pages[:-1])
    assert "Line 399 of a long description." in joined


def test_approve_writes_and_commits_the_story(winst: Instance) -> None:
    out = _submit(winst, parent="EPIC-0001")
    e = engine(winst)
    done = e.resolve_review(out["review_id"], "approve", approver=Principal(
        "Ana Reviewer", "person", False, "REVETLY_REVIEWER"))
    assert done["status"] == "applied" and done["wrote"] is True
    assert done["decided_via"] == "cli" and done["decision_gate_enforced"] is True
    assert done["decided_channel"] == "another-session"
    assert done["artifact_id"] == "STORY-0002"
    text = (winst.root / "backlog" / "STORY-0002.md").read_text()
    assert "parent: EPIC-0001" in text and "Ana Reviewer" in text
    assert text.count("## Acceptance criteria") == 1
    head = winst.git.repo[winst.git.repo.head.target]
    assert "STORY-0002" in head.message
    assert head.tree["backlog"]["STORY-0002.md"]
    again = e.resolve_review(out["review_id"], "reject")
    assert again["status"] == "applied" and again["answered_now"] is False


def test_reject_writes_nothing_and_keeps_the_reason(winst: Instance) -> None:
    out = _submit(winst)
    head = winst.git.head
    done = engine(winst).resolve_review(out["review_id"], "reject", "too vague")
    assert done["status"] == "resolved" and done["wrote"] is False and done["reason"] == "too vague"
    assert winst.git.head == head
    assert engine(winst).review_state(out["review_id"])["reason"] == "too vague"


def test_withdraw_is_not_a_verdict(winst: Instance) -> None:
    out = _submit(winst)
    done = engine(winst).withdraw_review(out["review_id"], "nobody will answer")
    assert done["status"] == "withdrawn" and done["decision"] == "withdraw"
    assert engine(winst).list_reviews()["count"] == 0
    assert engine(winst).list_reviews("withdrawn")["count"] == 1


def test_decided_channel_same_session_on_the_app(winst: Instance) -> None:
    out = _submit(winst, session_id="sess-1")
    done = engine(winst).resolve_review(
        out["review_id"], "approve", decided_via="mcp-app", session_id="sess-1",
        approver=Principal("Ana", "person", True, "token"))
    assert done["decided_channel"] == "the-session-that-raised-it"
    assert done["decision_gate_enforced"] is False
    assert "cannot tell" in done["decided_channel_detail"]


def test_decided_channel_other_session_and_unknown(winst: Instance) -> None:
    a = _submit(winst, session_id="sess-1")
    b = _submit(winst)
    ana = Principal("Ana", "person", True, "token")
    e = engine(winst)
    assert e.resolve_review(a["review_id"], "reject", decided_via="mcp-elicitation",
                            session_id="sess-2", approver=ana)["decided_channel"] == "another-session"
    assert e.resolve_review(b["review_id"], "reject", decided_via="mcp-app",
                            session_id="sess-2", approver=ana)["decided_channel"] == "unknown"


def test_bad_decided_via_is_refused(winst: Instance) -> None:
    out = _submit(winst)
    with pytest.raises(Refusal):
        engine(winst).resolve_review(out["review_id"], "approve", decided_via="telepathy")


def test_corrupt_record_is_named_never_followed(winst: Instance) -> None:
    out = _submit(winst)
    folder = winst.root / ".revetly" / "reviews"
    path = folder / f"{out['review_id']}.json"
    data = json.loads(path.read_text())
    data["review_id"] = "../../revetly.toml"
    path.write_text(json.dumps(data))
    (folder / "garbage.json").write_text("{")
    listed = engine(winst).list_reviews("all")
    assert listed["count"] == 0
    assert {c["file"] for c in listed["corrupt"]} == {path.name, "garbage.json"}
    with pytest.raises(Refusal) as exc:
        engine(winst).review_state(out["review_id"])
    assert exc.value.code == "corrupt-record"


def test_store_refuses_to_build_a_path_from_a_bad_id(winst: Instance) -> None:
    with pytest.raises(Refusal):
        ReviewStore(winst.root, winst.root / ".revetly")._path("../x")


def test_revision_rewrites_the_story_body(winst: Instance) -> None:
    e = engine(winst)
    out = e.submit_revision("STORY-0001", "Finance wants a CSV and a PDF.",
                            ["A CSV holds one row per invoice", "A PDF is offered too"],
                            title="Export invoices", gate=APP)
    done = e.resolve_review(out["review_id"], "approve")
    assert done["status"] == "applied"
    text = (winst.root / "backlog" / "STORY-0001.md").read_text()
    assert "A PDF is offered too" in text and "Amounts keep two decimals" not in text
    assert "title: Export invoices" in text and "action: revised" in text
    assert "parent: EPIC-0001" in text


def test_revision_of_a_note_is_refused(winst: Instance) -> None:
    with pytest.raises(Refusal) as exc:
        engine(winst).submit_revision("DEC-0001", "x", ["y"], gate=APP)
    assert exc.value.code == "not-a-live-work-item"


def test_draft_under_unknown_parent_is_refused(winst: Instance) -> None:
    with pytest.raises(Refusal) as exc:
        _submit(winst, parent="EPIC-0042")
    assert exc.value.code == "not-a-live-work-item"
    assert engine(winst).list_reviews("all")["count"] == 0


def test_revision_of_a_story_changed_since_is_refused_on_approval(winst: Instance) -> None:
    e = engine(winst)
    out = e.submit_revision("STORY-0001", "New words.", ["Only one"], gate=APP)
    path = winst.root / "backlog" / "STORY-0001.md"
    winst.git.write_and_commit({"backlog/STORY-0001.md": path.read_text() + "\nA late edit.\n"},
                               "someone edits")
    head = winst.git.head
    done = e.resolve_review(out["review_id"], "approve")
    assert done["status"] == "refused" and done["wrote"] is False
    assert done["refusal"]["code"] == "story-changed"
    assert winst.git.head == head and "A late edit." in path.read_text()


def _record(**kw: object) -> ReviewRecord:
    base: dict[str, object] = dict(review_id="REV-0123456789abcdef", kind="draft", status="pending",
                                   project="acme", created_at="t", updated_at="t", drafted_by={},
                                   draft={})
    base.update(kw)
    return ReviewRecord(**base)  # type: ignore[arg-type]


def test_the_raising_session_is_the_latest_raise_else_the_submit() -> None:
    assert raising_session(_record(session_id="s1")) == "s1"
    assert raising_session(_record(session_id="s1", raises=[{"session_id": "s2"},
                                                            {"session_id": "s3"}])) == "s3"


def test_a_closed_review_answers_its_state_and_no_second_decision() -> None:
    out = already_answered(_record(status="withdrawn"))
    assert out["answered_now"] is False and "already withdrawn" in out["detail"]
