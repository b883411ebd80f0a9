"""The inferred half's rules, one by one: the two-sentence fit, the warning on a fact naming
neither end, the cut that takes inferred rows before any stated one, the instance's kind, the
provider's settings and the usage it reports."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st
from revetly_core.config import Config
from revetly_core.embedding.settings import EmbeddingSection
from revetly_core.inferred.episodes import episode_of, reference_time
from revetly_core.inferred.instance import is_full
from revetly_core.llm.openai_compatible import settings_refusal
from revetly_core.llm.settings import LlmSection
from revetly_core.llm.usage import Usage
from revetly_core.model import Artifact
from revetly_core.reads.inferred import (
    cut_inferred_before_stated,
    fitted_summary,
    link_row,
    names_an_endpoint,
    sentences,
)
from revetly_core.store.inferred import InferredLink

LLM = LlmSection(provider="openai-compatible", api_url="http://127.0.0.1:1/v1", model="m")
EMBED = EmbeddingSection(provider="openai-compatible", api_url="http://127.0.0.1:1/v1", model="e")


def test_a_summary_is_fitted_to_two_sentences_and_counts_them_all() -> None:
    assert fitted_summary("One. Two! Three? Four.") == ("One. Two!", 4)
    assert fitted_summary("") == ("", 0)


@given(st.lists(st.from_regex(r"[A-Z][a-z]{1,8}\.", fullmatch=True), max_size=6))
def test_the_fit_never_serves_more_than_two_sentences(parts: list[str]) -> None:
    served, total = fitted_summary(" ".join(parts))
    assert total == len(parts) and len(sentences(served)) == min(2, len(parts))


def test_a_fact_naming_neither_end_carries_unnamed_endpoints() -> None:
    named = InferredLink("Stripe Webhook", None, "MENTIONS", "STORY-1 uses the Stripe Webhook")
    unnamed = InferredLink("Event Queue", None, "MENTIONS", "Events are queued somewhere")
    assert names_an_endpoint(named, "STORY-1")
    assert "unnamed_endpoints" not in link_row(named, "STORY-1")
    assert link_row(unnamed, "STORY-1")["unnamed_endpoints"] is True


def test_nothing_stated_is_cut_for_something_inferred() -> None:
    payload = {"body": "stated words " * 20, "links": [{"other": "STORY-2"}],
               "inferred_links": [{"fact": "inferred " * 30} for _ in range(5)],
               "inferred_summary": "A model said this. And this."}
    stated = {k: payload[k] for k in ("body", "links")}
    budget = len(json.dumps(stated)) + 120
    cut_inferred_before_stated(payload, budget)
    assert {k: payload[k] for k in ("body", "links")} == stated
    assert payload["inferred_links"] == [] and "inferred_summary" not in payload
    assert payload["inferred_links_truncated"]["total"] == 5
    assert payload["inferred_summary_truncated"] == {
        "reason": "read-budget", "sentences_total": 2, "sentences_served": 0}


def test_an_answer_within_budget_keeps_every_inferred_row() -> None:
    payload = {"body": "x", "inferred_links": [{"fact": "y"}], "inferred_summary": "z."}
    cut_inferred_before_stated(payload, 10_000)
    assert payload == {"body": "x", "inferred_links": [{"fact": "y"}], "inferred_summary": "z."}


def test_an_instance_is_full_only_with_a_real_provider_on_both_sinks() -> None:
    assert is_full(Config(llm=LLM, embedding=EMBED))
    assert not is_full(Config())
    assert not is_full(Config(llm=LLM))
    assert not is_full(Config(embedding=EMBED))
    assert not is_full(Config(llm=LlmSection(provider="none"), embedding=EMBED))


def test_the_llm_settings_are_refused_by_name() -> None:
    no_url = settings_refusal(LlmSection(provider="openai-compatible", model="m"), {})
    assert no_url is not None and no_url.extra["setting"] == "llm.api_url"
    no_model = settings_refusal(LlmSection(provider="openai-compatible",
                                           api_url="http://x/v1"), {})
    assert no_model is not None and no_model.extra["setting"] == "llm.model"
    unset = settings_refusal(LlmSection(provider="openai-compatible", api_url="http://x/v1",
                                        model="m", token_env="NOPE"), {})
    assert unset is not None and unset.extra["setting"] == "llm.token_env"
    assert settings_refusal(LLM, {}) is None


def test_usage_counts_calls_and_the_tokens_an_answer_declares() -> None:
    usage = Usage()
    usage.add({"usage": {"prompt_tokens": 10, "completion_tokens": 3}})
    usage.add({"usage": {"prompt_tokens": -1, "completion_tokens": "many"}})
    usage.add("not an answer")
    assert usage.payload() == {"model_calls": 3, "prompt_tokens": 10, "completion_tokens": 3}


def test_an_episode_carries_the_source_time_and_changes_digest_with_the_text() -> None:
    a = Artifact(id="STORY-1", type="story", title="T", source="s", project="p", body="B",
                 source_updated_at="2025-02-03T04:05:06Z")
    episode = episode_of(a, "m")
    assert episode.name == "STORY-1" and episode.reference_time.isoformat().startswith(
        "2025-02-03T04:05:06")
    changed = Artifact(id="STORY-1", type="story", title="T", source="s", project="p", body="B2",
                       source_updated_at="2025-02-03T04:05:06Z")
    assert episode_of(changed, "m").digest != episode.digest
    assert episode_of(a, "other-model").digest != episode.digest
    assert reference_time(Artifact(id="X-1", type="story", title="t", source="s", project="p")).year == 1970


def test_the_inferred_step_runs_from_inside_a_running_event_loop() -> None:
    import asyncio

    from revetly_core.inferred.sync import run_async

    async def answer() -> int:
        return 42

    async def server() -> int:  # as the MCP server's sync calls the pass
        return run_async(answer())

    assert run_async(answer()) == 42
    assert asyncio.run(server()) == 42
