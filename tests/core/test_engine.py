"""The Engine facade end to end, and a synthetic instance checked against its ground truth."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path
from typing import Any

import pygit2
import pytest
from revetly_core.store.db import Store
from revetly_core.synthetic import generate

from revetly_core import Engine, Refusal
from tests.core.gitrepo import GitRepo, iso, md


@pytest.fixture(autouse=True)
def _no_instance_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("REVETLY_INSTANCE", raising=False)


# -- the facade -------------------------------------------------------------------------------


def test_init_then_open_sync_health_check_and_graph(tmp_path: Path) -> None:
    payload = Engine.init(tmp_path / "acme")
    assert payload["created_repository"] is True
    repo = GitRepo(tmp_path / "acme", create=False)
    repo.write_and_commit({
        "backlog/STORY-0001.md": md("STORY-0001", "Checkout flow", body="Uses DEC-0001.\n"),
        "notes/DEC-0001.md": md("DEC-0001", "Use Postgres", "decision", "For the checkout flow.\n"),
    })
    engine = Engine.open(tmp_path / "acme")
    assert engine.root == (tmp_path / "acme").resolve()
    assert engine.config.instance.name == "acme"
    assert engine.paths.db == engine.root / ".revetly" / "context.db"

    result = engine.sync()
    assert set(result) == {"pass_id", "outcome", "full", "corpus_revision", "started_at",
                           "ended_at", "changed", "sources", "problems"}
    assert result["outcome"] == "succeeded"
    assert result["changed"]["added"] == 2

    health = engine.context_health()
    assert health["corpus_revision"] == 1
    assert health["counts"]["links"] == 2

    assert engine.check()["ok"] is True

    g = engine.graph()
    assert set(g.nodes) == {"STORY-0001", "DEC-0001"}
    assert g.has_edge("STORY-0001", "DEC-0001")
    assert g.has_edge("DEC-0001", "STORY-0001")  # the title mention
    assert engine.graph() is g  # cached for the revision


def test_the_graph_is_rebuilt_after_a_pass_that_changes_the_corpus(tmp_path: Path) -> None:
    Engine.init(tmp_path / "acme")
    repo = GitRepo(tmp_path / "acme", create=False)
    repo.write_and_commit({"backlog/STORY-0001.md": md("STORY-0001", "One")})
    engine = Engine.open(tmp_path / "acme")
    engine.sync()
    first = engine.graph()
    engine.sync()  # nothing changed: same revision, same graph
    assert engine.graph() is first
    repo.write_and_commit({"backlog/STORY-0002.md": md("STORY-0002", "Two", body="STORY-1\n")})
    engine.sync()
    second = engine.graph()
    assert second is not first
    assert second.has_edge("STORY-0002", "STORY-0001")


def test_reads_before_any_sync_are_refused_not_synced(tmp_path: Path) -> None:
    Engine.init(tmp_path / "acme")
    engine = Engine.open(tmp_path / "acme")
    for read in (engine.context_health, engine.graph):
        with pytest.raises(Refusal) as info:
            read()
        assert info.value.code == "not-synced"
    # check needs no store
    assert engine.check()["store_consulted"] is False


def test_open_finds_the_instance_from_the_environment_or_the_cwd(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    Engine.init(tmp_path / "acme")
    monkeypatch.setenv("REVETLY_INSTANCE", str(tmp_path / "acme"))
    assert Engine.open().root == (tmp_path / "acme").resolve()
    monkeypatch.delenv("REVETLY_INSTANCE")
    monkeypatch.chdir(tmp_path / "acme" / "backlog")
    assert Engine.open().root == (tmp_path / "acme").resolve()


def test_open_without_an_instance_is_refused(tmp_path: Path) -> None:
    with pytest.raises(Refusal) as info:
        Engine.open(tmp_path)
    assert info.value.code == "no-instance"


def test_open_with_a_bad_setting_is_refused_naming_it(tmp_path: Path) -> None:
    Engine.init(tmp_path / "acme")
    config = tmp_path / "acme" / "revetly.toml"
    config.write_text(config.read_text() + "\n[read]\nbudgett = 2048\n")
    with pytest.raises(Refusal) as info:
        Engine.open(tmp_path / "acme")
    assert info.value.code == "refused"
    assert info.value.extra["setting"] == "read.budgett"


def test_init_refuses_an_existing_instance(tmp_path: Path) -> None:
    Engine.init(tmp_path / "acme")
    with pytest.raises(Refusal) as info:
        Engine.init(tmp_path / "acme")
    assert info.value.code == "refused"


def test_init_with_commits_then_sync_reads_them(tmp_path: Path) -> None:
    code = GitRepo(tmp_path / "api")
    sha = code.write_and_commit({"a.py": "1"}, "Fix STORY-0001")
    payload = Engine.init(tmp_path / "acme", [str(code.root)])
    assert payload["commits"] == [{"name": "api", "path": "../api"}]
    engine = Engine.open(tmp_path / "acme")
    result = engine.sync()
    assert {s["source"] for s in result["sources"]} == {"repository", "commits/api"}
    assert engine.graph().has_edge(sha, "STORY-0001")  # dangling, spelled as written


# -- a synthetic instance against its manifest -------------------------------------------------


class Synthetic:
    def __init__(self, root: Path, code: Path, manifest: dict[str, Any],
                 summary: dict[str, Any]) -> None:
        self.root, self.code, self.manifest, self.summary = root, code, manifest, summary
        self.engine = Engine.open(root)
        self.result = self.engine.sync()
        self.store = Store(root / ".revetly" / "context.db", readonly=True)

    def links(self, where: str, params: tuple[Any, ...] = ()) -> set[tuple[str, str, str, str]]:
        return {(r["src"], r["dst"], r["relation"], r["method"])
                for r in self.store.live_links(where, params)}


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory: pytest.TempPathFactory) -> Synthetic:
    base = tmp_path_factory.mktemp("synthetic")
    root, code = base / "inst", base / "code"
    made = generate(200, seed=42, out=root, git=True, code_repo=code, commits=100, config=True)
    s = Synthetic(root, code, made.manifest, made.summary)
    yield s  # type: ignore[misc]
    s.store.close()


def _words(text: str) -> str:
    """Lower-case words joined by single spaces: how a title reads inside prose, punctuation aside."""
    return " ".join(re.findall(r"[a-z0-9]+", text.lower()))


def test_synthetic_pass_lands_everything(synthetic: Synthetic) -> None:
    assert synthetic.result["outcome"] == "succeeded"
    assert synthetic.result["problems"] == 0
    counts = synthetic.engine.context_health()["counts"]
    expected = {t: n for t, n in synthetic.manifest["counts"].items() if n}
    assert sum(expected.values()) == 200
    assert {t: n for t, n in counts["by_type"].items() if t != "commit"} == expected
    assert counts["by_type"]["commit"] == synthetic.manifest["code_commits"] == 100
    assert counts["deleted"] == len(synthetic.manifest["deleted"])


def test_synthetic_deletions_are_source_declared_at_their_commit(synthetic: Synthetic) -> None:
    repo = pygit2.Repository(str(synthetic.root))
    removed_at: dict[str, str] = {}
    for commit in repo.walk(repo.head.target):
        if commit.parents:
            for d in repo.diff(commit.parents[0].tree, commit.tree).deltas:
                if d.status == pygit2.enums.DeltaStatus.DELETED:
                    removed_at[d.old_file.path] = iso(commit.author.time)
    assert synthetic.manifest["deleted"]
    assert set(removed_at) == {entry["path"] for entry in synthetic.manifest["deleted"]}
    for entry in synthetic.manifest["deleted"]:
        a = synthetic.store.get(entry["id"])
        assert a is not None, entry
        assert a.deleted and a.deleted_clock == "source-declared"
        assert a.deleted_at == removed_at[entry["path"]]
        assert dt.datetime.fromisoformat(a.deleted_at).date().isoformat() == entry["date"]


def test_synthetic_later_edits_move_the_source_update_time(synthetic: Synthetic) -> None:
    assert synthetic.manifest["edited"]
    for entry in synthetic.manifest["edited"]:
        a = synthetic.store.get(entry["id"])
        assert a is not None and not a.deleted, entry
        assert a.source_updated_at is not None
        assert dt.datetime.fromisoformat(a.source_updated_at).date().isoformat() == entry["date"]


def test_synthetic_title_mentions_match_the_manifest(synthetic: Synthetic) -> None:
    expected = {(src, dst) for src, dst in synthetic.manifest["title_mentions"]}
    assert expected
    stronger = {(s, d) for s, d, _r, m in synthetic.links("method != 'title-mention'")}
    found = {(s, d) for s, d, _r, _m in synthetic.links("method = 'title-mention'")}
    # every mention the generator planted is found, unless a stronger link already states it
    assert expected - stronger <= found
    # and every mention found is a planted one or a title (or alias) the prose happens to repeat
    for src, dst in found - expected:
        body = _words(synthetic.store.get(src).body)  # type: ignore[union-attr]
        target = synthetic.store.get(dst)
        assert target is not None
        phrases = [_words(target.title), *(_words(a) for a in target.aliases)]
        assert any(f" {p} " in f" {body} " for p in phrases), (src, dst)


def test_synthetic_explicit_refs_are_found(synthetic: Synthetic) -> None:
    assert synthetic.manifest["explicit_refs"]
    declared = {(s, d) for s, d, _r, _m in synthetic.links("method = 'declared'")}
    refs = {(s, d) for s, d, _r, _m in synthetic.links("method = 'explicit-ref'")}
    for src, dst in synthetic.manifest["explicit_refs"]:
        assert (src, dst) in refs or (src, dst) in declared


def test_synthetic_supersessions_are_supersedes_links(synthetic: Synthetic) -> None:
    sup = synthetic.links("relation = 'supersedes'")
    assert synthetic.manifest["superseded"]
    for new, old in synthetic.manifest["superseded"]:
        assert (new, old, "supersedes", "declared") in sup
    assert len(sup) == len(synthetic.manifest["superseded"])


def test_synthetic_revisions_are_revises_links(synthetic: Synthetic) -> None:
    revises = {(s, d) for s, d, _r, _m in synthetic.links("relation = 'revises'")}
    assert synthetic.manifest["revised"]
    assert revises == {(note, item) for note, item in synthetic.manifest["revised"]}


def test_synthetic_commits_link_to_the_ids_they_name(synthetic: Synthetic) -> None:
    named = synthetic.manifest["code_named"]
    assert len(named) > 50  # most of the 100 commits name an id
    assert any(".." in synthetic.store.get(sha).title for sha in named)  # type: ignore[union-attr]
    for sha, ids in named.items():
        got = {d for _s, d, _r, _m in synthetic.links("src = ?", (sha,))}
        assert got == set(ids), sha


def test_synthetic_delivery_records_link_their_implementing_commits(synthetic: Synthetic) -> None:
    implemented = synthetic.links("relation = 'implemented_by'")
    expected = {(record, sha, "implemented_by", "declared")
                for record, shas in synthetic.manifest["implemented_by"].items() for sha in shas}
    assert expected and implemented == expected
    shas = {r[0] for r in synthetic.store.conn.execute("SELECT id FROM artifacts WHERE "
                                                       "type='commit'")}
    assert {dst for _s, dst, _r, _m in implemented} <= shas


def test_synthetic_instance_checks_clean_and_an_idle_pass_is_idle(synthetic: Synthetic) -> None:
    result = synthetic.engine.check()
    assert result["problems"] == [] and result["dangling_links"] == []
    again = synthetic.engine.sync()
    assert again["full"] is False
    assert again["changed"] == {"added": 0, "updated": 0, "deleted": 0}
    assert again["corpus_revision"] == synthetic.result["corpus_revision"]
