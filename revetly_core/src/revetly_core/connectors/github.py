"""The github source: a repository's issues over the REST API, read incrementally.

Issues (never pull requests) are listed by ``updated`` ascending, 100 a page, following the
``Link`` header; a pass after the first asks only for what changed ``since`` the newest
``updated_at`` it saw, with the first page's ETag (a 304 means nothing changed). Comments are
listed the same way and become change notes in the item's history. A rate limit longer than
the source's cap, a disconnect or a 5xx past the retries ends the read ``partial``: what was
read lands, and the cursor resumes after the last item read, since the listing is in update
order. Type, status, parent and closing references follow the rules below, one function each.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from revetly_core.config import Config
from revetly_core.config import GitHubConnector as GitHubSettings
from revetly_core.connectors.base import (
    FileProblem,
    KnownArtifact,
    Progress,
    SourceBatch,
    no_progress,
)
from revetly_core.connectors.github_projects import (
    PROJECT_PATH,
    ProjectRead,
    Values,
    changed_numbers,
    fingerprints,
    project_label,
    read_project,
    relist_instead,
    unmapped_option,
    unmapped_problem,
    with_project,
)
from revetly_core.connectors.tracker_fields import BadItem as BadItem
from revetly_core.connectors.tracker_fields import field_text
from revetly_core.connectors.tracker_http import Sleep, TrackerHttp, TrackerStop
from revetly_core.connectors.tracker_read import (
    TrackerSource,
    bearer,
    held_numbers,
    record_stop,
    removals_of_unseen,
)
from revetly_core.connectors.tracker_types import item_type
from revetly_core.model import Artifact, HistoryEntry

if TYPE_CHECKING:
    import httpx

OWN_WORD = "issue"
"""The type an issue no type map covers ingests with: GitHub's own word."""
PER_PAGE = "100"
LISTING_PATH = "issues"
"""The path a problem with the listing itself (not one issue) is named under."""
SUMMARY_CHARS = 200
_CLOSING = re.compile(
    r"\b(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?)\s*:?\s+([A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+)?#(\d+)\b",
    re.IGNORECASE)
_ISSUE_URL = re.compile(r"/repos/([A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+)/issues/(\d+)$")

GITHUB_HEADERS: Mapping[str, str] = MappingProxyType({
    "Accept": "application/vnd.github+json", "X-GitHub-Api-Version": "2022-11-28",
    "User-Agent": "revetly"})
"""What every request to the GitHub REST API sends (the API version it is written for)."""


def github_source_id(name: str) -> str:
    """The source id of a declared GitHub repository: ``github/<name>``."""
    return f"github/{name}"


def issue_path(number: int) -> str:
    """Where an issue is named in problems and history: ``issues/<number>``."""
    return f"issues/{number}"


def issue_status(state: str, state_reason: str | None, labels: list[str],
                 in_progress_label: str) -> str:
    """open -> ready (in-progress with the in-progress label); closed -> done, or discarded
    when GitHub says ``not_planned``."""
    if state == "closed":
        return "discarded" if state_reason == "not_planned" else "done"
    wanted = in_progress_label.casefold()
    return "in-progress" if any(label.casefold() == wanted for label in labels) else "ready"


def closing_references(body: str, repo: str) -> list[int]:
    """Issue numbers of this repository the body closes ("closes #n", "fixes o/r#n", ...)."""
    out: list[int] = []
    for m in _CLOSING.finditer(body):
        if m.group(1) is None or m.group(1).casefold() == repo.casefold():
            n = int(m.group(2))
            if n not in out:
                out.append(n)
    return out


def issue_number_of_url(url: object, repo: str) -> int | None:
    """The issue number an API URL names (``…/repos/o/r/issues/12``) when it is this
    repository's, else None."""
    if not isinstance(url, str):
        return None
    m = _ISSUE_URL.search(url)
    if m is None or m.group(1).casefold() != repo.casefold():
        return None
    return int(m.group(2))


