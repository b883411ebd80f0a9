"""A local stand-in for Todoist's API v1: the sync endpoint, completed tasks, and the REST
writes the write adapter sends.

It serves ``POST /api/v1/sync`` (form fields ``sync_token`` and ``resource_types``, the
latter JSON-encoded, as Todoist documents them): ``*`` answers a full sync (live projects,
sections, open tasks and their comments, ``full_sync: true``), any token it issued answers
what changed since (checked and deleted tasks included, ``full_sync: false``), and every
answer carries the next ``sync_token``. It serves
``GET /api/v1/tasks/completed/by_completion_date`` with ``since``/``until`` (at most three
months apart), ``project_id``, ``limit`` (at most 200) and ``cursor``, answering
``{"items": [...], "next_cursor": ...}``; ``GET /api/v1/comments?task_id=`` answering
``{"results": [...], "next_cursor": ...}``; and the writes ``POST /api/v1/tasks/{id}/close``,
``/reopen`` (204), ``POST /api/v1/comments`` and ``POST /api/v1/comments/{id}`` (JSON bodies,
the comment answered). Faults are injected per path (a status with headers, a body that is
not JSON, a connection dropped mid-body), and every request is recorded (method, path,
query, form, JSON body, headers) so tests assert what the connector and the adapter sent.
"""

from __future__ import annotations

import base64
import datetime as dt
import json
from contextlib import AbstractContextManager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qs, urlsplit

from tests.support.fake_tracker import Faults, TrackerFault, cut_short, serving_on_localhost

API = "/api/v1"
SYNC = f"{API}/sync"
COMPLETED = f"{API}/tasks/completed/by_completion_date"
COMMENTS = f"{API}/comments"
PROJECT_ID = "6Jf8VQXxpwv56VQ7"
USER_ID = "2671355"
MAX_WINDOW = dt.timedelta(days=92)


def todoist_time(when: dt.datetime) -> str:
    """Todoist's time format: UTC with microseconds and ``Z``."""
    return when.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _parse(text: str) -> dt.datetime:
    when = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    return when if when.tzinfo is not None else when.replace(tzinfo=dt.UTC)


@dataclass
class Request:
    """One request the fake received."""

    method: str
    path: str
    query: dict[str, str]
    form: dict[str, str]
    headers: dict[str, str]
    body: Any = None
    """The JSON body of a write."""


@dataclass
class Fault(TrackerFault):
    """What the fake answers instead, for requests whose path ends with ``path``."""

    body: bytes = b'{"error": "Service unavailable", "error_code": 0, "http_code": 500}'


