"""A local stand-in for GitHub's REST API (issues and issue comments of one repository).

It serves ``GET /repos/{owner}/{repo}/issues`` and ``GET /repos/{owner}/{repo}/issues/comments``
shaped as GitHub documents them: JSON arrays of issue / comment objects, ``state``, ``since``,
``sort``/``direction``, ``per_page`` (at most 100) and ``page``, a ``Link`` header with
``next``/``last``, a weak ``ETag`` answered by 304 on ``If-None-Match``, and the
``x-ratelimit-*`` headers. Faults are injected per path: a status with headers (403/429 rate
limits, 5xx), a body that is not JSON, or a connection dropped mid-body. Every request is
recorded (method, path, query, headers, JSON body) so tests assert what the connector sent.

GitHub Projects (v2) are served on ``POST /graphql``: the fake parses no GraphQL, it answers
the project items query (``repositoryOwner → projectV2 → items(first, after)``) with the
shape GitHub documents (``pageInfo { hasNextPage endCursor }``, item ``content`` with its
``__typename``, ``fieldValues`` nodes of single-select and other value types, ``rateLimit``),
or GraphQL ``errors`` for a project it does not hold. Faults apply to ``/graphql`` as to any
path.

One issue is served at ``GET /repos/{owner}/{repo}/issues/{number}``. The write side (what
the GitHub write adapter calls) is served too: ``PATCH`` an issue's
state, ``POST``/``DELETE`` an issue's labels, ``GET``/``POST`` an issue's comments, ``PATCH``
a comment, and ``GET`` a repository label. A fault may be limited to one method, and may
apply the write before it drops the connection (``apply_first``: the answer is lost, the
write is not).
"""

from __future__ import annotations

import hashlib
import json
from contextlib import AbstractContextManager, suppress
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

from tests.support.fake_tracker import Faults, TrackerFault, cut_short, serving_on_localhost

BASE_TIME = 1_700_000_000
"""2023-11-14T22:13:20Z: the first issue's creation time."""


def stamp(seconds: int) -> str:
    """GitHub's time format for BASE_TIME + seconds."""
    import datetime as dt

    when = dt.datetime.fromtimestamp(BASE_TIME + seconds, tz=dt.UTC)
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass
class Request:
    """One request the fake received."""

    path: str
    query: dict[str, str]
    headers: dict[str, str]
    method: str = "GET"
    body: Any = None


@dataclass
class Fault(TrackerFault):
    """What the fake answers instead, for requests whose path ends with ``path``."""

    body: bytes = b'{"message": "Server Error"}'


