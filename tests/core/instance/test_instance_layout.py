"""Finding an instance: --instance, then REVETLY_INSTANCE, then walking up from the cwd."""

from __future__ import annotations

from pathlib import Path

import pytest
from revetly_core.instance.layout import ENV_INSTANCE, STATE_DIR, InstancePaths, locate_instance
from revetly_core.refusal import Refusal


def make_instance(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    (path / "revetly.toml").write_text("")
    return path.resolve()


def test_instance_paths() -> None:
    p = InstancePaths(Path("/i"))
    assert p.config == Path("/i/revetly.toml")
    assert p.state == Path("/i") / STATE_DIR == Path("/i/.revetly")
    assert p.db == Path("/i/.revetly/context.db")
    assert p.index == Path("/i/.revetly/index")
    assert p.lock == Path("/i/.revetly/pass.lock")


def test_explicit_instance_comes_first(tmp_path: Path) -> None:
    a, b, c = (make_instance(tmp_path / n) for n in ("a", "b", "c"))
    assert locate_instance(a, env={ENV_INSTANCE: str(b)}, cwd=c) == a
    assert locate_instance(str(a), env={}, cwd=c) == a


def test_the_environment_comes_second(tmp_path: Path) -> None:
    b, c = make_instance(tmp_path / "b"), make_instance(tmp_path / "c")
    assert locate_instance(None, env={ENV_INSTANCE: str(b)}, cwd=c) == b


def test_an_empty_explicit_value_or_variable_is_ignored(tmp_path: Path) -> None:
    c = make_instance(tmp_path / "c")
    assert locate_instance("", env={ENV_INSTANCE: ""}, cwd=c) == c


def test_walking_up_from_the_cwd_comes_last(tmp_path: Path) -> None:
    root = make_instance(tmp_path / "inst")
    deep = root / "backlog" / "sub" / "deeper"
    deep.mkdir(parents=True)
    assert locate_instance(None, env={}, cwd=deep) == root
    assert locate_instance(None, env={}, cwd=root) == root


def test_the_nearest_instance_wins_when_walking_up(tmp_path: Path) -> None:
    make_instance(tmp_path / "outer")
    inner = make_instance(tmp_path / "outer" / "nested")
    (inner / "x").mkdir()
    assert locate_instance(None, env={}, cwd=inner / "x") == inner


def test_the_real_environment_and_cwd_are_the_defaults(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    a, b = make_instance(tmp_path / "a"), make_instance(tmp_path / "b")
    monkeypatch.setenv(ENV_INSTANCE, str(a))
    monkeypatch.chdir(b)
    assert locate_instance() == a
    monkeypatch.delenv(ENV_INSTANCE)
    assert locate_instance() == b


def test_a_path_with_a_tilde_is_expanded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    make_instance(tmp_path / "home" / "inst")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert locate_instance("~/inst", env={}) == (tmp_path / "home" / "inst").resolve()


@pytest.mark.parametrize("origin", ["--instance", ENV_INSTANCE])
def test_a_named_folder_without_revetly_toml_is_no_instance(tmp_path: Path, origin: str) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    make_instance(tmp_path / "fallback")  # never consulted when a folder is named
    explicit = empty if origin == "--instance" else None
    env = {ENV_INSTANCE: str(empty)} if origin == ENV_INSTANCE else {}
    with pytest.raises(Refusal) as info:
        locate_instance(explicit, env=env, cwd=tmp_path / "fallback")
    assert info.value.code == "no-instance"
    assert origin in info.value.detail
    assert "revetly init" in info.value.fix


def test_nothing_found_anywhere_is_no_instance(tmp_path: Path) -> None:
    cwd = tmp_path / "nowhere" / "deep"
    cwd.mkdir(parents=True)
    with pytest.raises(Refusal) as info:
        locate_instance(None, env={}, cwd=cwd)
    assert info.value.code == "no-instance"
    assert "--instance" in info.value.fix and ENV_INSTANCE in info.value.fix


def test_a_folder_named_revetly_toml_is_not_an_instance(tmp_path: Path) -> None:
    (tmp_path / "odd" / "revetly.toml").mkdir(parents=True)
    with pytest.raises(Refusal):
        locate_instance(tmp_path / "odd", env={})
