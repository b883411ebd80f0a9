"""list_backlog: the named project's own work items as compact rows, paged by cursor.

Serve order: by type (epic, feature, story, task, bug), then by id family and number (so
STORY-2 comes before STORY-10 whatever the zero padding), then by the id as held. That order
is also the order a cursor resumes in. Only the project's own items are listed: what it
imports is left out (name that project to list it).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from revetly_core.ids import id_key
from revetly_core.model import WORK_ITEM_STATUSES, WORK_ITEM_TYPES, Artifact
from revetly_core.reads.budget import Cut, cut_report, fit, payload_bytes, read_budget
from revetly_core.reads.cursor import decode_cursor, encode_cursor, invalid_cursor
from revetly_core.reads.envelope import ProjectScope, check_deleted, envelope, resolve_project
from revetly_core.reads.marks import row_marks
from revetly_core.reads.outside import outside_backlog
from revetly_core.refusal import Refusal
from revetly_core.store.queries_backlog import ItemFilter
from revetly_core.store.rows import COMPACT_COLUMNS

if TYPE_CHECKING:
    from revetly_core.answers.backlog import BacklogAnswer, BacklogRow, OutsideBacklog
    from revetly_core.answers.common import CutReport
    from revetly_core.config import Config
    from revetly_core.store.protocols import Store

READ_NAME = "list_backlog"
DEFAULT_LIMIT = 50
MAX_LIMIT = 500
MAX_FILTER_CHARS = 200

TYPE_RANK: dict[str, int] = {t: i for i, t in enumerate(WORK_ITEM_TYPES)}

ROW_COLUMNS = COMPACT_COLUMNS
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
    always present, whatever the filters: the items no type map covered (reads/outside.py).
    """
    deleted = check_deleted(deleted)
    statuses, types, provenances = _checked_filters(status, pbi_type, provenance)
    limit = _limit(limit)
    scope = resolve_project(config, project, with_imports=False)
    filters: dict[str, Any] = {
        "status": statuses, "pbi_type": types, "provenance": provenances,
        "project": scope.label, "deleted": deleted,
    }
    item_filter = ItemFilter(tuple(types or WORK_ITEM_TYPES), tuple(statuses or ()),
                             tuple(provenances or ()), scope.reach, deleted)
    revision = store.revision
    after: SortKey | None = None
    if cursor is not None and cursor != "":
        after = _resume_key(
            decode_cursor(cursor, read=READ_NAME, filters=filters, revision=revision)
        )
    found = sorted(serve_key_of(i, t) for i, t in store.matching_items(item_filter))
    remaining = found if after is None else [k for k in found if k > after]
    more = len(remaining) > limit
    page_ids = [k[3] for k in remaining[:limit]]
    loaded = store.compact_artifacts(page_ids)
    page = [loaded[i] for i in page_ids]
    rows = [compact_row(store, a, multi=scope.multi, with_parent=True) for a in page]
    env = envelope(config, store, scope)
    budget = read_budget(config.read.budget)
    outside, outside_truncated = outside_backlog_block(store, scope, budget)

    def cursor_after(served: int) -> str:
        last = list(serve_key(page[served - 1])) if served else (list(after) if after else None)
        return encode_cursor(READ_NAME, filters, revision, last)

    def build(served: int, cut: CutReport | None) -> BacklogAnswer:
        payload: BacklogAnswer = {"items": rows[:served], "total": len(found), "limit": limit}
        if cut is not None:
            payload["truncated"] = cut
        if more or served < len(page):
            payload["next_cursor"] = cursor_after(served)
        payload["outside_backlog"] = outside
        if outside_truncated is not None:
            payload["outside_backlog_truncated"] = outside_truncated
        return {**payload, **env}

    return _fitted(build, cursor_after, len(page), budget)


def outside_backlog_block(
    store: Store, scope: ProjectScope, budget: int
) -> tuple[OutsideBacklog | dict[str, OutsideBacklog], CutReport | dict[str, CutReport] | None]:
    """The outside_backlog block and its cut report: the project's own, or, on a read spanning
    several, one of each keyed by project, the quarter of the budget shared between them."""
    if not scope.spanning:
        return outside_backlog(store, scope.reach, budget)
    share = budget // len(scope.answering)
    blocks: dict[str, OutsideBacklog] = {}
    cuts: dict[str, CutReport] = {}
    for name in scope.answering:
        blocks[name], cut = outside_backlog(store, (name,), share)
        if cut is not None:
            cuts[name] = cut
    return blocks, (cuts or None)


def _checked_filters(
    status: str | None, pbi_type: str | None, provenance: str | None
) -> tuple[list[str] | None, list[str] | None, list[str] | None]:
    """The status, pbi_type and provenance arguments checked, in that order (None: any)."""
    return (_choices("status", status, WORK_ITEM_STATUSES),
            _choices("pbi_type", pbi_type, WORK_ITEM_TYPES), _free_list("provenance", provenance))


def _fitted(build: Callable[[int, CutReport | None], BacklogAnswer],
            cursor_after: Callable[[int], str], page: int, budget: int) -> BacklogAnswer:
    """The page as built, or cut (from the end) until it fits the read budget."""
    payload = build(page, None)
    if payload_bytes(payload) <= budget:
        return payload
    trial = build(page, cut_report(page, page, budget))
    trial.setdefault("next_cursor", cursor_after(page))
    fit(trial, [Cut(("items",), "truncated")], budget)
    served = len(trial["items"])
    payload = build(served, cut_report(page, served, budget))
    while served and payload_bytes(payload) > budget:  # the resumed cursor may be longer
        served -= 1
        payload = build(served, cut_report(page, served, budget))
    return payload
