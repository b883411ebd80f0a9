"""Whether the declared [embedding] provider resolves: one check every surface calls at open."""

from __future__ import annotations

from typing import TYPE_CHECKING

from revetly_core.embedding.settings import EmbeddingSection, declared
from revetly_core.refusal import Refusal

if TYPE_CHECKING:
    from revetly_core.config import Config
    from revetly_core.embedding.provider import Provider

# The providers (numpy, httpx, the model files) load only where one is declared, so a lite
# instance's reads and every CLI start pay nothing for them.

PROBE = ["revetly embedding probe"]


def open_provider(section: EmbeddingSection | None) -> Provider | None:
    """The declared provider opened (None on a lite instance); one that does not resolve is
    raised as the `refused` refusal naming its setting."""
    if section is None or not declared(section):
        return None
    if section.provider == "local":
        from revetly_core.embedding.local import open_local

        return open_local()
    from revetly_core.embedding.openai_compatible import open_openai_compatible

    return open_openai_compatible(section)


def provider_refusal(config: Config) -> Refusal | None:
    """Why the instance's [embedding] provider does not resolve right now, or None: the package
    or its files missing, a setting unset, the endpoint not answering (one probe request)."""
    section = config.embedding
    if section is None or not declared(section):
        return None
    if section.provider == "local":
        from revetly_core.embedding.local import local_refusal

        return local_refusal()
    from revetly_core.embedding.openai_compatible import open_openai_compatible

    try:
        open_openai_compatible(section).embed(PROBE)
    except Refusal as refusal:
        return refusal
    return None
