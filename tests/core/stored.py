"""Artifacts for tests that write rows into a real store: a story with a title and a body
named after its id, any field given instead."""

from __future__ import annotations

from revetly_core.model import Artifact


def art(aid: str, **kw: object) -> Artifact:
    """A story of project acme read from the repository, titled and bodied after its id."""
    base: dict[str, object] = {"id": aid, "type": "story", "title": f"Title of {aid}",
                               "source": "repository", "project": "acme", "body": f"Body of {aid}"}
    base.update(kw)
    return Artifact(**base)  # type: ignore[arg-type]
