"""The todoist source: one Todoist project's tasks over Todoist's API v1, read incrementally.

A pass posts to ``/sync`` with the source's sync token (``*`` on a full pass) for the
projects, sections, items and notes that changed; the token the answer carries is the next
pass's. Full syncs list open tasks only, so completed tasks come from
``/tasks/completed/by_completion_date``, read forward in windows the endpoint accepts (at most
three months) and paged by its ``next_cursor``; the cursor keeps how far that read got, so an
interrupted backfill resumes at the page it stopped on. Todoist's task ids are opaque text, so
each task is numbered in the source's family in the order it was first read (``TD-1``,
``TD-2``, ...): the number is the artifact id, the Todoist id its ``source_path``
(``tasks/<id>``). Todoist has no task types: labels decide them, through the type map.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from revetly_core.config import Config
from revetly_core.config import TodoistConnector as TodoistSettings
from revetly_core.connectors.base import (
    FileProblem,
    KnownArtifact,
    Progress,
    Removal,
    SourceBatch,
    no_progress,
)
from revetly_core.connectors.github import iso_time
from revetly_core.connectors.tracker_fields import BadItem as BadItem
from revetly_core.connectors.tracker_fields import field_text
from revetly_core.connectors.tracker_http import Sleep, TrackerHttp, TrackerStop
from revetly_core.connectors.tracker_read import (
    JSON_HEADERS,
    TrackerSource,
    bearer,
    record_stop,
)
from revetly_core.connectors.tracker_types import item_type
from revetly_core.model import Artifact, HistoryEntry

if TYPE_CHECKING:
    import httpx

OWN_WORD = "item"
"""The type a task no label map covers ingests with: the sync API's own word for a task."""
SYNC_PATH = "/sync"
COMPLETED_PATH = "/tasks/completed/by_completion_date"
RESOURCE_TYPES = json.dumps(["projects", "sections", "items", "notes"])
"""What a sync asks for; items carry their labels by name, so labels are not asked."""
COMPLETED_LIMIT = "200"
"""The completed endpoint's largest page."""
WINDOW_DAYS = 89
"""One completed read's span: the endpoint takes at most three months between since and until."""
LISTING_PATH = "tasks"
"""The path a problem with the listing itself (not one task) is named under."""
SUMMARY_CHARS = 200
TASK_URL = "https://app.todoist.com/app/task/"
_TIME = "%Y-%m-%dT%H:%M:%SZ"


def todoist_source_id(name: str) -> str:
    """The source id of a declared Todoist project: ``todoist/<name>``."""
    return f"todoist/{name}"


def task_path(task_id: str) -> str:
    """Where a task is named in problems and history: ``tasks/<todoist id>``."""
    return f"tasks/{task_id}"


def task_status(checked: bool) -> str:
    """A checked (completed) task is done; any other is ready (Todoist has no in-progress)."""
    return "done" if checked else "ready"


def project_matches(raw: Mapping[str, Any], wanted: str) -> bool:
    """Whether a project object is the one the setting names: by id, else by name
    (case-folded); a deleted project matches nothing."""
    if raw.get("is_deleted") is True:
        return False
    if raw.get("id") == wanted:
        return True
    name = raw.get("name")
    return isinstance(name, str) and name.casefold() == wanted.casefold()


def completed_windows(start: dt.datetime, end: dt.datetime) -> list[tuple[str, str]]:
    """The (since, until) spans, oldest first, that cover start..end within the completed
    endpoint's limit (WINDOW_DAYS each); at least one, so every pass asks (the bounds are
    inclusive: a task completed in the second a pass began is asked again by the next)."""
    out: list[tuple[str, str]] = []
    while start < end:
        stop = min(end, start + dt.timedelta(days=WINDOW_DAYS))
        out.append((start.strftime(_TIME), stop.strftime(_TIME)))
        start = stop
    return out or [(min(start, end).strftime(_TIME), end.strftime(_TIME))]