def iso_time(value: object) -> str | None:
    """GitHub's ``2024-01-02T03:04:05Z`` as ISO text in UTC, or None when it is not a time."""
    if not isinstance(value, str):
        return None
    try:
        when = dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=dt.UTC)
    return when.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _names(raw: Mapping[str, Any], key: str, name_key: str) -> list[str]:
    value = raw.get(key) or []
    if not isinstance(value, list):
        raise BadItem(f"{key!r} is {type(value).__name__}, not a list")
    out: list[str] = []
    for entry in value:
        name = entry.get(name_key) if isinstance(entry, dict) else entry
        if not isinstance(name, str):
            raise BadItem(f"{key!r} holds {type(name).__name__}, not a {name_key}")
        out.append(name)
    return out


def native_type_of(raw: Mapping[str, Any]) -> str | None:
    """The GitHub issue type's name (``type: {"name": "Bug"}``), None when unset."""
    value = raw.get("type")
    if value is None:
        return None
    if isinstance(value, dict) and isinstance(value.get("name"), str):
        return str(value["name"])
    raise BadItem("'type' is not an issue type object")


def digest(raw: Mapping[str, Any]) -> str:
    """A fingerprint of the issue as served: an unchanged issue is not upserted again."""
    text = json.dumps(raw, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:40]


def parse_issue(raw: Mapping[str, Any], *, settings: GitHubSettings, source_id: str,
                project: str) -> Artifact:
    """One issue object as an artifact; raises BadItem naming the field that breaks it."""
    number = raw.get("number")
    if not isinstance(number, int) or isinstance(number, bool) or number < 1:
        raise BadItem("'number' is not a positive integer")
    title = field_text(raw, "title", required=True).strip()
    if not title:
        raise BadItem("'title' is empty")
    body = field_text(raw, "body")
    if len(body.encode("utf-8", "surrogatepass")) > settings.max_body_bytes:
        raise BadItem(f"the body is over the {settings.max_body_bytes}-byte limit")
    state = field_text(raw, "state", required=True)
    if state not in ("open", "closed"):
        raise BadItem(f"'state' is {state!r}, not open or closed")
    reason = raw.get("state_reason")
    labels = _names(raw, "labels", "name")
    assignees = _names(raw, "assignees", "login")
    native = native_type_of(raw)
    reading = item_type(native, labels, settings.types, OWN_WORD)
    milestone = raw.get("milestone")
    if milestone is not None and not isinstance(milestone, dict):
        raise BadItem("'milestone' is not a milestone object")
    created, updated = iso_time(raw.get("created_at")), iso_time(raw.get("updated_at"))
    if updated is None:
        raise BadItem("'updated_at' is not a time")
    html_url = raw.get("html_url")
    user = raw.get("user")
    declared: dict[str, Any] = {}
    parent_n = issue_number_of_url(raw.get("parent_issue_url"), settings.repo)
    parent = f"{settings.prefix}-{parent_n}" if parent_n and parent_n != number else None
    if parent:
        declared["parent"] = parent
    refs = [f"{settings.prefix}-{n}" for n in closing_references(body, settings.repo)
            if n != number]
    if refs:
        declared["references"] = refs
    metadata: dict[str, Any] = {
        "source_kind": "github", "number": number, "state": state,
        "native_type": native, "labels": labels, "assignees": assignees,
        "declared": declared, "declared_updated": updated, **reading.metadata(),
    }
    if isinstance(reason, str):
        metadata["state_reason"] = reason
    if created:
        metadata["declared_created"] = created
    if milestone is not None:
        metadata["milestone"] = str(milestone.get("title") or milestone.get("number") or "")
    if isinstance(user, dict) and isinstance(user.get("login"), str):
        metadata["author"] = user["login"]
    return Artifact(
        id=f"{settings.prefix}-{number}", type=reading.type, title=title, source=source_id,
        project=project, body=body,
        status=issue_status(state, reason if isinstance(reason, str) else None, labels,
                            settings.in_progress_label),
        parent=parent, owner=assignees[0] if assignees else None, metadata=metadata,
        source_path=issue_path(number),
        source_uri=html_url if isinstance(html_url, str) else None, blob=digest(raw),
        created_at=created, source_updated_at=updated, provenance="source-of-record")


