"""The synthetic instance generator: seeded, deterministic, the right mix, a truthful history."""

from __future__ import annotations

import datetime as dt
import json
import subprocess
import sys
from pathlib import Path

import pygit2
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from revetly_core.markdown import criteria_fingerprint, parse_criteria, split_frontmatter
from revetly_core.synthetic import allocate, generate, make_queries, plan_instance
from revetly_core.synthetic.calendar import LAST_DAY, iso_day
from revetly_core.synthetic.vocabulary import zipf_ranks


def _tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*.md"))
            if ".git" not in p.parts}


def _head(repo: Path) -> str:
    r = pygit2.Repository(str(repo))
    return str(r.head.target)


@given(st.integers(min_value=1, max_value=20_000))
@settings(max_examples=200, deadline=None)
def test_allocate_sums_to_n_and_leaves_a_done_story_per_record(n: int) -> None:
    counts = allocate(n)
    assert sum(counts.values()) == n
    assert all(c >= 0 for c in counts.values())
    if n >= 3:
        assert counts["epic"] >= 1 and counts["feature"] >= 1 and counts["story"] >= 1
        assert 2 * counts["delivery"] <= counts["story"] + 1


@given(st.integers(min_value=1, max_value=50_000), st.floats(min_value=0.5, max_value=1.5),
       st.integers(min_value=0, max_value=2**32))
@settings(max_examples=100, deadline=None)
def test_zipf_ranks_stay_in_range(size: int, exponent: float, seed: int) -> None:
    import random

    ranks = zipf_ranks(random.Random(seed), size, exponent, 200)
    assert all(0 <= r < size for r in ranks)


def test_zipf_ranks_favour_the_top_ranks() -> None:
    import random

    ranks = zipf_ranks(random.Random(1), 10_000, 1.0, 20_000)
    assert ranks.count(0) > ranks.count(100) > ranks.count(5_000)


def test_the_plan_holds_n_live_artifacts_of_the_allocated_types() -> None:
    plan = plan_instance(500, seed=3)
    assert plan.live_counts() == allocate(500)
    assert len(plan.live()) == 500
    doomed = [i for i in plan.items if i.doomed]
    assert doomed and all(i.deleted is not None for i in doomed)


def test_nothing_declares_a_link_to_an_artifact_that_is_later_deleted() -> None:
    plan = plan_instance(800, seed=5)
    doomed = {i.id for i in plan.items if i.doomed}
    for item in plan.items:
        targets = {item.parent, item.delivers, *item.cites, *item.references, *item.related,
                   *item.supersedes, *(e.target for e in item.revises), item.names_id,
                   item.names_title}
        assert not targets & doomed, item.id


def test_revision_fingerprints_are_of_the_criteria_they_name() -> None:
    plan = plan_instance(1_000, seed=9)
    by_id = {i.id: i for i in plan.items}
    fingerprinted = [(d, e) for d in plan.items for e in d.revises if e.fingerprints]
    assert fingerprinted
    for _d, e in fingerprinted:
        criteria = by_id[e.target].criteria or []
        assert e.fingerprints == [criteria_fingerprint(criteria[p - 1]) for p in e.positions or []]
    assert plan.criterion_changed  # some of them are reworded later


def test_the_same_arguments_give_the_same_files_and_commit_ids(tmp_path: Path) -> None:
    a = generate(120, seed=11, out=tmp_path / "a", git=True, code_repo=tmp_path / "ac", commits=40)
    b = generate(120, seed=11, out=tmp_path / "b", git=True, code_repo=tmp_path / "bc", commits=40)
    assert _head(tmp_path / "a") == _head(tmp_path / "b")
    assert _head(tmp_path / "ac") == _head(tmp_path / "bc")
    assert _tree(tmp_path / "a") == _tree(tmp_path / "b")
    assert a.manifest == b.manifest
    c = generate(120, seed=12, out=tmp_path / "c")
    assert _tree(tmp_path / "c") != _tree(tmp_path / "a")
    assert c.manifest["counts"] == a.manifest["counts"]


def test_without_git_the_files_are_those_of_the_git_work_tree(tmp_path: Path) -> None:
    generate(150, seed=4, out=tmp_path / "git", git=True)
    generate(150, seed=4, out=tmp_path / "plain")
    assert _tree(tmp_path / "git") == _tree(tmp_path / "plain")
    assert not (tmp_path / "plain" / ".git").exists()


