"""The revetly command as a user runs it: real subprocesses on real git instances."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pygit2
import pytest

STORY = """---
id: STORY-0001
title: "Export invoices as CSV"
type: story
status: ready
---

# Export invoices as CSV

Finance wants a CSV of every invoice.

## Acceptance criteria

- A CSV holds one row per invoice
- Amounts keep two decimals
"""


def revetly(
    *args: str, cwd: Path | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    full_env = {**os.environ, **(env or {})}
    if env is None:
        full_env.pop("REVETLY_INSTANCE", None)
    return subprocess.run(
        [sys.executable, "-m", "revetly_cli", *args], capture_output=True, text=True,
        cwd=cwd, env=full_env, timeout=120,
    )


def commit_all(root: Path, message: str) -> None:
    repo = pygit2.Repository(str(root))
    repo.index.add_all()
    repo.index.write()
    tree = repo.index.write_tree()
    sig = pygit2.Signature("Dana", "dana@example.com", 1_735_000_000, 0)
    parents = [] if repo.head_is_unborn else [repo.head.target]
    repo.create_commit("HEAD", sig, sig, message, tree, parents)


@pytest.fixture()
def instance(tmp_path: Path) -> Path:
    root = tmp_path / "inst"
    result = revetly("init", str(root))
    assert result.returncode == 0, result.stderr
    (root / "backlog" / "STORY-0001.md").write_text(STORY)
    commit_all(root, "add a story")
    return root


def test_init_scaffolds_an_instance(tmp_path: Path) -> None:
    root = tmp_path / "fresh"
    result = revetly("init", str(root), "--json")
    assert result.returncode == 0, result.stderr
    payload = json.loads(result.stdout)
    assert payload["instance"] == str(root.resolve())
    assert (root / ".git").is_dir()
    assert ".revetly/" in (root / ".gitignore").read_text().splitlines()
    mcp = json.loads((root / ".mcp.json").read_text())
    assert mcp["mcpServers"]["revetly"]["args"][:2] == ["-m", "revetly_mcp"]


def test_init_twice_is_refused_with_exit_2(tmp_path: Path) -> None:
    root = tmp_path / "twice"
    assert revetly("init", str(root)).returncode == 0
    again = revetly("init", str(root))
    assert again.returncode == 2
    assert "already holds an instance" in again.stderr
    assert "Traceback" not in again.stderr


def test_init_with_auth_scaffolds_a_served_endpoint(tmp_path: Path) -> None:
    root = tmp_path / "served"
    shown = revetly("init", str(root), "--auth", "https://login.example.com")
    assert shown.returncode == 0, shown.stderr
    assert "checks jwt tokens from https://login.example.com" in shown.stdout
    assert 'verifier = "jwt"' in (root / "revetly.toml").read_text()
    refused = revetly("init", str(tmp_path / "bad"), "--auth", "http://login.example.com")
    assert refused.returncode == 2
    assert "not an issuer URL" in refused.stderr and "Traceback" not in refused.stderr


def test_sync_then_status_json_is_the_core_payload(instance: Path) -> None:
    synced = revetly("sync", "--instance", str(instance), "--json")
    assert synced.returncode == 0, synced.stderr
    assert json.loads(synced.stdout)["changed"]["added"] == 1
    status = revetly("status", "--instance", str(instance), "--json")
    payload = json.loads(status.stdout)
    from revetly_core import Engine

    core = Engine.open(instance).context_health()
    assert payload == json.loads(json.dumps(core))
    assert payload["counts"]["by_type"] == {"story": 1}


def test_instance_found_from_env_and_by_walking_up(instance: Path) -> None:
    assert revetly("sync", "--instance", str(instance)).returncode == 0
    by_env = revetly("status", "--json", env={"REVETLY_INSTANCE": str(instance)})
    assert json.loads(by_env.stdout)["corpus_revision"] == 1
    by_cwd = revetly("status", "--json", cwd=instance / "backlog")
    assert json.loads(by_cwd.stdout)["corpus_revision"] == 1


def test_check_exit_1_names_the_broken_file(instance: Path) -> None:
    (instance / "backlog" / "STORY-0002.md").write_text("---\nid: [unclosed\n---\nbody\n")
    result = revetly("check", "--instance", str(instance), "--json")
    assert result.returncode == 1
    payload = json.loads(result.stdout)
    assert [p["path"] for p in payload["problems"]] == ["backlog/STORY-0002.md"]
    assert payload["problems"][0]["code"] == "bad-yaml"


def test_check_clean_instance_exits_0(instance: Path) -> None:
    result = revetly("check", "--instance", str(instance))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "ok" in result.stdout


def test_refusal_is_one_line_and_exit_2_without_an_instance(tmp_path: Path) -> None:
    result = revetly("status", cwd=tmp_path, env={"REVETLY_INSTANCE": ""})
    assert result.returncode == 2
    assert result.stderr.startswith("refused (no-instance)")
    as_json = revetly("status", "--json", cwd=tmp_path, env={"REVETLY_INSTANCE": ""})
    assert set(json.loads(as_json.stdout)["refusal"]) == {"code", "detail", "fix"}


def test_status_before_any_sync_is_a_refusal(instance: Path) -> None:
    result = revetly("status", "--instance", str(instance), "--json")
    assert result.returncode == 2
    assert json.loads(result.stdout)["refusal"]["code"] == "not-synced"


def test_bad_setting_is_refused_naming_it(instance: Path) -> None:
    cfg = instance / "revetly.toml"
    cfg.write_text(cfg.read_text() + "\n[ids]\nfamilies = { story = \"story\" }\n")
    result = revetly("sync", "--instance", str(instance), "--json")
    assert result.returncode == 2
    refusal = json.loads(result.stdout)["refusal"]
    assert refusal["setting"] == "ids.families"


def test_help_does_not_import_heavy_modules() -> None:
    code = (
        "import sys, revetly_cli.app; "
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'whoosh', 'networkx', 'pygit2'}))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_search_json_is_the_engine_payload(instance: Path) -> None:
    assert revetly("sync", "--instance", str(instance)).returncode == 0
    result = revetly("search", "export invoices", "--instance", str(instance), "--json")
    assert result.returncode == 0, result.stderr
    from revetly_core import Engine

    core = Engine.open(instance).search_context("export invoices")
    assert json.loads(result.stdout) == json.loads(json.dumps(core))
    assert json.loads(result.stdout)["artifacts"][0]["artifact_id"] == "STORY-0001"


def test_search_refusal_exits_2_with_the_refusal_payload(instance: Path) -> None:
    assert revetly("sync", "--instance", str(instance)).returncode == 0
    result = revetly("search", "the of", "--instance", str(instance), "--json")
    assert result.returncode == 2
    assert json.loads(result.stdout)["refusal"]["code"] == "empty-query"


def test_search_renders_a_table(instance: Path) -> None:
    assert revetly("sync", "--instance", str(instance)).returncode == 0
    result = revetly("search", "export invoices", "--instance", str(instance))
    assert result.returncode == 0
    assert "STORY-0001" in result.stdout


@pytest.mark.parametrize(
    ("args", "call"),
    [
        (["inspect", "STORY-0001"], lambda e: e.get_artifact("STORY-0001")),
        (["inspect", "STORY-0001", "--history-after", ""],
         lambda e: e.get_artifact("STORY-0001", history_after="")),
        (["branch", "STORY-0001", "--depth", "1"], lambda e: e.get_artifact("STORY-0001", depth=1)),
        (["inspect", "STORY-0001", "--inferred", "all"],
         lambda e: e.get_artifact("STORY-0001", inferred="all")),
        (["branch", "STORY-0001", "--depth", "1", "--inferred", "all"],
         lambda e: e.get_artifact("STORY-0001", depth=1, inferred="all")),
        (["backlog"], lambda e: e.list_backlog()),
        (["backlog", "--status", "ready", "--type", "story", "-n", "5"],
         lambda e: e.list_backlog(status="ready", pbi_type="story", limit=5)),
    ],
)
def test_every_read_twin_prints_the_engine_payload(instance: Path, args: list[str], call) -> None:  # type: ignore[no-untyped-def]
    assert revetly("sync", "--instance", str(instance)).returncode == 0
    result = revetly(*args, "--instance", str(instance), "--json")
    assert result.returncode == 0, result.stderr
    from revetly_core import Engine

    assert json.loads(result.stdout) == json.loads(json.dumps(call(Engine.open(instance))))
    human = revetly(*args, "--instance", str(instance))
    assert human.returncode == 0 and "STORY-0001" in human.stdout


def test_inspect_unknown_id_is_a_refusal_naming_the_read_to_call(instance: Path) -> None:
    assert revetly("sync", "--instance", str(instance)).returncode == 0
    result = revetly("inspect", "STORY-0999", "--instance", str(instance), "--json")
    assert result.returncode == 2
    refusal = json.loads(result.stdout)["refusal"]
    assert refusal["code"] == "not-found"
    assert "search" in refusal["fix"] or "backlog" in refusal["fix"]


def test_init_from_adr_reads_the_repository_in_place(tmp_path: Path) -> None:
    repo = tmp_path / "decisions"
    (repo / "doc" / "adr").mkdir(parents=True)
    (repo / "doc" / "adr" / "0001-record-architecture-decisions.md").write_text(
        "# 1. Record architecture decisions\n\nDate: 2024-01-01\n\n## Status\n\nAccepted\n")
    pygit2.init_repository(str(repo), initial_head="main")
    commit_all(repo, "ADR-1 record decisions")
    root = tmp_path / "inst"
    result = revetly("init", str(root), "--from", "adr", str(repo), "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["source"]["folder"] == "doc/adr"
    assert revetly("sync", "--instance", str(root)).returncode == 0
    shown = revetly("inspect", "ADR-0001", "--instance", str(root), "--json")
    assert json.loads(shown.stdout)["status"] == "accepted"


def test_init_from_an_unknown_kind_exits_2(tmp_path: Path) -> None:
    result = revetly("init", str(tmp_path / "i"), "--from", "jira", str(tmp_path))
    assert result.returncode == 2 and "unknown source kind" in result.stderr


def test_a_commit_id_shown_by_search_can_be_pasted_into_inspect(tmp_path: Path) -> None:
    code = tmp_path / "app"
    pygit2.init_repository(str(code))
    (code / "export.py").write_text("def write_csv(rows): ...\n")
    commit_all(code, "STORY-0001: stream the csv export writer")
    root = tmp_path / "inst"
    assert revetly("init", str(root), "--commits", str(code)).returncode == 0
    (root / "backlog" / "STORY-0001.md").write_text(STORY)
    commit_all(root, "add a story")
    assert revetly("sync", "--instance", str(root)).returncode == 0
    shown = revetly("search", "stream the csv export writer", "--instance", str(root),
                    env={"COLUMNS": "80"})
    assert shown.returncode == 0, shown.stderr
    ids = [word for line in shown.stdout.splitlines() for word in line.split()
           if len(word) == 16 and all(c in "0123456789abcdef" for c in word)]
    assert ids, shown.stdout
    pasted = revetly("inspect", ids[0], "--json", "--instance", str(root))
    assert pasted.returncode == 0, pasted.stderr
    answer = json.loads(pasted.stdout)
    assert answer["artifact_type"] == "commit"
    assert answer["artifact_id"].startswith(ids[0])
