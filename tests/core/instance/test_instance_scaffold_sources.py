"""`revetly init INSTANCE --from backlog-md|adr REPO`: an instance reading REPO in place."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pygit2
import pytest
from revetly_core.config import load_config
from revetly_core.instance.scaffold_sources import scaffold_from_source, status_table
from revetly_core.refusal import Refusal

from revetly_core import Engine
from tests.core.gitrepo import GitRepo
from tests.fixtures.fixture_repo import ADR_TOOLS, BACKLOG_MD, build_fixture_repo


def tree_digest(root: Path) -> str:
    """A digest of every file under root, .git included: any write changes it."""
    h = hashlib.sha256()
    for p in sorted(root.rglob("*")):
        if p.is_file():
            h.update(str(p.relative_to(root)).encode())
            h.update(p.read_bytes())
    return h.hexdigest()


def test_init_from_backlog_md_declares_source_commits_and_families(tmp_path: Path) -> None:
    repo = build_fixture_repo(BACKLOG_MD, tmp_path / "tally")
    payload = scaffold_from_source(tmp_path / "inst", "backlog-md", str(repo))
    config = load_config(tmp_path / "inst")
    src = config.connectors.backlog_md[0]
    assert (src.path, src.folder, src.task_prefix, src.aliases) == (
        "../tally", "backlog", "BACK", ["TASK"])
    assert config.connectors.commits[0].path == "../tally"
    assert {"BACK", "DRAFT", "DECISION", "DOC", "M"} <= set(config.ids.families)
    assert "TASK" not in config.ids.families
    assert payload["source"]["kind"] == "backlog-md"


def test_init_from_adr_declares_the_decision_folder(tmp_path: Path) -> None:
    repo = build_fixture_repo(ADR_TOOLS, tmp_path / "bookings")
    scaffold_from_source(tmp_path / "inst", "adr", str(repo))
    config = load_config(tmp_path / "inst")
    assert config.connectors.adr[0].folder == "doc/adr"
    assert config.ids.families["ADR"] == "decision"


def test_init_sync_and_check_never_write_into_the_repository(tmp_path: Path) -> None:
    repo = build_fixture_repo(BACKLOG_MD, tmp_path / "tally")
    before = tree_digest(repo)
    Engine.init(tmp_path / "inst", source=("backlog-md", str(repo)))
    engine = Engine.open(tmp_path / "inst")
    engine.sync()
    engine.check()
    assert tree_digest(repo) == before


def test_an_instance_inside_the_repository_is_refused(tmp_path: Path) -> None:
    repo = build_fixture_repo(BACKLOG_MD, tmp_path / "tally")
    with pytest.raises(Refusal) as err:
        scaffold_from_source(repo / "inst", "backlog-md", str(repo))
    assert "never writes into" in err.value.detail
    assert not (repo / "inst").exists()


def test_a_repository_without_the_folder_is_refused(tmp_path: Path) -> None:
    GitRepo(tmp_path / "empty").write_and_commit({"README.md": "hi"})
    for kind in ("backlog-md", "adr"):
        with pytest.raises(Refusal):
            scaffold_from_source(tmp_path / f"inst-{kind}", kind, str(tmp_path / "empty"))


def test_not_a_repository_and_unknown_kind_are_refused(tmp_path: Path) -> None:
    (tmp_path / "plain").mkdir()
    with pytest.raises(Refusal, match="not a git repository"):
        scaffold_from_source(tmp_path / "i", "backlog-md", str(tmp_path / "plain"))
    with pytest.raises(Refusal, match="unknown source kind"):
        scaffold_from_source(tmp_path / "i", "jira", str(tmp_path / "plain"))


def test_from_and_commits_together_are_refused(tmp_path: Path) -> None:
    with pytest.raises(Refusal):
        Engine.init(tmp_path / "i", commits=["x"], source=("adr", "y"))


def test_status_table_maps_common_words_and_lists_the_rest() -> None:
    table, unmapped = status_table(["To Do", "In Progress", "Blocked", "Review", "Parking lot"])
    assert table == {"Blocked": "parked", "Review": "in-progress"}
    assert unmapped == ["Parking lot"]


def test_the_scaffolded_repository_gets_its_first_commit_with_the_source_declared(
    tmp_path: Path,
) -> None:
    repo = build_fixture_repo(ADR_TOOLS, tmp_path / "b")
    payload = scaffold_from_source(tmp_path / "inst", "adr", str(repo))
    inst = pygit2.Repository(str(tmp_path / "inst"))
    commit = inst[payload["first_commit"]]
    assert len(commit.parents) == 0
    config_text = inst[commit.tree["revetly.toml"].id].data.decode()
    assert "[[connectors.adr]]" in config_text


def test_host_files_go_into_the_code_repository_only_when_asked(tmp_path: Path) -> None:
    repo = build_fixture_repo(BACKLOG_MD, tmp_path / "tally")
    before = tree_digest(repo)
    payload = scaffold_from_source(tmp_path / "inst", "backlog-md", str(repo))
    assert tree_digest(repo) == before
    code = payload["code_repository"]
    assert "written" not in code
    entry = code["snippet"][".mcp.json"]["mcpServers"]["revetly"]
    assert entry["args"][-2:] == ["--instance", str((tmp_path / "inst").resolve())]
    assert "claude mcp add revetly --" in code["snippet"]["claude_mcp_add"]


def test_write_hosts_writes_every_host_file_into_the_code_repository(tmp_path: Path) -> None:
    repo = build_fixture_repo(BACKLOG_MD, tmp_path / "tally")
    head = str(pygit2.Repository(str(repo)).head.target)
    payload = Engine.init(tmp_path / "inst", source=("backlog-md", str(repo)), write_hosts=True)
    written = payload["code_repository"]["written"]
    assert ".mcp.json" in written and ".vscode/mcp.json" in written
    assert (repo / ".claude" / "commands" / "revetly-ground.md").is_file()
    assert str(pygit2.Repository(str(repo)).head.target) == head  # written, never committed


def test_write_hosts_without_from_is_refused(tmp_path: Path) -> None:
    with pytest.raises(Refusal) as info:
        Engine.init(tmp_path / "inst", write_hosts=True)
    assert info.value.code == "invalid-argument"
    assert not (tmp_path / "inst").exists()
