"""The azure-devops source: a project's work items over the REST API, read incrementally.

A pass asks WIQL for the ids of the project's work items (under the area path when one is
set) in ``System.ChangedDate`` order, since the cursor on an incremental pass, then reads
their fields and relations in batches of 200 (``workitemsbatch``, as of the query's ``asOf``
so the batch agrees with the order the ids came in). Each work item type's states and their
categories (``workitemtypes/{type}/states``) decide its status; they are kept in the cursor and
asked again on a full pass. History comes from the reporting revisions API, one project-wide
listing paged by its continuation token, which the cursor keeps: each revision is a change
note, a revision with a discussion comment a ``commented`` one. A rate limit longer than the
source's cap, a disconnect or a 5xx past the retries ends the read ``partial``: what was read
lands, and the cursor resumes after the last item read.
"""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import html
import json
import os
import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from revetly_core.config import AzureDevOpsConnector as AzureDevOpsSettings
from revetly_core.config import Config
from revetly_core.connectors.base import (
    FileProblem,
    KnownArtifact,
    Progress,
    SourceBatch,
    no_progress,
)
from revetly_core.connectors.tracker_fields import BadItem as BadItem
from revetly_core.connectors.tracker_fields import field_text
from revetly_core.connectors.tracker_http import Sleep, TrackerHttp, TrackerStop
from revetly_core.connectors.tracker_read import (
    JSON_HEADERS,
    TrackerSource,
    held_numbers,
    record_stop,
    removals_of_unseen,
)
from revetly_core.connectors.tracker_types import item_type
from revetly_core.model import Artifact, HistoryEntry

if TYPE_CHECKING:
    import httpx

API_VERSION = "7.1"
BATCH_SIZE = 200
"""The most ids one ``workitemsbatch`` request takes (the API's own limit)."""
WIQL_TOP = 20_000
"""The most ids one WIQL query answers (the API's own cap); a capped listing is a window."""
REVISIONS_PAGE = "1000"
MAX_READ_AT_SINCE = 1000
"""The most ids read at the cursor's instant a query leaves out by id; more are read again."""
LISTING_PATH = "workitems"
"""The path a problem with the listing itself (not one item) is named under."""
SUMMARY_CHARS = 200
REVISION_FIELDS = ("System.Id", "System.Rev", "System.ChangedDate", "System.ChangedBy",
                   "System.State", "System.History")
HIERARCHY_PARENT = "System.LinkTypes.Hierarchy-Reverse"
HIERARCHY_CHILD = "System.LinkTypes.Hierarchy-Forward"
RELATED = "System.LinkTypes.Related"
PREDECESSOR = "System.LinkTypes.Dependency-Reverse"
STATUS_OF_CATEGORY = {"Proposed": "ready", "InProgress": "in-progress", "Resolved": "done",
                      "Completed": "done", "Removed": "discarded"}
"""Azure DevOps' state categories -> Revetly statuses."""
_WORK_ITEM_URL = re.compile(r"/_apis/wit/workItems/(\d+)$", re.IGNORECASE)
_TAG = re.compile(r"<[^>]*>")
_BULLET = re.compile(r"^(?:[-*•]|\d+[.)])\s+")


def azure_devops_source_id(name: str) -> str:
    """The source id of a declared Azure DevOps project: ``azure-devops/<name>``."""
    return f"azure-devops/{name}"


def work_item_path(number: int) -> str:
    """Where a work item is named in problems and history: ``workitems/<id>``."""
    return f"workitems/{number}"


def basic_auth(token: str) -> str:
    """The Authorization value of a personal access token: Basic with an empty user name."""
    return "Basic " + base64.b64encode(f":{token}".encode()).decode("ascii")


def wiql_literal(text: str) -> str:
    """A WIQL string literal: single-quoted, a quote inside doubled."""
    return "'" + text.replace("'", "''") + "'"


