"""get_artifact: one artifact's brief, its full record (history_after), or its branch (depth).

Brief: the artifact's own words (body verbatim, acceptance_criteria), its address and times,
declared_links (relation -> far-end ids of the live links its own frontmatter states), the
marks a row keeps, named_by_commits (the commits whose messages name it, newest first, capped
and counted), and full_record counting what the brief leaves out. A commit is read by its id
or a prefix of at least 7 hex digits only it starts with.

Full record (history_after given, or deleted='include'/'only'): the brief plus metadata,
every link in and out, and one page of the artifact's history. history_after is read as:

* ``''``: from the first entry;
* a revision id (40 hex, or a prefix of at least 7 hex digits naming exactly one entry of
  this artifact's history): the entries after that one;
* an ISO-8601 date or datetime (a date is midnight UTC, a datetime without zone is UTC):
  the entries dated strictly after it.

History is served oldest first, ordered by (time, revision id), HISTORY_PAGE entries a page;
history_next is the revision id of the last entry served when more remain, to be passed back
as history_after.

Branch (depth given): the tree of declared parent links beneath the artifact. Children are
the artifacts whose live declared ``parent`` link points at a node, in list_backlog's serve
order. An integer walks that many levels; 'declared' keeps walking while the node's type is
a parent type in [backlog.parents]. The budget cuts the deepest level first (its tail first),
then the withdrawn rows, then the ids carried by the rollup. With deleted='only' the tree is
the root alone and the walk's deleted nodes are served under withdrawn.

Over budget, a brief or full record is cut in this order: the history page (history_next
then resumes after the last entry kept), the full link list, a commit's file list, metadata
keys (largest first), declared_links (the longest relation list loses its tail first),
open_questions, the body (its head kept, cut on a line or word boundary) and last the
acceptance criteria. Marks and identity are never cut.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from revetly_core.answers.artifact import (
    ArtifactAnswer,
    ArtifactBranch,
    ArtifactBrief,
    ArtifactRecord,
    BranchNode,
    BranchTruncated,
    CommitField,
    HistoryEntry,
    NamedByCommits,
    NamingCommit,
    RecordKeys,
    RecordLink,
    Rollup,
    RollupGroup,
    Withdrawn,
    WithdrawnItem,
    WithheldArtifact,
)
from revetly_core.answers.backlog import BacklogRow
from revetly_core.answers.common import Absent
from revetly_core.config import Config
from revetly_core.ids import id_key
from revetly_core.isotime import parse_iso_utc
from revetly_core.model import COMMIT_TYPE, Artifact
from revetly_core.reads.backlog import compact_row, serve_key
from revetly_core.reads.budget import (
    BUDGET_REASON,
    Cut,
    cut_report,
    fit,
    payload_bytes,
    read_budget,
)
from revetly_core.reads.envelope import ProjectScope, check_deleted, envelope, resolve_project
from revetly_core.reads.inferred import (
    BRANCH_SAMPLE,
    add_brief_keys,
    branch_inferred,
    check_inferred,
    cut_inferred_before_stated,
    drop_branch_sample,
    link_rows,
)
from revetly_core.reads.marks import revised_by, row_marks
from revetly_core.refusal import Refusal
from revetly_core.store.inferred import InferredStore
from revetly_core.store.protocols import Store
from revetly_core.store.queries_artifact import LinkState

HISTORY_PAGE = 50
MAX_ID_CHARS = 200
MIN_SHA_PREFIX = 7
LITE_ABSENT: Absent = {"absent": True, "reason": "lite"}
COMMIT_FIELDS: tuple[CommitField, ...] = (
    "repository", "author", "author_email", "files", "files_more", "merge")
"""Metadata of a commit artifact its brief serves beside the record."""

_FAMILY_ID = re.compile(r"^[A-Za-z][A-Za-z0-9]*-\d+(?:\.\d+)*(?:~[a-z][a-z0-9-]{0,30})?$")
"""FAMILY-NUMBER, dotted sub-task parts, and the ``~folder`` of a second file sharing an id."""
_SHA = re.compile(r"^[0-9a-fA-F]{40}$")
_SHA_PREFIX = re.compile(r"^[0-9a-fA-F]{7,39}$")
NAMING_COMMITS_LISTED = 10
"""A work item's brief lists at most this many of the commits that name it (newest first)."""
AMBIGUOUS_LISTED = 5
_HEX = re.compile(r"^[0-9a-fA-F]+$")
_METHOD_RANK = {"declared": 0, "explicit-ref": 1, "title-mention": 2}
ROLLUP_SHARE = 4
"""Over budget, the rollup's id lists get at most 1/ROLLUP_SHARE of it before nodes are cut."""


