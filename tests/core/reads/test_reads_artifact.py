"""get_artifact: the brief, the full record (history_after) and the branch (depth), on a real store."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from revetly_core.config import Config, load_config
from revetly_core.engine import Engine
from revetly_core.instance.layout import InstancePaths
from revetly_core.markdown.criteria import criteria_fingerprint
from revetly_core.reads import artifact as artifact_read
from revetly_core.reads.artifact import get_artifact, head_of
from revetly_core.reads.budget import ENV_READ_BUDGET, payload_bytes
from revetly_core.refusal import Refusal
from revetly_core.store.db import Store

from tests.core.gitrepo import GitRepo, md

CRITERIA = ["Export runs from the invoice list", "Columns follow the ledger order", "Totals match"]
STORY_BODY = (
    "Finance wants invoices out as CSV. The first cut sits behind TASK-0005.\n\n"
    "It belongs to the billing platform work.\n\n"
    "## Acceptance criteria\n\n" + "".join(f"- {c}\n" for c in CRITERIA)
)


@dataclass
class Corpus:
    root: Path
    git: GitRepo
    config: Config
    commit_sha: str
    story_commits: list[str]

    def store(self) -> Store:
        return Store(InstancePaths(self.root).db, readonly=True)

    def read(self, artifact_id: str, **kw: Any) -> dict[str, Any]:
        store = self.store()
        try:
            return get_artifact(self.config, store, artifact_id, **kw)
        finally:
            store.close()

    def refusal(self, artifact_id: object, **kw: Any) -> Refusal:
        with pytest.raises(Refusal) as caught:
            self.read(artifact_id, **kw)  # type: ignore[arg-type]
        return caught.value


def build(root: Path) -> Corpus:
    """An instance with a declared hierarchy, a decision revising a story, a cycle, a deleted
    task with a bug beneath it, a withheld note, and its own commits read as a code source."""
    Engine.init(root)
    git = GitRepo(root, create=False)
    with (root / "revetly.toml").open("a", encoding="utf-8") as fh:
        fh.write('\n[[connectors.commits]]\nname = "self"\npath = "."\n')
    fp = criteria_fingerprint(CRITERIA[1])
    files: dict[str, str | bytes] = {
        "backlog/EPIC-0001.md": md("EPIC-0001", "Billing platform", "epic", "The epic.\n",
                                   status="in-progress"),
        "backlog/FEAT-0002.md": md("FEAT-0002", "Invoice exports", "feature", "Exports.\n",
                                   status="ready", parent="EPIC-0001"),
        "backlog/STORY-0003.md": md("STORY-0003", "Export invoices as CSV", "story", STORY_BODY,
                                    status="draft", parent="FEAT-0002", owner="dana",
                                    cites=["DEC-0001"], area="billing",
                                    open_questions=["Which currency symbol?"]),
        "backlog/STORY-0004.md": md("STORY-0004", "Export credit notes", "story", "Notes.\n",
                                    status="done", parent="FEAT-0002"),
        "backlog/TASK-0005.md": md("TASK-0005", "Write the CSV writer", "task", "Code it.\n",
                                   status="in-progress", parent="STORY-0003"),
        "backlog/TASK-0006.md": md("TASK-0006", "Old credit note task", "task", "Gone soon.\n",
                                   status="ready", parent="STORY-0004"),
        "backlog/BUG-0008.md": md("BUG-0008", "Credit note rounding", "bug", "Rounding.\n",
                                  status="ready", parent="TASK-0006"),
        "backlog/STORY-0010.md": md("STORY-0010", "Loop one", "story", "A.\n", status="draft",
                                    parent="STORY-0011"),
        "backlog/STORY-0011.md": md("STORY-0011", "Loop two", "story", "B.\n", status="draft",
                                    parent="STORY-0010"),
        "notes/DEC-0001.md": md("DEC-0001", "Exports use CSV", "decision", "We export CSV.\n",
                                status="accepted",
                                revises=[{"id": "STORY-0003", "criteria": [2],
                                          "criteria_fp": [fp]}]),
        "notes/REF-0009.md": md("REF-0009", "Customer contract", "reference",
                                "Confidential terms.\n", withheld=True),
    }
    git.write_and_commit(files, "seed the backlog")
    sha1 = git.write_and_commit(
        {"backlog/STORY-0003.md": md("STORY-0003", "Export invoices as CSV", "story",
                                     STORY_BODY + "\nMore detail.\n", status="draft",
                                     parent="FEAT-0002", owner="dana", cites=["DEC-0001"],
                                     area="billing", open_questions=["Which currency symbol?"])},
        "STORY-0003: more detail")
    git.remove_and_commit(["backlog/TASK-0006.md"], "drop TASK-0006")
    Engine.open(root).sync()
    story = [r["revision"] for r in _history_rows(root, "backlog/STORY-0003.md")]
    return Corpus(root, git, load_config(root), sha1, story)


def _history_rows(root: Path, path: str) -> list[dict[str, Any]]:
    store = Store(InstancePaths(root).db, readonly=True)
    try:
        return [dict(r) for r in store.conn.execute(
            "SELECT * FROM history WHERE source='repository' AND path=? ORDER BY at", (path,))]
    finally:
        store.close()


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Corpus]:
    yield build(tmp_path_factory.mktemp("artifact") / "acme")


# -- the brief ---------------------------------------------------------------------------------


def test_the_brief_serves_the_records_own_fields_and_counts_the_rest(corpus: Corpus) -> None:
    out = corpus.read("STORY-0003")
    for key in ("artifact_id", "title", "status", "artifact_type", "kind", "owner", "provenance",
                "source_uri", "source_path", "source_updated_at", "created_at", "parent", "body",
                "acceptance_criteria", "declared_links", "full_record", "freshness"):
        assert key in out, key
    assert out["artifact_id"] == "STORY-0003"
    assert out["owner"] == "dana" and out["parent"] == "FEAT-0002" and out["kind"] == "work-item"
    assert out["body"] == "\n" + STORY_BODY + "\nMore detail.\n"  # verbatim, as the file has it
    assert out["acceptance_criteria"] == CRITERIA
    assert "criteria_unparsed" not in out
    assert out["open_questions"] == ["Which currency symbol?"]
    assert out["full_record"] == {
        "history_entries": 2, "change_notes": 0,
        "metadata_keys": ["area", "open_questions"],
        "inferred_links": {"absent": True, "reason": "lite"}, "inferred_summary": False,
    }
    for full_only in ("metadata", "links", "history_entries", "body_truncated", "project"):
        assert full_only not in out


def test_declared_links_are_the_frontmatters_own_links_only(corpus: Corpus) -> None:
    out = corpus.read("STORY-0003")
    # TASK-0005 is named in prose (explicit-ref), "billing platform" is a title mention, and a
    # commit names the story: none of them is a declared link.
    assert out["declared_links"] == {"cites": ["DEC-0001"], "parent": ["FEAT-0002"]}
    assert corpus.read("DEC-0001")["declared_links"] == {"revises": ["STORY-0003"]}


def test_an_id_in_another_spelling_finds_the_held_one(corpus: Corpus) -> None:
    assert corpus.read("story-3")["artifact_id"] == "STORY-0003"


def test_a_work_item_a_decision_revises_carries_revised_by(corpus: Corpus) -> None:
    assert corpus.read("STORY-0003")["revised_by"] == [
        {"id": "DEC-0001", "criteria": [2], "criterion_changed": False}
    ]
    assert "revised_by" not in corpus.read("STORY-0004")


def test_revised_by_says_criterion_changed_once_the_criterion_is_reworded(tmp_path: Path) -> None:
    c = build(tmp_path / "acme")
    reworded = STORY_BODY.replace(CRITERIA[1], "Columns follow the customer's order")
    c.git.write_and_commit(
        {"backlog/STORY-0003.md": md("STORY-0003", "Export invoices as CSV", "story", reworded,
                                     status="draft", parent="FEAT-0002")}, "reword AC2")
    Engine.open(c.root).sync()
    assert c.read("STORY-0003")["revised_by"] == [
        {"id": "DEC-0001", "criteria": [2], "criterion_changed": True}
    ]


def test_a_commit_serves_its_files_and_author(corpus: Corpus) -> None:
    out = corpus.read(corpus.commit_sha.upper())
    assert out["artifact_id"] == corpus.commit_sha
    assert out["artifact_type"] == "commit" and out["kind"] == "commit"
    assert out["files"] == ["backlog/STORY-0003.md"]
    assert out["author"] == "Dana Reyes"
    assert out["declared_links"] == {}


def test_a_deleted_artifact_answers_marked_deleted_with_its_clock(corpus: Corpus) -> None:
    out = corpus.read("TASK-0006")
    assert out["deleted"] is True
    assert out["deleted_clock"] == "source-declared"
    assert out["deleted_at"]
    assert out["deleted_note"].startswith("removed by commit")
    assert out["body"].strip() == "Gone soon."


def test_a_withheld_artifact_answers_out_of_context_without_its_body(corpus: Corpus) -> None:
    out = corpus.read("REF-0009")
    assert out["in_context"] is False and out["withheld"] is True
    assert out["title"] == "Customer contract"
    assert "body" not in out and "acceptance_criteria" not in out
    assert "Confidential" not in json.dumps(out)


def test_an_unknown_id_is_refused_naming_where_to_look(corpus: Corpus) -> None:
    refusal = corpus.refusal("STORY-0999")
    assert refusal.code == "not-found"
    assert "search_context" in refusal.fix and "list_backlog" in refusal.fix


@pytest.mark.parametrize("bad", ["", "STORY", "STORY-12a", "not an id", "abc123", "X-1" + "0" * 200, 7])
def test_an_id_of_no_known_shape_is_refused_as_an_invalid_argument(corpus: Corpus, bad: object) -> None:
    assert corpus.refusal(bad).code == "invalid-argument"


@pytest.mark.parametrize("depth", [-1, "2", "all", 1.5, True])
def test_a_depth_neither_whole_nor_declared_is_refused(corpus: Corpus, depth: object) -> None:
    assert corpus.refusal("EPIC-0001", depth=depth).code == "invalid-argument"


def test_history_after_with_depth_is_refused(corpus: Corpus) -> None:
    assert corpus.refusal("EPIC-0001", depth=1, history_after="").code == "invalid-argument"


def test_a_bad_deleted_value_is_refused(corpus: Corpus) -> None:
    assert corpus.refusal("EPIC-0001", deleted="all").code == "invalid-argument"


# -- the full record ---------------------------------------------------------------------------


def test_history_after_serves_the_full_record(corpus: Corpus) -> None:
    out = corpus.read("STORY-0003", history_after="")
    assert out["metadata"] == {"area": "billing", "open_questions": ["Which currency symbol?"]}
    assert out["history_total"] == 2
    assert [e["revision"] for e in out["history_entries"]] == corpus.story_commits
    assert out["history_entries"][0]["change"] == "added"
    assert "history_next" not in out
    links = {(x["direction"], x["relation"], x["method"], x["other"]) for x in out["links"]}
    assert ("out", "cites", "declared", "DEC-0001") in links
    assert ("out", "references", "explicit-ref", "TASK-0005") in links
    assert ("out", "mentions", "title-mention", "EPIC-0001") in links
    assert ("in", "revises", "declared", "DEC-0001") in links
    assert ("in", "parent", "declared", "TASK-0005") in links
    assert ("in", "references", "explicit-ref", corpus.commit_sha) in links
    assert out["deterministic_links"] == len(out["links"])
    assert out["inferred_links"] == {"absent": True, "reason": "lite"}
    # the floor envelope's history and the artifact's own history are different keys
    assert "freshness" in out


def test_history_pages_by_history_after_and_history_next(
    corpus: Corpus, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(artifact_read, "HISTORY_PAGE", 1)
    first = corpus.read("STORY-0003", history_after="")
    assert [e["revision"] for e in first["history_entries"]] == corpus.story_commits[:1]
    assert first["history_next"] == corpus.story_commits[0]
    second = corpus.read("STORY-0003", history_after=first["history_next"])
    assert [e["revision"] for e in second["history_entries"]] == corpus.story_commits[1:]
    assert "history_next" not in second
    by_prefix = corpus.read("STORY-0003", history_after=corpus.story_commits[0][:10])
    assert by_prefix["history_entries"] == second["history_entries"]
    first_at = first["history_entries"][0]["at"]
    by_time = corpus.read("STORY-0003", history_after=first_at)
    assert by_time["history_entries"] == second["history_entries"]
    assert corpus.read("STORY-0003", history_after="1999-01-01")["history_entries"] == \
        first["history_entries"]


def test_a_history_after_that_is_neither_revision_nor_time_is_refused(corpus: Corpus) -> None:
    assert corpus.refusal("STORY-0003", history_after="yesterday").code == "invalid-argument"


def test_links_into_a_deleted_neighbour_carry_other_deleted(corpus: Corpus) -> None:
    out = corpus.read("STORY-0004", history_after="")
    into_task = [x for x in out["links"] if x["other"] == "TASK-0006"]
    assert into_task and all(x.get("other_deleted") is True for x in into_task)


def test_deleted_include_reads_retracted_links_marked(tmp_path: Path) -> None:
    c = build(tmp_path / "acme")
    c.git.write_and_commit(
        {"backlog/STORY-0004.md": md("STORY-0004", "Export credit notes", "story", "Notes.\n",
                                     status="done")}, "detach STORY-0004")
    Engine.open(c.root).sync()
    live = c.read("STORY-0004", history_after="")
    assert not any(x["relation"] == "parent" and x["direction"] == "out" for x in live["links"])
    wide = c.read("STORY-0004", deleted="include")
    retracted = [x for x in wide["links"] if x.get("retracted")]
    assert [(x["relation"], x["other"]) for x in retracted] == [("parent", "FEAT-0002")]
    assert retracted[0]["retracted_at"]
    only = c.read("STORY-0004", deleted="only")
    assert only["links"] and all(x.get("retracted") for x in only["links"])


# -- the branch --------------------------------------------------------------------------------


def _ids(node: dict[str, Any]) -> list[str]:
    out = [node["artifact_id"]]
    for child in node["children"]:
        out.extend(_ids(child))
    return out


def test_depth_zero_is_the_root_alone(corpus: Corpus) -> None:
    out = corpus.read("EPIC-0001", depth=0)
    assert out["depth"] == 0 and out["depth_source"] == "argument"
    assert out["tree"]["artifact_id"] == "EPIC-0001"
    assert out["tree"]["children"] == []
    assert out["tree"]["children_not_walked"] == 1
    assert out["rollup"]["by_type"] == {"epic": {"count": 1, "ids": ["EPIC-0001"]}}
    assert out["inferred"] == {"absent": True, "reason": "lite"}


def test_depth_one_walks_one_level_of_declared_parents(corpus: Corpus) -> None:
    out = corpus.read("EPIC-0001", depth=1)
    assert _ids(out["tree"]) == ["EPIC-0001", "FEAT-0002"]
    node = out["tree"]["children"][0]
    assert set(node) >= {"artifact_id", "title", "status", "artifact_type", "source_updated_at"}
    assert "body" not in node and "owner" not in node


def test_depth_declared_walks_as_far_as_backlog_parents_declares(corpus: Corpus) -> None:
    out = corpus.read("EPIC-0001", depth="declared")
    assert out["depth_source"] == "declared"
    # tasks are no type's parent, so the walk stops at them
    assert _ids(out["tree"]) == ["EPIC-0001", "FEAT-0002", "STORY-0003", "TASK-0005", "STORY-0004"]
    assert out["depth_reached"] == 3


def test_the_rollup_counts_the_walk_per_status_and_type(corpus: Corpus) -> None:
    rollup = corpus.read("EPIC-0001", depth=5)["rollup"]
    assert rollup["by_status"] == {
        "done": {"count": 1, "ids": ["STORY-0004"]},
        "draft": {"count": 1, "ids": ["STORY-0003"]},
        "in-progress": {"count": 2, "ids": ["EPIC-0001", "TASK-0005"]},
        "ready": {"count": 1, "ids": ["FEAT-0002"]},
    }
    assert rollup["by_type"]["story"] == {"count": 2, "ids": ["STORY-0003", "STORY-0004"]}


def test_a_cycle_in_the_declared_parents_is_named_not_followed(corpus: Corpus) -> None:
    out = corpus.read("STORY-0010", depth=10)
    assert _ids(out["tree"]) == ["STORY-0010", "STORY-0011"]
    assert out["cycles"] == ["STORY-0011"]


def test_a_deleted_node_is_withdrawn_with_what_it_took_out(corpus: Corpus) -> None:
    out = corpus.read("EPIC-0001", depth=5)
    assert "TASK-0006" not in _ids(out["tree"]) and "BUG-0008" not in _ids(out["tree"])
    withdrawn = out["withdrawn"]
    assert withdrawn["count"] == 1 and withdrawn["took_out"] == 1
    item = withdrawn["items"][0]
    assert item["artifact_id"] == "TASK-0006" and item["deleted"] is True
    assert item["under"] == "STORY-0004" and item["took_out"] == 1
    wide = corpus.read("EPIC-0001", depth=5, deleted="include")
    assert "withdrawn" not in wide
    assert {"TASK-0006", "BUG-0008"} <= set(_ids(wide["tree"]))
    only = corpus.read("EPIC-0001", depth=5, deleted="only")
    assert _ids(only["tree"]) == ["EPIC-0001"]
    assert [i["artifact_id"] for i in only["withdrawn"]["items"]] == ["TASK-0006"]


# -- the budget --------------------------------------------------------------------------------


def _big(root: Path) -> Corpus:
    c = build(root)
    cited = [f"DEC-{n:04d}" for n in range(100, 180)]
    body = "\n".join(f"Paragraph {i}: " + "lorem ipsum dolor sit amet " * 8 for i in range(80))
    for i in range(3):
        c.git.write_and_commit(
            {"backlog/STORY-0012.md": md("STORY-0012", "A long story", "story", body + f"\n{i}\n",
                                         status="draft", parent="FEAT-0002", cites=cited)},
            f"long story, take {i}")
    kids: dict[str, str | bytes] = {
        f"backlog/TASK-{n:04d}.md": md(f"TASK-{n:04d}", f"Subtask number {n} of the long story",
                                       "task", "x\n", status="ready", parent="STORY-0012")
        for n in range(200, 260)
    }
    c.git.write_and_commit(kids, "many tasks")
    Engine.open(c.root).sync()
    return c


def test_the_budget_cuts_history_then_links_then_the_body_head(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    c = _big(tmp_path / "acme")
    monkeypatch.setenv(ENV_READ_BUDGET, "2048")
    brief = c.read("STORY-0012")
    assert payload_bytes(brief) <= 2048
    assert brief["declared_links_truncated"]["reason"] == "read-budget"
    assert brief["body_truncated"]["total_chars"] > brief["body_truncated"]["served_chars"]
    assert brief["body"].lstrip().startswith("Paragraph 0:")
    full = c.read("STORY-0012", history_after="")
    assert payload_bytes(full) <= 2048
    assert full["history_entries"] == []
    assert full["history_entries_truncated"]["total"] == 3
    assert full["history_next"] == ""  # resumes where this page began
    assert full["links_truncated"]["listed"] == 0
    branch = c.read("STORY-0012", depth=1)
    assert payload_bytes(branch) <= 2048
    assert branch["truncated"]["total"] == 61
    assert branch["truncated"]["listed"] < 61


def test_an_ample_budget_cuts_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    c = _big(tmp_path / "acme")
    monkeypatch.setenv(ENV_READ_BUDGET, "1000000")
    out = c.read("STORY-0012", history_after="")
    assert not [k for k in out if k.endswith("truncated")]
    assert len(out["declared_links"]["cites"]) == 80
    assert len(out["history_entries"]) == 3


def test_a_body_head_is_cut_on_a_line_or_word() -> None:
    text = "first line here\nsecond line that is long"
    assert head_of(text, 30) == "first line here"
    assert head_of("alpha beta gamma", 13) == "alpha beta"
    assert head_of("abcdefgh", 4) == "abcd"
    assert head_of(text, 999) == text


def test_the_same_call_twice_answers_byte_for_byte_the_same(corpus: Corpus) -> None:
    for kw in ({}, {"history_after": ""}, {"depth": 5}, {"depth": "declared"}):
        first = json.dumps(corpus.read("STORY-0003" if not kw.get("depth") else "EPIC-0001", **kw))
        again = json.dumps(corpus.read("STORY-0003" if not kw.get("depth") else "EPIC-0001", **kw))
        assert first == again


def test_a_read_reaches_what_its_project_imports_and_no_further(tmp_path: Path) -> None:
    root = tmp_path / "acme"
    Engine.init(root)
    git = GitRepo(root, create=False)
    (root / "revetly.toml").write_text(
        '[instance]\nname = "acme"\ndefault_project = "app"\n\n'
        '[projects.app]\nimports = ["platform"]\npaths = ["backlog/app"]\n\n'
        '[projects.platform]\nimports = []\npaths = ["backlog/platform"]\n', encoding="utf-8")
    git.write_and_commit({
        "backlog/app/STORY-1.md": md("STORY-1", "App story", "story", "a\n", status="draft"),
        "backlog/platform/STORY-2.md": md("STORY-2", "Platform story", "story", "p\n",
                                          status="draft"),
    }, "two projects")
    Engine.open(root).sync()
    c = Corpus(root, git, load_config(root), "", [])
    imported = c.read("STORY-2")
    assert imported["project"] == "app" and imported["from_project"] == "platform"
    own = c.read("STORY-1")
    assert own["project"] == "app" and "from_project" not in own
    refusal = c.refusal("STORY-1", project="platform")
    assert refusal.code == "not-found" and "project='app'" in refusal.fix


# -- commits connected both ways -----------------------------------------------------------------


def test_a_brief_lists_the_commits_that_name_it_newest_first(corpus: Corpus) -> None:
    named = corpus.read("STORY-0003")["named_by_commits"]
    assert named["total"] == 1
    assert [c["sha"] for c in named["listed"]] == [corpus.commit_sha]
    assert named["listed"][0]["subject"] == "STORY-0003: more detail"
    assert named["listed"][0]["named_in"] == "subject"


def test_naming_commits_are_capped_and_counted(corpus: Corpus) -> None:
    from revetly_core.reads.artifact import naming_commits

    store = corpus.store()
    try:
        story = store.get("STORY-0003")
        assert story is not None
        assert naming_commits(store, story, listed=0) == {
            "total": 1, "listed": [], "more": 1}
        epic = store.get("EPIC-0001")
        assert epic is not None and naming_commits(store, epic) is None
    finally:
        store.close()


def test_a_commit_id_prefix_of_seven_hex_digits_resolves(corpus: Corpus) -> None:
    assert corpus.read(corpus.commit_sha[:7])["artifact_id"] == corpus.commit_sha
    assert corpus.read(corpus.commit_sha[:12].upper())["artifact_id"] == corpus.commit_sha


def test_a_short_or_unknown_prefix_is_refused(corpus: Corpus) -> None:
    assert corpus.refusal(corpus.commit_sha[:6]).code == "invalid-argument"
    unknown = "0000000" if not corpus.commit_sha.startswith("0000000") else "fffffff"
    assert corpus.refusal(unknown).code == "not-found"


def test_an_ambiguous_prefix_is_refused_naming_the_candidates(tmp_path: Path) -> None:
    from revetly_core.model import Artifact
    from revetly_core.reads.artifact import resolve_sha_prefix

    store = Store(tmp_path / "c.db")
    try:
        store.upsert_artifacts(
            [Artifact(id=sha, type="commit", title="x", source="commits/c", project="acme")
             for sha in ("abcdef1" + "0" * 33, "abcdef1" + "1" * 33)],
            "2025-01-01T00:00:00+00:00")
        with pytest.raises(Refusal) as caught:
            resolve_sha_prefix(store, "abcdef1")
        assert caught.value.code == "ambiguous"
        assert caught.value.extra["candidates"] == ["abcdef1" + "0" * 33, "abcdef1" + "1" * 33]
        assert resolve_sha_prefix(store, "abcdef10") == "abcdef1" + "0" * 33
    finally:
        store.close()
