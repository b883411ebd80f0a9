"""The openai-compatible extraction provider, as the client graphiti-core drives.

Imported only on a full instance (it loads openai and graphiti-core). Every chat answer passes
a response hook that counts the call and the tokens the provider declared (`llm.usage`).
"""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, Any

from revetly_core.llm.settings import LlmSection
from revetly_core.llm.usage import Usage
from revetly_core.refusal import Refusal

if TYPE_CHECKING:
    from graphiti_core.llm_client.client import LLMClient

MAX_ANSWER_BYTES = 16 * 1024 * 1024
"""A chat answer larger than this is not counted (it is graphiti's to refuse)."""


def settings_refusal(section: LlmSection, env: dict[str, str] | None = None) -> Refusal | None:
    """A missing api_url, model or token variable, refused naming the setting; else None."""
    env = dict(os.environ) if env is None else env
    if not section.api_url or not section.api_url.startswith(("http://", "https://")):
        return Refusal("refused", "[llm] provider = \"openai-compatible\" needs api_url, an "
                       "http(s) URL", "set llm.api_url, e.g. http://127.0.0.1:11434/v1",
                       {"setting": "llm.api_url"})
    if not section.model:
        return Refusal("refused", "[llm] provider = \"openai-compatible\" needs model",
                       "set llm.model to a model the endpoint serves", {"setting": "llm.model"})
    if section.token_env is not None and not env.get(section.token_env):
        return Refusal("refused", f"llm.token_env names {section.token_env}, which is unset or "
                       "empty", f"export {section.token_env}, or remove token_env",
                       {"setting": "llm.token_env"})
    return None


def token_of(section: LlmSection) -> str:
    """The bearer the endpoint gets: the token_env variable's value ("none" where none is set,
    since the openai client insists on a key)."""
    return os.environ.get(section.token_env, "") if section.token_env else "none"


def counting_hook(usage: Usage) -> Any:
    """An httpx response hook adding each chat completion's declared usage to `usage`."""

    async def hook(response: Any) -> None:
        if not response.request.url.path.endswith("/chat/completions"):
            return
        if response.status_code != 200:
            usage.calls += 1
            return
        await response.aread()
        if len(response.content) > MAX_ANSWER_BYTES:
            usage.calls += 1
            return
        try:
            usage.add(json.loads(response.content))
        except ValueError:
            usage.calls += 1

    return hook


def graphiti_llm(section: LlmSection, usage: Usage) -> LLMClient:
    """graphiti-core's generic openai-compatible client on the declared endpoint, counting into
    `usage`; a setting that does not resolve is raised as its refusal."""
    refusal = settings_refusal(section)
    if refusal is not None:
        raise refusal
    from graphiti_core.llm_client.config import LLMConfig
    from graphiti_core.llm_client.openai_generic_client import OpenAIGenericClient
    from openai import AsyncOpenAI, DefaultAsyncHttpxClient

    # the openai package's own http client (its httpx fork), with the counting hook
    http = DefaultAsyncHttpxClient(timeout=section.timeout_seconds,
                                   event_hooks={"response": [counting_hook(usage)]})
    client = AsyncOpenAI(api_key=token_of(section), base_url=section.api_url, max_retries=0,
                         http_client=http)
    config = LLMConfig(api_key=token_of(section), model=section.model,
                       small_model=section.model, base_url=section.api_url)
    return OpenAIGenericClient(config=config, client=client)