# -- arguments -------------------------------------------------------------------------------


def _invalid(argument: str, detail: str, fix: str) -> Refusal:
    return Refusal("invalid-argument", detail, fix, {"argument": argument})


def check_artifact_id(artifact_id: object) -> str:
    """artifact_id is FAMILY-NUMBER or 7 to 40 hex digits of a commit (lower-cased)."""
    if not isinstance(artifact_id, str):
        raise _invalid("artifact_id", "artifact_id must be text",
                       "pass an id such as STORY-0014, or a commit id (7 to 40 hex digits)")
    value = artifact_id.strip()
    if len(value) > MAX_ID_CHARS or not (_FAMILY_ID.match(value) or _SHA.match(value)
                                         or _SHA_PREFIX.match(value)):
        shown = value if len(value) <= 60 else value[:57] + "..."
        raise _invalid(
            "artifact_id", f"{shown!r} is not an artifact id (FAMILY-NUMBER or 7 to 40 hex digits)",
            "pass an id such as STORY-0014, or search_context to find one",
        )
    return value.lower() if _SHA.match(value) or _SHA_PREFIX.match(value) else value


def resolve_sha_prefix(store: Store, prefix: str) -> str | None:
    """The commit a hex prefix of at least 7 digits names, when exactly one does; None when
    none does; a refusal naming the candidates when several do."""
    rows = store.commit_ids_from(prefix, AMBIGUOUS_LISTED + 1)
    if len(rows) > 1:
        shown = rows[:AMBIGUOUS_LISTED]
        many = str(len(rows)) if len(rows) <= AMBIGUOUS_LISTED else f"over {AMBIGUOUS_LISTED}"
        raise Refusal(
            "ambiguous", f"{prefix} is the start of {many} commit ids: {', '.join(shown)}",
            "pass more hex digits of the commit id", {"artifact_id": prefix, "candidates": shown})
    return rows[0] if rows else None


def naming_commits(store: Store, a: Artifact,
                   listed: int = NAMING_COMMITS_LISTED) -> NamedByCommits | None:
    """The commits whose messages name this artifact (incoming links from commits), newest
    first: at most `listed` of them, and how many there are; None when none does."""
    rows = store.naming_commits(a.id)
    if not rows:
        return None
    seen: dict[str, NamingCommit] = {}
    for sha, subject, at, detail in rows:
        if sha in seen:
            continue
        entry: NamingCommit = {"sha": sha, "subject": subject, "at": at}
        where = json.loads(detail or "{}").get("in")
        if where:
            entry["named_in"] = where
        seen[sha] = entry
    commits = list(seen.values())
    out: NamedByCommits = {"total": len(commits), "listed": commits[:listed]}
    if len(commits) > listed:
        out["more"] = len(commits) - listed
    return out


def _check_depth(depth: object) -> int | str | None:
    if depth is None:
        return None
    if depth == "declared":
        return "declared"
    if isinstance(depth, int) and not isinstance(depth, bool) and depth >= 0:
        return depth
    raise _invalid("depth", f"depth={depth!r} is neither a whole number from 0 nor 'declared'",
                   "pass depth=0 for the artifact alone, a larger number, or depth='declared'")


def lookup_artifact(store: Store, artifact_id: str) -> Artifact | None:
    """The artifact held under this id; an id differing only in case or padding finds it too,
    and a commit id prefix of at least 7 hex digits finds the one commit it starts."""
    found = store.get(artifact_id)
    if found is not None:
        return found
    if _SHA_PREFIX.match(artifact_id):
        sha = resolve_sha_prefix(store, artifact_id.lower())
        return store.get(sha) if sha is not None else None
    key = id_key(artifact_id)
    if key is None:
        return None
    held = sorted(i for i in store.ids_of_family(key.family) if id_key(i) == key)
    return store.get(held[0]) if held else None


def artifact_not_found(artifact_id: str) -> Refusal:
    """The refusal for an id CONTEXT holds no artifact under."""
    return Refusal(
        "not-found", f"CONTEXT holds no artifact {artifact_id}",
        "search_context to find the artifact by its words, or list_backlog to list work items",
        {"artifact_id": artifact_id},
    )


