"""The openai-compatible provider: POST {api_url}/embeddings, as Ollama, vLLM and vendors serve it."""

from __future__ import annotations

import json
import os
import threading
from typing import Any

import httpx
import numpy as np

from revetly_core.connectors.http_body import bounded_body
from revetly_core.embedding.provider import Vectors, unit_rows
from revetly_core.embedding.settings import EmbeddingSection
from revetly_core.refusal import Refusal

BATCH = 64
MAX_RESPONSE_BYTES = 64 * 1024 * 1024
"""An answer larger than this is refused before it is parsed (bounded read)."""


def endpoint(api_url: str) -> str:
    """The embeddings endpoint under a base URL (`…/v1` → `…/v1/embeddings`)."""
    return api_url.rstrip("/") + "/embeddings"


def settings_refusal(section: EmbeddingSection, env: dict[str, str] | None = None) -> Refusal | None:
    """A missing api_url, model or token variable, refused naming the setting; else None."""
    env = dict(os.environ) if env is None else env
    if not section.api_url or not section.api_url.startswith(("http://", "https://")):
        return Refusal("refused", "[embedding] provider = \"openai-compatible\" needs api_url, "
                       "an http(s) URL", "set embedding.api_url, e.g. http://127.0.0.1:11434/v1",
                       {"setting": "embedding.api_url"})
    if not section.model:
        return Refusal("refused", "[embedding] provider = \"openai-compatible\" needs model",
                       "set embedding.model to a model the endpoint serves",
                       {"setting": "embedding.model"})
    if section.token_env is not None and not env.get(section.token_env):
        return Refusal("refused", f"embedding.token_env names {section.token_env}, which is "
                       "unset or empty", f"export {section.token_env}, or remove token_env",
                       {"setting": "embedding.token_env"})
    return None


def parse_vectors(body: Any, count: int) -> Vectors:
    """The `data[].embedding` rows of an answer, in `index` order; anything else raises ValueError."""
    if not isinstance(body, dict) or not isinstance(body.get("data"), list):
        raise ValueError("the answer has no data list")
    rows = sorted(body["data"], key=lambda r: r.get("index", 0) if isinstance(r, dict) else 0)
    if len(rows) != count:
        raise ValueError(f"{count} texts were sent and {len(rows)} vectors came back")
    vectors = [r.get("embedding") if isinstance(r, dict) else None for r in rows]
    if not all(isinstance(v, list) and v for v in vectors):
        raise ValueError("a row carries no embedding")
    width = len(vectors[0])  # type: ignore[arg-type]
    if any(len(v) != width for v in vectors):  # type: ignore[arg-type]
        raise ValueError("the vectors do not share one dimension")
    return unit_rows(np.asarray(vectors, dtype=np.float32))


class OpenAICompatibleProvider:
    """An `/embeddings` endpoint speaking OpenAI's request and answer shape."""

    def __init__(self, section: EmbeddingSection, token: str | None) -> None:
        assert section.api_url is not None and section.model is not None
        self._url = endpoint(section.api_url)
        self._model = section.model
        self._timeout = section.timeout_seconds
        self._headers = {"Authorization": f"Bearer {token}"} if token else {}
        self._http: httpx.Client | None = None
        self._lock = threading.Lock()
        self.model_id = f"openai-compatible:{section.model}"
        self.method = f"semantic ({section.model} via openai-compatible)"

    def embed(self, texts: list[str]) -> Vectors:
        """Unit vectors for the texts, BATCH per request; a failure is the refusal naming api_url."""
        parts = [self._request(texts[i : i + BATCH]) for i in range(0, len(texts), BATCH)]
        if not parts:
            return np.zeros((0, 1), dtype=np.float32)
        return np.ascontiguousarray(np.vstack(parts), dtype=np.float32)

    def close(self) -> None:
        """Close the kept connection (a later request opens another)."""
        with self._lock:
            if self._http is not None:
                self._http.close()
                self._http = None

    def _client(self) -> httpx.Client:
        """One client per provider, made on first use: a query's embedding reuses its
        connection instead of paying a new client and TLS context per request."""
        with self._lock:
            if self._http is None:
                self._http = httpx.Client(headers=self._headers, timeout=self._timeout)
            return self._http

    def _request(self, texts: list[str]) -> Vectors:
        try:
            with self._client().stream("POST", self._url,
                                       json={"model": self._model, "input": texts}) as answer:
                answer.raise_for_status()
                body = bounded_body(answer, MAX_RESPONSE_BYTES)
            return parse_vectors(json.loads(body), len(texts))
        except (httpx.HTTPError, ValueError) as exc:
            raise Refusal("refused", f"the embedding endpoint {self._url} did not answer: {exc}",
                          "start the endpoint or correct embedding.api_url / embedding.model",
                          {"setting": "embedding.api_url"}) from None


def open_openai_compatible(section: EmbeddingSection) -> OpenAICompatibleProvider:
    """The provider after its settings check, or the refusal naming the setting."""
    refusal = settings_refusal(section)
    if refusal is not None:
        raise refusal
    token = os.environ.get(section.token_env) if section.token_env else None
    return OpenAICompatibleProvider(section, token)
