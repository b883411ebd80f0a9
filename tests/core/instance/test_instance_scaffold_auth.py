"""`revetly init --auth ISSUER`: the [auth] and [served] blocks of a served endpoint."""

from __future__ import annotations

from pathlib import Path

import pygit2
import pytest
from hypothesis import given
from hypothesis import strategies as st
from revetly_core.config import load_config
from revetly_core.instance.scaffold import AUDIT_LOG, checked_issuer
from revetly_core.refusal import Refusal

from revetly_core import Engine
from tests.core.gitrepo import GitRepo


def test_init_with_auth_declares_the_jwt_verifier_at_the_issuer(tmp_path: Path) -> None:
    root = tmp_path / "served"
    payload = Engine.init(root, auth_issuer="https://login.example.com/realms/team/")
    assert payload["auth"] == {"verifier": "jwt", "issuer": "https://login.example.com/realms/team",
                               "audit_log": AUDIT_LOG}
    config = load_config(root.resolve())
    assert config.auth.verifier == "jwt"
    assert config.auth.issuer == "https://login.example.com/realms/team"
    assert config.auth.audit_log == ".revetly/audit.jsonl"
    assert config.auth.grants is None  # the grants example is left commented out
    assert config.served.host == "127.0.0.1" and config.served.path == "/mcp"
    repo = pygit2.Repository(str(root))
    committed = repo.revparse_single("HEAD:revetly.toml").data.decode()
    assert committed == (root / "revetly.toml").read_text()  # the block is in the first commit


def test_init_without_auth_declares_no_verifier(tmp_path: Path) -> None:
    payload = Engine.init(tmp_path / "plain")
    assert "auth" not in payload
    assert "[auth]" not in (tmp_path / "plain" / "revetly.toml").read_text()


def test_init_from_a_source_with_auth_keeps_both(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "code")
    repo.write("docs/decisions/0001-first.md", "# 1. First\n\nWe chose.\n")
    repo.commit("docs: first decision")
    payload = Engine.init(tmp_path / "inst", source=("adr", str(tmp_path / "code")),
                          auth_issuer="http://127.0.0.1:9000")
    assert payload["auth"]["issuer"] == "http://127.0.0.1:9000"
    config = load_config((tmp_path / "inst").resolve())
    assert config.auth.verifier == "jwt" and [c.name for c in config.connectors.adr]


@pytest.mark.parametrize("issuer", ["http://login.example.com", "ftp://x", "not a url",
                                    "https://", "https://x.example/?a=1", "https://x#f"])
def test_an_issuer_revetly_cannot_trust_is_refused_before_anything_is_written(
        tmp_path: Path, issuer: str) -> None:
    with pytest.raises(Refusal) as refused:
        Engine.init(tmp_path / "inst", auth_issuer=issuer)
    assert refused.value.code == "invalid-argument"
    assert not (tmp_path / "inst").exists()


@given(st.text(max_size=60))
def test_checked_issuer_either_refuses_or_gives_an_http_url(issuer: str) -> None:
    try:
        checked = checked_issuer(issuer)
    except Refusal as refused:
        assert refused.code == "invalid-argument"
    else:
        assert checked.startswith(("https://", "http://localhost", "http://127.0.0.1",
                                   "http://[::1]"))
