"""The entity types the full instance asks extraction for: the spec's three prose-only shelves.

pydantic models because graphiti-core reads an entity type as one (a boundary, not our data).
"""

from __future__ import annotations

from typing import Any

ENTITY_TYPE_NAMES = ("Decision", "Constraint", "Assumption")
"""What a prose-only statement may be extracted as (entity_types_present names these)."""

_DESCRIPTIONS = {
    "Decision": "A choice a note states was made, and what it binds.",
    "Constraint": "A limit a note states the work must stay within.",
    "Assumption": "Something a note states is taken as true without being checked.",
}


def entity_types() -> dict[str, Any]:
    """name -> the pydantic model graphiti-core is given for it (built lazily: pydantic stays
    off the read path)."""
    from pydantic import BaseModel

    return {name: type(name, (BaseModel,), {"__doc__": _DESCRIPTIONS[name]})
            for name in ENTITY_TYPE_NAMES}
