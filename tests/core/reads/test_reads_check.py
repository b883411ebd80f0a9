"""`revetly check`: every file that breaks the schema and every declared link not held."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import networkx as nx
from hypothesis import given
from hypothesis import strategies as st
from revetly_core.reads.check import parent_cycles

from tests.core.gitrepo import GitRepo, Instance, md


def codes(result: dict[str, Any]) -> dict[str, str]:
    return {p["path"]: p["code"] for p in result["problems"]}


def test_a_clean_instance_is_ok(instance: Instance) -> None:
    instance.git.write_and_commit({
        "backlog/EPIC-0001.md": md("EPIC-0001", "Billing", "epic"),
        "backlog/FEAT-0001.md": md("FEAT-0001", "Invoices", "feature", parent="EPIC-0001"),
        "backlog/STORY-0001.md": md("STORY-0001", "Export", "story", parent="FEAT-1",
                                    body="## Acceptance criteria\n\n- a\n- b\n"),
        "notes/DEC-0001.md": md("DEC-0001", "Use CSV", "decision", status="accepted",
                                revises=[{"id": "STORY-0001", "criteria": [2]}],
                                related_ids=["story-0001"]),
    })
    result = instance.check()
    assert result == {"ok": True, "severity_counts": {"error": 0, "warning": 0, "note": 0},
                      "files_checked": 4, "artifacts": 4, "problems": [],
                      "dangling_links": [], "store_consulted": False}
    instance.sync()
    assert instance.check()["store_consulted"] is True
    assert instance.check()["ok"] is True


def test_check_names_every_kind_of_broken_file(tmp_path: Path) -> None:
    text = ('[instance]\nname = "acme"\n[connectors.repository]\n'
            'paths = ["backlog", "notes", "records"]\nmax_file_bytes = 1000\n')
    inst = Instance(tmp_path / "acme", config_text=text)
    inst.git.write_and_commit({
        "backlog/STORY-0001.md": md("STORY-0001", "Fine"),
        "backlog/bad-yaml.md": "---\nid: STORY-0002\ntitle: [oops\ntype: story\n---\n",
        "backlog/no-id.md": "---\ntitle: No id here\ntype: story\n---\n",
        "backlog/dupe.md": md("STORY-0001", "Same id again"),
        "backlog/latin1.md": b"---\nid: STORY-0003\ntitle: Caf\xe9\ntype: story\n---\n",
        "backlog/binary.md": b"\x00\x01binary",
        "backlog/huge.md": md("STORY-0004", "Huge", body="y" * 2000),
        "backlog/family.md": md("SAGA-0001", "Unknown family"),
    })
    result = inst.check()
    assert result["ok"] is False
    assert result["files_checked"] == 8
    assert result["artifacts"] == 1
    assert codes(result) == {
        "backlog/bad-yaml.md": "bad-yaml", "backlog/no-id.md": "schema",
        "backlog/dupe.md": "duplicate-id", "backlog/latin1.md": "not-utf8",
        "backlog/binary.md": "binary", "backlog/huge.md": "too-large",
        "backlog/family.md": "unknown-family",
    }
    by_path = {p["path"]: p for p in result["problems"]}
    assert by_path["backlog/no-id.md"]["detail"] == "id is required"
    assert "backlog/STORY-0001.md" in by_path["backlog/dupe.md"]["detail"]
    assert by_path["backlog/dupe.md"]["id"] == "STORY-0001"
    # problems come sorted by path
    assert [p["path"] for p in result["problems"]] == sorted(by_path)


def test_check_names_dangling_declared_links(instance: Instance) -> None:
    instance.git.write_and_commit({
        "backlog/STORY-0001.md": md("STORY-0001", "Orphan", parent="FEAT-0042",
                                    cites=["DEC-0001", "DEC-0009"], body="Prose STORY-0077.\n"),
        "notes/DEC-0001.md": md("DEC-0001", "Held", "decision", revises=["STORY-0099"]),
    })
    result = instance.check()
    assert result["ok"] is False
    assert result["problems"] == []
    assert result["dangling_links"] == [  # sorted by path, field, target
        {"from": "STORY-0001", "field": "cites", "to": "DEC-0009",
         "path": "backlog/STORY-0001.md"},
        {"from": "STORY-0001", "field": "parent", "to": "FEAT-0042",
         "path": "backlog/STORY-0001.md"},
        {"from": "DEC-0001", "field": "revises", "to": "STORY-0099", "path": "notes/DEC-0001.md"},
    ]


def test_a_target_held_only_in_the_store_is_not_dangling(instance: Instance) -> None:
    g = instance.git
    g.write_and_commit({"backlog/STORY-0001.md": md("STORY-0001", "Old"),
                        "backlog/STORY-0002.md": md("STORY-0002", "New", cites=["STORY-0001"])})
    g.remove_and_commit(["backlog/STORY-0001.md"])
    assert [d["to"] for d in instance.check()["dangling_links"]] == ["STORY-0001"]
    instance.sync()  # the store holds STORY-0001 as deleted
    assert instance.check()["dangling_links"] == []


def test_check_names_parent_cycles(instance: Instance) -> None:
    instance.git.write_and_commit({
        "backlog/FEAT-0001.md": md("FEAT-0001", "A", "feature", parent="FEAT-0002"),
        "backlog/FEAT-0002.md": md("FEAT-0002", "B", "feature", parent="FEAT-0003"),
        "backlog/FEAT-0003.md": md("FEAT-0003", "C", "feature", parent="FEAT-1"),
        "backlog/FEAT-0004.md": md("FEAT-0004", "D", "feature", parent="FEAT-0001"),
        "backlog/FEAT-0005.md": md("FEAT-0005", "E", "feature", parent="FEAT-0005"),
    })
    result = instance.check()
    cycles = [p for p in result["problems"] if p["code"] == "parent-cycle"]
    assert [(p["id"], p["detail"]) for p in cycles] == [
        ("FEAT-0001", "parent cycle: FEAT-0001 -> FEAT-0002 -> FEAT-0003 -> FEAT-0001"),
        ("FEAT-0005", "parent cycle: FEAT-0005 -> FEAT-0005"),
    ]
    assert cycles[0]["path"] == "backlog/FEAT-0001.md"


def test_check_names_a_parent_of_the_wrong_type(instance: Instance) -> None:
    instance.git.write_and_commit({
        "backlog/STORY-0001.md": md("STORY-0001", "Parent story"),
        "backlog/STORY-0002.md": md("STORY-0002", "Child story", parent="STORY-0001"),
        "backlog/TASK-0001.md": md("TASK-0001", "Task", "task", parent="STORY-0001"),
    })
    (p,) = instance.check()["problems"]
    assert (p["path"], p["code"], p["id"]) == ("backlog/STORY-0002.md", "parent-type",
                                               "STORY-0002")
    assert "feature, epic" in p["detail"]


def test_check_names_a_revised_criterion_that_does_not_exist(instance: Instance) -> None:
    instance.git.write_and_commit({
        "backlog/STORY-0001.md": md("STORY-0001", "Two criteria",
                                    body="## Acceptance criteria\n\n- a\n- b\n"),
        "notes/DEC-0001.md": md("DEC-0001", "Revise", "decision",
                                revises=[{"id": "STORY-0001", "criteria": [2, 3]}]),
    })
    (p,) = instance.check()["problems"]
    assert (p["code"], p["id"]) == ("revises-position", "DEC-0001")
    assert "criterion 3, but it has 2" in p["detail"]


def test_implemented_by_is_checked_against_the_commits_held(tmp_path: Path) -> None:
    code = GitRepo(tmp_path / "code")
    sha = code.write_and_commit({"a.py": "1"}, "Fix STORY-0001")
    inst = Instance(tmp_path / "acme", commits=[("code", "../code")])
    inst.git.write_and_commit({
        "backlog/STORY-0001.md": md("STORY-0001", "Story"),
        "records/DEL-0001.md": md("DEL-0001", "Delivered", "delivery", delivers="STORY-0001",
                                  implemented_by=[sha.upper(), "deadbeef"]),
    })
    # without a store there is nothing to check shas against
    assert inst.check()["dangling_links"] == []
    inst.sync()
    assert inst.check()["dangling_links"] == [
        {"from": "DEL-0001", "field": "implemented_by", "to": "deadbeef",
         "path": "records/DEL-0001.md"}]


def test_check_reads_the_work_tree(instance: Instance) -> None:
    instance.git.write_and_commit({"backlog/STORY-0001.md": md("STORY-0001", "Fine")})
    instance.git.write("backlog/STORY-0001.md", "broken now\n")
    assert codes(instance.check()) == {"backlog/STORY-0001.md": "no-frontmatter"}


# -- parent_cycles ----------------------------------------------------------------------------


def test_parent_cycles_unit() -> None:
    assert parent_cycles({}) == []
    assert parent_cycles({"A": "B", "B": "C"}) == []
    assert parent_cycles({"A": "A"}) == [["A"]]
    assert parent_cycles({"C": "A", "A": "B", "B": "C", "X": "A"}) == [["A", "B", "C"]]
    assert parent_cycles({"B": "A", "A": "B", "D": "C", "C": "D"}) == [["A", "B"], ["C", "D"]]


_nodes = st.sampled_from([f"N{i}" for i in range(8)])


@given(st.dictionaries(_nodes, st.one_of(_nodes, st.sampled_from(["X1", "X2"])), max_size=8))
def test_parent_cycles_finds_exactly_the_graph_cycles(parents: dict[str, str]) -> None:
    g = nx.DiGraph(list(parents.items()))
    expected = set()
    for cycle in nx.simple_cycles(g):
        i = cycle.index(min(cycle))
        expected.add(tuple(cycle[i:] + cycle[:i]))
    found = parent_cycles(parents)
    assert len(found) == len(expected)
    assert {tuple(c) for c in found} == expected
    for c in found:
        assert c[0] == min(c)
        assert all(parents[a] == b for a, b in zip(c, c[1:] + c[:1], strict=True))


def test_check_names_a_duplicate_that_differs_only_in_padding(instance) -> None:  # type: ignore[no-untyped-def]
    from tests.core.gitrepo import md

    instance.git.write("backlog/STORY-10.md", md("STORY-10", "Ten", "story", "x"))
    instance.git.write("backlog/STORY-0010.md", md("STORY-0010", "Ten again", "story", "y"))
    instance.git.commit("two spellings of one id")
    payload = instance.check()
    dups = [p for p in payload["problems"] if p["code"] == "duplicate-id"]
    assert [p["path"] for p in dups] == ["backlog/STORY-10.md"]
