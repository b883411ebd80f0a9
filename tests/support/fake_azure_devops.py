"""A local stand-in for Azure DevOps' work item tracking REST API (one project).

It serves, shaped as the REST reference (api-version 7.1) documents them:
``POST {org}/{project}/_apis/wit/wiql`` (a flat ``workItemQueryResult``: ``asOf``, ``columns``,
``sortColumns``, ``workItems`` of ``{id, url}``; the query's ``[System.ChangedDate] >= '…'``,
``> '…' OR (= '…' AND [System.Id] NOT IN (…))`` and ``[System.AreaPath] UNDER '…'`` clauses
are honoured, ``$top`` caps it),
``POST …/_apis/wit/workitemsbatch`` (``{count, value}`` of work items with ``fields`` and, with
``$expand: relations``, ``relations``; at most 200 ids; an id it no longer has is ``null`` under
``errorPolicy: omit``), ``GET …/_apis/wit/workitemtypes/{type}/states`` (``{count, value}`` of
``{name, color, category}``) and ``GET …/_apis/wit/reporting/workitemrevisions`` (``{values,
nextLink, continuationToken, isLastBatch}``, paged by ``$maxPageSize`` and the continuation
token). The write side the Azure DevOps write adapter calls is served too: ``PATCH
…/_apis/wit/workitems/{id}`` with a JSON Patch document (``application/json-patch+json``; a state
the type does not list is refused as Azure DevOps refuses it), and ``GET``/``POST``
``…/workItems/{id}/comments`` and ``PATCH …/comments/{commentId}`` (api-version 7.1-preview.4;
``{totalCount, count, comments, continuationToken}``, paged by ``$top``). Faults are injected
per path (and, optionally, per method; a write may be carried out before its answer is lost,
``apply_first``): a status with headers (429/503 with ``Retry-After``, 5xx),
a body that is not JSON, or a connection dropped mid-body. Every request is recorded (method,
path, query, headers, JSON body) so tests assert what the connector sent.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from contextlib import AbstractContextManager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qs, quote, unquote, urlencode, urlsplit

from tests.support.fake_tracker import Faults, TrackerFault, cut_short, serving_on_localhost

BASE_TIME = dt.datetime(2024, 3, 1, 9, 0, 0, tzinfo=dt.UTC)

DEFAULT_STATES: dict[str, list[tuple[str, str]]] = {
    "Epic": [("New", "Proposed"), ("Active", "InProgress"), ("Resolved", "Resolved"),
             ("Closed", "Completed"), ("Removed", "Removed")],
    "User Story": [("New", "Proposed"), ("Active", "InProgress"), ("Resolved", "Resolved"),
                   ("Closed", "Completed"), ("Removed", "Removed")],
    "Bug": [("New", "Proposed"), ("Active", "InProgress"), ("Resolved", "Resolved"),
            ("Closed", "Completed")],
    "Issue": [("To Do", "Proposed"), ("Doing", "InProgress"), ("Done", "Completed")],
    "Test Plan": [("Design", "Proposed"), ("Inactive", "Completed")],
}
"""Work item type -> its states and their categories, as the Agile process declares them."""

_SINCE = re.compile(r"\[System\.ChangedDate\]\s*>=\s*'([^']*)'")
_AFTER = re.compile(r"\(\[System\.ChangedDate\] > '([^']*)' OR \(\[System\.ChangedDate\] = "
                    r"'([^']*)' AND \[System\.Id\] NOT IN \(([\d, ]*)\)\)\)")
_COMMENTS = re.compile(r"^/workItems/(\d+)/comments(?:/(\d+))?$", re.IGNORECASE)
_UNDER = re.compile(r"\[System\.AreaPath\]\s+UNDER\s+'((?:[^']|'')*)'")


def stamp(tick: int) -> str:
    """Azure DevOps' time format (milliseconds, ``Z``) for BASE_TIME + tick seconds."""
    when = BASE_TIME + dt.timedelta(seconds=tick, milliseconds=tick % 1000)
    return when.isoformat(timespec="milliseconds").replace("+00:00", "Z")