def known_numbers(known: Mapping[str, KnownArtifact], prefix: str) -> dict[str, int]:
    """Todoist task id -> the number it was given, from what the store holds (deleted too)."""
    out: dict[str, int] = {}
    for k in known.values():
        family, _, number = k.id.rpartition("-")
        if family == prefix and number.isdigit() and k.path and k.path.startswith("tasks/"):
            out[k.path.removeprefix("tasks/")] = int(number)
    return out


def number_new_tasks(numbers: dict[str, int], tasks: Iterable[Mapping[str, Any]]) -> None:
    """Give each task not yet numbered the next number, in the order Todoist added them
    (``added_at``, then id), so a first read numbers a project the way it grew."""
    fresh = {str(t["id"]): str(t.get("added_at") or "") for t in tasks
             if isinstance(t.get("id"), str) and t["id"] not in numbers}
    top = max(numbers.values(), default=0)
    for task_id in sorted(fresh, key=lambda i: (fresh[i], i)):
        top += 1
        numbers[task_id] = top


def _flag(raw: Mapping[str, Any], key: str) -> bool:
    value = raw.get(key, False)
    if not isinstance(value, bool):
        raise BadItem(f"{key!r} is {type(value).__name__}, not true or false")
    return value


def task_labels(raw: Mapping[str, Any]) -> list[str]:
    """The task's label names (API v1 serves names, not ids)."""
    value = raw.get("labels") or []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise BadItem("'labels' is not a list of names")
    return list(value)


def digest(raw: Mapping[str, Any]) -> str:
    """A fingerprint of the task as served: an unchanged task is not upserted again."""
    text = json.dumps(raw, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:40]


def parse_task(raw: Mapping[str, Any], *, settings: TodoistSettings, source_id: str,
               project: str, numbers: Mapping[str, int], sections: Mapping[str, str]) -> Artifact:
    """One task object as an artifact; raises BadItem naming the field that breaks it."""
    task_id = raw.get("id")
    if not isinstance(task_id, str) or not task_id or task_id not in numbers:
        raise BadItem("'id' is not a task id")
    title = field_text(raw, "content", required=True).strip()
    if not title:
        raise BadItem("'content' is empty")
    body = field_text(raw, "description")
    if len(body.encode("utf-8", "surrogatepass")) > settings.max_body_bytes:
        raise BadItem(f"the description is over the {settings.max_body_bytes}-byte limit")
    checked = _flag(raw, "checked")
    labels = task_labels(raw)
    reading = item_type(None, labels, settings.types, OWN_WORD)
    created = iso_time(raw.get("added_at"))
    completed = iso_time(raw.get("completed_at"))
    updated = iso_time(raw.get("updated_at")) or completed or created
    if updated is None:
        raise BadItem("'updated_at' and 'added_at' are not times")
    section_id, parent_id = raw.get("section_id"), raw.get("parent_id")
    for key, value in (("section_id", section_id), ("parent_id", parent_id),
                       ("responsible_uid", raw.get("responsible_uid"))):
        if value is not None and not isinstance(value, str):
            raise BadItem(f"{key!r} is {type(value).__name__}, not an id")
    declared: dict[str, Any] = {}
    parent = None
    if isinstance(parent_id, str) and parent_id in numbers and parent_id != task_id:
        parent = f"{settings.prefix}-{numbers[parent_id]}"
        declared["parent"] = parent
    owner = raw.get("responsible_uid")
    metadata: dict[str, Any] = {
        "source_kind": "todoist", "task_id": task_id, "native_id": task_id,
        "checked": checked, "labels": labels,
        "native_type": None, "declared": declared, "declared_updated": updated,
        **reading.metadata(),
    }
    if isinstance(section_id, str):
        metadata["section_id"] = section_id
        if section_id in sections:
            metadata["section"] = sections[section_id]
    if isinstance(parent_id, str):
        metadata["parent_task_id"] = parent_id
    if isinstance(raw.get("priority"), int):
        metadata["priority"] = raw["priority"]
    due = raw.get("due")
    if isinstance(due, dict) and isinstance(due.get("date"), str):
        metadata["due"] = due["date"]
    if completed:
        metadata["completed_at"] = completed
    if created:
        metadata["declared_created"] = created
    return Artifact(
        id=f"{settings.prefix}-{numbers[task_id]}", type=reading.type, title=title,
        source=source_id, project=project, body=body, status=task_status(checked),
        parent=parent, owner=owner if isinstance(owner, str) else None, metadata=metadata,
        source_path=task_path(task_id), source_uri=f"{TASK_URL}{task_id}", blob=digest(raw),
        created_at=created, source_updated_at=updated, provenance="source-of-record")


