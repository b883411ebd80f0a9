"""The store's queries behind the read pass: stored records, phrases and what a change re-links."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from typing import Any

from revetly_core.connectors.base import KnownArtifact
from revetly_core.model import COMMIT_TYPE, Artifact
from revetly_core.store.batches import batches, marks
from revetly_core.store.rows import (
    ARTIFACT_COLUMNS,
    READ_COLUMNS,
    plain_rows,
    row_to_artifact,
    tuple_to_artifact,
)

COMPARED_COLUMNS = tuple(c for c in ARTIFACT_COLUMNS if c != "ingested_at")
"""Every artifacts column a re-read can change (all but the ingest time)."""

LinkKey = tuple[str, str, str, str]
"""(src, dst, relation, method): a link's primary key."""

_KNOWN = "id, source_path, blob, deleted, deleted_at, deleted_clock"


def _json_list(value: object) -> list[Any]:
    """A list json_extract gave back as JSON text; anything else (a scalar, broken text) is []."""
    if not isinstance(value, str) or not value.startswith("["):
        return []
    try:
        parsed = json.loads(value)
    except ValueError:
        return []
    return parsed if isinstance(parsed, list) else []


def _known(row: tuple[Any, ...]) -> KnownArtifact:
    return KnownArtifact(row[0], row[1], row[2], bool(row[3]), row[4], row[5])


class PassQueries:
    """Mixin of the SQLite store: the reads the read pass makes of what it stored before."""

    conn: sqlite3.Connection

    def compared_records(self, source: str) -> dict[str, tuple[Any, ...]]:
        """id -> the stored record (COMPARED_COLUMNS) of each artifact of one source, one scan."""
        cols = ", ".join(COMPARED_COLUMNS)
        return {row[0]: tuple(row) for row in self.conn.execute(
            f"SELECT {cols} FROM artifacts WHERE source=?", (source,))}

    def known_of_id(self, source: str, artifact_id: str) -> KnownArtifact | None:
        """What the store holds of one artifact of a source (by its id), or None."""
        row = self.conn.execute(
            f"SELECT {_KNOWN} FROM artifacts WHERE id=? AND source=?", (artifact_id, source)
        ).fetchone()
        return None if row is None else _known(tuple(row))

    def known_at_path(self, source: str, path: str) -> list[KnownArtifact]:
        """Every artifact of a source read from one path (deleted ones too), in id order."""
        return [_known(tuple(r)) for r in self.conn.execute(
            f"SELECT {_KNOWN} FROM artifacts WHERE source=? AND source_path=? ORDER BY id",
            (source, path))]

    def known_with_key(self, source: str, key_text: str) -> list[KnownArtifact]:
        """Every artifact of a source whose id has this key (any spelling), in id order."""
        return [_known(tuple(r)) for r in self.conn.execute(
            f"SELECT {_KNOWN} FROM artifacts WHERE id_key=? AND source=? ORDER BY id",
            (key_text, source))]

    def all_phrases(self) -> list[tuple[str, str]]:
        """(artifact id, phrase) of every mention phrase held."""
        return [(r[0], r[1]) for r in self.conn.execute("SELECT artifact_id, phrase FROM phrases")]

    def title_mentioners(self, artifact_id: str) -> list[str]:
        """Artifacts with a live title-mention link to this one."""
        return [r[0] for r in self.conn.execute(
            "SELECT src FROM links WHERE dst=? AND method='title-mention' AND invalid_at IS NULL",
            (artifact_id,))]

    def bodies_containing(self, probe: str) -> list[tuple[str, str]]:
        """(id, body) of the non-commit artifacts whose lowercased body contains probe
        (Python's lower(): SQLite's folds ASCII only)."""
        return [(r[0], r[1]) for r in self.conn.execute(
            "SELECT id, body FROM artifacts WHERE type != ? AND instr(py_lower(body), ?) > 0",
            (COMMIT_TYPE, probe))]

    def other_spellers(self, key_text: str, artifact_id: str) -> list[str]:
        """Artifacts with a live link naming the id key but not this exact id."""
        return [r[0] for r in self.conn.execute(
            "SELECT DISTINCT src FROM links WHERE dst_key=? AND dst != ? AND invalid_at IS NULL",
            (key_text, artifact_id))]

    def live_link_keys(self) -> list[LinkKey]:
        """The key of every live link."""
        return [(r[0], r[1], r[2], r[3]) for r in self.conn.execute(
            "SELECT src, dst, relation, method FROM links WHERE invalid_at IS NULL")]

    def live_link_keys_from(self, ids: list[str]) -> list[LinkKey]:
        """The key of every live link out of ids."""
        out: list[LinkKey] = []
        for part in batches(ids):
            out.extend((r[0], r[1], r[2], r[3]) for r in self.conn.execute(
                f"SELECT src, dst, relation, method FROM links WHERE invalid_at IS NULL "
                f"AND src IN ({marks(part)})", tuple(part)))
        return out

    def artifacts_by_ids(self, ids: list[str]) -> Iterator[Artifact]:
        """The held artifacts with these ids, batch by batch (each batch in id order)."""
        for part in batches(ids):
            for row in self.conn.execute(
                f"SELECT * FROM artifacts WHERE id IN ({marks(part)}) ORDER BY id", tuple(part)
            ):
                yield row_to_artifact(row)

    def all_artifacts(self) -> Iterator[Artifact]:
        """Every held artifact in id order, from one scan (what a full pass re-links): the
        same artifacts, in the same order, as artifacts_by_ids of every id."""
        for row in plain_rows(self.conn, f"SELECT {', '.join(READ_COLUMNS)} FROM artifacts "
                              "ORDER BY id"):
            yield tuple_to_artifact(row)

    def index_documents(self) -> Iterator[Artifact]:
        """Every held artifact as the keyword index reads it, in id order: id, type, project,
        title, body, its labels and the withheld flag (the other fields are left empty)."""
        cur = self.conn.cursor()
        cur.row_factory = None
        for aid, typ, project, title, body, source, withheld, labels in cur.execute(
            "SELECT id, type, project, title, body, source, withheld, "
            "json_extract(metadata, '$.labels') FROM artifacts ORDER BY id"
        ):
            metadata: dict[str, Any] = {"withheld": True} if withheld else {}
            if labels is not None:
                metadata["labels"] = _json_list(labels)
            yield Artifact(id=aid, type=typ, title=title, source=source, project=project,
                           body=body, metadata=metadata)
