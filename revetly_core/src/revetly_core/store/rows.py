"""How an Artifact is laid out as a row of the artifacts table, and read back."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from typing import Any

from revetly_core.ids import id_key
from revetly_core.model import Artifact, kind_of

ARTIFACT_COLUMNS = (
    "id",
    "project",
    "type",
    "kind",
    "title",
    "status",
    "parent",
    "owner",
    "body",
    "criteria",
    "criteria_unparsed",
    "metadata",
    "aliases",
    "source",
    "source_path",
    "source_uri",
    "blob",
    "created_at",
    "source_updated_at",
    "ingested_at",
    "deleted",
    "deleted_at",
    "deleted_clock",
    "deleted_note",
    "provenance",
    "withheld",
    "id_key",
)



def key_text(artifact_id: str) -> str | None:
    key = id_key(artifact_id)
    return None if key is None else key.text()

COMPACT_COLUMNS = (
    "id, project, type, kind, title, status, parent, owner, '' AS body, criteria, "
    "criteria_unparsed, metadata, aliases, source, source_path, source_uri, blob, created_at, "
    "source_updated_at, ingested_at, deleted, deleted_at, deleted_clock, deleted_note, "
    "provenance, withheld"
)
"""Every artifacts column but the body, which no compact row serves (read as '')."""


_METADATA_JSON = {
    strict: json.JSONEncoder(sort_keys=True, default=str, allow_nan=not strict)
    for strict in (False, True)
}
"""The metadata's encoders, built once (``json.dumps`` with these options builds one a call)."""


def artifact_row(a: Artifact, ingested_at: str, *, strict: bool = False) -> tuple[Any, ...]:
    """An Artifact as a row of the artifacts table, in ARTIFACT_COLUMNS order (``strict``: a
    metadata value JSON cannot hold, NaN or an infinity, raises ValueError)."""
    return (
        a.id, a.project, a.type, kind_of(a.type), a.title, a.status, a.parent, a.owner, a.body,
        json.dumps(a.criteria), int(a.criteria_unparsed),
        _METADATA_JSON[strict].encode(a.metadata),
        json.dumps(a.aliases),
        a.source, a.source_path, a.source_uri, a.blob, a.created_at, a.source_updated_at,
        ingested_at, int(a.deleted), a.deleted_at, a.deleted_clock, a.deleted_note, a.provenance,
        int(bool(a.metadata.get("withheld"))), key_text(a.id),
    )


def detail_json(detail: tuple[tuple[str, Any], ...]) -> str:
    """A link's detail as the links table keeps it: sorted JSON, ``{}`` (not built) when empty."""
    return json.dumps(dict(detail), sort_keys=True) if detail else "{}"


def row_to_artifact(row: sqlite3.Row) -> Artifact:
    """A row of the artifacts table back as an Artifact."""
    return Artifact(
        id=row["id"], type=row["type"], title=row["title"], source=row["source"],
        project=row["project"], body=row["body"], status=row["status"], parent=row["parent"],
        owner=row["owner"], criteria=json.loads(row["criteria"]),
        criteria_unparsed=bool(row["criteria_unparsed"]), metadata=json.loads(row["metadata"]),
        source_path=row["source_path"], source_uri=row["source_uri"], blob=row["blob"],
        created_at=row["created_at"], source_updated_at=row["source_updated_at"],
        deleted=bool(row["deleted"]), deleted_at=row["deleted_at"],
        deleted_clock=row["deleted_clock"], deleted_note=row["deleted_note"],
        provenance=row["provenance"], aliases=json.loads(row["aliases"]),
    )


READ_COLUMNS = ("id", "type", "title", "source", "project", "body", "status", "parent", "owner",
                "criteria", "criteria_unparsed", "metadata", "source_path", "source_uri", "blob",
                "created_at", "source_updated_at", "deleted", "deleted_at", "deleted_clock",
                "deleted_note", "provenance", "aliases")
"""The columns an Artifact is read back from, in the order :func:`tuple_to_artifact` takes."""


def tuple_to_artifact(row: tuple[Any, ...]) -> Artifact:
    """A plain row of READ_COLUMNS back as an Artifact (what row_to_artifact builds, without a
    lookup by name per field: the scans of every artifact)."""
    (aid, typ, title, source, project, body, status, parent, owner, criteria, unparsed, metadata,
     source_path, source_uri, blob, created_at, updated_at, deleted, deleted_at, deleted_clock,
     deleted_note, provenance, aliases) = row
    return Artifact(
        id=aid, type=typ, title=title, source=source, project=project, body=body, status=status,
        parent=parent, owner=owner, criteria=json.loads(criteria),
        criteria_unparsed=bool(unparsed), metadata=json.loads(metadata),
        source_path=source_path, source_uri=source_uri, blob=blob, created_at=created_at,
        source_updated_at=updated_at, deleted=bool(deleted), deleted_at=deleted_at,
        deleted_clock=deleted_clock, deleted_note=deleted_note, provenance=provenance,
        aliases=json.loads(aliases),
    )


def plain_rows(conn: sqlite3.Connection, sql: str, params: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """A query's rows as plain tuples (no sqlite3.Row per row: the scans of thousands of rows)."""
    cur = conn.cursor()
    cur.row_factory = None
    return iter(cur.execute(sql, params))