# -- the brief -------------------------------------------------------------------------------


def _withheld(store: Store, a: Artifact) -> WithheldArtifact:
    out: WithheldArtifact = {
        "artifact_id": a.id,
        "in_context": False,
        "withheld": True,
        "title": a.title,
        "status": a.status,
        "artifact_type": a.type,
        "kind": a.kind,
        "provenance": a.provenance,
        "source_uri": a.source_uri,
        "source_path": a.source_path,
        "source_updated_at": a.source_updated_at,
    }
    return {**out, **row_marks(store, a)}


def _history_count(store: Store, a: Artifact) -> int:
    if not a.source_path:
        return 0
    return store.history_count(a.source, a.source_path)


def _declared_links(store: Store, a: Artifact) -> dict[str, list[str]]:
    out: dict[str, set[str]] = {}
    for relation, dst in store.declared_targets(a.id):
        out.setdefault(relation, set()).add(dst)
    return {rel: sorted(ids) for rel, ids in sorted(out.items())}


def _deleted_ids(store: Store, ids: Iterable[str]) -> set[str]:
    return store.deleted_among(list(ids))


def _held_ids(store: Store, ids: Iterable[str]) -> set[str]:
    return store.held_among(list(ids))


def _brief(store: Store, a: Artifact, scope: ProjectScope) -> ArtifactBrief:
    out: ArtifactBrief = {
        "artifact_id": a.id,
        "title": a.title,
        "status": a.status,
        "artifact_type": a.type,
        "kind": a.kind,
        "owner": a.owner,
        "provenance": a.provenance,
        "source_uri": a.source_uri,
        "source_path": a.source_path,
        "source_updated_at": a.source_updated_at,
        "created_at": a.created_at,
        "parent": a.parent,
    }
    if scope.multi and a.project not in scope.answering:
        out["from_project"] = a.project
    out["body"] = a.body
    out["acceptance_criteria"] = list(a.criteria)
    checked = a.metadata.get("criteria_checked")
    if isinstance(checked, list) and len(checked) == len(a.criteria):
        out["criteria_checked"] = [bool(c) for c in checked]
    if a.criteria_unparsed:
        out["criteria_unparsed"] = True
    declared = _declared_links(store, a)
    out["declared_links"] = declared
    gone = _deleted_ids(store, (i for ids in declared.values() for i in ids))
    if gone:
        out["declared_links_other_deleted"] = sorted(gone)
    if a.type == COMMIT_TYPE:
        for name in COMMIT_FIELDS:
            if name in a.metadata:
                out[name] = a.metadata[name]
    questions = a.metadata.get("open_questions")
    if questions:
        out["open_questions"] = list(questions) if isinstance(questions, list) else [questions]
    out = {**out, **row_marks(store, a)}
    if a.type != COMMIT_TYPE:
        named = naming_commits(store, a)
        if named is not None:
            out["named_by_commits"] = named
    if a.kind == "work-item" and "revised_by" not in out:
        rev = revised_by(store, a)
        if rev:
            out["revised_by"] = rev
    out["full_record"] = {
        "history_entries": _history_count(store, a),
        "change_notes": 0,
        "metadata_keys": sorted(k for k in a.metadata if k != "declared"),
        "inferred_links": LITE_ABSENT.copy(),
        "inferred_summary": False,
    }
    return out


# -- the full record -------------------------------------------------------------------------


def _links(store: Store, a: Artifact, deleted: str | None) -> list[RecordLink]:
    state: LinkState = "retired" if deleted == "only" else "any" if deleted == "include" else "live"
    rows = store.links_of(a.id, state)
    others = [r.dst if r.direction == "out" else r.src for r in rows]
    gone = _deleted_ids(store, others)
    held = _held_ids(store, others)
    served: list[tuple[tuple[Any, ...], RecordLink]] = []
    for r, other in zip(rows, others, strict=True):
        entry: RecordLink = {
            "relation": r.relation, "method": r.method, "direction": r.direction,
            "other": other,
        }
        detail = json.loads(r.detail or "{}")
        if detail:
            entry["detail"] = detail
        if other in gone:
            entry["other_deleted"] = True
        elif other not in held:
            entry["other_held"] = False
        if r.invalid_at is not None:
            entry["retracted"] = True
            entry["retracted_at"] = r.invalid_at
        key = (
            r.invalid_at is not None, r.direction != "out",
            _METHOD_RANK.get(r.method, len(_METHOD_RANK)), r.relation, other, r.method,
        )
        served.append((key, entry))
    served.sort(key=lambda s: s[0])
    return [s[1] for s in served]


