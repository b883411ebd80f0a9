"""The openai-compatible provider against a real local endpoint, and its refusals."""

from __future__ import annotations

import numpy as np
import pytest
from revetly_core.embedding.openai_compatible import (
    endpoint,
    open_openai_compatible,
    parse_vectors,
    settings_refusal,
)
from revetly_core.embedding.settings import EmbeddingSection
from revetly_core.refusal import Refusal

from tests.support.fake_embeddings import TOKEN
from tests.support.processes import free_port


def section(url: str, **kw: object) -> EmbeddingSection:
    return EmbeddingSection(provider="openai-compatible", api_url=url, model="fake",
                            token_env="FAKE_EMBED_TOKEN", **kw)  # type: ignore[arg-type]


def test_the_endpoint_is_under_the_base_url() -> None:
    assert endpoint("http://h:1/v1/") == "http://h:1/v1/embeddings"


def test_vectors_come_back_unit_length_in_order(embeddings_url: str,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAKE_EMBED_TOKEN", TOKEN)
    provider = open_openai_compatible(section(embeddings_url))
    rows = provider.embed(["board column jitter", "board column jitter", "invoice export"])
    assert rows.shape[0] == 3 and np.allclose(np.linalg.norm(rows, axis=1), 1.0, atol=1e-5)
    assert rows[0] @ rows[1] > rows[0] @ rows[2]
    assert provider.method == "semantic (fake via openai-compatible)"


def test_an_unset_token_variable_is_refused_naming_token_env() -> None:
    refusal = settings_refusal(section("http://127.0.0.1:1/v1"), env={})
    assert refusal is not None and refusal.extra["setting"] == "embedding.token_env"


def test_missing_url_or_model_is_refused_naming_it() -> None:
    no_url = EmbeddingSection(provider="openai-compatible", model="m")
    no_model = EmbeddingSection(provider="openai-compatible", api_url="http://127.0.0.1:1/v1")
    assert settings_refusal(no_url, env={}).extra["setting"] == "embedding.api_url"  # type: ignore[union-attr]
    assert settings_refusal(no_model, env={}).extra["setting"] == "embedding.model"  # type: ignore[union-attr]


def test_an_endpoint_that_does_not_answer_is_refused_naming_api_url(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("FAKE_EMBED_TOKEN", TOKEN)
    provider = open_openai_compatible(section(f"http://127.0.0.1:{free_port()}/v1",
                                              timeout_seconds=2))
    with pytest.raises(Refusal) as caught:
        provider.embed(["anything"])
    assert caught.value.code == "refused" and caught.value.extra["setting"] == "embedding.api_url"


def test_a_wrong_token_is_refused(embeddings_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAKE_EMBED_TOKEN", "not-the-token")
    with pytest.raises(Refusal):
        open_openai_compatible(section(embeddings_url)).embed(["x"])


def test_an_answer_of_the_wrong_shape_is_a_value_error() -> None:
    with pytest.raises(ValueError):
        parse_vectors({"data": [{"index": 0, "embedding": [1.0]}]}, 2)
    with pytest.raises(ValueError):
        parse_vectors({"nothing": 1}, 1)
    with pytest.raises(ValueError):
        parse_vectors({"data": [{"index": 0, "embedding": [1.0]},
                                {"index": 1, "embedding": [1.0, 2.0]}]}, 2)



def test_the_provider_keeps_one_client_and_reopens_after_close(
        embeddings_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAKE_EMBED_TOKEN", TOKEN)
    provider = open_openai_compatible(section(embeddings_url))
    first = provider.embed(["board column jitter"])
    client = provider._client()
    provider.embed(["invoice export"])
    assert provider._client() is client  # no new client (and TLS context) per request
    provider.close()
    assert np.allclose(provider.embed(["board column jitter"]), first)
