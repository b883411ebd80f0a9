"""GitHub Projects (v2) beside a repository's issues: one project's single-select values,
read over the GraphQL API and laid on the issues they belong to.

The project's items are paged 100 at a time (``pageInfo { hasNextPage endCursor }``); only
items whose content is an issue of the declared repository are kept, as ``{field: option}``
for every single-select field. The status field's option, when the map names it, sets the
issue's status over the open/closed + label rule; an option the map leaves out sets nothing,
is kept in metadata and is named by ``check``. A pass reads the whole project (one paged
query, 1 rate-limit point a page) and compares each issue's values with a fingerprint kept in
the cursor, so only issues whose project values changed are upserted. A read that stops keeps
the pages it got and the end cursor, and the next pass resumes after them.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from revetly_core.config import GitHubProjectsV2
from revetly_core.connectors.base import FileProblem
from revetly_core.connectors.tracker_http import TrackerHttp, TrackerStop
from revetly_core.model import Artifact

PROJECT_PATH = "projects_v2"
"""The path a problem with the project read itself (not one issue) is named under."""
ITEMS_PER_PAGE = 100
FIELD_VALUES_PER_ITEM = 50
"""A project holds at most 50 fields, so one page of an item's values is all of them."""

ITEMS_QUERY = """
query($owner: String!, $number: Int!, $first: Int!, $after: String, $values: Int!) {
  rateLimit { cost remaining }
  repositoryOwner(login: $owner) {
    ... on ProjectV2Owner {
      projectV2(number: $number) {
        items(first: $first, after: $after) {
          pageInfo { hasNextPage endCursor }
          nodes {
            id
            content {
              __typename
              ... on Issue { number repository { nameWithOwner } }
            }
            fieldValues(first: $values) {
              nodes {
                __typename
                ... on ProjectV2ItemFieldSingleSelectValue {
                  name
                  field { ... on ProjectV2FieldCommon { name } }
                }
              }
            }
          }
        }
      }
    }
  }
}
"""

Values = dict[str, str]
"""One issue's single-select values on the project: field name -> option name."""


@dataclass
class ProjectRead:
    """What one pass read of the project: each issue's values, where the paging got to and
    why it stopped, if it did."""

    values: dict[int, Values] = field(default_factory=dict)
    after: str | None = None
    """The end cursor of the last page read (the next pass resumes after it on a stop)."""
    stop: TrackerStop | None = None
    pages: int = 0
    cost: int = 0
    """GraphQL rate-limit points the pages cost, as GitHub reported them."""
    skipped: int = 0
    """Items that are not issues of this repository (pull requests, drafts, other repos)."""


@dataclass(frozen=True)
class ItemsPage:
    """One answered page of the project's items."""

    values: dict[int, Values]
    has_next: bool
    end_cursor: str | None
    cost: int
    skipped: int


def graphql_url(api_url: str) -> str:
    """Where GraphQL answers for a REST root: ``…/api/v3`` (GitHub Enterprise Server) becomes
    ``…/api/graphql``; any other root gains ``/graphql`` (``api.github.com/graphql``)."""
    root = api_url.rstrip("/")
    if root.endswith("/api/v3"):
        return root[: -len("/v3")] + "/graphql"
    return root + "/graphql"


def project_label(settings: GitHubProjectsV2) -> str:
    """How the project is named in metadata and problems: ``<owner>/projects/<number>``."""
    return f"{settings.owner}/projects/{settings.number}"


def errors_stop(errors: object) -> TrackerStop:
    """The stop a GraphQL ``errors`` list means: ``RATE_LIMITED`` waits for the next pass;
    anything else (a missing project, a token without ``read:project``) is refused."""
    first = errors[0] if isinstance(errors, list) and errors else {}
    kind = first.get("type") if isinstance(first, dict) else None
    message = first.get("message") if isinstance(first, dict) else None
    said = f": {str(message)[:200]}" if isinstance(message, str) else ""
    if kind == "RATE_LIMITED":
        return TrackerStop("rate-limited", f"the project read is rate limited{said}",
                           resumable=True)
    hint = " (check the owner, the number and the token's read:project scope)"
    return TrackerStop("refused", f"GitHub refused the project query ({kind or 'error'})"
                       f"{said}{hint}", resumable=False)