class FakeTodoist(Faults[Fault]):
    """One account's projects, sections, tasks and comments, served on 127.0.0.1."""

    def __init__(self, project: str = "App", project_id: str = PROJECT_ID) -> None:
        super().__init__()
        self.start = dt.datetime.now(dt.UTC).replace(microsecond=0) - dt.timedelta(days=30)
        self.tick = 0
        self.rev = 0
        self.objects: dict[str, dict[str, dict[str, Any]]] = {
            "projects": {}, "sections": {}, "items": {}, "notes": {}}
        self.changed: dict[tuple[str, str], int] = {}
        self.requests: list[Request] = []
        self.token_floor = 0
        self.closed: dict[str, dt.datetime] = {}
        """Task id -> when it was completed, by the fake's own record: a served field a test
        broke never moves a task between the full sync and the completed listing."""
        self.url = ""
        self._serial = 0
        self.project_id = project_id
        self.add_project(project_id, project)
        self.add_project("6Jf8VQXxpwv00000", "Elsewhere")

    # -- building the account ----------------------------------------------------------------

    def now(self, *, step: int = 1) -> str:
        """The fake's clock: 30 days ago when it was built, a second more per change."""
        self.tick += step
        return todoist_time(self.start + dt.timedelta(seconds=self.tick))

    def _new_id(self, kind: str) -> str:
        self._serial += 1
        return f"6X{kind[0]}{self._serial:07d}q"

    def _put(self, kind: str, obj: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            self.rev += 1
            self.objects[kind][obj["id"]] = obj
            self.changed[(kind, obj["id"])] = self.rev
        return obj

    def add_project(self, project_id: str, name: str) -> dict[str, Any]:
        when = self.now()
        return self._put("projects", {
            "id": project_id, "name": name, "color": "charcoal", "parent_id": None,
            "child_order": len(self.objects["projects"]), "is_collapsed": False, "shared": False,
            "can_assign_tasks": False, "is_deleted": False, "is_archived": False,
            "is_favorite": False, "view_style": "list", "inbox_project": False,
            "description": "", "default_order": 0, "created_at": when, "updated_at": when})

    def add_section(self, name: str, *, project_id: str | None = None) -> dict[str, Any]:
        when = self.now()
        return self._put("sections", {
            "id": self._new_id("section"), "name": name,
            "project_id": project_id or self.project_id,
            "section_order": len(self.objects["sections"]) + 1, "is_collapsed": False,
            "user_id": USER_ID, "is_deleted": False, "is_archived": False, "archived_at": None,
            "added_at": when, "updated_at": when})

    def add_task(self, content: str, *, labels: tuple[str, ...] = (), description: str = "",
                 section: str | None = None, parent: str | None = None,
                 project_id: str | None = None, responsible: str | None = None,
                 checked: bool = False, priority: int = 1) -> dict[str, Any]:
        """A task as the sync endpoint serves it; a checked one is completed now."""
        when = self.now()
        task_id = self._new_id("item")
        if checked:
            self.closed[task_id] = _parse(when)
        return self._put("items", {
            "id": task_id, "user_id": USER_ID,
            "project_id": project_id or self.project_id, "section_id": section,
            "parent_id": parent, "added_by_uid": USER_ID, "assigned_by_uid": None,
            "responsible_uid": responsible, "labels": list(labels), "deadline": None,
            "duration": None, "checked": checked, "is_deleted": False, "added_at": when,
            "completed_at": when if checked else None,
            "completed_by_uid": USER_ID if checked else None, "updated_at": when,
            "due": None, "priority": priority, "child_order": len(self.objects["items"]) + 1,
            "content": content, "description": description, "note_count": 0,
            "day_order": -1, "is_collapsed": False})

    def touch(self, task_id: str, **changes: Any) -> dict[str, Any]:
        """Change a task: its fields as given, ``updated_at`` the next tick."""
        item = dict(self.objects["items"][task_id], **changes, updated_at=self.now())
        return self._put("items", item)

    def complete(self, task_id: str) -> dict[str, Any]:
        when = self.now()
        self.closed[task_id] = _parse(when)
        return self.touch(task_id, checked=True, completed_at=when, completed_by_uid=USER_ID)

    def delete(self, task_id: str) -> dict[str, Any]:
        return self.touch(task_id, is_deleted=True)

    def add_note(self, task_id: str, content: str, *, author: str = USER_ID) -> dict[str, Any]:
        when = self.now()
        return self._put("notes", {
            "id": self._new_id("note"), "posted_uid": author, "item_id": task_id,
            "content": content, "file_attachment": None, "uids_to_notify": [],
            "is_deleted": False, "posted_at": when, "reactions": None})

    def fail(self, path: str, **kwargs: Any) -> Fault:
        """Answer the next request(s) to ``path`` with a fault (see Fault)."""
        fault = Fault(path, **kwargs)
        with self._lock:
            self.faults.append(fault)
        return fault

    def rate_limit(self, path: str, *, after: int = 0, retry_after: int = 3600) -> Fault:
        """Todoist's rate limit: 429 with ``Retry-After`` and its error object."""
        return self.fail(path, status=429, after=after, headers={
            "Retry-After": str(retry_after)}, body=json.dumps({
                "error": "Too many requests", "error_code": 35, "error_tag": "LIMITS_REACHED",
                "error_extra": {"retry_after": retry_after}, "http_code": 429}).encode())

    # -- answering ---------------------------------------------------------------------------

    def token(self) -> str:
        """The sync token for the fake's current state (opaque to a client)."""
        return base64.urlsafe_b64encode(f"rev:{self.rev}".encode()).decode()

    def expire_tokens(self) -> None:
        """Forget every sync token issued so far: they are answered 400 from now on."""
        self.token_floor = self.rev + 1

    def _since(self, token: str) -> int | None:
        if token == "*":
            return 0
        try:
            kind, _, rev = base64.urlsafe_b64decode(token.encode()).decode().partition(":")
            since = int(rev) if kind == "rev" else None
        except (ValueError, UnicodeDecodeError):
            return None
        return since if since is not None and since >= self.token_floor else None

    def sync(self, form: dict[str, str]) -> tuple[int, dict[str, Any]]:
        """A sync answer: the resources asked for, changed since the token."""
        out: dict[str, Any] = {}
        token = form.get("sync_token", "*")
        since = self._since(token)
        if since is None:
            return 400, {"error": "Invalid sync token", "error_code": 33,
                         "error_tag": "INVALID_SYNC_TOKEN", "http_code": 400}
        full = token == "*"
        wanted = json.loads(form.get("resource_types", '["all"]'))
        with self._lock:
            for kind, objects in self.objects.items():
                if "all" not in wanted and kind not in wanted:
                    continue
                rows = [o for i, o in objects.items() if self.changed[(kind, i)] > since]
                if full:
                    rows = [o for o in rows if self._live(kind, o)]
                out[kind] = [dict(o) for o in rows]
            out.update(sync_token=self.token(), full_sync=full,
                       full_sync_date_utc=todoist_time(self.start) if full else None)
        out.setdefault("temp_id_mapping", {})
        return 200, out

    def _live(self, kind: str, obj: dict[str, Any]) -> bool:
        """What a full sync lists: nothing deleted, no completed task nor its comments."""
        if obj.get("is_deleted") is True:
            return False
        if kind == "items":
            return obj["id"] not in self.closed
        if kind == "notes":
            item = self.objects["items"].get(obj["item_id"])
            return item is not None and self._live("items", item)
        return True

    def completed(self, query: dict[str, str]) -> tuple[int, dict[str, Any]]:
        """A page of completed tasks, newest first, as the endpoint documents it."""
        try:
            since, until = _parse(query["since"]), _parse(query["until"])
        except (KeyError, ValueError):
            return 400, {"error": "Required argument is missing", "error_code": 19,
                         "error_tag": "ARGUMENT_MISSING", "http_code": 400}
        if until - since > MAX_WINDOW or until < since:
            return 400, {"error": "The date range is limited to 3 months", "error_code": 20,
                         "error_tag": "INVALID_ARGUMENT_VALUE", "http_code": 400}
        limit = min(200, int(query.get("limit", "50")))
        offset = int(base64.urlsafe_b64decode(query["cursor"]).decode()) if \
            query.get("cursor") else 0
        with self._lock:
            rows = [dict(o) for i, o in self.objects["items"].items()
                    if i in self.closed and not o.get("is_deleted")
                    and since <= self.closed[i] <= until
                    and o.get("project_id") == query.get("project_id", o.get("project_id"))]
        rows.sort(key=lambda o: (self.closed[o["id"]], o["id"]), reverse=True)
        page = rows[offset: offset + limit]
        more = offset + limit < len(rows)
        nxt = base64.urlsafe_b64encode(str(offset + limit).encode()).decode() if more else None
        return 200, {"items": page, "next_cursor": nxt}

    def comments_page(self, query: dict[str, str]) -> tuple[int, dict[str, Any]]:
        """``GET /comments?task_id=``: a task's comments, oldest first, paged by cursor."""
        limit = min(200, int(query.get("limit", "50")))
        offset = int(base64.urlsafe_b64decode(query["cursor"]).decode()) if \
            query.get("cursor") else 0
        with self._lock:
            rows = [dict(n) for n in self.objects["notes"].values()
                    if n["item_id"] == query.get("task_id") and not n["is_deleted"]]
        more = offset + limit < len(rows)
        nxt = base64.urlsafe_b64encode(str(offset + limit).encode()).decode() if more else None
        return 200, {"results": rows[offset: offset + limit], "next_cursor": nxt}

    def write(self, path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any] | None]:
        """The REST writes the adapter sends: close / reopen a task, add / update a comment."""
        rest = path.removeprefix(API)
        parts = rest.strip("/").split("/")
        if len(parts) == 3 and parts[0] == "tasks" and parts[2] in ("close", "reopen"):
            if parts[1] not in self.objects["items"]:
                return 404, {"error": "Task not found", "http_code": 404}
            if parts[2] == "close":
                self.complete(parts[1])
            else:
                self.closed.pop(parts[1], None)
                self.touch(parts[1], checked=False, completed_at=None, completed_by_uid=None)
            return 204, None
        if parts == ["comments"]:
            if body.get("task_id") not in self.objects["items"]:
                return 404, {"error": "Task not found", "http_code": 404}
            return 200, self.add_note(str(body["task_id"]), str(body.get("content", "")))
        if len(parts) == 2 and parts[0] == "comments" and parts[1] in self.objects["notes"]:
            note = dict(self.objects["notes"][parts[1]], content=str(body.get("content", "")))
            return 200, self._put("notes", note)
        return 404, {"error": "Not found", "http_code": 404}

    def writes(self) -> list[Request]:
        """The requests that changed something (everything but the sync read and GETs)."""
        return [r for r in self.requests if r.method != "GET" and r.path != SYNC]

    def notes_on(self, task_id: str) -> list[dict[str, Any]]:
        return [n for n in self.objects["notes"].values() if n["item_id"] == task_id]

    def paths_requested(self) -> list[str]:
        return [r.path for r in self.requests]

    @property
    def api_url(self) -> str:
        return f"{self.url}{API}"