class FakeGitHub(Faults[Fault]):
    """One repository's issues, pull requests and comments, served on 127.0.0.1."""

    def __init__(self, repo: str = "acme/app") -> None:
        super().__init__()
        self.repo = repo
        self.items: dict[int, dict[str, Any]] = {}
        self.comments: dict[int, dict[str, Any]] = {}
        self.requests: list[Request] = []
        self.tick = 0
        self.url = ""
        self.clock: dict[tuple[str, int], tuple[str, str]] = {}
        """(kind, key) -> (created_at, updated_at) as the fake keeps them."""
        self.repo_labels: set[str] = set()
        """The repository's labels (an issue's labels are created here when added)."""
        self.project_owner = "acme"
        self.project_number = 1
        self.project_items: list[dict[str, Any]] = []
        """The project's items in board order: ``content`` and ``values`` (field -> option)."""

    # -- building the repository -----------------------------------------------------------

    def _next_time(self) -> str:
        self.tick += 60
        return stamp(self.tick)

    def _api(self, rest: str) -> str:
        return f"{self.url}/repos/{self.repo}/{rest}"

    def add_issue(self, number: int, title: str, *, body: str | None = "", labels: tuple[str, ...] = (),
                  assignees: tuple[str, ...] = (), state: str = "open",
                  state_reason: str | None = None, milestone: str | None = None,
                  parent: int | None = None, issue_type: str | None = None,
                  pull_request: bool = False, author: str = "octocat") -> dict[str, Any]:
        """An issue (or a pull request, which the issues listing also returns) as GitHub
        serves it; its ``updated_at`` is the fake's next tick."""
        when = self._next_time()
        item: dict[str, Any] = {
            "id": 1000 + number, "node_id": f"I_kw{number}", "url": self._api(f"issues/{number}"),
            "repository_url": f"{self.url}/repos/{self.repo}",
            "labels_url": self._api(f"issues/{number}/labels{{/name}}"),
            "comments_url": self._api(f"issues/{number}/comments"),
            "events_url": self._api(f"issues/{number}/events"),
            "html_url": f"https://github.com/{self.repo}/{'pull' if pull_request else 'issues'}/"
                        f"{number}",
            "number": number, "state": state, "state_reason": state_reason, "title": title,
            "body": body, "user": _user(author),
            "labels": [{"id": 10 + i, "node_id": f"L{i}", "url": self._api(f"labels/{name}"),
                        "name": name, "color": "ededed", "default": False, "description": None}
                       for i, name in enumerate(labels)],
            "assignee": _user(assignees[0]) if assignees else None,
            "assignees": [_user(a) for a in assignees],
            "milestone": None if milestone is None else {
                "url": self._api("milestones/1"), "id": 5, "number": 1, "state": "open",
                "title": milestone, "description": None},
            "locked": False, "active_lock_reason": None, "comments": 0,
            "closed_at": when if state == "closed" else None, "created_at": when,
            "updated_at": when, "closed_by": None, "author_association": "MEMBER",
            "type": None if issue_type is None else {"id": 7, "node_id": "IT_1",
                                                     "name": issue_type, "color": "red"},
            "sub_issues_summary": {"total": 0, "completed": 0, "percent_completed": 0},
        }
        if parent is not None:
            item["parent_issue_url"] = self._api(f"issues/{parent}")
        if pull_request:
            item["pull_request"] = {"url": self._api(f"pulls/{number}"),
                                    "html_url": item["html_url"], "diff_url": None,
                                    "patch_url": None, "merged_at": None}
        with self._lock:
            self.items[number] = item
            self.clock[("issue", number)] = (when, when)
        return item

    def touch(self, number: int, **changes: Any) -> None:
        """Change an issue: its fields as given, and ``updated_at`` the next tick."""
        when = self._next_time()
        with self._lock:
            self.items[number].update(changes, updated_at=when)
            self.clock[("issue", number)] = (self.clock[("issue", number)][0], when)

    def add_comment(self, issue: int, body: str, *, author: str = "hubot") -> dict[str, Any]:
        """A comment on an issue; the issue's ``updated_at`` moves with it, as on GitHub."""
        when = self._next_time()
        cid = 5000 + len(self.comments)
        comment = {"id": cid, "node_id": f"IC_{cid}", "url": self._api(f"issues/comments/{cid}"),
                   "html_url": f"https://github.com/{self.repo}/issues/{issue}#issuecomment-{cid}",
                   "body": body, "user": _user(author), "created_at": when, "updated_at": when,
                   "issue_url": self._api(f"issues/{issue}"), "author_association": "MEMBER"}
        with self._lock:
            self.comments[cid] = comment
            self.clock[("comment", cid)] = (when, when)
            self.items[issue]["comments"] += 1
            self.items[issue]["updated_at"] = when
            self.clock[("issue", issue)] = (self.clock[("issue", issue)][0], when)
        return comment

    # -- the project (v2) ----------------------------------------------------------------------

    def add_project_item(self, number: int, values: dict[str, str] | None = None, *,
                         repo: str | None = None, kind: str = "Issue") -> dict[str, Any]:
        """An item on the project: an issue (of this repository unless ``repo``), a
        ``PullRequest`` or a ``DraftIssue``, with its single-select values."""
        item = {"id": f"PVTI_{len(self.project_items) + 1}", "kind": kind, "number": number,
                "repo": repo or self.repo, "values": dict(values or {})}
        with self._lock:
            self.project_items.append(item)
        return item

    def set_project_value(self, number: int, field_name: str, option: str | None) -> None:
        """Set (or clear, with None) one single-select value of this repository's issue."""
        with self._lock:
            for item in self.project_items:
                if item["kind"] == "Issue" and item["number"] == number and \
                        item["repo"] == self.repo:
                    if option is None:
                        item["values"].pop(field_name, None)
                    else:
                        item["values"][field_name] = option

    def remove_project_item(self, number: int) -> None:
        with self._lock:
            self.project_items = [i for i in self.project_items
                                  if not (i["kind"] == "Issue" and i["number"] == number)]

    def graphql(self, body: Any) -> dict[str, Any]:
        """The answer to the project items query, one page from ``after``."""
        import base64

        variables = body.get("variables") or {} if isinstance(body, dict) else {}
        if variables.get("owner") != self.project_owner or \
                variables.get("number") != self.project_number:
            return {"data": {"rateLimit": {"cost": 1, "remaining": 4999},
                             "repositoryOwner": {"projectV2": None}},
                    "errors": [{"type": "NOT_FOUND", "path": ["repositoryOwner", "projectV2"],
                                "locations": [{"line": 5, "column": 7}],
                                "message": "Could not resolve to a ProjectV2 with the number "
                                           f"{variables.get('number')}."}]}
        first = min(100, int(variables.get("first") or 100))
        after = variables.get("after")
        start = int(base64.b64decode(after).decode().split(":")[1]) if after else 0
        with self._lock:
            chunk = [json.loads(json.dumps(i)) for i in self.project_items[start:start + first]]
            total = len(self.project_items)
        end = start + len(chunk)
        return {"data": {"rateLimit": {"cost": 1, "remaining": 4999}, "repositoryOwner": {
            "projectV2": {"items": {
                "pageInfo": {"hasNextPage": end < total,
                             "endCursor": base64.b64encode(f"cursor:{end}".encode()).decode()
                             if chunk else None},
                "nodes": [_project_node(i, int(variables.get("values") or 8)) for i in chunk],
            }}}}}

    def fail(self, path: str, **kwargs: Any) -> Fault:
        """Answer the next request(s) to ``path`` with a fault (see Fault)."""
        fault = Fault(path, **kwargs)
        with self._lock:
            self.faults.append(fault)
        return fault

    def rate_limit(self, path: str, *, after: int = 0, reset_in: int = 3600,
                   status: int = 403) -> Fault:
        """GitHub's primary rate limit: 403 with ``x-ratelimit-remaining: 0`` and the reset."""
        import time

        return self.fail(path, status=status, after=after, body=json.dumps({
            "message": "API rate limit exceeded", "documentation_url": "https://docs.github.com"
        }).encode(), headers={"x-ratelimit-limit": "5000", "x-ratelimit-remaining": "0",
                              "x-ratelimit-reset": str(int(time.time()) + reset_in)})

    # -- answering ---------------------------------------------------------------------------

    def listing(self, path: str, query: dict[str, str]) -> list[dict[str, Any]] | None:
        """The objects a listing path returns, filtered and sorted as GitHub does."""
        with self._lock:
            if path == f"/repos/{self.repo}/issues":
                found = [(k, r) for k, r in self.items.items()]
                state = query.get("state", "open")
                if state != "all":
                    found = [(k, r) for k, r in found if r.get("state") == state]
                prefix = "issue"
            elif path == f"/repos/{self.repo}/issues/comments":
                found = list(self.comments.items())
                prefix = "comment"
            elif path.startswith(f"/repos/{self.repo}/issues/") and path.endswith("/comments"):
                number = path.rsplit("/", 2)[-2]
                found = [(k, c) for k, c in self.comments.items()
                         if c["issue_url"].endswith(f"/issues/{number}")]
                prefix = "comment"
                query = {**query, "sort": "created", "direction": "asc"}
            else:
                return None
            rows = [(self.clock[(prefix, k)], k, r) for k, r in found]
        since = query.get("since")
        if since:  # by the fake's own clock: a served field a test broke never moves a row
            rows = [row for row in rows if row[0][1] >= since]
        at = 1 if query.get("sort", "created") == "updated" else 0
        rows.sort(key=lambda row: (row[0][at], row[1]),
                  reverse=query.get("direction", "desc") == "desc")
        return [row[2] for row in rows]  # the caller copies only the page it serves

    def paths_requested(self) -> list[str]:
        return [r.path for r in self.requests]

    def writes(self) -> list[Request]:
        """The requests that were not reads, in the order received."""
        return [r for r in self.requests if r.method != "GET"]

    def comments_on(self, issue: int) -> list[dict[str, Any]]:
        """An issue's comments, oldest first."""
        with self._lock:
            return [c for c in self.comments.values()
                    if c["issue_url"].endswith(f"/issues/{issue}")]

    def label_names(self, issue: int) -> list[str]:
        with self._lock:
            return [lb["name"] for lb in self.items[issue]["labels"]]

    # -- the write side ----------------------------------------------------------------------

    def write(self, method: str, path: str, body: Any) -> tuple[int, Any]:
        """Carry out one write request as GitHub does: (status, the JSON answered)."""
        base = f"/repos/{self.repo}/"
        rest = path[len(base):] if path.startswith(base) else ""
        parts = rest.split("/")
        if parts[:2] == ["issues", "comments"] and len(parts) == 3 and method == "PATCH":
            return self._edit_comment(int(parts[2]), body)
        if parts[0] != "issues" or len(parts) < 2 or not parts[1].isdigit():
            return 404, {"message": "Not Found"}
        number = int(parts[1])
        if number not in self.items:
            return 404, {"message": "Not Found"}
        if len(parts) == 2 and method == "PATCH":
            return self._edit_issue(number, body)
        if parts[2:] == ["comments"] and method == "POST":
            return 201, self.add_comment(number, str(body["body"]), author="revetly-bot")
        if parts[2:] == ["labels"] and method == "POST":
            return self._add_labels(number, list(body["labels"]))
        if len(parts) == 4 and parts[2] == "labels" and method == "DELETE":
            return self._remove_label(number, parts[3])
        return 404, {"message": "Not Found"}

    def _edit_issue(self, number: int, body: dict[str, Any]) -> tuple[int, Any]:
        changes: dict[str, Any] = {k: body[k] for k in ("state", "state_reason", "title",
                                                        "body") if k in body}
        if changes.get("state") == "open":
            changes.setdefault("state_reason", "reopened" if self.items[number]["state"] ==
                               "closed" else None)
            changes["closed_at"] = None
        elif changes.get("state") == "closed":
            changes["closed_at"] = stamp(self.tick + 60)
        self.touch(number, **changes)
        with self._lock:
            return 200, json.loads(json.dumps(self.items[number]))

    def _label(self, name: str) -> dict[str, Any]:
        return {"id": 100 + abs(hash(name)) % 1000, "node_id": f"L_{name}",
                "url": self._api(f"labels/{name}"), "name": name, "color": "ededed",
                "default": False, "description": None}

    def _add_labels(self, number: int, names: list[str]) -> tuple[int, Any]:
        with self._lock:
            held = self.items[number]["labels"]
            for name in names:
                self.repo_labels.add(name)
                if not any(lb["name"].casefold() == name.casefold() for lb in held):
                    held.append(self._label(name))
        self.touch(number)
        with self._lock:
            return 200, list(self.items[number]["labels"])

    def _remove_label(self, number: int, name: str) -> tuple[int, Any]:
        from urllib.parse import unquote

        name = unquote(name)
        with self._lock:
            held = self.items[number]["labels"]
            kept = [lb for lb in held if lb["name"].casefold() != name.casefold()]
            if len(kept) == len(held):
                return 404, {"message": "Label does not exist"}
            self.items[number]["labels"] = kept
        self.touch(number)
        with self._lock:
            return 200, list(self.items[number]["labels"])

    def _edit_comment(self, cid: int, body: dict[str, Any]) -> tuple[int, Any]:
        if cid not in self.comments:
            return 404, {"message": "Not Found"}
        when = self._next_time()
        with self._lock:
            comment = self.comments[cid]
            comment.update(body=str(body["body"]), updated_at=when)
            self.clock[("comment", cid)] = (self.clock[("comment", cid)][0], when)
            return 200, dict(comment)

    def issue(self, number: int) -> tuple[int, Any]:
        """GET /repos/{repo}/issues/{number}: the issue (or pull request) as listed."""
        with self._lock:
            if number in self.items:
                return 200, json.loads(json.dumps(self.items[number]))
        return 404, {"message": "Not Found"}

    def repo_label(self, name: str) -> tuple[int, Any]:
        """GET /repos/{repo}/labels/{name}."""
        from urllib.parse import unquote

        name = unquote(name)
        if name in self.repo_labels:
            return 200, self._label(name)
        return 404, {"message": "Not Found"}


