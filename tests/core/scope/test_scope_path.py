"""get_scope(question='binding', path=...): which stories and decisions are behind a file."""

from __future__ import annotations

from pathlib import Path

import pygit2
import pytest
from revetly_core.engine import Engine
from revetly_core.refusal import Refusal
from revetly_core.scope import behind
from revetly_core.scope.behind import StoryWeight, names_file, rank_stories
from revetly_core.scope.path_history import PathHistoryCache, follow

from tests.core.gitrepo import BASE_TIME, GitRepo
from tests.core.scope.corpus import Corpus


def test_the_history_follows_a_rename(corpus: Corpus) -> None:
    walk = follow(pygit2.Repository(str(corpus.code.root)), "src/app/csv_export.py")
    assert [c.sha for c in walk] == [corpus.commits[k] for k in ("tweak", "rename", "body", "add")]
    assert walk[-1].path == "src/app/export.py" and walk[0].path == "src/app/csv_export.py"


def test_a_commit_not_touching_the_path_is_not_in_its_history(corpus: Corpus) -> None:
    walk = follow(pygit2.Repository(str(corpus.code.root)), "src/app/csv_export.py")
    assert corpus.commits["other"] not in {c.sha for c in walk}


def test_the_walk_is_cached_by_repository_head(corpus: Corpus) -> None:
    cache = PathHistoryCache()
    first = cache.history(corpus.code.root, "src/app/csv_export.py")
    assert cache.history(corpus.code.root, "src/app/csv_export.py") is first


def test_weights_subject_body_delivery_and_the_first_story(corpus: Corpus) -> None:
    out = corpus.binding(path="src/app/csv_export.py")
    stories = {b["artifact_id"]: b for b in out["behind"] if b["kind"] == "story"}
    # STORY-0003: subject 1 + brought the file in 3; STORY-0004: body ¼ + subjects 2 + delivery 1
    assert stories["STORY-0003"]["weight"] == 4.0
    assert stories["STORY-0004"]["weight"] == 3.25
    assert stories["STORY-0004"]["commits"] == 3
    assert [b["artifact_id"] for b in out["behind"]][:2] == ["STORY-0003", "STORY-0004"]
    assert "brought the file in" in stories["STORY-0003"]["why"]
    assert "DEL-0041" in stories["STORY-0004"]["why"]


def test_stories_carry_commits_and_last(corpus: Corpus) -> None:
    story = next(b for b in corpus.binding(path="src/app/csv_export.py")["behind"]
                 if b["artifact_id"] == "STORY-0004")
    assert story["last"].startswith("20") and story["commits"] == 3


def test_ties_go_to_the_more_recent_commit() -> None:
    older = StoryWeight("STORY-0001", weight=2.0, last="2025-01-01T00:00:00+00:00")
    newer = StoryWeight("STORY-0009", weight=2.0, last="2025-02-01T00:00:00+00:00")
    assert [w.artifact_id for w in rank_stories({"a": older, "b": newer})] == [
        "STORY-0009", "STORY-0001"]


def test_decisions_naming_the_file_come_first(corpus: Corpus) -> None:
    decisions = [b for b in corpus.binding(path="src/app/csv_export.py")["behind"]
                 if b["kind"] != "story"]
    assert decisions[0]["artifact_id"] == "DEC-0026"
    assert decisions[0]["why"].startswith("names the file")


def test_names_file_reads_path_file_name_and_module() -> None:
    assert names_file("see csv_export.py", "src/app/csv_export.py")
    assert names_file("app.csv_export.export must stay pure", "src/app/csv_export.py")
    assert not names_file("nothing here", "src/app/csv_export.py")


def test_path_repos_says_where_and_when(corpus: Corpus) -> None:
    repos = corpus.binding(path="src/app/csv_export.py")["path"]["repos"]
    assert repos[0]["repository"] == "app" and repos[0]["commits"] == 4
    assert repos[0]["renamed_from"] == ["src/app/export.py"]


def test_a_path_prefixed_with_the_repository_name_resolves(corpus: Corpus) -> None:
    out = corpus.binding(path="app/src/app/csv_export.py")
    assert out["path"]["repos"][0]["path"] == "src/app/csv_export.py"


def test_binding_statements_are_gathered_over_the_leading_stories(corpus: Corpus) -> None:
    out = corpus.binding(path="src/app/csv_export.py")
    assert out["scope"]["roots"][:2] == ["STORY-0003", "STORY-0004"]
    bears = {s["bears_on"] for s in out["statements"]}
    assert "STORY-0004" in bears and "STORY-0003" in bears
    assert out["more_ranked"] == 0


def test_an_unknown_path_answers_an_empty_behind_with_a_reason(corpus: Corpus) -> None:
    out = corpus.binding(path="src/app/nowhere.py")
    assert out["behind"] == [] and "no declared repository" in out["reason"]


def test_a_path_outside_every_repository_is_refused(corpus: Corpus) -> None:
    for outside in ("/etc/passwd", "../elsewhere/x.py"):
        with pytest.raises(Refusal) as caught:
            corpus.binding(path=outside)
        assert caught.value.code == "path-outside-repositories"
        assert caught.value.fix


def test_an_instance_declaring_no_repository_answers_with_a_reason(tmp_path: Path) -> None:
    Engine.init(tmp_path / "bare")
    git = GitRepo(tmp_path / "bare", create=False)
    git.commit("start", when=BASE_TIME)
    Engine.open(tmp_path / "bare").sync()
    out = Engine.open(tmp_path / "bare").get_scope("binding", path="src/x.py")
    assert out["behind"] == [] and out["reason"] == behind.NO_REPOSITORIES


def test_nothing_about_paths_is_stored(corpus: Corpus) -> None:
    store = corpus.engine()._store()
    try:
        before = store.snapshot()
    finally:
        store.close()
    corpus.binding(path="src/app/csv_export.py")
    store = corpus.engine()._store()
    try:
        assert store.snapshot() == before
    finally:
        store.close()
