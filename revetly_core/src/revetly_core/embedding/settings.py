"""[embedding]: which provider turns prose into vectors for the semantic leg (absent: lite)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

ProviderName = Literal["none", "local", "openai-compatible"]


class EmbeddingSection(BaseModel):
    """The declared provider; whether it resolves is checked by `resolve.provider_refusal`."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    provider: ProviderName = "none"
    """none: the lite instance; local: the model shipped in a package; openai-compatible: an
    `/v1/embeddings` endpoint (Ollama, vLLM, a vendor)."""
    model: str | None = None
    """openai-compatible: the model the endpoint is asked for (local: the shipped model only)."""
    api_url: str | None = None
    """openai-compatible: the base URL, e.g. http://127.0.0.1:11434/v1."""
    token_env: str | None = None
    """openai-compatible: the environment variable holding the bearer token (never the file)."""
    timeout_seconds: float = Field(default=10.0, gt=0, le=120)
    """openai-compatible: how long one request may take."""


def declared(section: EmbeddingSection | None) -> bool:
    """Whether an instance declares a real provider (absent or `none` is the lite instance)."""
    return section is not None and section.provider != "none"