def _user(login: str) -> dict[str, Any]:
    return {"login": login, "id": abs(hash(login)) % 10**6, "node_id": f"U_{login}",
            "type": "User", "site_admin": False, "html_url": f"https://github.com/{login}"}


def _project_node(item: dict[str, Any], first_values: int) -> dict[str, Any]:
    """One project item as the query selects it (only the fields asked for)."""
    if item["kind"] == "Issue":
        content: dict[str, Any] = {"__typename": "Issue", "number": item["number"],
                                   "repository": {"nameWithOwner": item["repo"]}}
    else:  # a pull request or a draft: only __typename, as no fragment selects them
        content = {"__typename": item["kind"]}
    values: list[dict[str, Any]] = [{"__typename": "ProjectV2ItemFieldTextValue"}]
    values += [{"__typename": "ProjectV2ItemFieldSingleSelectValue", "name": option,
                "field": {"name": name}} for name, option in item["values"].items()]
    return {"id": item["id"], "content": content, "fieldValues": {"nodes": values[:first_values]}}


def _handler(fake: FakeGitHub) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            """Quiet: the fake's record is ``fake.requests``."""

        def handle(self) -> None:
            """A client that hangs up mid-answer (a test cutting a read short) ends the
            exchange quietly, as a real server's would."""
            with suppress(ConnectionError):
                super().handle()

        def _record(self, method: str) -> tuple[str, dict[str, str], Any]:
            parts = urlsplit(self.path)
            query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
            size = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(size) if size else b""
            body = json.loads(raw) if raw else None
            fake.requests.append(Request(parts.path, query, {k.lower(): v for k, v in
                                                             self.headers.items()},
                                         method, body))
            return parts.path, query, body

        def _write(self, method: str) -> None:
            path, _, body = self._record(method)
            fault = fake.fault_for(path, method)
            if fault is not None and not fault.apply_first:
                return self._fault(fault)
            status, answer = fake.write(method, path, body)
            if fault is not None:
                return self._fault(fault)
            self._send(status, json.dumps(answer).encode())

        def do_POST(self) -> None:
            if urlsplit(self.path).path != "/graphql":
                return self._write("POST")
            path, _, body = self._record("POST")
            fault = fake.fault_for(path, "POST")
            if fault is not None:
                return self._fault(fault)
            self._send(200, json.dumps(fake.graphql(body)).encode(),
                       {"x-ratelimit-limit": "5000", "x-ratelimit-remaining": "4999",
                        "x-ratelimit-resource": "graphql"})

        def do_PATCH(self) -> None:
            self._write("PATCH")

        def do_DELETE(self) -> None:
            self._write("DELETE")

        def do_GET(self) -> None:
            path, query, _ = self._record("GET")
            fault = fake.fault_for(path, "GET")
            if fault is not None:
                return self._fault(fault)
            label_path = f"/repos/{fake.repo}/labels/"
            if path.startswith(label_path):
                status, answer = fake.repo_label(path[len(label_path):])
                return self._send(status, json.dumps(answer).encode())
            issue_path = f"/repos/{fake.repo}/issues/"
            if path.startswith(issue_path) and path[len(issue_path):].isdigit():
                status, answer = fake.issue(int(path[len(issue_path):]))
                return self._send(status, json.dumps(answer).encode())
            parts = urlsplit(self.path)
            rows = fake.listing(parts.path, query)
            if rows is None:
                return self._send(404, b'{"message": "Not Found"}')
            per_page = min(100, int(query.get("per_page", "30")))
            page = int(query.get("page", "1"))
            with fake._lock:
                body = json.dumps(rows[(page - 1) * per_page: page * per_page]).encode()
            etag = 'W/"' + hashlib.sha1(body).hexdigest() + '"'
            headers = {"ETag": etag, "x-ratelimit-limit": "5000",
                       "x-ratelimit-remaining": "4999"}
            last = max(1, -(-len(rows) // per_page))
            links = []
            if page < last:
                links.append(f'<{self._page_url(parts.path, query, page + 1)}>; rel="next"')
                links.append(f'<{self._page_url(parts.path, query, last)}>; rel="last"')
            if links:
                headers["Link"] = ", ".join(links)
            if self.headers.get("If-None-Match") == etag:
                return self._send(304, b"", headers)
            self._send(200, body, headers)

        def _page_url(self, path: str, query: dict[str, str], page: int) -> str:
            return f"{fake.url}{path}?{urlencode({**query, 'page': str(page)})}"

        def _fault(self, fault: Fault) -> None:
            if fault.disconnect:
                return cut_short(self, b'[{"number": 1, "title": "cut')
            self._send(fault.status, fault.body, fault.headers)

        def _send(self, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
            self.send_response(status)
            self.send_header("Content-Type", "application/json; charset=utf-8")
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            if status != 304:
                self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if status != 304:
                self.wfile.write(body)

    return Handler


def serving(fake: FakeGitHub) -> AbstractContextManager[FakeGitHub]:
    """Serve the fake on 127.0.0.1 (a free port) in a thread for the block."""
    return serving_on_localhost(fake, _handler(fake), on_url=_rebase_items)


def _rebase_items(fake: FakeGitHub) -> None:
    for item in fake.items.values():  # items built before the port was known
        _rebase(item, fake.url)


def _rebase(item: dict[str, Any], url: str) -> None:
    for key in ("url", "repository_url", "labels_url", "comments_url", "events_url",
                "parent_issue_url"):
        if isinstance(item.get(key), str) and item[key].startswith("/repos/"):
            item[key] = url + item[key]