def wiql_query(since: str | None, area: str | None, read_at_since: Sequence[int] = ()) -> str:
    """The WIQL that lists the project's work item ids in change order: changed after
    ``since`` or at it but not among ``read_at_since`` (the ids a pass already read at that
    instant) when given, under ``area`` when set."""
    where = ["[System.TeamProject] = @project"]
    if area:
        where.append(f"[System.AreaPath] UNDER {wiql_literal(area)}")
    if since and read_at_since and len(read_at_since) <= MAX_READ_AT_SINCE:
        at = wiql_literal(since)
        held = ", ".join(str(n) for n in sorted(read_at_since))
        where.append(f"([System.ChangedDate] > {at} OR ([System.ChangedDate] = {at} "
                     f"AND [System.Id] NOT IN ({held})))")
    elif since:
        where.append(f"[System.ChangedDate] >= {wiql_literal(since)}")
    return ("SELECT [System.Id] FROM WorkItems WHERE " + " AND ".join(where)
            + " ORDER BY [System.ChangedDate] ASC, [System.Id] ASC")


def ado_time(value: object) -> str | None:
    """An Azure DevOps time (``2024-01-02T03:04:05.123Z``, any fraction or offset) as UTC ISO
    text with milliseconds, so two of them compare as text; None when it is not a time."""
    if not isinstance(value, str):
        return None
    try:
        when = dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=dt.UTC)
    return when.astimezone(dt.UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def to_seconds(when: str) -> str:
    """An ``ado_time`` as the store's second-precision ISO text."""
    return when[:19] + "Z"


def status_of(state: str, categories: Mapping[str, str]) -> str:
    """The status of a state from its type's state categories (STATUS_OF_CATEGORY); a state
    the type does not list, or a category Revetly does not know, reads ``ready``."""
    return STATUS_OF_CATEGORY.get(categories.get(state, ""), "ready")


def first_state_of_category(categories: Mapping[str, str]) -> dict[str, str]:
    """Category -> the type's first state in it, in the order the type lists its states
    (the state a write adapter moves an item to)."""
    out: dict[str, str] = {}
    for state, category in categories.items():
        out.setdefault(category, state)
    return out


def own_word(native_type: str) -> str:
    """The type an item no type map covers ingests with: its work item type, lower-case,
    spaces as hyphens (``User Story`` -> ``user-story``)."""
    return "-".join(native_type.casefold().split()) or "work-item"


def tags_of(value: object) -> list[str]:
    """``System.Tags`` (``"a; b"``) as a list of tags."""
    if value is None:
        return []
    if not isinstance(value, str):
        raise BadItem(f"'System.Tags' is {type(value).__name__}, not text")
    return [t.strip() for t in value.split(";") if t.strip()]


def identity_name(value: object) -> str | None:
    """The name of an identity field: an IdentityRef's ``uniqueName`` (else its
    ``displayName``), or the text the reporting API sends (``Name <mail>``)."""
    if isinstance(value, dict):
        for key in ("uniqueName", "displayName"):
            if isinstance(value.get(key), str) and value[key]:
                return str(value[key])
        return None
    return value if isinstance(value, str) and value else None


def plain_text(markup: str) -> str:
    """HTML field text (descriptions, comments) as plain text: tags dropped, entities read,
    block ends as line breaks."""
    text = re.sub(r"(?i)<br\s*/?>|</(p|div|li|h[1-6])>|<li(?:\s[^>]*)?>", "\n", markup)
    return html.unescape(_TAG.sub("", text)).strip()


def web_url(settings: AzureDevOpsSettings, number: int) -> str:
    """The work item's page: ``{api_url}/{organization}/{project}/_workitems/edit/{id}``."""
    return (f"{settings.api_url}/{quote(settings.organization)}/{quote(settings.project)}"
            f"/_workitems/edit/{number}")


def criteria_of(markup: str) -> list[str]:
    """``Microsoft.VSTS.Common.AcceptanceCriteria`` (HTML) as criteria: one per list item or
    line, a leading bullet or number stripped."""
    out: list[str] = []
    for line in plain_text(markup).splitlines():
        text = _BULLET.sub("", line.strip()).strip()
        if text:
            out.append(text)
    return out


def work_item_id_of_url(url: object) -> int | None:
    """The work item id a relation's URL names (``…/_apis/wit/workItems/297``), else None."""
    if not isinstance(url, str):
        return None
    m = _WORK_ITEM_URL.search(url)
    return int(m.group(1)) if m else None


def relation_links(relations: object, own: int) -> dict[str, list[int]]:
    """The work item relations as ``parent`` / ``children`` / ``related`` / ``predecessors``
    id lists (a link to itself or to a non-work-item is left out)."""
    if relations is None:
        return {}
    if not isinstance(relations, list):
        raise BadItem("'relations' is not a list")
    kinds = {HIERARCHY_PARENT: "parent", HIERARCHY_CHILD: "children", RELATED: "related",
             PREDECESSOR: "predecessors"}
    out: dict[str, list[int]] = {}
    for rel in relations:
        if not isinstance(rel, dict):
            raise BadItem("a relation is not an object")
        kind = kinds.get(rel.get("rel"))  # type: ignore[arg-type]
        target = work_item_id_of_url(rel.get("url"))
        if kind is None or target is None or target == own:
            continue
        found = out.setdefault(kind, [])
        if target not in found:
            found.append(target)
    return out


def digest(raw: Mapping[str, Any]) -> str:
    """A fingerprint of the work item as served: an unchanged item is not upserted again."""
    text = json.dumps(raw, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:40]


def native_type_of(raw: Any) -> str | None:
    """A served work item's ``System.WorkItemType`` when it has one (states are asked per type)."""
    fields = raw.get("fields") if isinstance(raw, dict) else None
    value = fields.get("System.WorkItemType") if isinstance(fields, dict) else None
    return value if isinstance(value, str) and value.strip() else None


def parse_work_item(raw: Mapping[str, Any], *, settings: AzureDevOpsSettings, source_id: str,
                    project: str, categories: Mapping[str, Mapping[str, str]]) -> Artifact:
    """One work item object as an artifact; raises BadItem naming the field that breaks it."""
    number = raw.get("id")
    if not isinstance(number, int) or isinstance(number, bool) or number < 1:
        raise BadItem("'id' is not a positive integer")
    fields = raw.get("fields")
    if not isinstance(fields, dict):
        raise BadItem("'fields' is not an object")
    title = field_text(fields, "System.Title", required=True).strip()
    if not title:
        raise BadItem("'System.Title' is empty")
    native = field_text(fields, "System.WorkItemType", required=True).strip()
    if not native:
        raise BadItem("'System.WorkItemType' is empty")
    state = field_text(fields, "System.State", required=True)
    body = plain_text(field_text(fields, "System.Description"))
    if len(body.encode("utf-8", "surrogatepass")) > settings.max_body_bytes:
        raise BadItem(f"the description is over the {settings.max_body_bytes}-byte limit")
    updated = ado_time(fields.get("System.ChangedDate"))
    if updated is None:
        raise BadItem("'System.ChangedDate' is not a time")
    created = ado_time(fields.get("System.CreatedDate"))
    tags = tags_of(fields.get("System.Tags"))
    reading = item_type(native, tags, settings.types, own_word(native))
    links = relation_links(raw.get("relations"), number)
    declared: dict[str, Any] = {}
    prefix = settings.prefix
    if links.get("parent"):
        declared["parent"] = f"{prefix}-{links['parent'][0]}"
    if links.get("related"):
        declared["related_ids"] = [f"{prefix}-{n}" for n in links["related"]]
    if links.get("predecessors"):
        declared["dependencies"] = [f"{prefix}-{n}" for n in links["predecessors"]]
    type_states = categories.get(native, {})
    owner = identity_name(fields.get("System.AssignedTo"))
    metadata: dict[str, Any] = {
        "source_kind": "azure-devops", "number": number, "state": state,
        "state_category": type_states.get(state), "native_type": native, "labels": tags,
        "declared": declared, "declared_updated": to_seconds(updated),
        "rev": raw.get("rev"), **reading.metadata(),
    }
    for key, name in (("System.AreaPath", "area_path"),
                      ("System.IterationPath", "iteration_path"),
                      ("System.Reason", "reason")):
        if isinstance(fields.get(key), str):
            metadata[name] = fields[key]
    if type_states:
        metadata["category_states"] = first_state_of_category(type_states)
    if links.get("children"):
        metadata["children"] = [f"{prefix}-{n}" for n in links["children"]]
    if created:
        metadata["declared_created"] = to_seconds(created)
    author = identity_name(fields.get("System.CreatedBy"))
    if author:
        metadata["author"] = author
    return Artifact(
        id=f"{prefix}-{number}", type=reading.type, title=title, source=source_id,
        project=project, body=body, status=status_of(state, type_states),
        criteria=criteria_of(field_text(fields, "Microsoft.VSTS.Common.AcceptanceCriteria")),
        parent=declared.get("parent"), owner=owner, metadata=metadata,
        source_path=work_item_path(number),
        source_uri=web_url(settings, number), blob=digest(raw),
        created_at=to_seconds(created) if created else None,
        source_updated_at=to_seconds(updated), provenance="source-of-record")


def revision_entry(raw: Mapping[str, Any]) -> tuple[int, HistoryEntry]:
    """(work item id, the change note) of one reporting revision; raises BadItem when it has no
    id, revision number or time."""
    fields = raw.get("fields")
    if not isinstance(fields, dict):
        raise BadItem("a revision without fields")
    number, rev = raw.get("id", fields.get("System.Id")), raw.get("rev", fields.get("System.Rev"))
    at = ado_time(fields.get("System.ChangedDate"))
    if not isinstance(number, int) or not isinstance(rev, int) or at is None:
        raise BadItem("a revision without its work item, number or time")
    comment = plain_text(field_text(fields, "System.History"))
    first = next((ln.strip() for ln in comment.splitlines() if ln.strip()), "")
    state = fields.get("System.State")
    summary: str | None
    if first:
        change, summary = "commented", first[:SUMMARY_CHARS]
    else:
        change = "created" if rev == 1 else "revised"
        summary = f"state {state}" if isinstance(state, str) and state else None
    return number, HistoryEntry(work_item_path(number), to_seconds(at), change, f"rev/{rev}",
                                identity_name(fields.get("System.ChangedBy")), summary)


def states_categories(data: Any) -> dict[str, str]:
    """A ``workitemtypes/{type}/states`` answer as state name -> category; raises BadItem when
    it is not that list."""
    values = data.get("value") if isinstance(data, dict) else None
    if not isinstance(values, list):
        raise BadItem("the states answer has no 'value' list")
    out: dict[str, str] = {}
    for entry in values:
        if isinstance(entry, dict) and isinstance(entry.get("name"), str) and \
                isinstance(entry.get("category"), str):
            out[entry["name"]] = entry["category"]
    return out


def states_of_cursor(value: object) -> dict[str, dict[str, str]]:
    """The type states a cursor keeps (type -> ``[[state, category], …]``, a list so the
    type's order survives the store's sorted JSON), as type -> state -> category."""
    out: dict[str, dict[str, str]] = {}
    if not isinstance(value, dict):
        return out
    for native, pairs in value.items():
        if isinstance(pairs, list):
            out[str(native)] = {str(p[0]): str(p[1]) for p in pairs
                                if isinstance(p, list) and len(p) == 2}
    return out


def continuation_token(page_headers: Mapping[str, str], data: Any) -> str | None:
    """Where a paged answer continues: its ``x-ms-continuationtoken`` header, else the
    body's ``continuationToken``."""
    token = page_headers.get("x-ms-continuationtoken")
    if token:
        return token
    value = data.get("continuationToken") if isinstance(data, dict) else None
    return value if isinstance(value, str) and value else None


@dataclass
class _Read:
    """What one pass got to: the newest change read, the ids at that instant, the history
    watermark, and why it stopped, if it did."""

    newest: str | None
    at_newest: set[int] = field(default_factory=set)
    watermark: str | None = None
    windowed: bool = False
    stop: TrackerStop | None = None


class AzureDevOpsConnector(TrackerSource):
    """Reads one declared project's work items and their revisions; ``transport`` is httpx's
    seam."""

    def __init__(self, settings: AzureDevOpsSettings, config: Config, *,
                 transport: httpx.BaseTransport | None = None, sleep: Sleep = time.sleep,
                 clock: Callable[[], float] = time.time,
                 environ: Mapping[str, str] = os.environ) -> None:
        super().__init__(azure_devops_source_id(settings.name),
                         settings.revetly_project or config.default_project,
                         transport=transport, sleep=sleep, clock=clock, environ=environ)
        self.settings = settings

    def _http(self) -> TrackerHttp:
        return self.client(self.settings, JSON_HEADERS, basic_auth)

    def _api(self, rest: str) -> str:
        s = self.settings
        return f"/{quote(s.organization)}/{quote(s.project)}/_apis/wit/{rest}"

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
        states = {} if full else states_of_cursor(cursor.get("states"))
        state = _Read(newest=since, at_newest=set(cursor.get("at_since") or []) if since else
                      set(), watermark=None if full else cursor.get("revisions"))
        seen: set[str] = set()
        numbers: set[int] = set()
        http = self._http()
        try:
            ids, as_of = self._listing(http, since, state)
            if state.stop is None:
                self._read_items(http, ids, as_of, states, state, batch, known, seen, numbers,
                                 full=full, progress=progress)
            if state.stop is None and (ids or full or cursor.get("revisions_due")):
                held = numbers | held_numbers(known)
                self._read_revisions(http, state, batch, held)
        finally:
            self.done_with(http)
        batch.read_count = len(seen)
        batch.cleared_paths = {LISTING_PATH} | {work_item_path(n) for n in numbers} | {
            p.path for p in batch.problems}
        if state.stop is not None:
            stop = state.stop
            record_stop(batch, LISTING_PATH, stop)
        listed_all = since is None and state.stop is None and not state.windowed
        batch.complete = listed_all
        batch.history_complete = full and state.stop is None
        if listed_all:
            batch.removals += removals_of_unseen(known, seen, now, "missing from the project's work items")
        batch.cursor = {"since": state.newest, "at_since": sorted(state.at_newest),
                        "states": {k: [[name, cat] for name, cat in v.items()]
                                   for k, v in states.items()},
                        "revisions": state.watermark,
                        "revisions_due": state.stop is not None}
        return batch

    def _listing(self, http: TrackerHttp, since: str | None, state: _Read,
                 ) -> tuple[list[int], str | None]:
        """The work item ids WIQL lists (in change order) and the ``asOf`` it answered for."""
        query = wiql_query(since, self.settings.area, sorted(state.at_newest))
        try:
            page = http.post(self._api("wiql"), {"timePrecision": "true", "$top": str(WIQL_TOP),
                                                 "api-version": API_VERSION}, {"query": query})
        except TrackerStop as stop:
            state.stop = stop
            return [], None
        items = page.data.get("workItems") if isinstance(page.data, dict) else None
        if not isinstance(items, list):
            state.stop = TrackerStop("malformed", "the WIQL answer has no 'workItems' list",
                                     resumable=True)
            return [], None
        ids: list[int] = []
        for entry in items:
            n = entry.get("id") if isinstance(entry, dict) else None
            if isinstance(n, int) and not isinstance(n, bool) and n > 0 and n not in ids:
                ids.append(n)
        state.windowed = len(items) >= WIQL_TOP
        as_of = page.data.get("asOf")
        return ids, as_of if isinstance(as_of, str) else None

    def _read_items(self, http: TrackerHttp, ids: list[int], as_of: str | None,
                    states: dict[str, dict[str, str]], state: _Read, batch: SourceBatch,
                    known: dict[str, KnownArtifact], seen: set[str], numbers: set[int], *,
                    full: bool, progress: Progress) -> None:
        for start in range(0, len(ids), BATCH_SIZE):
            chunk = ids[start:start + BATCH_SIZE]
            body: dict[str, Any] = {"ids": chunk, "$expand": "relations", "errorPolicy": "omit"}
            if as_of:
                body["asOf"] = as_of
            try:
                page = http.post(self._api("workitemsbatch"), {"api-version": API_VERSION}, body)
                values = page.data.get("value") if isinstance(page.data, dict) else None
                if not isinstance(values, list):
                    raise TrackerStop("malformed", "a work item batch has no 'value' list",
                                      resumable=True)
                self._learn_states(http, values, states, batch)
            except TrackerStop as stop:
                state.stop = stop
                return
            for i, raw in enumerate(values):
                self._take_item(raw, chunk[i] if i < len(chunk) else None, states, state,
                                batch, known, seen, numbers, full=full)
            progress(f"read {self.source_id}", len(seen), len(ids))

    def _learn_states(self, http: TrackerHttp, values: list[Any],
                      states: dict[str, dict[str, str]], batch: SourceBatch) -> None:
        """Ask the states of each work item type in ``values`` not yet known; a type the
        project refuses to describe is named and its items read ``ready``."""
        for raw in values:
            native = native_type_of(raw)
            if native is None or native in states:
                continue
            try:
                page = http.get(self._api(f"workitemtypes/{quote(native, safe='')}/states"),
                                {"api-version": API_VERSION})
            except TrackerStop as stop:
                if stop.resumable:
                    raise
                states[native] = {}
                batch.problems.append(FileProblem(
                    self.source_id, f"workitemtypes/{native}", "unknown-states",
                    f"the states of work item type {native!r} could not be read "
                    f"({stop.detail}); its items read ready until a full pass asks again",
                    severity="warning"))
                continue
            try:
                states[native] = states_categories(page.data)
            except BadItem as exc:
                raise TrackerStop("malformed", f"the states of {native!r}: {exc}",
                                  resumable=True) from None

    def _take_item(self, raw: Any, asked: int | None, states: Mapping[str, Mapping[str, str]],
                   state: _Read, batch: SourceBatch, known: dict[str, KnownArtifact],
                   seen: set[str], numbers: set[int], *, full: bool) -> None:
        """Take one served work item into the batch (None: gone since the query, skipped)."""
        if raw is None:
            return
        number = raw.get("id") if isinstance(raw, dict) else None
        if not (isinstance(number, int) and not isinstance(number, bool) and number > 0):
            number = asked
        path = work_item_path(number) if number else f"{LISTING_PATH} (an item of a batch)"
        try:
            if not isinstance(raw, dict):
                raise BadItem(f"an item is {type(raw).__name__}, not a work item object")
            art = parse_work_item(raw, settings=self.settings, source_id=self.source_id,
                                  project=self.project, categories=states)
        except (BadItem, TypeError, ValueError, AttributeError, RecursionError) as exc:
            if number:
                seen.add(f"{self.settings.prefix}-{number}")  # named, not taken as removed
            batch.problems.append(FileProblem(self.source_id, path, "malformed-item",
                                              f"the work item is skipped: {exc}"))
            return
        seen.add(art.id)
        numbers.add(int(raw["id"]))
        changed = ado_time(raw["fields"].get("System.ChangedDate"))
        if changed is not None:
            if state.newest is None or changed > state.newest:
                state.newest, state.at_newest = changed, {int(raw["id"])}
            elif changed == state.newest:
                state.at_newest.add(int(raw["id"]))
        k = known.get(art.id)
        if full or k is None or k.deleted or k.blob != art.blob:
            batch.upserts.append(art)

    def _read_revisions(self, http: TrackerHttp, state: _Read, batch: SourceBatch,
                        held: set[int]) -> None:
        """The project's revisions since the watermark, as change notes of the items held."""
        first = {"fields": ",".join(REVISION_FIELDS), "$maxPageSize": REVISIONS_PAGE,
                 "api-version": API_VERSION}
        if state.watermark:
            first["continuationToken"] = state.watermark
        params: dict[str, str] | None = first
        url: str | None = self._api("reporting/workitemrevisions")
        while url is not None:
            try:
                page = http.get(url, params)
            except TrackerStop as stop:
                state.stop = stop
                return
            data = page.data
            values = data.get("values") if isinstance(data, dict) else None
            if not isinstance(values, list):
                state.stop = TrackerStop("malformed", "a revisions batch has no 'values' list",
                                         resumable=True)
                return
            self._take_revisions(values, batch, held)
            token = continuation_token(page.headers, data)
            if token:
                state.watermark = token
            last = data.get("isLastBatch")
            link = data.get("nextLink")
            url, params = (link, None) if last is False and isinstance(link, str) else (None,
                                                                                       None)

    def _take_revisions(self, values: list[Any], batch: SourceBatch, held: set[int]) -> None:
        for raw in values:
            try:
                if not isinstance(raw, dict):
                    raise BadItem("a revision is not an object")
                number, entry = revision_entry(raw)
            except (BadItem, TypeError, ValueError, AttributeError) as exc:
                batch.problems.append(FileProblem(self.source_id, f"{LISTING_PATH}/revisions",
                                                  "malformed-revision",
                                                  f"a revision is skipped: {exc}",
                                                  severity="warning"))
                continue
            if number in held:  # an item outside the area (or never read) has no history here
                batch.history.append(entry)