def test_every_file_parses_with_its_declared_type_and_criteria(tmp_path: Path) -> None:
    made = generate(300, seed=2, out=tmp_path / "inst")
    by_id = {i.id: i for i in made.plan.live()}
    files = sorted((tmp_path / "inst").rglob("*.md"))
    assert len(files) == 300
    for path in files:
        front, body = split_frontmatter(path.read_text(encoding="utf-8"))
        item = by_id[front["id"]]
        assert front["type"] == item.kind and path.stem == item.id
        expected = (item.edit.criteria if item.edit and item.edit.criteria else item.criteria) or []
        assert list(parse_criteria(body).items) == expected


def test_the_history_dates_each_file_by_its_created_and_updated_days(tmp_path: Path) -> None:
    made = generate(200, seed=6, out=tmp_path / "inst", git=True)
    repo = pygit2.Repository(str(tmp_path / "inst"))
    first: dict[str, str] = {}
    last: dict[str, str] = {}
    order = pygit2.enums.SortMode.TOPOLOGICAL | pygit2.enums.SortMode.REVERSE
    for commit in repo.walk(repo.head.target, order):
        day = dt.datetime.fromtimestamp(commit.author.time, tz=dt.UTC).date().isoformat()
        diff = (repo.diff(commit.parents[0].tree, commit.tree) if commit.parents
                else commit.tree.diff_to_tree(swap=True))
        for d in diff.deltas:
            if d.status != pygit2.enums.DeltaStatus.DELETED:
                path = d.new_file.path
                first.setdefault(path, day)
                last[path] = day
    for item in made.plan.live():
        assert first[item.path] == iso_day(item.created), item.id
        end = item.edit.day if item.edit else item.updated
        assert last[item.path] == iso_day(end), item.id
        assert end <= LAST_DAY


def test_the_command_line_prints_a_summary_and_refuses_a_full_folder(tmp_path: Path) -> None:
    out = tmp_path / "inst"
    run = subprocess.run([sys.executable, "-m", "revetly_core.synthetic", "--n", "40", "--out",
                          str(out), "--manifest", str(tmp_path / "truth.json")],
                         capture_output=True, text=True, check=True)
    summary = json.loads(run.stdout.strip().splitlines()[-1])
    assert summary["n"] == 40 and sum(summary["counts"].values()) == 40
    assert json.loads((tmp_path / "truth.json").read_text())["counts"] == summary["counts"]
    again = subprocess.run([sys.executable, "-m", "revetly_core.synthetic", "--n", "40", "--out",
                            str(out)], capture_output=True, text=True)
    assert again.returncode == 2 and "not an empty folder" in again.stderr


def test_dumped_queries_are_seeded_and_come_from_the_vocabulary() -> None:
    run = subprocess.run([sys.executable, "-m", "revetly_core.synthetic", "--dump-queries", "12",
                          "--seed", "7"], capture_output=True, text=True, check=True)
    lines = run.stdout.splitlines()
    assert lines == make_queries(7, 12)
    assert make_queries(8, 12) != lines
    assert all(2 <= len(q.split()) <= 4 for q in lines)


def test_an_instance_of_one_holds_a_single_story(tmp_path: Path) -> None:
    made = generate(1, out=tmp_path / "inst", git=True)
    assert made.manifest["counts"]["story"] == 1
    assert [p.name for p in (tmp_path / "inst" / "backlog").iterdir()] == ["STORY-0001.md"]


@pytest.mark.parametrize("n", [2, 7, 33])
def test_small_instances_are_written_whole(tmp_path: Path, n: int) -> None:
    made = generate(n, out=tmp_path / "inst", git=True, code_repo=tmp_path / "code", commits=12)
    assert len(list((tmp_path / "inst").rglob("*.md"))) == n
    assert made.summary["code_commits"] == 12


def test_with_config_the_instance_is_ready_to_sync(tmp_path: Path) -> None:
    from revetly_core import Engine

    made = generate(60, seed=8, out=tmp_path / "inst", git=True, code_repo=tmp_path / "code",
                    commits=20, config=True)
    repo = pygit2.Repository(str(tmp_path / "inst"))
    last = repo[repo.head.target]
    assert last.message == "Configure Revetly\n"
    assert {e.name for e in last.tree} >= {"revetly.toml", ".gitignore", "backlog"}
    assert made.summary["instance_commits"] == sum(1 for _ in repo.walk(repo.head.target))
    engine = Engine.open(tmp_path / "inst")
    result = engine.sync()
    assert result["outcome"] == "succeeded" and result["problems"] == 0
    assert {s["source"] for s in result["sources"]} == {"repository", "commits/code"}
