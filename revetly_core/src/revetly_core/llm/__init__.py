"""The LLM provider the full instance's extraction calls: an openai-compatible chat endpoint.
Absent (or provider = "none"), the instance is lite: reading the declaration imports nothing
heavier than `settings`; `openai_compatible` builds the client graphiti-core drives."""

from revetly_core.llm.settings import LlmSection, declared

__all__ = ["LlmSection", "declared"]
