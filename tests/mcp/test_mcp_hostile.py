"""The MCP server never serves a file a committed symlink points out of the instance to."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pygit2
import pytest
from mcp import Client
from revetly_mcp.server import build_server

from revetly_core import Engine

pytestmark = pytest.mark.anyio

SECRET = "zanzibarsecretword"


def _commit_all(root: Path) -> None:
    repo = pygit2.Repository(str(root))
    repo.index.add_all()
    repo.index.write()
    sig = pygit2.Signature("Dana", "dana@example.com", 1_735_000_000, 0)
    parents = [] if repo.head_is_unborn else [repo.head.target]
    repo.create_commit("HEAD", sig, sig, "a link out", repo.index.write_tree(), parents)


@pytest.fixture()
def leaky(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv("REVETLY_INSTANCE", raising=False)
    root = tmp_path / "inst"
    Engine.init(root)
    outside = tmp_path / "outside.md"
    outside.write_text(f"---\nid: STORY-0900\ntitle: {SECRET}\ntype: story\n---\n{SECRET}\n")
    os.symlink(outside, root / "backlog" / "leak.md")
    _commit_all(root)
    Engine.open(root).sync()
    return root


def _text(result: Any) -> str:
    return json.dumps(result.structured_content) + "".join(
        getattr(c, "text", "") for c in result.content)


async def test_search_and_get_artifact_do_not_serve_a_linked_out_file(leaky: Path) -> None:
    async with Client(build_server(Engine.open(leaky), None), mode="legacy") as client:
        found = await client.call_tool("search_context", {"query": SECRET})
        fetched = await client.call_tool("get_artifact", {"artifact_id": "STORY-0900"})
    assert found.structured_content is not None
    assert found.structured_content["artifacts"] == []
    assert found.structured_content["passages"] == []
    assert fetched.structured_content is not None and "refusal" in fetched.structured_content
    assert SECRET not in _text(fetched)
