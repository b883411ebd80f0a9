"""A tracker token from a 0600 credential file: checked before it is read, sent only as the
token, never written anywhere the instance keeps."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from revetly_core.config import GitHubConnector as GitHubSettings
from revetly_core.config_schema import GitHubConnector as GitHubSchema
from revetly_core.connectors.tracker_read import (
    MAX_TOKEN_FILE_BYTES,
    TokenFileRefused,
    bearer,
    read_token_file,
    source_token,
    token_file_problem,
    tracker_client,
)

from tests.core.connectors.github_instance import TOKEN, TOKEN_ENV, github_instance
from tests.support.fake_github import FakeGitHub, serving

REGULAR = stat.S_IFREG


def credential(tmp_path: Path, text: str, mode: int = 0o600) -> Path:
    path = tmp_path / "gh-token"
    path.write_text(text)
    path.chmod(mode)
    return path


def settings(**over: object) -> GitHubSettings:
    base: dict[str, object] = {"name": "gh", "repo": "o/r", "prefix": "GH",
                               "api_url": "https://tracker.example"}
    base.update(over)
    return GitHubSettings(**base)  # type: ignore[arg-type]


# -- the rule -----------------------------------------------------------------------------------

def test_a_regular_file_only_its_owner_reads_is_usable() -> None:
    assert token_file_problem(REGULAR | 0o600, 40) is None
    assert token_file_problem(REGULAR | 0o400, 40) is None


@given(st.integers(min_value=0, max_value=0o777))
def test_any_permission_for_group_or_others_is_refused(mode: int) -> None:
    problem = token_file_problem(REGULAR | mode, 40)
    assert (problem is None) == (mode & 0o077 == 0)
    if problem is not None:
        assert "chmod 600" in problem


def test_a_directory_an_empty_file_and_an_oversized_file_are_refused() -> None:
    assert token_file_problem(stat.S_IFDIR | 0o700, 40) == "is not a regular file"
    assert token_file_problem(REGULAR | 0o600, 0) == "is empty"
    assert "more than a token" in (token_file_problem(REGULAR | 0o600,
                                                      MAX_TOKEN_FILE_BYTES + 1) or "")


# -- reading it ---------------------------------------------------------------------------------

def test_the_token_is_the_files_content_without_surrounding_space(tmp_path: Path) -> None:
    assert read_token_file(str(credential(tmp_path, "  t0ken-value\n"))) == "t0ken-value"


def test_an_open_file_is_refused_naming_the_file_never_its_content(tmp_path: Path) -> None:
    path = credential(tmp_path, "s3cret-token", 0o644)
    with pytest.raises(TokenFileRefused) as info:
        read_token_file(str(path))
    assert str(path) in str(info.value) and "0644" in str(info.value)
    assert "s3cret-token" not in str(info.value)


def test_a_missing_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(TokenFileRefused, match="cannot be read"):
        read_token_file(str(tmp_path / "absent"))


def test_a_file_of_space_only_is_refused(tmp_path: Path) -> None:
    with pytest.raises(TokenFileRefused, match="holds only space"):
        read_token_file(str(credential(tmp_path, " \n\t ")))


def test_a_home_relative_path_is_expanded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    credential(tmp_path, "from-home")
    assert read_token_file("~/gh-token") == "from-home"


# -- which token a source sends -----------------------------------------------------------------

def test_the_variable_is_the_token_when_token_env_is_declared() -> None:
    assert source_token(settings(token_env="GH_T"), {"GH_T": "from-env"}) == "from-env"
    assert source_token(settings(token_env="GH_T"), {}) is None


def test_the_file_is_the_token_when_token_file_is_declared(tmp_path: Path) -> None:
    path = credential(tmp_path, "from-file")
    http = tracker_client(settings(token_file=str(path)), {}, bearer, {})
    assert dict(http.headers) == {"Authorization": "Bearer from-file"}


def test_no_token_source_sends_no_authorization() -> None:
    assert source_token(settings(), {"GH_T": "x"}) is None


# -- the settings -------------------------------------------------------------------------------

def test_declaring_both_token_env_and_token_file_is_refused() -> None:
    with pytest.raises(ValueError, match="token_env or token_file, not both"):
        GitHubSchema(name="gh", repo="o/r", prefix="GH", token_env="GH_T",
                     token_file="/etc/revetly/gh")


def test_a_relative_token_file_is_refused() -> None:
    with pytest.raises(ValueError, match="absolute path"):
        GitHubSchema(name="gh", repo="o/r", prefix="GH", token_file="secrets/gh")


# -- end to end ---------------------------------------------------------------------------------

def token_file_instance(tmp_path: Path, url: str, path: Path) -> Any:
    """The GitHub instance of these tests, declaring its token by `token_file = path`."""
    engine = github_instance(tmp_path, url)
    toml = engine.root / "revetly.toml"
    toml.write_text(toml.read_text().replace(f'token_env = "{TOKEN_ENV}"',
                                             f'token_file = "{path}"'))
    return type(engine).open(engine.root)


def test_a_pass_sends_the_files_token_and_keeps_it_nowhere(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(TOKEN_ENV, raising=False)
    path = credential(tmp_path, TOKEN + "\n")
    fake = FakeGitHub()
    with serving(fake):
        fake.add_issue(1, "Offline sync", labels=("story",))
        engine = token_file_instance(tmp_path, fake.url, path)
        result = engine.sync()
        sent = [r.headers.get("authorization") for r in fake.requests]
    assert result["outcome"] == "succeeded", result
    assert sent and all(value == f"Bearer {TOKEN}" for value in sent)
    for kept in engine.root.rglob("*"):
        if kept.is_file() and ".git" not in kept.parts:
            assert TOKEN.encode() not in kept.read_bytes(), kept


def test_a_pass_with_an_open_token_file_fails_the_source_only(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(TOKEN_ENV, raising=False)
    path = credential(tmp_path, TOKEN, 0o640)
    fake = FakeGitHub()
    with serving(fake):
        fake.add_issue(1, "Offline sync", labels=("story",))
        engine = token_file_instance(tmp_path, fake.url, path)
        result = engine.sync()
        sent = list(fake.requests)
    assert sent == []
    failed = [s for s in result["sources"] if s["source"].startswith("github")]
    assert failed and failed[0]["outcome"] == "failed", result["sources"]
    error = failed[0].get("error", "")
    assert "chmod 600" in error and TOKEN not in error
    assert os.stat(path).st_mode & 0o777 == 0o640