def comment_entry(raw: Mapping[str, Any], repo: str) -> tuple[int, HistoryEntry]:
    """(issue number, the change note) of one comment; raises BadItem when it has no issue,
    id or time."""
    number = issue_number_of_url(raw.get("issue_url"), repo)
    cid = raw.get("id")
    at = iso_time(raw.get("created_at"))
    if number is None or not isinstance(cid, int) or at is None:
        raise BadItem("a comment without its issue, id or time")
    body = field_text(raw, "body")
    user = raw.get("user")
    author = user.get("login") if isinstance(user, dict) else None
    first = next((ln.strip() for ln in body.splitlines() if ln.strip()), "")
    edited = iso_time(raw.get("updated_at"))
    change = "commented" if edited in (None, at) else "comment-edited"
    return number, HistoryEntry(issue_path(number), at, change, f"comment/{cid}",
                                author if isinstance(author, str) else None,
                                first[:SUMMARY_CHARS] or None)


@dataclass
class _ProjectPlan:
    """This pass's project read and what it asks of the issue read: which issues' values
    changed, which of those to fetch one by one, and whether to list every issue instead."""

    read: ProjectRead
    before: dict[str, str]
    now: dict[str, str]
    changed: set[int]
    refetch: set[int]
    relist: bool


@dataclass
class _Listing:
    """Where one listing got to: the newest ``updated_at`` read and why it stopped, if so."""

    newest: str | None
    etag: str | None = None
    not_modified: bool = False
    stop: TrackerStop | None = None
    pages: int = 0