@dataclass
class Request:
    """One request the fake received."""

    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    body: Any = None


@dataclass
class Fault(TrackerFault):
    """What the fake answers instead, for requests whose path ends with ``path``."""

    body: bytes = b'{"$id": "1", "message": "Internal error", "typeKey": "ServerException"}'


@dataclass
class _Item:
    number: int
    fields: dict[str, Any]
    relations: list[dict[str, Any]]
    changed: str
    """The fake's own clock for the item (what WIQL filters on)."""


class FakeAzureDevOps(Faults[Fault]):
    """One organization's project of work items, their revisions and type states, on
    127.0.0.1."""

    def __init__(self, organization: str = "fabrikam", project: str = "Fabrikam Web") -> None:
        super().__init__()
        self.organization = organization
        self.project = project
        self.items: dict[int, _Item] = {}
        self.revisions: list[dict[str, Any]] = []
        self.states: dict[str, list[tuple[str, str]]] = {k: list(v) for k, v in
                                                          DEFAULT_STATES.items()}
        self.requests: list[Request] = []
        self.tick = 0
        self.url = ""
        self.continuation_header = False
        """Send the revisions' continuation token as ``x-ms-continuationtoken`` (as other
        Azure DevOps listings do) instead of in the body."""
        self.comments: dict[int, dict[str, Any]] = {}
        """comment id -> the comment as the comments API serves it."""
        self.max_page = 1000
        """The most revisions one page holds, whatever ``$maxPageSize`` asks (as the API caps)."""
        self.served: dict[int, Any] = {}
        """id -> what the batch serves instead of the item (a test's broken payload)."""

    # -- building the project --------------------------------------------------------------

    def base(self) -> str:
        return f"/{quote(self.organization)}/{quote(self.project)}/_apis/wit"

    def _next_time(self) -> str:
        self.tick += 61
        return stamp(self.tick)

    def _item_url(self, number: int) -> str:
        return f"{self.url}/{quote(self.organization)}/_apis/wit/workItems/{number}"

    def add_item(self, number: int, title: str, *, work_item_type: str = "User Story",
                 state: str = "New", description: str | None = None, tags: tuple[str, ...] = (),
                 assigned_to: str | None = None, area: str | None = None,
                 parent: int | None = None, related: tuple[int, ...] = (),
                 history: str | None = None,
                 acceptance_criteria: str | None = None) -> dict[str, Any]:
        """A work item as Azure DevOps holds it; its ``System.ChangedDate`` is the next tick
        and its first revision is recorded."""
        when = self._next_time()
        fields: dict[str, Any] = {
            "System.Id": number, "System.AreaPath": area or self.project,
            "System.TeamProject": self.project, "System.IterationPath": f"{self.project}\\Sprint 1",
            "System.WorkItemType": work_item_type, "System.State": state,
            "System.Reason": "New", "System.CreatedDate": when,
            "System.CreatedBy": _identity("Jamal Hartnett"), "System.ChangedDate": when,
            "System.ChangedBy": _identity("Jamal Hartnett"), "System.CommentCount": 0,
            "System.Title": title, "Microsoft.VSTS.Common.Priority": 2,
        }
        if description is not None:
            fields["System.Description"] = description
        if tags:
            fields["System.Tags"] = "; ".join(tags)
        if assigned_to:
            fields["System.AssignedTo"] = _identity(assigned_to)
        if history:
            fields["System.History"] = history
        if acceptance_criteria is not None:
            fields["Microsoft.VSTS.Common.AcceptanceCriteria"] = acceptance_criteria
        relations = []
        if parent is not None:
            relations.append(self._relation("System.LinkTypes.Hierarchy-Reverse", parent, "Parent"))
        relations.extend(self._relation("System.LinkTypes.Related", r, "Related") for r in related)
        with self._lock:
            self.items[number] = _Item(number, fields, relations, when)
            self._revise(number, 1)
        return fields

    def _relation(self, rel: str, target: int, name: str) -> dict[str, Any]:
        return {"rel": rel, "url": self._item_url(target),
                "attributes": {"isLocked": False, "name": name}}

    def add_child(self, parent: int, child: int) -> None:
        """Record the parent's forward link to a child (the child's own reverse link is
        declared with ``add_item(parent=…)``)."""
        self.items[parent].relations.append(
            self._relation("System.LinkTypes.Hierarchy-Forward", child, "Child"))

    def touch(self, number: int, *, history: str | None = None, **changes: Any) -> None:
        """Change a work item: fields as given (``System.State`` = …), a new revision, its
        ``System.ChangedDate`` the next tick."""
        when = self._next_time()
        with self._lock:
            item = self.items[number]
            item.fields.update(changes)
            item.fields.pop("System.History", None)
            if history is not None:
                item.fields["System.History"] = history
            item.fields["System.ChangedDate"] = when
            item.changed = when
            self._revise(number, sum(1 for r in self.revisions if r["id"] == number) + 1)

    def _revise(self, number: int, rev: int) -> None:
        fields = self.items[number].fields
        self.revisions.append({"id": number, "rev": rev, "fields": {
            "System.Id": number, "System.Rev": rev,
            "System.ChangedDate": fields["System.ChangedDate"],
            "System.ChangedBy": "Jamal Hartnett <fabrikamfiber4@hotmail.com>",
            "System.State": fields["System.State"], "System.History": fields.get("System.History"),
            "System.Title": fields["System.Title"], "System.WorkItemType": fields[
                "System.WorkItemType"]}})

    def fail(self, path: str, **kwargs: Any) -> Fault:
        """Answer the next request(s) to ``path`` with a fault (see Fault)."""
        fault = Fault(path, **kwargs)
        with self._lock:
            self.faults.append(fault)
        return fault

    def throttle(self, path: str, *, after: int = 0, retry_after: int = 3600,
                 status: int = 429) -> Fault:
        """Azure DevOps' throttling: 429 (or 503) with ``Retry-After`` and the
        ``X-RateLimit-*`` headers."""
        return self.fail(path, status=status, after=after, body=json.dumps({
            "$id": "1", "message": "Request was blocked due to exceeding usage of resource",
            "typeKey": "ThrottlingException"}).encode(), headers={
            "Retry-After": str(retry_after), "X-RateLimit-Resource": "ATCPU",
            "X-RateLimit-Delay": "0.5", "X-RateLimit-Limit": "200",
            "X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "1711270800"})

    # -- answering ---------------------------------------------------------------------------

    def wiql(self, query: dict[str, str], body: Any) -> tuple[int, Any]:
        text = body.get("query") if isinstance(body, dict) else None
        if not isinstance(text, str):
            return 400, {"$id": "1", "message": "The query is missing.",
                         "typeKey": "ArgumentNullException"}
        since = _SINCE.search(text)
        under = _UNDER.search(text)
        with self._lock:
            rows = [(i.changed, i.number, i) for i in self.items.values()]
        after = _AFTER.search(text)
        if since:
            rows = [r for r in rows if r[0] >= since.group(1)]
        if after:
            held = {int(n) for n in after.group(3).split(",") if n.strip()}
            rows = [r for r in rows if r[0] > after.group(1) or (
                r[0] == after.group(2) and r[1] not in held)]
        if under:
            area = under.group(1).replace("''", "'")
            rows = [r for r in rows if r[2].fields["System.AreaPath"] == area
                    or str(r[2].fields["System.AreaPath"]).startswith(area + "\\")]
        rows.sort(key=lambda r: (r[0], r[1]))
        top = int(query.get("$top", "20000"))
        return 200, {
            "queryType": "flat", "queryResultType": "workItem", "asOf": stamp(self.tick),
            "columns": [{"referenceName": "System.Id", "name": "ID",
                         "url": f"{self.url}/_apis/wit/fields/System.Id"}],
            "sortColumns": [{"field": {"referenceName": "System.ChangedDate",
                                       "name": "Changed Date",
                                       "url": f"{self.url}/_apis/wit/fields/System.ChangedDate"},
                             "descending": False}],
            "workItems": [{"id": n, "url": self._item_url(n)} for _, n, _ in rows[:top]]}

    def batch(self, body: Any) -> tuple[int, Any]:
        ids = body.get("ids") if isinstance(body, dict) else None
        if not isinstance(ids, list) or len(ids) > 200:
            return 400, {"$id": "1", "message": "VS403474: ids must hold 1 to 200 work item ids",
                         "typeKey": "ArgumentException"}
        out: list[Any] = []
        with self._lock:
            for n in ids:
                if n in self.served:
                    out.append(self.served[n])
                    continue
                item = self.items.get(n)
                if item is None:
                    out.append(None)
                    continue
                served: dict[str, Any] = {
                    "id": n, "rev": sum(1 for r in self.revisions if r["id"] == n),
                    "fields": dict(item.fields), "url": self._item_url(n)}
                if body.get("$expand") in ("relations", "all", "Relations", "All"):
                    served["relations"] = [dict(r) for r in item.relations]
                out.append(served)
        return 200, {"count": len(out), "value": out}

    def type_states(self, name: str) -> tuple[int, Any]:
        states = self.states.get(name)
        if states is None:
            return 404, {"$id": "1", "message": f"VS402323: Work item type {name} does not exist.",
                         "typeKey": "WorkItemTypeNotFoundException"}
        return 200, {"count": len(states), "value": [
            {"name": s, "color": "b2b2b2", "category": c} for s, c in states]}

    def revisions_page(self, path: str, query: dict[str, str]) -> tuple[int, Any]:
        start = int(query.get("continuationToken", "0") or "0")
        size = min(self.max_page, int(query.get("$maxPageSize", "200")))
        wanted = [f for f in query.get("fields", "").split(",") if f]
        with self._lock:
            page = self.revisions[start:start + size]
            total = len(self.revisions)
        values = [{"id": r["id"], "rev": r["rev"], "fields": {
            k: v for k, v in r["fields"].items() if (not wanted or k in wanted) and v is not None}}
            for r in page]
        token = str(start + len(page))
        rest = {k: v for k, v in query.items() if k != "continuationToken"}
        return 200, {"values": values, "nextLink": f"{self.url}{path}?"
                     f"{urlencode({**rest, 'continuationToken': token})}",
                     "continuationToken": token, "isLastBatch": start + len(page) >= total}

    # -- the write side ----------------------------------------------------------------------

    def writes(self) -> list[Request]:
        """The requests that changed something (not GETs, not the read POSTs), in order."""
        return [r for r in self.requests if r.method in ("PATCH", "PUT", "DELETE") or (
            r.method == "POST" and r.path.endswith("/comments"))]

    def comments_on(self, number: int) -> list[dict[str, Any]]:
        """A work item's comments, oldest first."""
        with self._lock:
            return [dict(c) for c in self.comments.values() if c["workItemId"] == number]

    def add_comment(self, number: int, text: str, *, author: str = "Jamal Hartnett",
                    fmt: str = "html") -> dict[str, Any]:
        """A comment on a work item as the comments API serves it; the item gets a revision
        whose ``System.History`` is the comment, as Azure DevOps records it."""
        when = stamp(self.tick + 61)
        self.touch(number, history=text)
        with self._lock:
            cid = 9000 + len(self.comments)
            comment = {"workItemId": number, "id": cid, "version": 1, "text": text,
                       "format": fmt, "createdBy": _identity(author), "createdDate": when,
                       "modifiedBy": _identity(author), "modifiedDate": when,
                       "url": f"{self.url}{self.base()}/workItems/{number}/comments/{cid}"}
            self.comments[cid] = comment
            self.items[number].fields["System.CommentCount"] = sum(
                1 for c in self.comments.values() if c["workItemId"] == number)
            return dict(comment)

    def patch_item(self, number: int, headers: dict[str, str], body: Any) -> tuple[int, Any]:
        item = self.items.get(number)
        if item is None:
            return 404, {"$id": "1", "message": f"TF401232: Work item {number} does not exist."}
        if not headers.get("content-type", "").startswith("application/json-patch+json"):
            return 415, {"$id": "1", "message": "VS403413: The request body must be a JSON "
                         "Patch document (application/json-patch+json)."}
        if not isinstance(body, list):
            return 400, {"$id": "1", "message": "You must pass a valid patch document."}
        changes: dict[str, Any] = {}
        for op in body:
            if not isinstance(op, dict) or op.get("op") not in ("add", "replace") or \
                    not str(op.get("path", "")).startswith("/fields/"):
                return 400, {"$id": "1", "message": "You must pass a valid patch document."}
            changes[str(op["path"]).removeprefix("/fields/")] = op.get("value")
        state = changes.get("System.State")
        names = [n for n, _ in self.states.get(str(item.fields["System.WorkItemType"]), [])]
        if state is not None and state not in names:
            return 400, {"$id": "1", "message": f"TF401320: Rule Error for field State. Error "
                         f"code: Required, InvalidListValue. The value {state!r} is not in the "
                         "list of supported values."}
        self.touch(number, **changes)
        with self._lock:
            return 200, {"id": number, "rev": sum(1 for r in self.revisions if r["id"] == number),
                         "fields": dict(item.fields), "url": self._item_url(number)}

    def comments_page(self, number: int, query: dict[str, str]) -> tuple[int, Any]:
        if number not in self.items:
            return 404, {"$id": "1", "message": f"TF401232: Work item {number} does not exist."}
        held = self.comments_on(number)
        start = int(query.get("continuationToken", "0") or "0")
        top = int(query.get("$top", "200"))
        page = held[start:start + top]
        out: dict[str, Any] = {"totalCount": len(held), "count": len(page), "comments": page}
        if start + top < len(held):
            out["continuationToken"] = str(start + top)
            out["nextPage"] = (f"{self.url}{self.base()}/workItems/{number}/comments?"
                               f"continuationToken={start + top}")
        return 200, out

    def edit_comment(self, number: int, cid: int, body: Any) -> tuple[int, Any]:
        with self._lock:
            comment = self.comments.get(cid)
            if comment is None or comment["workItemId"] != number:
                return 404, {"$id": "1", "message": f"Comment {cid} does not exist."}
            comment.update(text=str(body.get("text")), version=int(comment["version"]) + 1,
                           modifiedDate=stamp(self.tick + 61))
            return 200, dict(comment)

    def paths_requested(self) -> list[str]:
        return [r.path.removeprefix(unquote(self.base())) for r in self.requests]


def _identity(name: str) -> dict[str, Any]:
    mail = name.split()[0].lower() + "@fabrikam.example"
    return {"displayName": name, "url": "https://spsprodeus27.vssps.visualstudio.com/_apis/Identities/x",
            "id": f"d291b0c4-{abs(hash(name)) % 10**4:04d}", "uniqueName": mail,
            "imageUrl": "https://dev.azure.com/fabrikam/_api/_common/identityImage",
            "descriptor": f"aad.{abs(hash(name)) % 10**6}"}


def _handler(fake: FakeAzureDevOps) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            """Quiet: the fake's record is ``fake.requests``."""

        def do_GET(self) -> None:
            self._answer("GET")

        def do_POST(self) -> None:
            self._answer("POST")

        def do_PATCH(self) -> None:
            self._answer("PATCH")

        def _answer(self, method: str) -> None:
            parts = urlsplit(self.path)
            path = unquote(parts.path)
            query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                body = json.loads(raw) if raw else None
            except ValueError:
                body = None
            fake.requests.append(Request(method, path, query, {k.lower(): v for k, v in
                                                               self.headers.items()}, body))
            fault = fake.fault_for(path, method)
            if fault is not None and not fault.apply_first:
                return self._fault(fault)
            base = unquote(fake.base())
            rest = path.removeprefix(base) if path.startswith(base) else None
            comments = _COMMENTS.match(rest or "")
            if comments is not None:
                status, data = self._comments(method, comments, query, body)
                return self._fault(fault) if fault is not None else self._json(status, data)
            if query.get("api-version") != "7.1":
                return self._json(400, {"$id": "1", "message": "VS800075: The api-version is "
                                        "missing or not 7.1", "typeKey": "VssVersionException"})
            if rest == "/wiql" and method == "POST":
                status, data = fake.wiql(query, body)
            elif rest == "/workitemsbatch" and method == "POST":
                status, data = fake.batch(body)
            elif rest is not None and rest.startswith("/workitemtypes/") and \
                    rest.endswith("/states") and method == "GET":
                status, data = fake.type_states(rest.removeprefix("/workitemtypes/")
                                                .removesuffix("/states"))
            elif rest == "/reporting/workitemrevisions" and method == "GET":
                status, data = fake.revisions_page(parts.path, query)
                if fake.continuation_header and fault is None:
                    token = data.pop("continuationToken")
                    return self._send(status, json.dumps(data).encode(),
                                      {"x-ms-continuationtoken": token})
            elif rest is not None and re.fullmatch(r"/workitems/\d+", rest, re.IGNORECASE) \
                    and method == "PATCH":
                status, data = fake.patch_item(int(rest.rsplit("/", 1)[1]), {
                    k.lower(): v for k, v in self.headers.items()}, body)
            else:
                status, data = 404, {"$id": "1", "message": "The resource cannot be found."}
            if fault is not None:
                return self._fault(fault)
            self._json(status, data)

        def _comments(self, method: str, m: re.Match[str], query: dict[str, str],
                      body: Any) -> tuple[int, Any]:
            if query.get("api-version") != "7.1-preview.4":
                return 400, {"$id": "1", "message": "VS800075: the comments API is "
                             "7.1-preview.4", "typeKey": "VssVersionException"}
            number, cid = int(m.group(1)), m.group(2)
            if cid is None and method == "GET":
                return fake.comments_page(number, query)
            if cid is None and method == "POST" and isinstance(body, dict):
                if number not in fake.items:
                    return 404, {"$id": "1", "message": f"TF401232: Work item {number} does "
                                 "not exist."}
                return 200, fake.add_comment(number, str(body.get("text")), author="Revetly Bot",
                                             fmt=query.get("format", "html"))
            if cid is not None and method == "PATCH" and isinstance(body, dict):
                return fake.edit_comment(number, int(cid), body)
            return 404, {"$id": "1", "message": "The resource cannot be found."}

        def _fault(self, fault: Fault) -> None:
            if fault.disconnect:
                return cut_short(self, b'{"count": 200, "value": [{"id": 1, "fields": {"System.Ti')
            self._send(fault.status, fault.body, fault.headers)

        def _json(self, status: int, data: Any) -> None:
            self._send(status, json.dumps(data).encode())

        def _send(self, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
            self.send_response(status)
            self.send_header("Content-Type", "application/json; charset=utf-8; api-version=7.1")
            self.send_header("ActivityId", "a0d2c2c6-0000-0000-0000-000000000000")
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    return Handler


def serving(fake: FakeAzureDevOps) -> AbstractContextManager[FakeAzureDevOps]:
    """Serve the fake on 127.0.0.1 (a free port) in a thread for the block."""
    return serving_on_localhost(fake, _handler(fake))