@dataclass
class _HistoryPage:
    entries: list[HistoryEntry]
    total: int
    more: bool
    resume_from: str
    """What history_after resumes from when nothing on this page is kept."""
    keys: list[str] = field(default_factory=list)


def _history(store: Store, a: Artifact, history_after: str) -> _HistoryPage:
    rows = store.history_of(a.source, a.source_path) if a.source_path else []
    timed = sorted(((parse_iso_utc(r.at), r) for r in rows), key=lambda t: (
        t[0] or dt.datetime.min.replace(tzinfo=dt.UTC), t[1].revision))
    start = 0
    after = history_after.strip()
    if after:
        hits = [i for i, (_, r) in enumerate(timed) if r.revision == after.lower()]
        if not hits and len(after) >= MIN_SHA_PREFIX and _HEX.match(after):
            hits = [i for i, (_, r) in enumerate(timed) if r.revision.startswith(after.lower())]
            if len(hits) > 1:
                raise _invalid(
                    "history_after", f"history_after {after!r} names {len(hits)} revisions",
                    "pass the whole revision id, or history_next as a page served it",
                )
        if hits:
            start = hits[0] + 1
        else:
            when = parse_iso_utc(after)
            if when is None:
                raise _invalid(
                    "history_after",
                    f"history_after {after!r} is neither a revision of {a.id}'s history nor an "
                    "ISO date or time",
                    "pass '' for the first entry, history_next as a page served it, or an ISO time",
                )
            start = next(
                (i for i, (t, _) in enumerate(timed) if t is not None and t > when), len(timed)
            )
    window = timed[start : start + HISTORY_PAGE]
    entries: list[HistoryEntry] = []
    for _, r in window:
        entry: HistoryEntry = {"revision": r.revision, "at": r.at, "change": r.change}
        if r.author:
            entry["author"] = r.author
        if r.summary:
            entry["summary"] = r.summary
        entries.append(entry)
    return _HistoryPage(entries, len(timed), start + HISTORY_PAGE < len(timed), history_after,
                        [e["revision"] for e in entries])


# -- fitting a brief or record ---------------------------------------------------------------


def _report(total: int, listed: int, budget: int, **more: Any) -> dict[str, Any]:
    out: dict[str, Any] = {**cut_report(total, listed, budget), **more}
    return out


def _cut_history(payload: dict[str, Any], page: _HistoryPage, budget: int) -> None:
    entries: list[dict[str, Any]] = payload["history_entries"]
    whole = len(entries)
    if payload_bytes(payload) <= budget or not entries:
        return

    def mark(kept: int) -> None:
        payload["history_entries_truncated"] = _report(whole, kept, budget)
        payload["history_next"] = page.keys[kept - 1] if kept else page.resume_from

    mark(whole)
    sizes = [payload_bytes(e) + 1 for e in entries]
    size = payload_bytes(payload)
    while entries and size > budget:
        size -= sizes.pop()
        entries.pop()
    mark(len(entries))
    while entries and payload_bytes(payload) > budget:
        entries.pop()
        mark(len(entries))


def _cut_metadata(payload: dict[str, Any], budget: int) -> None:
    meta = payload.get("metadata")
    if not isinstance(meta, dict) or not meta or payload_bytes(payload) <= budget:
        return
    whole = len(meta)
    omitted: list[str] = []
    by_size = sorted(meta, key=lambda k: (-payload_bytes(meta[k]), k))
    for name in by_size:
        if payload_bytes(payload) <= budget:
            break
        del meta[name]
        omitted.append(name)
        payload["metadata_truncated"] = _report(whole, len(meta), budget, omitted=sorted(omitted))


def _cut_declared(payload: dict[str, Any], budget: int) -> None:
    links: dict[str, list[str]] = payload.get("declared_links") or {}
    total = sum(len(v) for v in links.values())
    if not total or payload_bytes(payload) <= budget:
        return
    whole = {rel: len(ids) for rel, ids in links.items()}

    def mark() -> None:
        listed = sum(len(v) for v in links.values())
        omitted = {rel: whole[rel] - len(ids) for rel, ids in links.items() if len(ids) < whole[rel]}
        payload["declared_links_truncated"] = _report(total, listed, budget, omitted=omitted)

    mark()
    size = payload_bytes(payload)
    while size > budget:
        longest = max((rel for rel in links if links[rel]), key=lambda r: (len(links[r]), r),
                      default=None)
        if longest is None:
            break
        gone = links[longest].pop()
        size -= payload_bytes(gone) + 1
    mark()
    while payload_bytes(payload) > budget:
        longest = max((rel for rel in links if links[rel]), key=lambda r: (len(links[r]), r),
                      default=None)
        if longest is None:
            break
        links[longest].pop()
        mark()