class GitHubConnector(TrackerSource):
    """Reads one declared repository's issues and comments; ``transport`` is httpx's seam."""

    def __init__(self, settings: GitHubSettings, config: Config, *,
                 transport: httpx.BaseTransport | None = None, sleep: Sleep = time.sleep,
                 clock: Callable[[], float] = time.time,
                 environ: Mapping[str, str] = os.environ) -> None:
        super().__init__(github_source_id(settings.name), settings.project or config.default_project,
                         transport=transport, sleep=sleep, clock=clock, environ=environ)
        self.settings = settings

    def _http(self) -> TrackerHttp:
        return self.client(self.settings, GITHUB_HEADERS, bearer)

    def _list(self, http: TrackerHttp, path: str, since: str | None, etag: str | None,
              on_page: Callable[[list[Any]], None]) -> _Listing:
        params = {"sort": "updated", "direction": "asc", "per_page": PER_PAGE}
        if path.endswith("/issues"):
            params["state"] = "all"
        if since:
            params["since"] = since
        listing = _Listing(newest=since)
        url: str | None = path
        query: dict[str, str] | None = params
        while url is not None:
            try:
                page = http.get(url, query, etag=etag if listing.pages == 0 else None)
            except TrackerStop as stop:
                listing.stop = stop
                return listing
            if page.not_modified:
                listing.not_modified, listing.etag = True, etag
                return listing
            if listing.pages == 0:
                listing.etag = page.etag
            listing.pages += 1
            if not isinstance(page.data, list):
                listing.stop = TrackerStop("malformed", f"{path} answered "
                                           f"{type(page.data).__name__}, not a list",
                                           resumable=True)
                return listing
            on_page(page.data)
            for raw in page.data:
                when = iso_time(raw.get("updated_at")) if isinstance(raw, dict) else None
                if when is not None and (listing.newest is None or when > listing.newest):
                    listing.newest = when
            url, query = page.next_url, None
        return listing

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
        since = None if full else cursor.get("since")
        etag = cursor.get("etag") if since is not None and \
            cursor.get("etag_since") == since else None
        seen: set[str] = set()
        numbers: set[int] = set()
        read = 0
        repo = self.settings.repo
        http = self._http()

        plan: _ProjectPlan | None = None
        refetched: TrackerStop | None = None

        def on_issues(items: list[Any]) -> None:
            nonlocal read
            for i, raw in enumerate(items):
                read += self._take_issue(raw, i, batch, known, seen, numbers, full=full,
                                         project=plan.read.values if plan else None)
            progress(f"read {self.source_id}", read, 0)

        try:
            if self.settings.projects_v2 is not None:
                plan = self._plan_project(http, known, cursor, full=full, progress=progress)
                if plan.read.stop is not None:
                    return self._project_stopped(batch, cursor, plan.read)
                if plan.relist:
                    since, etag = None, None
            issues = self._list(http, f"/repos/{repo}/issues", since, etag, on_issues)
            if plan is not None and issues.stop is None:
                refetched, taken = self._refetch(http, plan, batch, known, seen, numbers,
                                                 full=full)
                read += taken
            comments = _Listing(newest=cursor.get("comments_since"))
            if not issues.not_modified and issues.stop is None:
                held = numbers | held_numbers(known)
                comments = self._list(
                    http, f"/repos/{repo}/issues/comments",
                    None if full else cursor.get("comments_since"), None,
                    lambda items: self._take_comments(items, batch, held))
        finally:
            self.done_with(http)
        batch.read_count = read
        batch.cleared_paths = {LISTING_PATH} | {issue_path(n) for n in numbers} | {
            p.path for p in batch.problems}
        stop = issues.stop or refetched or comments.stop
        if stop is not None:
            record_stop(batch, LISTING_PATH, stop)
        listed_all = since is None and issues.stop is None
        batch.complete = listed_all
        batch.history_complete = full and comments.stop is None and issues.stop is None
        if listed_all:
            batch.removals += removals_of_unseen(known, seen, now, "missing from the repository's issues")
        batch.cursor = {"since": issues.newest, "etag": issues.etag,
                        "etag_since": issues.newest if issues.newest == since else None,
                        "comments_since": comments.newest}
        if batch.cursor["etag_since"] is None:  # an ETag holds only for the URL it answered
            batch.cursor["etag"] = None
        if plan is not None:
            batch.cleared_paths.add(PROJECT_PATH)
            assert self.settings.projects_v2 is not None
            batch.cursor["project_of"] = project_label(self.settings.projects_v2)
            batch.cursor["project_read"] = {"pages": plan.read.pages, "points": plan.read.cost,
                                            "items_left_out": plan.read.skipped}
            batch.cursor["project_digests"] = self._digests_kept(
                plan, numbers, stopped=stop is not None)
        return batch

    def _plan_project(self, http: TrackerHttp, known: dict[str, KnownArtifact],
                      cursor: dict[str, Any], *, full: bool,
                      progress: Progress) -> _ProjectPlan:
        """Read the project (resuming a stopped read unless ``full``) and decide how the
        issues whose values changed are brought up to date."""
        settings = self.settings.projects_v2
        assert settings is not None
        label = project_label(settings)
        resume = not full and cursor.get("project_of") == label and \
            isinstance(cursor.get("project_after"), str)
        pending = {int(n): dict(v) for n, v in (cursor.get("project_pending") or {}).items()
                   } if resume else {}
        got = read_project(http, settings, self.settings.repo,
                           after=cursor["project_after"] if resume else None, pending=pending,
                           on_page=lambda pages: progress(f"read {self.source_id} project",
                                                          pages, 0))
        before = {} if full or cursor.get("project_of", label) != label else dict(
            cursor.get("project_digests") or {})
        now = fingerprints(got.values, settings)
        changed = changed_numbers(before, now)
        held = {int(k.id.rsplit("-", 1)[1]) for k in known.values()
                if not k.deleted and k.id.rsplit("-", 1)[-1].isdigit()}
        relist = not full and relist_instead(len(changed & held), len(held))
        return _ProjectPlan(got, before, now, changed,
                            set() if full or relist else changed & held, relist)

    def _project_stopped(self, batch: SourceBatch, cursor: dict[str, Any],
                         got: ProjectRead) -> SourceBatch:
        """A project read that stopped: no issue is read this pass (their statuses would be
        half from the project), the problem is named, and a resumable stop keeps the pages
        read and the end cursor for the next pass."""
        settings = self.settings.projects_v2
        assert settings is not None and got.stop is not None
        stop = got.stop
        batch.complete = False
        batch.history_complete = False
        record_stop(batch, PROJECT_PATH, stop,
                    what=f"the project read stopped after {got.pages} page(s)")
        batch.cleared_paths = {PROJECT_PATH}
        kept = {k: v for k, v in cursor.items()
                if k not in ("project_of", "project_after", "project_pending")}
        if stop.resumable and got.after is not None:
            kept.update(project_of=project_label(settings), project_after=got.after,
                        project_pending={str(n): v for n, v in sorted(got.values.items())})
        batch.cursor = kept
        return batch

    def _refetch(self, http: TrackerHttp, plan: _ProjectPlan, batch: SourceBatch,
                 known: dict[str, KnownArtifact], seen: set[str], numbers: set[int], *,
                 full: bool) -> tuple[TrackerStop | None, int]:
        """Fetch, one request each, the held issues whose project values changed and which
        the listing did not bring: (the stop that ended it, if one did; issues read)."""
        taken = 0
        for n in sorted(plan.refetch - numbers):
            try:
                page = http.send("GET", f"/repos/{self.settings.repo}/issues/{n}",
                                 idempotent=True, missing_ok=True)
            except TrackerStop as stop:
                return stop, taken
            if page.data is not None:  # a 404: gone; the next whole listing removes it
                taken += self._take_issue(page.data, 0, batch, known, seen, numbers,
                                          full=full, project=plan.read.values)
        return None, taken

    @staticmethod
    def _digests_kept(plan: _ProjectPlan, numbers: set[int], *, stopped: bool) -> dict[str, str]:
        """The fingerprints the cursor keeps: this pass's, except that after a stop an issue
        whose change did not land keeps the old one, so the next pass takes it again."""
        kept = dict(plan.now)
        if stopped:
            for n in plan.changed - numbers:
                key = str(n)
                if key in plan.before:
                    kept[key] = plan.before[key]
                else:
                    kept.pop(key, None)
        return dict(sorted(kept.items(), key=lambda kv: int(kv[0])))

    def _take_issue(self, raw: Any, index: int, batch: SourceBatch,
                    known: dict[str, KnownArtifact], seen: set[str], numbers: set[int], *,
                    full: bool, project: dict[int, Values] | None = None) -> int:
        """Take one listed item into the batch (with its project values when a project is
        read); 0 for a pull request (skipped), else 1."""
        number = raw.get("number") if isinstance(raw, dict) else None
        path = issue_path(number) if isinstance(number, int) and number > 0 else \
            f"{LISTING_PATH} (item {index + 1} of a page)"
        if isinstance(raw, dict) and "pull_request" in raw:
            return 0
        try:
            if not isinstance(raw, dict):
                raise BadItem(f"an item is {type(raw).__name__}, not an issue object")
            art = parse_issue(raw, settings=self.settings, source_id=self.source_id,
                              project=self.project)
        except (BadItem, TypeError, ValueError, AttributeError, RecursionError) as exc:
            if isinstance(number, int) and number > 0:
                seen.add(f"{self.settings.prefix}-{number}")  # named, not taken as removed
            batch.problems.append(FileProblem(self.source_id, path, "malformed-item",
                                              f"the issue is skipped: {exc}"))
            return 1
        seen.add(art.id)
        numbers.add(int(raw["number"]))
        settings = self.settings.projects_v2
        if settings is not None and project is not None:
            values = project.get(int(raw["number"]), {})
            art = with_project(art, values, settings)
            option = unmapped_option(values, settings)
            if option is not None:
                batch.problems.append(unmapped_problem(self.source_id, path, option, settings))
        k = known.get(art.id)
        if full or k is None or k.deleted or k.blob != art.blob:
            batch.upserts.append(art)
        return 1

    def _take_comments(self, items: list[Any], batch: SourceBatch, held: set[int]) -> None:
        for raw in items:
            try:
                if not isinstance(raw, dict):
                    raise BadItem("a comment is not an object")
                number, entry = comment_entry(raw, self.settings.repo)
            except (BadItem, TypeError, ValueError, AttributeError) as exc:
                batch.problems.append(FileProblem(self.source_id, f"{LISTING_PATH}/comments",
                                                  "malformed-comment",
                                                  f"a comment is skipped: {exc}",
                                                  severity="warning"))
                continue
            if number in held:  # a pull request's comments are not an issue's history
                batch.history.append(entry)
