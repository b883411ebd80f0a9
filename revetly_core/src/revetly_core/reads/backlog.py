"""list_backlog: the named project's own work items as compact rows, paged by cursor.

Serve order: by type (epic, feature, story, task, bug), then by id family and number (so
STORY-2 comes before STORY-10 whatever the zero padding), then by the id as held. That order
is also the order a cursor resumes in. Only the project's own items are listed: what it
imports is left out (name that project to list it).
"""

from __future__ import annotations

from typing import Any

from revetly_core.answers.backlog import BacklogAnswer, BacklogRow
from revetly_core.answers.common import CutReport
from revetly_core.config import Config
from revetly_core.ids import id_key
from revetly_core.model import WORK_ITEM_STATUSES, WORK_ITEM_TYPES, Artifact
from revetly_core.reads.budget import Cut, cut_report, fit, payload_bytes, read_budget
from revetly_core.reads.cursor import decode_cursor, encode_cursor, invalid_cursor
from revetly_core.reads.envelope import check_deleted, deleted_clause, envelope, resolve_project
from revetly_core.reads.marks import row_marks
from revetly_core.refusal import Refusal
from revetly_core.store.db import Store, row_to_artifact

READ_NAME = "list_backlog"
DEFAULT_LIMIT = 50
MAX_LIMIT = 500
MAX_FILTER_CHARS = 200

TYPE_RANK: dict[str, int] = {t: i for i, t in enumerate(WORK_ITEM_TYPES)}

ROW_COLUMNS = (
    "id, project, type, kind, title, status, parent, owner, '' AS body, criteria, "
    "criteria_unparsed, metadata, aliases, source, source_path, source_uri, blob, created_at, "
    "source_updated_at, ingested_at, deleted, deleted_at, deleted_clock, deleted_note, "
    "provenance, withheld"
)
"""Every artifacts column but the body, which no compact row serves (read as '')."""

SortKey = tuple[int, str, int, str]


def serve_key(a: Artifact) -> SortKey:
    """Where a work item stands in the serve order: type rank, id family, id number, id."""
    return serve_key_of(a.id, a.type)


def serve_key_of(artifact_id: str, artifact_type: str) -> SortKey:
    """serve_key from the two columns it reads, so a listing sorts without loading rows."""
    key = id_key(artifact_id)
    rank = TYPE_RANK.get(artifact_type, len(TYPE_RANK))
    if key is None:
        return (rank, "", -1, artifact_id)
    return (rank, key.family, key.number, artifact_id)


def compact_row(store: Store, a: Artifact, *, multi: bool, with_parent: bool) -> BacklogRow:
    """One compact row: identity, status and source time, then the marks that apply."""
    row: BacklogRow = {
        "artifact_id": a.id,
        "title": a.title,
        "status": a.status,
        "artifact_type": a.type,
        "source_updated_at": a.source_updated_at,
    }
    if with_parent:
        row["parent"] = a.parent
    if multi:
        row["project"] = a.project
    row = {**row, **row_marks(store, a)}
    if a.metadata.get("withheld"):
        row["withheld"] = True
    return row


def _split_list(argument: str, value: object, example: str) -> list[str] | None:
    """One value or a comma list, as a sorted list of distinct values (None when absent)."""
    if value is None or value == "":
        return None
    if not isinstance(value, str) or len(value) > MAX_FILTER_CHARS:
        raise Refusal(
            "invalid-argument", f"{argument} must be one value or a comma-separated list",
            f"pass {argument} as {example}", {"argument": argument},
        )
    return sorted({v.strip() for v in value.split(",") if v.strip()}) or None


def _choices(argument: str, value: object, allowed: tuple[str, ...]) -> list[str] | None:
    """One value or a comma list, each one of ``allowed``; refused naming them otherwise."""
    example = f"one of: {', '.join(allowed)}"
    picked = _split_list(argument, value, example)
    if picked is None and value not in (None, ""):
        picked = []
    if picked is None:
        return None
    unknown = [v for v in picked if v not in allowed]
    if unknown or not picked:
        named = ", ".join(repr(v) for v in unknown) or repr(value)
        raise Refusal(
            "invalid-argument", f"{argument} {named} is not one this read knows",
            f"pass {argument} as {example}", {"argument": argument},
        )
    return picked


def _free_list(argument: str, value: object) -> list[str] | None:
    return _split_list(argument, value, "text such as 'source-of-record'")


def _limit(limit: object) -> int:
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT:
        raise Refusal(
            "invalid-argument", f"limit={limit!r} is not a whole number from 1 to {MAX_LIMIT}",
            f"pass limit between 1 and {MAX_LIMIT} and page on with next_cursor",
            {"argument": "limit"},
        )
    return limit