def head_of(text: str, limit: int) -> str:
    """The first ``limit`` characters at most, ending on a line break where one keeps at least
    half of them, else on a word break, else (one unbroken word) at the limit itself."""
    if limit >= len(text):
        return text
    head = text[:limit]
    if text[limit] in "\r\n":
        return head.rstrip()
    line = head.rfind("\n")
    if line >= limit // 2:
        return head[:line].rstrip()
    if text[limit].isspace():
        return head.rstrip()
    space = max(head.rfind(" "), head.rfind("\t"))
    if space > 0:
        return head[:space].rstrip()
    return head


def _cut_body(payload: dict[str, Any], budget: int) -> None:
    body = payload.get("body")
    if not isinstance(body, str) or not body or payload_bytes(payload) <= budget:
        return

    def trial(limit: int) -> bool:
        served = head_of(body, limit)
        payload["body"] = served
        payload["body_truncated"] = {
            "reason": BUDGET_REASON, "total_chars": len(body), "served_chars": len(served),
            "note": f"head kept to fit the {budget}-byte read budget",
        }
        return payload_bytes(payload) <= budget

    lo, hi = 0, len(body) - 1
    best = 0
    while lo <= hi:
        mid = (lo + hi) // 2
        if trial(mid):
            best, lo = mid, mid + 1
        else:
            hi = mid - 1
    trial(best)


def _fit_record(answer: ArtifactBrief, page: _HistoryPage | None, budget: int) -> None:
    """Fit a brief or record to the budget: history first, then links and files, metadata,
    declared links, open questions, the body and the criteria. The cutters edit the answer in
    place, key by key, as `fit` does."""
    if payload_bytes(answer) <= budget:
        return
    payload: Any = answer
    if page is not None:
        _cut_history(payload, page, budget)
    fit(payload, [Cut(("links",), "links_truncated"), Cut(("files",), "files_truncated")], budget)
    _cut_metadata(payload, budget)
    _cut_declared(payload, budget)
    fit(payload, [Cut(("open_questions",), "open_questions_truncated")], budget)
    _cut_body(payload, budget)
    fit(payload, [Cut(("acceptance_criteria",), "acceptance_criteria_truncated")], budget)


# -- the branch ------------------------------------------------------------------------------


@dataclass
class _Node:
    artifact: Artifact
    level: int
    parent: str | None
    children: list[str] = field(default_factory=list)
    not_walked: int = 0


@dataclass
class _Walk:
    nodes: dict[str, _Node]
    order: list[str]
    """Breadth first: by level, then by parent's place, then by serve order."""
    cycles: set[str]


def _children(store: Store, parents: list[str], scope: ProjectScope) -> dict[str, list[Artifact]]:
    out: dict[str, list[Artifact]] = {}
    for under, child in store.children_of(parents, scope.reach):
        out.setdefault(under, []).append(child)
    for kids in out.values():
        kids.sort(key=serve_key)
    return out


def _walk(
    store: Store, root: Artifact, depth: int | str, parent_types: set[str], scope: ProjectScope
) -> _Walk:
    nodes = {root.id: _Node(root, 0, None)}
    order = [root.id]
    cycles: set[str] = set()
    frontier = [root.id]
    level = 0

    def expands(node: _Node) -> bool:
        if depth == "declared":
            return node.artifact.type in parent_types
        return isinstance(depth, int) and node.level < depth

    while frontier:
        level += 1
        walking = [i for i in frontier if expands(nodes[i])]
        stopped = [i for i in frontier if i not in set(walking)]
        kids = _children(store, frontier, scope)
        for i in stopped:
            nodes[i].not_walked = sum(1 for k in kids.get(i, []) if k.id not in nodes)
        nxt: list[str] = []
        for pid in walking:
            for child in kids.get(pid, []):
                if child.id in nodes:
                    cycles.add(pid)
                    continue
                nodes[child.id] = _Node(child, level, pid)
                nodes[pid].children.append(child.id)
                order.append(child.id)
                nxt.append(child.id)
        frontier = nxt
    return _Walk(nodes, order, cycles)


