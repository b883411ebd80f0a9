"""[llm]: which provider the full instance's extraction asks (absent or "none": lite)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

ProviderName = Literal["none", "openai-compatible"]


@dataclass(frozen=True)
class LlmSection:
    """The declared extraction provider (the file's values are validated by
    `revetly_core.config_schema`; whether it resolves by `llm.openai_compatible`)."""

    provider: ProviderName = "none"
    """none: the lite instance; openai-compatible: a `/v1/chat/completions` endpoint (Ollama,
    vLLM, llama.cpp, a vendor) that honours a json_schema response_format."""
    model: str | None = None
    """The model the endpoint is asked for."""
    api_url: str | None = None
    """The base URL, e.g. http://127.0.0.1:11434/v1."""
    token_env: str | None = None
    """The environment variable holding the bearer token (never the file)."""
    timeout_seconds: float = 60.0
    """How long one request may take (0 < s ≤ 600)."""


def declared(section: LlmSection | None) -> bool:
    """Whether an instance declares a real extraction provider (absent or `none` is lite)."""
    return section is not None and section.provider != "none"
