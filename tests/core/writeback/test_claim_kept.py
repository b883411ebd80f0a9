"""A store that keeps no claims of its own: the claim is one JSON file per item in records,
committed with the flip (claim_kept), and a second claimant is still refused."""

from __future__ import annotations

import json
from collections.abc import Mapping

import pytest
from revetly_core.config import Config
from revetly_core.writeback import WRITERS, TrackerWriter
from revetly_core.writeback.github import GitHubWriter

from revetly_core import Engine
from tests.support.fake_github import FakeGitHub

CLAIM_FILE = "records/claims/GH-1.json"


class ClaimlessGitHub(GitHubWriter):
    """GitHub's adapter as a store that shows no claim (a tracker with nowhere to put one)."""

    keeps_claims = False


def _claimless(config: Config, name: str, env: Mapping[str, str]) -> TrackerWriter | None:
    settings = next(s for s in config.connectors.github if s.name == name)
    return ClaimlessGitHub(settings, environ=env)


@pytest.fixture()
def claimless(gh: tuple[Engine, FakeGitHub], monkeypatch: pytest.MonkeyPatch,
              ) -> tuple[Engine, FakeGitHub]:
    monkeypatch.setitem(WRITERS, "github", _claimless)
    return gh


def _committed(engine: Engine, rel: str) -> dict[str, object]:
    import pygit2

    repo = pygit2.Repository(str(engine.root))
    blob = repo[repo.head.target].tree[rel]
    data: dict[str, object] = json.loads(repo[blob.id].data)
    return data


def test_the_claim_is_kept_in_records_and_the_answer_says_so(
        claimless: tuple[Engine, FakeGitHub]) -> None:
    engine, fake = claimless
    out = engine.set_status("GH-1", "in-progress", claimed_by="agent-7")
    assert out["claim"]["by"] == "agent-7" and out["commit"] is not None
    assert out["claim_kept"]["path"] == CLAIM_FILE
    assert "do not see who has the item" in out["claim_kept"]["detail"]
    assert "claim_note" not in out
    assert _committed(engine, CLAIM_FILE) == {"artifact_id": "GH-1", "source": "github/app",
                                              "claim": out["claim"]}
    assert not [r for r in fake.writes() if r.path.endswith("/comments")]


def test_a_second_claimant_is_refused_by_the_kept_claim(
        claimless: tuple[Engine, FakeGitHub]) -> None:
    engine, _ = claimless
    engine.set_status("GH-1", "in-progress", claimed_by="agent-7")
    out = engine.set_status("GH-1", "in-progress", claimed_by="agent-9")
    assert (out["status"], out["holder"]) == ("refused", "agent-7")


def test_leaving_in_progress_clears_the_kept_claim(claimless: tuple[Engine, FakeGitHub]) -> None:
    engine, _ = claimless
    engine.set_status("GH-1", "in-progress", claimed_by="agent-7")
    out = engine.set_status("GH-1", "ready")
    assert out["claim"] is None and _committed(engine, CLAIM_FILE)["claim"] is None
    assert engine.set_status("GH-1", "in-progress", claimed_by="agent-9")["claim"]["by"] == \
        "agent-9"
