"""The semantic leg end to end: the local provider on a small instance, the lite instance
unchanged, incremental re-embedding against a real endpoint, and the refusal on every tool."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from revetly_core.reads.semantic import by_rank
from revetly_core.store.vectors import VectorStore
from revetly_core.surface.surface import Surface

from tests.core.gitrepo import Instance, md
from tests.support.fake_embeddings import TOKEN
from tests.support.processes import Server, free_port, python

SUPPORT = Path(__file__).resolve().parents[2] / "support"

LOCAL = '\n[embedding]\nprovider = "local"\n'
QUERY = "authentication via company account"
"""Shares no word with any artifact: only the semantic leg can reach the sign-on story."""


def stories(instance: Instance, extra_config: str = "") -> Instance:
    g = instance.git
    for n, (title, body) in enumerate([
        ("Board columns jitter during drag", "The columns shake when a card is moved."),
        ("Export invoices as CSV", "Finance downloads a spreadsheet of invoices."),
        ("Login with single sign-on", "People log in through their identity provider."),
        ("Dunning reminder emails", "Overdue customers get a reminder email."),
    ], start=1):
        g.write(f"backlog/STORY-{n:04d}.md", md(f"STORY-{n:04d}", title, "story", body,
                                                status="ready", created="2025-01-10",
                                                updated="2025-01-10"))
    g.write("revetly.toml", g.read("revetly.toml") + extra_config)
    g.commit("stories")
    instance.sync()
    return instance


def test_the_local_provider_reaches_a_story_by_meaning(instance: Instance) -> None:
    inst = stories(instance, LOCAL)
    assert VectorStore(inst.root / ".revetly" / "index").present()
    found = inst.engine().search_context(QUERY)
    rows = {r["artifact_id"]: r["method"] for r in found["artifacts"]}
    assert found["artifacts"][0]["artifact_id"] == "STORY-0003"
    assert set(rows.values()) == {"semantic (local embeddings)"}


def test_a_row_the_keyword_leg_matched_keeps_the_keyword_method(instance: Instance) -> None:
    inst = stories(instance, LOCAL)
    found = inst.engine().search_context("invoices spreadsheet")
    first = found["artifacts"][0]
    assert first["artifact_id"] == "STORY-0002" and first["method"] == "keyword (english stemming)"


def test_the_lite_instance_has_no_vectors_and_no_semantic_row(instance: Instance) -> None:
    inst = stories(instance)
    assert not VectorStore(inst.root / ".revetly" / "index").present()
    assert inst.engine().search_context(QUERY)["artifacts"] == []
    assert {r["method"] for r in inst.engine().search_context("invoices")["artifacts"]} == {
        "keyword (english stemming)"}


def test_the_authoring_backlog_runs_the_semantic_leg(instance: Instance) -> None:
    inst = stories(instance, LOCAL)
    bundle = inst.engine().get_authoring_context(QUERY)
    assert bundle["backlog"][0]["artifact_id"] == "STORY-0003"
    assert bundle["backlog"][0]["method"] == "semantic (local embeddings)"


def test_the_leg_is_scored_by_rank_not_by_cosine() -> None:
    assert by_rank([("A", 0.9), ("B", 0.1)], 10) == [("A", 1 / 11), ("B", 1 / 12)]


@pytest.fixture()
def endpoint(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> object:
    port = free_port()
    server = Server(python(str(SUPPORT / "fake_embeddings.py"), "--port", str(port),
                           "--token", TOKEN), f"http://127.0.0.1:{port}/health",
                    tmp_path / "embeddings.log")
    server.wait_ready()
    monkeypatch.setenv("FAKE_EMBED_TOKEN", TOKEN)
    yield f"http://127.0.0.1:{port}"
    server.stop()


def remote(base: str) -> str:
    return (f'\n[embedding]\nprovider = "openai-compatible"\napi_url = "{base}/v1"\n'
            'model = "fake"\ntoken_env = "FAKE_EMBED_TOKEN"\n')


def embedded(base: str) -> int:
    return int(httpx.get(f"{base}/count", timeout=5).json()["texts"])


def test_an_edited_file_re_embeds_only_itself(instance: Instance, endpoint: str) -> None:
    inst = stories(instance, remote(endpoint))
    vectors = VectorStore(inst.root / ".revetly" / "index")
    before, first = vectors.digests(), embedded(endpoint)
    assert first >= 4
    inst.git.write("backlog/STORY-0004.md", md("STORY-0004", "Dunning reminder letters", "story",
                                               "Overdue customers get a letter.", status="ready",
                                               created="2025-01-10", updated="2025-01-11"))
    inst.git.commit("edit one story")
    inst.sync()
    after = vectors.digests()
    assert embedded(endpoint) - first == 1
    assert {i for i in after if after[i] != before.get(i)} == {"STORY-0004"}


def test_a_removed_file_drops_its_vectors(instance: Instance, endpoint: str) -> None:
    inst = stories(instance, remote(endpoint))
    inst.git.remove_and_commit(["backlog/STORY-0001.md"], "drop a story")
    inst.sync()
    held = inst.get("STORY-0001")
    digests = VectorStore(inst.root / ".revetly" / "index").digests()
    assert ("STORY-0001" in digests) == (held is not None), "vectors follow the keyword index"


def unresolvable(instance: Instance, config: str) -> Surface:
    instance.git.write("revetly.toml", instance.git.read("revetly.toml") + config)
    instance.git.commit("declare a provider that does not resolve")
    return Surface.open(instance.root)


@pytest.mark.parametrize(("config", "setting"), [
    (f'\n[embedding]\nprovider = "openai-compatible"\napi_url = "http://127.0.0.1:{free_port()}/v1"'
     '\nmodel = "m"\ntimeout_seconds = 2\n', "embedding.api_url"),
    ('\n[embedding]\nprovider = "openai-compatible"\napi_url = "http://127.0.0.1:9/v1"\n'
     'model = "m"\ntoken_env = "REVETLY_TEST_UNSET_TOKEN"\n', "embedding.token_env"),
])
def test_every_tool_answers_the_refusal_naming_the_setting(
    instance: Instance, config: str, setting: str, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("REVETLY_TEST_UNSET_TOKEN", raising=False)
    surface = unresolvable(instance, config)
    for name in surface.served():
        answer = surface.call(name, {})
        assert answer["refusal"]["code"] == "refused", name
        assert answer["refusal"]["setting"] == setting, name


def test_a_missing_local_package_is_refused_and_a_fixed_file_is_served(
    instance: Instance, monkeypatch: pytest.MonkeyPatch,
) -> None:
    from revetly_core.embedding import local

    monkeypatch.setattr(local, "package_folder", lambda: None)
    surface = unresolvable(instance, LOCAL)
    assert surface.call("context_health", {})["refusal"]["setting"] == "embedding.provider"
    instance.git.write("revetly.toml", instance.git.read("revetly.toml").replace(LOCAL, ""))
    assert surface.call("context_health", {})["refusal"]["code"] == "not-synced"


def test_the_semantic_score_is_added_to_what_the_words_gave() -> None:
    from revetly_core.reads.semantic import add_leg

    fused = {"A": (1.0, frozenset({0})), "B": (0.8, frozenset({0}))}
    add_leg(fused, [("B", 0.5), ("C", 0.25)], 3)
    assert fused == {"A": (1.0, frozenset({0})), "B": (1.3, frozenset({0, 3})),
                     "C": (0.25, frozenset({3}))}


def test_a_provider_down_during_the_pass_leaves_the_keyword_index_current(
    instance: Instance,
) -> None:
    dead = (f'\n[embedding]\nprovider = "openai-compatible"\napi_url = '
            f'"http://127.0.0.1:{free_port()}/v1"\nmodel = "m"\ntimeout_seconds = 2\n')
    inst = stories(instance, dead)
    assert inst.engine().index.revision() is not None
    assert not VectorStore(inst.root / ".revetly" / "index").present()
