"""Whether the declared [embedding] provider resolves: one check every surface calls at open."""

from __future__ import annotations

from typing import TYPE_CHECKING

from revetly_core.embedding.local import local_refusal, open_local
from revetly_core.embedding.openai_compatible import open_openai_compatible
from revetly_core.embedding.provider import Provider
from revetly_core.embedding.settings import EmbeddingSection, declared
from revetly_core.refusal import Refusal

if TYPE_CHECKING:
    from revetly_core.config import Config

PROBE = ["revetly embedding probe"]


def open_provider(section: EmbeddingSection | None) -> Provider | None:
    """The declared provider opened (None on a lite instance); one that does not resolve is
    raised as the `refused` refusal naming its setting."""
    if section is None or not declared(section):
        return None
    if section.provider == "local":
        return open_local()
    return open_openai_compatible(section)


def provider_refusal(config: Config) -> Refusal | None:
    """Why the instance's [embedding] provider does not resolve right now, or None: the package
    or its files missing, a setting unset, the endpoint not answering (one probe request)."""
    section = config.embedding
    if section is None or not declared(section):
        return None
    if section.provider == "local":
        return local_refusal()
    try:
        open_openai_compatible(section).embed(PROBE)
    except Refusal as refusal:
        return refusal
    return None