def _rollup(nodes: Iterable[_Node]) -> Rollup:
    by_status: dict[str, list[str]] = {}
    by_type: dict[str, list[str]] = {}
    for n in nodes:
        by_status.setdefault(n.artifact.status or "(none)", []).append(n.artifact.id)
        by_type.setdefault(n.artifact.type or n.artifact.kind, []).append(n.artifact.id)

    def block(groups: dict[str, list[str]]) -> dict[str, RollupGroup]:
        return {k: {"count": len(v), "ids": sorted(v)} for k, v in sorted(groups.items())}

    return {"by_status": block(by_status), "by_type": block(by_type)}


def _cap_rollup(rollup: Rollup, cap: int) -> Rollup:
    """The rollup with each bucket's ids cut to ``cap`` (its count stays whole), ids_more beside."""

    def capped(groups: dict[str, RollupGroup]) -> dict[str, RollupGroup]:
        out: dict[str, RollupGroup] = {}
        for key, bucket in groups.items():
            ids = bucket["ids"]
            group: RollupGroup = {"count": bucket["count"], "ids": ids[:cap]}
            if len(ids) > cap:
                group["ids_more"] = len(ids) - cap
            out[key] = group
        return out

    return {"by_status": capped(rollup["by_status"]), "by_type": capped(rollup["by_type"])}


def _beneath(walk: _Walk, node_id: str) -> list[str]:
    out: list[str] = []
    stack = list(reversed(walk.nodes[node_id].children))
    while stack:
        nid = stack.pop()
        out.append(nid)
        stack.extend(reversed(walk.nodes[nid].children))
    return out


@dataclass
class _BranchView:
    """What a branch payload is built from, whatever the budget keeps of it."""

    config: Config
    store: Store
    scope: ProjectScope
    root: Artifact
    depth: int | str
    budget: int
    walk: _Walk
    served_ids: list[str]
    withdrawn_rows: list[tuple[str, int]]
    rows: dict[str, BacklogRow]
    withdrawn_items: list[WithdrawnItem]
    rollup: Rollup
    inferred: dict[str, Any] | None = None
    """The branch's inferred block on a full instance (None: lite, served absent)."""


def _served(walk: _Walk, root: Artifact, deleted: str | None
            ) -> tuple[list[str], list[_Node], list[tuple[str, int]]]:
    """Which walked nodes the tree serves, which the rollup counts, and what deletion withdrew
    (each withdrawn node with how many nodes beneath it it took out)."""
    withdrawn_rows: list[tuple[str, int]] = []
    if deleted == "only":
        for nid in walk.order[1:]:
            if walk.nodes[nid].artifact.deleted:
                withdrawn_rows.append((nid, len(_beneath(walk, nid))))
        return [root.id], [walk.nodes[n] for n, _ in withdrawn_rows], withdrawn_rows
    if deleted == "include":
        return list(walk.order), [walk.nodes[n] for n in walk.order], withdrawn_rows
    taken: set[str] = set()
    for nid in walk.order[1:]:
        if nid in taken or not walk.nodes[nid].artifact.deleted:
            continue
        beneath = _beneath(walk, nid)
        withdrawn_rows.append((nid, len(beneath)))
        taken.add(nid)
        taken.update(beneath)
    served_ids = [n for n in walk.order if n not in taken]
    return served_ids, [walk.nodes[n] for n in served_ids], withdrawn_rows


def _branch_rows(store: Store, walk: _Walk, served_ids: list[str],
                 withdrawn_rows: list[tuple[str, int]], scope: ProjectScope
                 ) -> tuple[dict[str, BacklogRow], list[WithdrawnItem]]:
    """The compact row of each served node, and of each withdrawn one (where it hung, what it
    took out)."""
    rows = {
        nid: compact_row(store, walk.nodes[nid].artifact, multi=scope.multi, with_parent=False)
        for nid in served_ids
    }
    for nid, row in rows.items():
        if not walk.nodes[nid].artifact.type:
            row["kind"] = walk.nodes[nid].artifact.kind
    withdrawn_items: list[WithdrawnItem] = []
    for nid, took_out in withdrawn_rows:
        item: WithdrawnItem = {
            **compact_row(store, walk.nodes[nid].artifact, multi=scope.multi, with_parent=False),
            "under": walk.nodes[nid].parent, "took_out": took_out}
        withdrawn_items.append(item)
    return rows, withdrawn_items


