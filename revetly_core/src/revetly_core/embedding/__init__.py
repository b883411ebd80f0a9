"""Embedding providers for the semantic leg: the shipped local model, or an openai-compatible
endpoint. Absent, the instance is lite: reading the declaration imports nothing heavier than
`settings`; `resolve` opens a provider."""

from revetly_core.embedding.settings import EmbeddingSection, declared

__all__ = ["EmbeddingSection", "declared"]
