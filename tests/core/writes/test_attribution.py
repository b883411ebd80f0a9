"""Attribution: an approved draft records who approved it and which agent drafted it."""

from __future__ import annotations

import pytest
import yaml
from revetly_core.writes.principal import (
    AGENT_SOURCE,
    Principal,
    agent_label,
    drafting_principal,
)

from tests.core.gitrepo import Instance
from tests.core.writes.write_engine import engine

LOCAL = Principal("Dana Reyes", "person", False, "git-config")


def test_the_agent_drafts_when_the_shell_names_no_principal() -> None:
    who = drafting_principal(None, "acme-agent", "1.4.0", LOCAL)
    assert who == Principal("acme-agent", "machine", False, AGENT_SOURCE,
                            agent="acme-agent 1.4.0")


def test_a_given_principal_drafts_with_its_agent_beside_it() -> None:
    ana = Principal("ana", "person", True, "token")
    assert drafting_principal(ana, "acme-agent", None, LOCAL) == Principal(
        "ana", "person", True, "token", agent="acme-agent")


def test_with_neither_the_local_caller_drafts() -> None:
    assert drafting_principal(None, None, None, LOCAL) is LOCAL
    assert drafting_principal(None, "  ", "1", LOCAL) is LOCAL


def test_agent_label_is_name_and_version() -> None:
    assert agent_label("acme-agent", "1.4.0") == "acme-agent 1.4.0"
    assert agent_label(None, "1.4.0") is None


def test_an_approved_draft_credits_its_approver_and_its_agent_not_the_git_user(
        winst: Instance, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("REVETLY_ACTOR")  # the local caller is the machine's git user now
    rid = engine(winst).submit_draft("Dunning", "Remind.", ["After 7 days"],
                                     agent_name="acme-agent", agent_version="1.4.0")["review_id"]
    state = engine(winst).review_state(rid)
    assert state["drafted_by"]["name"] == "acme-agent"
    assert state["drafted_by"]["agent"] == "acme-agent 1.4.0"
    monkeypatch.setenv("REVETLY_REVIEWER", "Ana Person")
    done = engine(winst).resolve_review(rid, "approve")
    front = yaml.safe_load((winst.root / done["path"]).read_text().split("---\n")[1])
    [entry] = front["review_log"]
    assert entry["by"] == "Ana Person" and entry["drafted_by"] == "acme-agent"
    assert entry["drafted_by_kind"] == "machine" and entry["drafted_via"] == "acme-agent 1.4.0"
    assert front["drafted_by"] == "acme-agent"
    commit = winst.git.repo[done["commit"]]
    assert commit.author.name == "acme-agent" and commit.committer.name == "Ana Person"
    assert "drafted by acme-agent via acme-agent 1.4.0, approved by Ana Person" in commit.message


def test_an_explicit_approver_is_the_one_recorded(winst: Instance) -> None:
    rid = engine(winst).submit_draft("Dunning", "Remind.", ["After 7 days"],
                                     agent_name="acme-agent")["review_id"]
    ana = Principal("ana@example.com", "person", True, "token", email="ana@example.com")
    done = engine(winst).resolve_review(rid, "approve", approver=ana)
    assert done["decided_by"]["name"] == "ana@example.com"
    assert winst.git.repo[done["commit"]].committer.email == "ana@example.com"
