"""[embedding]: which provider turns prose into vectors for the semantic leg (absent: lite)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

ProviderName = Literal["none", "local", "openai-compatible"]


@dataclass(frozen=True)
class EmbeddingSection:
    """The declared provider; whether it resolves is checked by `resolve.provider_refusal`
    (the file's values are validated by `revetly_core.config_schema`)."""

    provider: ProviderName = "none"
    """none: the lite instance; local: the model shipped in a package; openai-compatible: an
    `/v1/embeddings` endpoint (Ollama, vLLM, a vendor)."""
    model: str | None = None
    """openai-compatible: the model the endpoint is asked for (local: the shipped model only)."""
    api_url: str | None = None
    """openai-compatible: the base URL, e.g. http://127.0.0.1:11434/v1."""
    token_env: str | None = None
    """openai-compatible: the environment variable holding the bearer token (never the file)."""
    timeout_seconds: float = 10.0
    """openai-compatible: how long one request may take (0 < s ≤ 120)."""


def declared(section: EmbeddingSection | None) -> bool:
    """Whether an instance declares a real provider (absent or `none` is the lite instance)."""
    return section is not None and section.provider != "none"
