"""A hostile file fails only itself: the pass lands the rest, check names it, nothing leaks.

Real git repositories, real passes. Each named case of tests/core/hostile.py runs alone beside
good files; then all of them together; then hypothesis throws generated frontmatter at a pass.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from revetly_core import Refusal
from tests.core.gitrepo import Instance, md
from tests.core.hostile import GOOD, SECRET, Case, cases, good_files, plant_corpus

CASES = cases()


def good_ids() -> set[str]:
    return {f"STORY-{i:04d}" for i in range(1, GOOD + 1)}


def live_ids(instance: Instance) -> set[str]:
    store = instance.store()
    try:
        return {r[0] for r in store.conn.execute("SELECT id FROM artifacts WHERE deleted=0")}
    finally:
        store.close()


def named(instance: Instance) -> dict[str, str]:
    return {str(p["path"]): p["code"] for p in instance.check()["problems"]}


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_one_hostile_file_fails_only_itself(case: Case, tmp_path: Path) -> None:
    instance = Instance(tmp_path / "acme")
    plant_corpus(instance.git, tmp_path / "outside", [case])
    first = instance.sync()
    assert first["outcome"] == "succeeded"
    assert live_ids(instance) == good_ids()  # every good file landed, the hostile one did not
    problems = named(instance)
    assert problems.get(case.path) in case.codes, problems
    again = instance.sync()  # never poisoned: a later pass succeeds too
    assert again["outcome"] == "succeeded"
    full = instance.sync(full=True)
    assert full["outcome"] == "succeeded" and live_ids(instance) == good_ids()


def test_every_hostile_file_at_once_fails_only_itself(tmp_path: Path) -> None:
    instance = Instance(tmp_path / "acme")
    planted = plant_corpus(instance.git, tmp_path / "outside")
    assert instance.sync()["outcome"] == "succeeded"
    assert live_ids(instance) == good_ids()
    problems = named(instance)
    missed = {c.name: problems.get(c.path) for c in planted if problems.get(c.path) not in c.codes}
    assert missed == {}
    sources = instance.health()
    assert sources["counts"]["artifacts"] == GOOD


def test_a_bad_file_deleted_later_is_never_parsed_again(tmp_path: Path) -> None:
    instance = Instance(tmp_path / "acme")
    g = instance.git
    g.write_and_commit(good_files(3))
    g.write_and_commit({"backlog/bad.md": md("STORY-0050", "Bad") .replace(
        "type: story\n", "type: story\ncreated: 2025-02-30\n")})
    assert instance.sync()["outcome"] == "succeeded"
    assert named(instance)["backlog/bad.md"] == "bad-value"
    g.remove_and_commit(["backlog/bad.md"], "drop the bad file")
    for full in (False, False, True):
        result = instance.sync(full=full)
        assert result["outcome"] == "succeeded"
        assert [s["outcome"] for s in result["sources"]] == ["succeeded"]
    assert "backlog/bad.md" not in named(instance)
    assert live_ids(instance) == {"STORY-0001", "STORY-0002", "STORY-0003"}


def test_a_served_file_deleted_is_marked_deleted_without_a_reparse(tmp_path: Path) -> None:
    import pygit2

    instance = Instance(tmp_path / "acme")
    g = instance.git
    text = md("STORY-0001", "Doomed")
    g.write_and_commit({"backlog/STORY-0001.md": text})
    instance.sync()
    sha = g.remove_and_commit(["backlog/STORY-0001.md"], "remove it")
    # the deleted blob is gone from the object store: reading it again would fail
    blob = str(pygit2.hash(text.encode()))
    (g.root / ".git" / "objects" / blob[:2] / blob[2:]).unlink()
    result = instance.sync()
    assert result["outcome"] == "succeeded" and result["changed"]["deleted"] == 1
    store = instance.store()
    try:
        gone = store.get("STORY-0001")
    finally:
        store.close()
    assert gone is not None and gone.deleted and gone.deleted_clock == "source-declared"
    assert gone.deleted_note == f"removed by commit {sha[:12]}"


def test_a_symlink_out_of_the_instance_is_not_served(tmp_path: Path) -> None:
    instance = Instance(tmp_path / "acme")
    leak = next(c for c in CASES if c.name == "symlink out of the instance")
    plant_corpus(instance.git, tmp_path / "outside", [leak])
    instance.sync()
    engine = instance.engine()
    assert engine.search_context(SECRET)["artifacts"] == []
    with pytest.raises(Refusal):
        engine.get_artifact("STORY-0900")  # inspect: the linked-to file's id is not held
    assert "STORY-0900" not in live_ids(instance)
    assert named(instance)["backlog/leak.md"] == "outside-instance"


def test_a_symlink_inside_the_instance_is_read(tmp_path: Path) -> None:
    instance = Instance(tmp_path / "acme")
    g = instance.git
    g.write("notes/real.md", md("REF-0001", "The real note", "reference"))
    (g.root / "backlog").mkdir()
    (g.root / "backlog" / "alias.md").symlink_to("../notes/real.md")
    g.commit("a link inside")
    instance.sync()
    assert "REF-0001" in live_ids(instance)
    # the link was followed (inside the instance): two paths carry one id, one is the duplicate
    assert list(named(instance).values()) == ["duplicate-id"]


def test_a_records_folder_that_links_out_is_not_read(tmp_path: Path) -> None:
    instance = Instance(tmp_path / "acme")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "DEC-0001.md").write_text(md("DEC-0001", SECRET, "decision", status="accepted"))
    instance.git.write_and_commit(good_files(2))
    (instance.root / "records").symlink_to(outside)
    instance.git.commit("records/ is a link")
    instance.sync()
    assert live_ids(instance) == {"STORY-0001", "STORY-0002"}
    assert instance.engine().search_context(SECRET)["artifacts"] == []


def test_a_full_width_id_is_refused_and_the_genuine_file_holds_the_id(tmp_path: Path) -> None:
    instance = Instance(tmp_path / "acme")
    instance.git.write_and_commit({
        "backlog/a-fake.md": md("STORY-\uff10\uff10\uff10\uff15", "Look-alike"),
        "backlog/z-real.md": md("STORY-0005", "Genuine"),
    })
    assert instance.sync()["outcome"] == "succeeded"
    assert live_ids(instance) == {"STORY-0005"}
    store = instance.store()
    try:
        row = store.conn.execute("SELECT source_path FROM artifacts WHERE id='STORY-0005'").fetchone()
    finally:
        store.close()
    assert row[0] == "backlog/z-real.md"
    problems = instance.check()["problems"]
    assert [(p["path"], p["code"]) for p in problems] == [("backlog/a-fake.md", "id-not-ascii")]


# -- hypothesis: generated hostile frontmatter -------------------------------------------------

_scalar_text = st.sampled_from([
    ".nan", "-.inf", ".inf", "2025-02-30", "2025-13-01", "9" * 400, str(2**70), "~", "yes",
    "!!binary aGk=", "!!set {a, b}", "!!timestamp 2025-02-30", "&x [*x]", "*nowhere", "[[[[",
    "'unclosed", "{a: 1, a: 2}", "!!int 0x7fffffffffffffffffff", "!!float nan", "\"\\ud800\"",
    "@at", "`tick`", "a: b: c", "- - -", "\t", "!custom x", "? [a, b]\n  : c",
])
_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(),
              st.text(max_size=20), st.dates(), st.binary(max_size=8)),
    lambda inner: st.one_of(st.lists(inner, max_size=3),
                            st.dictionaries(st.one_of(st.text(max_size=6), st.integers()),
                                            inner, max_size=3)),
    max_leaves=10,
)


def _dumped(value: object) -> str:
    try:
        return yaml.dump({"extra": value}, allow_unicode=True)
    except Exception:  # a value PyYAML itself cannot write: write it as text
        return f"extra: {value!r}\n"


_blocks = st.one_of(
    _values.map(_dumped),  # any YAML the safe loader accepts (and values it then refuses)
    _scalar_text.map(lambda s: f"extra: {s}\n"),  # what it rejects or cannot build
    st.binary(max_size=60).map(lambda b: b.decode("utf-8", "replace")),  # noise
)


_numbers = itertools.count(1000)


@pytest.fixture(scope="module")
def hostile_instance(tmp_path_factory: pytest.TempPathFactory) -> Instance:
    instance = Instance(tmp_path_factory.mktemp("hyp") / "acme")
    instance.git.write_and_commit(good_files(5))
    instance.sync()
    return instance


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(block=_blocks)
def test_generated_hostile_frontmatter_fails_only_its_file(
    hostile_instance: Instance, block: str
) -> None:
    instance = hostile_instance
    n = next(_numbers)
    path, artifact_id = f"backlog/generated-{n}.md", f"STORY-{n}"
    text = f"---\nid: {artifact_id}\ntitle: generated\ntype: story\n{block}\n---\nbody\n"
    instance.git.write_and_commit({path: text.encode("utf-8", "replace")})
    result = instance.sync()
    assert result["outcome"] == "succeeded"
    assert [s["outcome"] for s in result["sources"]] == ["succeeded"]
    ids = live_ids(instance)
    assert {f"STORY-{i:04d}" for i in range(1, 6)} <= ids
    problems = named(instance)
    # the generated file either landed (its frontmatter was fine) or is named, never both
    assert (artifact_id in ids) != (path in problems)
