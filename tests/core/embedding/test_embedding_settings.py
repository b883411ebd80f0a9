"""[embedding] in revetly.toml: the providers it names, what it refuses, and the leg's share."""

from __future__ import annotations

import pytest
from revetly_core.config import parse_config
from revetly_core.embedding.resolve import open_provider, provider_refusal
from revetly_core.embedding.settings import declared
from revetly_core.reads.ranking import leg_share
from revetly_core.refusal import Refusal


def test_absent_or_none_is_the_lite_instance() -> None:
    for data in ({}, {"embedding": {"provider": "none"}}):
        config = parse_config(data)
        assert not declared(config.embedding)
        assert open_provider(config.embedding) is None and provider_refusal(config) is None


def test_an_unknown_provider_is_refused_naming_the_setting() -> None:
    with pytest.raises(Refusal) as caught:
        parse_config({"embedding": {"provider": "fastembed"}})
    assert caught.value.code == "refused" and caught.value.extra["setting"] == "embedding.provider"


def test_an_unknown_key_is_refused() -> None:
    with pytest.raises(Refusal) as caught:
        parse_config({"embedding": {"provider": "local", "dims": 256}})
    assert caught.value.extra["setting"] == "embedding.dims"


def test_the_local_provider_resolves_where_the_extra_is_installed() -> None:
    config = parse_config({"embedding": {"provider": "local"}})
    assert provider_refusal(config) is None
    provider = open_provider(config.embedding)
    assert provider is not None and provider.method == "semantic (local embeddings)"


def test_the_semantic_share_is_a_ranking_leg() -> None:
    config = parse_config({"ranking": {"semantic": 0.25}})
    assert leg_share(config.ranking, "semantic") == 0.25
    assert leg_share({}, "semantic") == 0.25


def test_the_manual_documents_every_provider() -> None:
    from revetly_core.operate.manual import manual_page

    page = manual_page("providers")
    assert page["title"].startswith("Providers")
    for name in ('"local"', '"openai-compatible"', '"none"', "embedding.token_env"):
        assert name in page["text"]