def _tree(view: _BranchView, kept: set[str]) -> BranchNode:
    """The nested tree of the kept nodes, each naming the children the cut or the walk left out."""
    walk, rows = view.walk, view.rows

    def build(nid: str) -> BranchNode:
        kids = [c for c in walk.nodes[nid].children if c in kept]
        cut_kids = sum(1 for c in walk.nodes[nid].children if c in rows and c not in kept)
        # a compact row never carries the child counts, added below where they apply
        node = BranchNode(**rows[nid], children=[build(c) for c in kids])  # type: ignore[typeddict-item]
        if walk.nodes[nid].not_walked:
            node["children_not_walked"] = walk.nodes[nid].not_walked
        if cut_kids:
            node["children_cut"] = cut_kids
        return node

    return build(view.root.id)


def _branch_payload(view: _BranchView, kept_count: int, withdrawn_kept: int,
                    ids_cap: int | None) -> ArtifactBranch:
    """The branch answer keeping the first kept_count served nodes, withdrawn_kept withdrawn
    rows, and rollup id lists capped at ids_cap (None: whole)."""
    kept = set(view.served_ids[:kept_count])
    budget = view.budget
    out: ArtifactBranch = {
        "artifact_id": view.root.id,
        "depth": view.depth,
        "depth_source": "declared" if view.depth == "declared" else "argument",
        "depth_reached": max((view.walk.nodes[n].level for n in kept), default=0),
        "tree": _tree(view, kept),
        "rollup": view.rollup if ids_cap is None else _cap_rollup(view.rollup, ids_cap),
    }
    if kept_count < len(view.served_ids) or ids_cap is not None:
        report: BranchTruncated = {  # the cap is added below where it applies
            **cut_report(len(view.served_ids), kept_count, budget),  # type: ignore[typeddict-item]
            "cut": "deepest-first"}
        if ids_cap is not None:
            report["rollup_ids_cap"] = ids_cap
        out["truncated"] = report
    if view.walk.cycles:
        out["cycles"] = sorted(view.walk.cycles)
    if view.withdrawn_items:
        block: Withdrawn = {
            "reason": "deleted", "count": len(view.withdrawn_items),
            "took_out": sum(b for _, b in view.withdrawn_rows),
            "items": view.withdrawn_items[:withdrawn_kept],
        }
        if withdrawn_kept < len(view.withdrawn_items):
            block["truncated"] = cut_report(len(view.withdrawn_items), withdrawn_kept, budget)
        out["withdrawn"] = block
    out["inferred"] = LITE_ABSENT.copy() if view.inferred is None else dict(view.inferred)
    return {**out, **envelope(view.config, view.store, view.scope)}


def _largest(lo: int, hi: int, fits: Callable[[int], bool]) -> int:
    """The largest n in [lo, hi] for which fits(n) holds, assuming lo fits."""
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if fits(mid):
            lo = mid
        else:
            hi = mid - 1
    return lo


def _fitted_branch(view: _BranchView) -> ArtifactBranch:
    """The whole branch if it fits; else cut in order: rollup ids to their share, the deepest
    nodes, the withdrawn rows, then the rollup ids further."""
    budget = view.budget

    def fits(payload: ArtifactBranch) -> bool:
        return payload_bytes(payload) <= budget

    n_served, n_withdrawn = len(view.served_ids), len(view.withdrawn_items)
    payload = _branch_payload(view, n_served, n_withdrawn, None)
    if fits(payload):
        return payload
    if view.inferred is not None and drop_branch_sample(view.inferred):
        payload = _branch_payload(view, n_served, n_withdrawn, None)  # the sample goes first
        if fits(payload):
            return payload
    share = budget // ROLLUP_SHARE
    widest = max((len(b["ids"]) for g in (view.rollup["by_status"], view.rollup["by_type"])
                  for b in g.values()), default=0)
    cap: int | None = None
    if payload_bytes(view.rollup) > share:
        cap = _largest(0, widest, lambda c: payload_bytes(_cap_rollup(view.rollup, c)) <= share)
    kept = _largest(1, n_served, lambda k: fits(_branch_payload(view, k, n_withdrawn, cap)))
    payload = _branch_payload(view, kept, n_withdrawn, cap)
    if fits(payload):
        return payload
    w = _largest(0, n_withdrawn, lambda k: fits(_branch_payload(view, 1, k, cap)))
    payload = _branch_payload(view, 1, w, cap)
    if fits(payload):
        return payload
    cap = _largest(0, widest if cap is None else cap,
                   lambda c: fits(_branch_payload(view, 1, w, c)))
    return _branch_payload(view, 1, w, cap)


