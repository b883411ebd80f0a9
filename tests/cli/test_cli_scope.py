"""revetly binding, drift, deltas and author as a user runs them: real subprocesses."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.test_cli_app import commit_all, revetly

FILES = {
    "backlog/FEAT-0001.md": "---\nid: FEAT-0001\ntitle: Invoice exports\ntype: feature\n"
                            "status: ready\n---\n\nExports.\n",
    "backlog/STORY-0002.md": "---\nid: STORY-0002\ntitle: Export invoices as CSV\ntype: story\n"
                             "status: done\nparent: FEAT-0001\ncites: [DEC-0003]\n---\n\n"
                             "CSV out.\n\n## Acceptance criteria\n\n- One row per invoice\n",
    "notes/DEC-0003.md": "---\nid: DEC-0003\ntitle: Exports are CSV\ntype: decision\n"
                         "status: accepted\n---\n\n## Decision\n\nWe export CSV files.\n",
    "records/DEL-0004.md": "---\nid: DEL-0004\ntitle: Delivery of the CSV export\ntype: delivery\n"
                           "delivers: STORY-0002\ncreated: 2025-02-01\nverdicts:\n"
                           "  - {criterion: 1, verdict: partial, note: no totals row}\n---\n\n"
                           "Shipped.\n",
}


@pytest.fixture(scope="module")
def synced(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("cli-scope") / "inst"
    assert revetly("init", str(root)).returncode == 0
    for rel, text in FILES.items():
        (root / rel).write_text(text)
    commit_all(root, "seed")
    assert revetly("sync", "--instance", str(root)).returncode == 0
    return root


def test_binding_json_is_the_engine_payload(synced: Path) -> None:
    out = revetly("binding", "STORY-0002", "--instance", str(synced), "--json")
    assert out.returncode == 0, out.stderr
    from revetly_core import Engine

    core = Engine.open(synced).get_scope("binding", artifact_id="STORY-0002")
    assert json.loads(out.stdout) == json.loads(json.dumps(core))


def test_binding_renders_each_statement_under_the_member_it_bears_on(synced: Path) -> None:
    out = revetly("binding", "STORY-0002", "--instance", str(synced))
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    story = next(i for i, line in enumerate(lines) if "STORY-0002" in line and "story" in line)
    statement = next(i for i, line in enumerate(lines) if "DEC-0003" in line)
    assert statement > story
    assert lines[statement].index("DEC-0003") > lines[story].index("STORY-0002")


def test_binding_by_topic_and_by_path(synced: Path) -> None:
    topic = json.loads(revetly("binding", "--topic", "csv exports", "--instance", str(synced),
                               "--json").stdout)
    assert topic["scope"]["kind"] == "topic"
    path = json.loads(revetly("binding", "--path", "src/x.py", "--instance", str(synced),
                              "--json").stdout)
    assert path["behind"] == [] and path["reason"]


def test_drift_json_and_rendering(synced: Path) -> None:
    payload = json.loads(revetly("drift", "--instance", str(synced), "--json").stdout)
    assert payload["departures"][0]["note"] == "no totals row"
    human = revetly("drift", "--instance", str(synced))
    assert human.returncode == 0 and "no totals row" in human.stdout


def test_deltas_on_both_clocks(synced: Path) -> None:
    for clock in ("source", "ingest"):
        out = revetly("deltas", "--clock", clock, "--instance", str(synced), "--json")
        assert out.returncode == 0, out.stderr
        assert json.loads(out.stdout)["clock"] == clock
    assert revetly("deltas", "--instance", str(synced)).returncode == 0


def test_author_bundle(synced: Path) -> None:
    payload = json.loads(revetly("author", "invoice csv export", "--instance", str(synced),
                                 "--json").stdout)
    assert payload["backlog"][0]["artifact_id"] in ("STORY-0002", "FEAT-0001")
    assert "DEC-0003" in {s["artifact_id"] for s in payload["binding"]["statements"]}
    assert revetly("author", "invoice csv export", "--instance", str(synced)).returncode == 0


def test_bad_input_is_one_line_and_exit_2(synced: Path) -> None:
    for args in (("deltas", "--clock", "wall"), ("binding", "STORY-0002", "--topic", "x"),
                 ("drift", "--since", "2025-03-01", "--until", "2025-01-01")):
        out = revetly(*args, "--instance", str(synced))
        assert out.returncode == 2 and "Traceback" not in out.stderr
        assert out.stderr.startswith("refused")
    as_json = revetly("deltas", "--clock", "wall", "--instance", str(synced), "--json")
    assert json.loads(as_json.stdout)["refusal"]["code"] == "invalid-clock"


def test_binding_by_path_lists_up_to_the_limit_given(tmp_path: Path) -> None:
    from tests.core.scope.crowded import SHARED_FILE, build_crowded

    crowded = build_crowded(tmp_path)
    for extra, listed in (((), 5), (("--limit", "7"), 7)):
        out = revetly("binding", "--path", SHARED_FILE, *extra, "--instance", str(crowded.root),
                      "--json")
        assert out.returncode == 0, out.stderr
        stories = [b["artifact_id"] for b in json.loads(out.stdout)["behind"]]
        assert stories == crowded.order[:listed]