def _resume_key(after: list[Any] | None) -> SortKey | None:
    if after is None:
        return None
    if (
        len(after) == 4
        and isinstance(after[0], int) and not isinstance(after[0], bool)
        and isinstance(after[1], str)
        and isinstance(after[2], int) and not isinstance(after[2], bool)
        and isinstance(after[3], str)
    ):
        return (after[0], after[1], after[2], after[3])
    raise invalid_cursor(READ_NAME, "it holds no backlog position")


def _in(column: str, values: list[str]) -> tuple[str, tuple[str, ...]]:
    return f"{column} IN ({','.join('?' for _ in values)})", tuple(values)


def list_backlog(
    config: Config,
    store: Store,
    *,
    status: str | None = None,
    provenance: str | None = None,
    pbi_type: str | None = None,
    limit: int = DEFAULT_LIMIT,
    cursor: str | None = None,
    project: str | None = None,
    deleted: str | None = None,
) -> BacklogAnswer:
    """One page of the project's own work items, in serve order, fitted to the read budget.

    ``total`` counts every item the filters match; ``next_cursor`` resumes after the last
    row served (a budget cut moves it back, so no row is skipped). ``outside_backlog`` is
    always present: no connector yet ingests untyped tracker items, so it reads empty.
    """
    deleted = check_deleted(deleted)
    statuses = _choices("status", status, WORK_ITEM_STATUSES)
    types = _choices("pbi_type", pbi_type, WORK_ITEM_TYPES)
    provenances = _free_list("provenance", provenance)
    limit = _limit(limit)
    scope = resolve_project(config, project, with_imports=False)
    filters: dict[str, Any] = {
        "status": statuses, "pbi_type": types, "provenance": provenances,
        "project": scope.name, "deleted": deleted,
    }
    revision = store.revision
    after: SortKey | None = None
    if cursor is not None and cursor != "":
        after = _resume_key(
            decode_cursor(cursor, read=READ_NAME, filters=filters, revision=revision)
        )

    clauses: list[str] = [deleted_clause(deleted)]
    params: list[str] = []
    for column, values in (
        ("type", types or list(WORK_ITEM_TYPES)), ("status", statuses), ("provenance", provenances)
    ):
        if values:
            sql, p = _in(column, values)
            clauses.append(sql)
            params.extend(p)
    project_sql, project_params = scope.sql()
    clauses.append(project_sql)
    params.extend(project_params)
    found = sorted(
        serve_key_of(r[0], r[1])
        for r in store.conn.execute(
            f"SELECT id, type FROM artifacts WHERE {' AND '.join(clauses)}", tuple(params)
        )
    )
    remaining = found if after is None else [k for k in found if k > after]
    page_keys = remaining[:limit]
    more = len(remaining) > limit
    page_ids = [k[3] for k in page_keys]
    loaded = {
        r["id"]: row_to_artifact(r)
        for r in store.conn.execute(
            f"SELECT {ROW_COLUMNS} FROM artifacts WHERE id IN ({','.join('?' * len(page_ids))})",
            tuple(page_ids),
        )
    } if page_ids else {}
    page = [loaded[i] for i in page_ids]
    rows = [compact_row(store, a, multi=scope.multi, with_parent=True) for a in page]
    env = envelope(config, store, scope)

    def cursor_after(served: int) -> str:
        last = list(serve_key(page[served - 1])) if served else (list(after) if after else None)
        return encode_cursor(READ_NAME, filters, revision, last)

    def build(served: int, cut: CutReport | None) -> BacklogAnswer:
        payload: BacklogAnswer = {"items": rows[:served], "total": len(found), "limit": limit}
        if cut is not None:
            payload["truncated"] = cut
        if more or served < len(page):
            payload["next_cursor"] = cursor_after(served)
        payload["outside_backlog"] = {"count": 0, "items": []}
        return {**payload, **env}

    budget = read_budget(config.read.budget)
    payload = build(len(page), None)
    if payload_bytes(payload) <= budget:
        return payload
    trial = build(len(page), cut_report(len(page), len(page), budget))
    trial.setdefault("next_cursor", cursor_after(len(page)))
    fit(trial, [Cut(("items",), "truncated")], budget)
    served = len(trial["items"])
    payload = build(served, cut_report(len(page), served, budget))
    while served and payload_bytes(payload) > budget:  # the resumed cursor may be longer
        served -= 1
        payload = build(served, cut_report(len(page), served, budget))
    return payload