def _branch(
    config: Config, store: Store, root: Artifact, depth: int | str, deleted: str | None,
    scope: ProjectScope, budget: int, inferred: InferredStore | None = None,
    everything: bool = False,
) -> ArtifactBranch:
    """The branch beneath an artifact: walked, filtered by deletion, rolled up, fitted; on a full
    instance its inferred edges are counted beside the tree, never in it (every one listed with
    inferred='all')."""
    parent_types = {p for parents in config.backlog.parents.values() for p in parents}
    walk = _walk(store, root, depth, parent_types, scope)
    served_ids, counted, withdrawn_rows = _served(walk, root, deleted)
    rows, withdrawn_items = _branch_rows(store, walk, served_ids, withdrawn_rows, scope)
    view = _BranchView(config, store, scope, root, depth, budget, walk, served_ids,
                       withdrawn_rows, rows, withdrawn_items, _rollup(counted),
                       None if inferred is None else branch_inferred(
                           inferred, served_ids, None if everything else BRANCH_SAMPLE))
    return _fitted_branch(view)


# -- the read --------------------------------------------------------------------------------


def get_artifact(
    config: Config,
    store: Store,
    artifact_id: str,
    *,
    project: str | None = None,
    history_after: str | None = None,
    depth: int | str | None = None,
    deleted: str | None = None,
    inferred: str | None = None,
    projection: InferredStore | None = None,
) -> ArtifactAnswer:
    """One artifact by id: its brief, its full record, or the branch beneath it. `projection` is
    the full instance's inferred projection (None on a lite instance: its keys read absent);
    inferred='all' serves its inferred half whole, under the read budget alone."""
    wanted = check_artifact_id(artifact_id)
    deleted = check_deleted(deleted)
    everything = check_inferred(inferred, "get_artifact")
    inferred_half = projection
    walk_depth = _check_depth(depth)
    if walk_depth is not None and history_after is not None:
        raise _invalid(
            "history_after", "history_after pages one artifact's history; a branch has none",
            "call get_artifact without depth to page history, or without history_after for the branch",
        )
    if history_after is not None and not isinstance(history_after, str):
        raise _invalid("history_after", "history_after must be text",
                       "pass '' for the first entry, or history_next as a page served it")
    scope = resolve_project(config, project, with_imports=True)
    a = lookup_artifact(store, wanted)
    if a is None:
        raise artifact_not_found(wanted)
    if a.project not in scope.reach:
        raise Refusal(
            "not-found",
            f"{a.id} is not held by project {scope.label} nor by a project it imports",
            f"pass project={a.project!r} to read it there, or search_context within {scope.label}",
            {"artifact_id": a.id, "project": scope.label},
        )
    budget = read_budget(config.read.budget)
    if walk_depth is not None:
        return _branch(config, store, a, walk_depth, deleted, scope, budget, inferred_half,
                       everything)
    if a.metadata.get("withheld"):
        return {**_withheld(store, a), **envelope(config, store, scope)}

    brief = _brief(store, a, scope)
    half = None if inferred_half is None else inferred_half.of_artifact(a.id)
    if inferred_half is not None:
        add_brief_keys(brief, half, everything)
    if history_after is None and deleted is None:
        answer: ArtifactBrief = {**brief, **envelope(config, store, scope)}
        cut_inferred_before_stated(answer, budget)
        _fit_record(answer, None, budget)
        return answer
    # The full record adds its keys to the brief, in the served order, then the envelope.
    links = _links(store, a, deleted)
    page = _history(store, a, history_after or "")
    added: RecordKeys = {
        "metadata": {k: v for k, v in sorted(a.metadata.items()) if k != "declared"},
        "links": links,
        "deterministic_links": len(links),
        "inferred_links": LITE_ABSENT.copy() if inferred_half is None else link_rows(half, a.id),
        "history_entries": page.entries,
        "history_total": page.total,
    }
    if page.more:
        added["history_next"] = page.keys[-1]
    record: ArtifactRecord = {**brief, **added, **envelope(config, store, scope)}
    cut_inferred_before_stated(record, budget)
    _fit_record(record, page, budget)
    return record