def _handler(fake: FakeTodoist) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            """Quiet: the fake's record is ``fake.requests``."""

        def _record(self, method: str) -> tuple[str, dict[str, str], dict[str, str]]:
            parts = urlsplit(self.path)
            query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length).decode() if length else ""
            body: Any = None
            form: dict[str, str] = {}
            if "json" in self.headers.get("Content-Type", ""):
                body = json.loads(raw or "null")
            else:
                form = {k: v[-1] for k, v in parse_qs(raw).items()}
            fake.requests.append(Request(method, parts.path, query, form,
                                         {k.lower(): v for k, v in self.headers.items()}, body))
            return parts.path, query, form

        def do_GET(self) -> None:
            path, query, _ = self._record("GET")
            fault = fake.fault_for(path)
            if fault is not None:
                return self._fault(fault)
            if path == COMPLETED:
                return self._send(*fake.completed(query))
            if path == COMMENTS:
                return self._send(*fake.comments_page(query))
            self._send(404, {"error": "Not found", "http_code": 404})

        def do_POST(self) -> None:
            path, _, form = self._record("POST")
            fault = fake.fault_for(path, "POST")
            if fault is not None:
                if fault.apply_first and path != SYNC:
                    fake.write(path, fake.requests[-1].body or {})
                return self._fault(fault)
            if path == SYNC:
                return self._send(*fake.sync(form))
            status, answer = fake.write(path, fake.requests[-1].body or {})
            if answer is None:
                return self._raw(status, b"")
            self._send(status, answer)

        def _fault(self, fault: Fault) -> None:
            if fault.disconnect:
                return cut_short(self, b'{"items": [{"id": "cut')
            self._raw(fault.status, fault.body, fault.headers)

        def _send(self, status: int, payload: dict[str, Any]) -> None:
            self._raw(status, json.dumps(payload).encode())

        def _raw(self, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
            self.send_response(status)
            self.send_header("Content-Type", "application/json; charset=utf-8")
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    return Handler


def serving(fake: FakeTodoist) -> AbstractContextManager[FakeTodoist]:
    """Serve the fake on 127.0.0.1 (a free port) in a thread for the block."""
    return serving_on_localhost(fake, _handler(fake))