def _malformed(what: str) -> TrackerStop:
    return TrackerStop("malformed", f"the project answer {what}", resumable=True)


def item_values(node: object, repo: str) -> tuple[int, Values] | None:
    """(issue number, its single-select values) of one project item, or None when the item
    is not an issue of ``repo``; raises TrackerStop(malformed) on a shape GitHub never sends."""
    if not isinstance(node, dict):
        raise _malformed("holds an item that is not an object")
    content = node.get("content")
    if not isinstance(content, dict) or content.get("__typename") != "Issue":
        return None
    owner = content.get("repository")
    name = owner.get("nameWithOwner") if isinstance(owner, dict) else None
    number = content.get("number")
    if not isinstance(name, str) or not isinstance(number, int) or isinstance(number, bool):
        raise _malformed("holds an issue without its number or repository")
    if name.casefold() != repo.casefold() or number < 1:
        return None
    holder = node.get("fieldValues")
    nodes = holder.get("nodes") if isinstance(holder, dict) else None
    if not isinstance(nodes, list):
        raise _malformed(f"holds issue #{number} without its fieldValues")
    values: Values = {}
    for value in nodes:
        if not isinstance(value, dict) or \
                value.get("__typename") != "ProjectV2ItemFieldSingleSelectValue":
            continue
        owner_field = value.get("field")
        field_name = owner_field.get("name") if isinstance(owner_field, dict) else None
        option = value.get("name")
        if isinstance(field_name, str) and isinstance(option, str):
            values[field_name] = option
    return number, values


def items_page(data: object, repo: str) -> ItemsPage:
    """One GraphQL answer as a page of issue values; raises TrackerStop for GraphQL errors
    (see errors_stop) or an answer without the project's items."""
    if not isinstance(data, dict):
        raise _malformed(f"is {type(data).__name__}, not an object")
    if data.get("errors"):
        raise errors_stop(data["errors"])
    body = data.get("data")
    owner = body.get("repositoryOwner") if isinstance(body, dict) else None
    project = owner.get("projectV2") if isinstance(owner, dict) else None
    items = project.get("items") if isinstance(project, dict) else None
    if not isinstance(items, dict):
        raise TrackerStop("refused", "GitHub answered no such project (check the owner, the "
                          "number and the token's read:project scope)", resumable=False)
    info, nodes = items.get("pageInfo"), items.get("nodes")
    if not isinstance(info, dict) or not isinstance(nodes, list):
        raise _malformed("has items without pageInfo or nodes")
    end = info.get("endCursor")
    has_next = info.get("hasNextPage") is True
    if has_next and not isinstance(end, str):
        raise _malformed("says there is a next page but gives no endCursor")
    values: dict[int, Values] = {}
    skipped = 0
    for node in nodes:
        got = item_values(node, repo)
        if got is None:
            skipped += 1
        else:
            values[got[0]] = got[1]
    limit = body.get("rateLimit") if isinstance(body, dict) else None
    cost = limit.get("cost") if isinstance(limit, dict) else None
    return ItemsPage(values, has_next, end if isinstance(end, str) else None,
                     cost if isinstance(cost, int) else 0, skipped)


