"""`revetly init`: a new instance with its git repo, folders, config and agent-host wiring."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pygit2
import pytest
from revetly_core.config import load_config
from revetly_core.instance.scaffold import (
    FOLDERS,
    default_config_text,
    scaffold_instance,
)
from revetly_core.instance.scaffold_hosts import claude_code_entry, server_command
from revetly_core.refusal import Refusal

from tests.core.gitrepo import GitRepo


def test_scaffold_creates_a_complete_instance(tmp_path: Path) -> None:
    root = tmp_path / "acme"
    payload = scaffold_instance(root)
    assert payload["instance"] == str(root.resolve())
    assert payload["created_repository"] is True
    assert payload["config"] == "revetly.toml"
    assert payload["folders"] == list(FOLDERS) == ["backlog", "notes", "records"]
    assert payload["commits"] == []
    assert "revetly sync" in payload["next"]
    repo = pygit2.Repository(str(root))
    assert not repo.head_is_unborn
    assert str(repo.head.target) == payload["first_commit"]
    assert repo.lookup_reference("HEAD").target == "refs/heads/main"
    for folder in FOLDERS:
        assert (root / folder).is_dir()
        assert (root / folder / ".gitkeep").is_file()
    assert ".revetly/" in (root / ".gitignore").read_text().splitlines()
    config = load_config(root)
    assert config.instance.name == "acme"
    assert config.default_project == "acme"
    assert config.connectors.repository.paths == list(FOLDERS)


def test_mcp_json_starts_the_server_through_this_interpreter(tmp_path: Path) -> None:
    import sys

    root = tmp_path / "acme"
    scaffold_instance(root)
    data = json.loads((root / ".mcp.json").read_text())
    server = data["mcpServers"]["revetly"]
    assert server["command"] == sys.executable
    assert Path(server["command"]).is_absolute()
    assert server["args"] == ["-m", "revetly_mcp", "--instance", str(root.resolve())]
    assert data == claude_code_entry(*server_command(root.resolve()))


def test_vscode_mcp_json_uses_the_servers_key_and_stdio(tmp_path: Path) -> None:
    root = tmp_path / "acme"
    scaffold_instance(root)
    data = json.loads((root / ".vscode" / "mcp.json").read_text())
    server = data["servers"]["revetly"]
    assert server["type"] == "stdio"
    assert server["args"][:2] == ["-m", "revetly_mcp"]


def test_the_first_commit_holds_the_portable_files_and_not_the_machine_paths(
    tmp_path: Path,
) -> None:
    root = tmp_path / "acme"
    payload = scaffold_instance(root)
    repo = pygit2.Repository(str(root))
    tree = repo[payload["first_commit"]].tree
    names = {e.name for e in tree}
    assert {"revetly.toml", ".gitignore", "backlog", ".claude", ".github"} <= names
    assert ".mcp.json" not in names and ".vscode" not in names
    ignored = (root / ".gitignore").read_text().splitlines()
    assert "/.mcp.json" in ignored and "/.vscode/mcp.json" in ignored
    assert repo.status() == {}  # nothing left unstaged or untracked but ignored files


def test_an_existing_host_file_is_kept_and_reported(tmp_path: Path) -> None:
    root = tmp_path / "acme"
    root.mkdir()
    (root / ".mcp.json").write_text("{}\n")
    payload = scaffold_instance(root)
    assert (root / ".mcp.json").read_text() == "{}\n"
    assert payload["host_files_kept"] == [".mcp.json"]
    assert ".mcp.json" not in payload["host_files"]


def test_the_server_entry_starts_the_server_with_no_venv_on_path(tmp_path: Path) -> None:
    import os
    import subprocess

    root = tmp_path / "acme"
    scaffold_instance(root)
    server = json.loads((root / ".mcp.json").read_text())["mcpServers"]["revetly"]
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    env["PATH"] = "/usr/bin:/bin"
    out = subprocess.run([server["command"], *server["args"], "--help"], env=env, cwd=tmp_path,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "--instance" in out.stdout


def test_commits_repositories_are_declared_relative_to_the_instance(tmp_path: Path) -> None:
    api = GitRepo(tmp_path / "code" / "api")
    api.write_and_commit({"a.py": "1"})
    GitRepo(tmp_path / "elsewhere" / "api")  # same folder name: gets a suffix
    root = tmp_path / "acme"
    payload = scaffold_instance(root, [str(api.root), str(tmp_path / "elsewhere" / "api")])
    assert payload["commits"] == [{"name": "api", "path": "../code/api"},
                                  {"name": "api-2", "path": "../elsewhere/api"}]
    config = load_config(root)
    assert [(c.name, c.path) for c in config.connectors.commits] == [
        ("api", "../code/api"), ("api-2", "../elsewhere/api")]


def test_a_subfolder_of_a_repository_counts_as_a_repository(tmp_path: Path) -> None:
    mono = GitRepo(tmp_path / "mono")
    (mono.root / "services" / "billing").mkdir(parents=True)
    payload = scaffold_instance(tmp_path / "acme", [str(mono.root / "services" / "billing")])
    assert payload["commits"][0]["name"] == "billing"


def test_an_existing_instance_is_refused(tmp_path: Path) -> None:
    root = tmp_path / "acme"
    scaffold_instance(root)
    before = (root / "revetly.toml").read_text()
    with pytest.raises(Refusal) as info:
        scaffold_instance(root)
    assert info.value.code == "refused"
    assert "already holds an instance" in info.value.detail
    assert (root / "revetly.toml").read_text() == before


def test_a_path_that_is_a_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    with pytest.raises(Refusal) as info:
        scaffold_instance(tmp_path / "file")
    assert info.value.code == "refused"


def test_a_commits_path_that_is_not_a_repository_is_refused_before_anything_is_made(
    tmp_path: Path,
) -> None:
    (tmp_path / "plain").mkdir()
    root = tmp_path / "acme"
    with pytest.raises(Refusal) as info:
        scaffold_instance(root, [str(tmp_path / "plain")])
    assert info.value.code == "refused"
    assert "not a git repository" in info.value.detail
    assert str(tmp_path / "plain") in info.value.detail
    assert not root.exists()


def test_an_existing_repository_and_gitignore_are_kept(tmp_path: Path) -> None:
    existing = GitRepo(tmp_path / "acme")
    existing.write(".gitignore", "node_modules/")
    existing.write("backlog/STORY-0001.md", "x")
    sha = existing.commit("existing work")
    payload = scaffold_instance(existing.root)
    assert payload["created_repository"] is False
    assert str(pygit2.Repository(str(existing.root)).head.target) == sha
    assert (existing.root / ".gitignore").read_text() == (
        "node_modules/\n.revetly/\n/.mcp.json\n/.vscode/mcp.json\n")
    assert not (existing.root / "backlog" / ".gitkeep").exists()  # the folder had files
    assert (existing.root / "notes" / ".gitkeep").exists()


def test_a_gitignore_already_ignoring_state_is_left_alone(tmp_path: Path) -> None:
    root = tmp_path / "acme"
    root.mkdir()
    (root / ".gitignore").write_text("*.log\n.revetly/\n/.mcp.json\n/.vscode/mcp.json\n")
    scaffold_instance(root)
    assert (root / ".gitignore").read_text() == (
        "*.log\n.revetly/\n/.mcp.json\n/.vscode/mcp.json\n")


@pytest.mark.parametrize("folder", ["my notes", "acme.backlog", "Team_2024", "x--y"])
def test_the_instance_name_comes_from_the_folder(tmp_path: Path, folder: str) -> None:
    scaffold_instance(tmp_path / folder)
    name = load_config(tmp_path / folder).instance.name
    assert name.replace("-", " ").replace(".", " ").replace("_", " ").split() == (
        folder.replace("-", " ").replace(".", " ").replace("_", " ").split())


@pytest.mark.parametrize("folder", ["équipe", "_drafts", "backlog-ü", "日本"],
                         ids=["accented", "leading-underscore", "umlaut", "cjk"])
def test_any_folder_name_gives_an_instance_that_loads(tmp_path: Path, folder: str) -> None:
    # the project name written into revetly.toml must pass the config's own name rule
    scaffold_instance(tmp_path / folder)
    config = load_config(tmp_path / folder)
    assert config.default_project == config.instance.name


@pytest.mark.parametrize("folder", ["código", "_vendor"], ids=["accented", "leading-underscore"])
def test_any_commits_folder_name_gives_an_instance_that_loads(tmp_path: Path, folder: str) -> None:
    code = GitRepo(tmp_path / folder)
    scaffold_instance(tmp_path / "acme", [str(code.root)])
    (declared,) = load_config(tmp_path / "acme").connectors.commits
    assert Path(tmp_path / "acme", declared.path).resolve() == code.root.resolve()


def test_default_config_text_quotes_names() -> None:
    text = default_config_text('we "quote"', [("api", "C:\\code\\api")])
    data = tomllib.loads(text)
    assert data["instance"]["name"] == 'we "quote"'
    assert data["connectors"]["commits"][0]["path"] == "C:\\code\\api"
    assert text.startswith("# Revetly instance configuration")


def test_init_writes_the_five_prompts_as_host_commands(tmp_path: Path) -> None:
    from revetly_core.surface import PROMPTS, host_command_files

    payload = scaffold_instance(tmp_path / "acme")
    for rel, text in host_command_files().items():
        assert (tmp_path / "acme" / rel).read_text() == text
        assert rel in payload["host_files"]
    assert {f".claude/commands/{p.name}.md" for p in PROMPTS} <= set(payload["host_files"])
    assert ".mcp.json" in payload["host_files"]