def note_entry(raw: Mapping[str, Any]) -> tuple[str, HistoryEntry]:
    """(task id, the change note) of one comment; raises BadItem when it has no task, id or
    time."""
    task_id, note_id = raw.get("item_id"), raw.get("id")
    at = iso_time(raw.get("posted_at"))
    if not isinstance(task_id, str) or not isinstance(note_id, str) or at is None:
        raise BadItem("a comment without its task, id or time")
    body = field_text(raw, "content")
    author = raw.get("posted_uid")
    first = next((ln.strip() for ln in body.splitlines() if ln.strip()), "")
    return task_id, HistoryEntry(task_path(task_id), at, "commented", f"comment/{note_id}",
                                 author if isinstance(author, str) else None,
                                 first[:SUMMARY_CHARS] or None)


@dataclass
class _Completed:
    """How far the completed read got: the time it covers up to, and the page it stopped
    on (window and cursor), if it stopped."""

    since: str
    page: dict[str, str] | None = None
    stop: TrackerStop | None = None
    tasks: list[Any] = field(default_factory=list)


class TodoistConnector(TrackerSource):
    """Reads one declared Todoist project's tasks and comments; ``transport`` is httpx's seam."""

    def __init__(self, settings: TodoistSettings, config: Config, *,
                 transport: httpx.BaseTransport | None = None, sleep: Sleep = time.sleep,
                 clock: Callable[[], float] = time.time,
                 environ: Mapping[str, str] = os.environ) -> None:
        super().__init__(todoist_source_id(settings.name),
                         settings.revetly_project or config.default_project,
                         transport=transport, sleep=sleep, clock=clock, environ=environ)
        self.settings = settings

    def http(self) -> TrackerHttp:
        """A client for ``api_url`` carrying the token (when its variable is set)."""
        return self.client(self.settings, JSON_HEADERS, bearer)

    def read(
        self,
        known: dict[str, KnownArtifact],
        cursor: dict[str, Any],
        *,
        full: bool,
        now: str,
        progress: Progress = no_progress,
    ) -> SourceBatch:
        batch = SourceBatch(source=self.source_id)
        batch.history_complete = False  # comments of completed tasks are not re-listed
        batch.complete = False  # full syncs omit completed tasks: absence is no removal
        batch.cursor = dict(cursor)
        when = _when(now)
        horizon = (when - dt.timedelta(days=self.settings.completed_days)).strftime(_TIME)
        token = "*" if full else str(cursor.get("sync_token") or "*")
        http = self.http()
        try:
            try:
                synced = self._sync_or_restart(http, token)
            except TrackerStop as stop:
                self._stopped(batch, stop)
                return batch
            project_id = self._project_id(synced, cursor)
            if project_id is None:
                self._stopped(batch, TrackerStop(
                    "refused", f"no Todoist project has the id or name "
                    f"{self.settings.project!r} (check `project` and the token's account)",
                    resumable=False))
                return batch
            sections = section_names(synced.get("sections"), project_id,
                                     {} if full else dict(cursor.get("sections") or {}))
            page = None if full else cursor.get("completed_page")
            since = horizon if full else str(cursor.get("completed_since") or horizon)
            completed = self._completed(http, project_id, since, page, when)
        finally:
            self.done_with(http)
        self._take(batch, known, synced, completed, project_id, sections, full=full,
                   now=now, progress=progress)
        batch.cursor = {"sync_token": synced["sync_token"], "project_id": project_id,
                        "sections": sections, "completed_since": completed.since,
                        "completed_page": completed.page}
        if completed.stop is not None:
            self._stopped(batch, completed.stop)
        return batch

    def _sync_or_restart(self, http: TrackerHttp, token: str) -> dict[str, Any]:
        """The sync from ``token``; a token Todoist refuses (one it no longer keeps) is
        dropped and the sync starts over from ``*`` in the same pass."""
        try:
            return self._sync(http, token)
        except TrackerStop as stop:
            if stop.code != "refused" or token == "*":
                raise
        return self._sync(http, "*")

    def _sync(self, http: TrackerHttp, token: str) -> dict[str, Any]:
        """One sync request's answer, checked to be the documented object."""
        data = http.post_form(SYNC_PATH, {"sync_token": token,
                                          "resource_types": RESOURCE_TYPES}).data
        if not isinstance(data, dict) or not isinstance(data.get("sync_token"), str):
            raise TrackerStop("malformed", "/sync answered without a sync_token",
                              resumable=True)
        for key in ("projects", "sections", "items", "notes"):
            if not isinstance(data.get(key, []), list):
                raise TrackerStop("malformed", f"/sync answered {key!r} that is not a list",
                                  resumable=True)
        return data

    def _project_id(self, synced: Mapping[str, Any], cursor: Mapping[str, Any]) -> str | None:
        """The declared project's id: from the projects the sync sent, else the cursor's."""
        for raw in synced.get("projects") or []:
            if isinstance(raw, dict) and project_matches(raw, self.settings.project):
                return str(raw["id"])
        held = cursor.get("project_id")
        return held if isinstance(held, str) and synced.get("full_sync") is not True else None

    def _completed(self, http: TrackerHttp, project_id: str, since: str,
                   page: Mapping[str, str] | None, when: dt.datetime) -> _Completed:
        """Completed tasks from ``since`` (or the page a stopped read named) up to now."""
        got = _Completed(since=since)
        windows = completed_windows(_when(since), when)
        resume = None
        if page and isinstance(page.get("since"), str) and isinstance(page.get("until"), str):
            windows = [(page["since"], page["until"]), *(
                completed_windows(_when(page["until"]), when) if _when(page["until"]) < when
                else [])]
            resume = page.get("cursor")
        for start, stop in windows:
            next_cursor: str | None = resume if isinstance(resume, str) else None
            resume = None
            while True:
                params = {"project_id": project_id, "since": start, "until": stop,
                          "limit": COMPLETED_LIMIT}
                if next_cursor:
                    params["cursor"] = next_cursor
                try:
                    data = http.get(COMPLETED_PATH, params).data
                    items, next_cursor = _completed_page(data)
                except TrackerStop as halt:
                    got.page = {"since": start, "until": stop, **(
                        {"cursor": params["cursor"]} if "cursor" in params else {})}
                    got.stop = halt
                    return got
                got.tasks.extend(items)
                if not next_cursor:
                    break
            got.since = stop
        return got

    def _take(self, batch: SourceBatch, known: dict[str, KnownArtifact], synced: dict[str, Any],
              completed: _Completed, project_id: str, sections: Mapping[str, str], *,
              full: bool, now: str, progress: Progress) -> None:
        numbers = known_numbers(known, self.settings.prefix)
        tasks: dict[str, dict[str, Any]] = {}
        for index, raw in enumerate([*synced.get("items", []), *completed.tasks]):
            if not isinstance(raw, dict) or not isinstance(raw.get("id"), str):
                batch.problems.append(FileProblem(
                    self.source_id, f"{LISTING_PATH} (item {index + 1} of a response)",
                    "malformed-item", "the task is skipped: it has no id"))
                continue
            if raw["id"] in tasks:
                continue  # the sync's view of a task is the newer one
            if raw.get("project_id") != project_id:
                if raw["id"] in numbers:  # moved to another project: gone from this one
                    batch.removals.append(Removal(f"{self.settings.prefix}-{numbers[raw['id']]}",
                                                  now, "found", "moved out of the project"))
                continue
            tasks[raw["id"]] = raw
        number_new_tasks(numbers, (t for t in tasks.values() if t.get("is_deleted") is not True))
        read = 0
        for task_id, raw in tasks.items():
            read += 1
            path = task_path(task_id)
            batch.cleared_paths.add(path)
            if raw.get("is_deleted") is True:
                if task_id in numbers:
                    batch.removals.append(Removal(f"{self.settings.prefix}-{numbers[task_id]}",
                                                  now, "found", "deleted in Todoist"))
                continue
            try:
                art = parse_task(raw, settings=self.settings, source_id=self.source_id,
                                 project=self.project, numbers=numbers, sections=sections)
            except (BadItem, TypeError, ValueError, AttributeError, RecursionError) as exc:
                batch.problems.append(FileProblem(self.source_id, path, "malformed-item",
                                                  f"the task is skipped: {exc}"))
                continue
            k = known.get(art.id)
            if full or k is None or k.deleted or k.blob != art.blob:
                batch.upserts.append(art)
        progress(f"read {self.source_id}", read, 0)
        batch.read_count = read
        batch.cleared_paths.add(LISTING_PATH)
        self._take_notes(batch, synced.get("notes", []), numbers)

    def _take_notes(self, batch: SourceBatch, notes: list[Any], numbers: Mapping[str, int],
                    ) -> None:
        for raw in notes:
            try:
                if not isinstance(raw, dict):
                    raise BadItem("a comment is not an object")
                if raw.get("is_deleted") is True:
                    continue
                task_id, entry = note_entry(raw)
            except (BadItem, TypeError, ValueError, AttributeError) as exc:
                batch.problems.append(FileProblem(self.source_id, f"{LISTING_PATH}/comments",
                                                  "malformed-comment",
                                                  f"a comment is skipped: {exc}",
                                                  severity="warning"))
                continue
            if task_id in numbers:  # another project's comments are not this one's history
                batch.history.append(entry)

    def _stopped(self, batch: SourceBatch, stop: TrackerStop) -> None:
        """Say why the read stopped: partial when the next pass resumes, named by check."""
        batch.cleared_paths.add(LISTING_PATH)
        record_stop(batch, LISTING_PATH, stop)


def _when(text: str) -> dt.datetime:
    """An ISO time (``Z`` or an offset) as an aware UTC datetime."""
    when = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    return when if when.tzinfo is not None else when.replace(tzinfo=dt.UTC)


def section_names(raw: object, project_id: str, held: Mapping[str, str]) -> dict[str, str]:
    """Section id -> name of the project's sections: those held, updated by a sync answer's
    (a deleted one, or one moved to another project, dropped)."""
    out = dict(held)
    for s in raw if isinstance(raw, list) else []:
        if not isinstance(s, dict) or not isinstance(s.get("id"), str):
            continue
        if s.get("project_id") == project_id and isinstance(s.get("name"), str) and \
                s.get("is_deleted") is not True:
            out[s["id"]] = s["name"]
        else:
            out.pop(s["id"], None)
    return out


def _completed_page(data: object) -> tuple[list[Any], str | None]:
    """(items, next_cursor) of one completed page, or TrackerStop(malformed)."""
    if not isinstance(data, dict) or not isinstance(data.get("items"), list):
        raise TrackerStop("malformed", f"{COMPLETED_PATH} answered without an items list",
                          resumable=True)
    cursor = data.get("next_cursor")
    return data["items"], cursor if isinstance(cursor, str) and cursor else None