def read_project(http: TrackerHttp, settings: GitHubProjectsV2, repo: str, *,
                 after: str | None = None, pending: Mapping[int, Values] | None = None,
                 on_page: Callable[[int], None] = lambda pages: None) -> ProjectRead:
    """Page through the project's items from ``after`` (with the values ``pending`` from the
    pages before it); a stop keeps what was read and the cursor to resume from."""
    read = ProjectRead(values=dict(pending or {}), after=after)
    url = graphql_url(http.api_url)
    while True:
        variables: dict[str, Any] = {"owner": settings.owner, "number": settings.number,
                                     "first": ITEMS_PER_PAGE, "after": read.after,
                                     "values": FIELD_VALUES_PER_ITEM}
        try:
            answer = http.send("POST", url, {"query": ITEMS_QUERY, "variables": variables},
                               idempotent=True)
            page = items_page(answer.data, repo)
        except TrackerStop as stop:
            read.stop = stop
            return read
        read.pages += 1
        read.cost += page.cost
        read.skipped += page.skipped
        read.values.update(page.values)
        on_page(read.pages)
        if not page.has_next:
            return read
        read.after = page.end_cursor


def project_status(values: Values, settings: GitHubProjectsV2) -> str | None:
    """The status the status field's option maps to (exact name first, then case-folded);
    None when the item has no value there or the map leaves the option out."""
    option = values.get(settings.status_field)
    if option is None:
        return None
    if option in settings.statuses:
        return settings.statuses[option]
    folded = {k.casefold(): v for k, v in settings.statuses.items()}
    return folded.get(option.casefold())


def unmapped_option(values: Values, settings: GitHubProjectsV2) -> str | None:
    """The status field's option when the map does not name it (what ``check`` warns of)."""
    option = values.get(settings.status_field)
    if option is None or project_status(values, settings) is not None:
        return None
    return option


def values_fingerprint(values: Values, settings: GitHubProjectsV2) -> str:
    """A short digest of an issue's values and the status they map to: it changes when the
    project's values change or when the map changes what they mean."""
    text = json.dumps([project_label(settings), sorted(values.items()),
                       project_status(values, settings)], ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:12]


def fingerprints(values: Mapping[int, Values], settings: GitHubProjectsV2) -> dict[str, str]:
    """Each issue's fingerprint, keyed by its number as text (the cursor is JSON)."""
    return {str(n): values_fingerprint(v, settings) for n, v in sorted(values.items())}


def changed_numbers(before: Mapping[str, str], now: Mapping[str, str]) -> set[int]:
    """Issues whose project values differ from the last pass's: changed, added to the
    project or taken off it."""
    return {int(n) for n in set(before) | set(now) if before.get(n) != now.get(n)}


def relist_instead(changed: int, held: int) -> bool:
    """Whether listing every issue (100 a page) costs fewer requests than fetching each
    changed issue alone (one request each)."""
    return changed > max(1, -(-held // ITEMS_PER_PAGE))


def with_project(art: Artifact, values: Values, settings: GitHubProjectsV2) -> Artifact:
    """The issue with its project values: the mapped status over the issue's own, the values
    in ``metadata["projects_v2"]``, and a blob that moves with them. An issue that is not on
    the project comes back unchanged."""
    if not values:
        return art
    status = project_status(values, settings)
    meta: dict[str, Any] = {"project": project_label(settings), "fields": dict(values)}
    option = values.get(settings.status_field)
    if option is not None:
        meta["status_option"] = option
        meta["status_mapped"] = status is not None
    blob = hashlib.sha256(f"{art.blob}|{values_fingerprint(values, settings)}".encode()
                          ).hexdigest()[:40]
    return replace(art, status=status or art.status, blob=blob,
                   metadata={**art.metadata, "projects_v2": meta})


def unmapped_problem(source_id: str, path: str, option: str,
                     settings: GitHubProjectsV2) -> FileProblem:
    """The warning ``check`` shows for a status option the map leaves out."""
    return FileProblem(
        source_id, path, "project-status-unmapped",
        f"{settings.status_field} is {option!r} on {project_label(settings)}, which "
        f"[connectors.github.projects_v2.statuses] does not map; the issue keeps its "
        f"open/closed status", severity="warning")
