"""get_authoring_context: the one bundle a new story is drafted from.

The nearest backlog (the keyword leg and its feedback leg, fused by rank) as slim briefs;
related, a search at the bundle's limit that does not repeat the backlog; paths, the code
files the commits naming that backlog touched (scope/story_paths.py); and binding, what
already binds that backlog, with the topic's own decision notes joining after the walk's.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from revetly_core.answers.scope import AuthoringAnswer
from revetly_core.model import STATEMENT_NOTE_TYPES, WORK_ITEM_TYPES
from revetly_core.reads import ranking, retrieval, semantic
from revetly_core.reads.budget import Cut, fit, payload_bytes, read_budget
from revetly_core.reads.envelope import ProjectScope, envelope, resolve_project
from revetly_core.reads.marks import row_marks
from revetly_core.reads.search import (
    METHOD_FEEDBACK,
    METHOD_KEYWORD,
    alias_units,
    feedback_terms,
    search_context,
)
from revetly_core.reads.text import cut_on_word
from revetly_core.refusal import Refusal
from revetly_core.scope.arguments import check_limit, check_topic
from revetly_core.scope.binding import artifacts_by_id, bind, statement_texts
from revetly_core.scope.context import ScopeContext
from revetly_core.scope.members import walk_members
from revetly_core.scope.story_paths import paths_block
from revetly_core.scope.topic import match_topic

DEFAULT_LIMIT = 5
MAX_LIMIT = 20
POOL = 60
BODY_HEAD_CHARS = 200
CRITERIA_LISTED = 8
DECLARED_LISTED = 12
STATEMENTS_SERVED = 45
STATEMENTS_WHOLE = 15
POINTER_KEYS = ("artifact_id", "title", "bears_on", "stated_at")
DROPPED_KEYS = ("source_path", "source_uri")
POINTERS_NOTE = ("rows past the first fifteen are pointers; the statement itself is served by "
                 "get_scope(question='binding') on the member it bears on, or get_artifact on "
                 "its id")
NOTHING_FOUND = "the bundle found no backlog for this topic, so binding gathered nothing"
RELATED_CUTS = [Cut(("paths", "listed"), "truncated"),
                Cut(("related", "passages"), "truncated_passages"),
                Cut(("related", "facts"), "truncated_facts"),
                Cut(("related", "artifacts"), "truncated_artifacts")]
RELATED_KEYS = ("artifacts", "passages", "facts", "deterministic_facts", "facts_truncated",
                "invalidated", "truncated_passages", "truncated_facts", "truncated_artifacts",
                "inferred_facts", "concepts")


def nearest_backlog(ctx: ScopeContext, topic: str, scope: ProjectScope,
                    limit: int) -> list[tuple[str, str]]:
    """(id, method) of the nearest live work items: keyword leg and feedback leg, by rank."""
    if ctx.index.revision() is None:
        raise Refusal("not-synced", "the keyword index is missing or torn",
                      "run `revetly sync` (it rebuilds the index)")
    searcher = ctx.index.shared_searcher()
    units = alias_units(topic, ctx.config.extraction.aliases, searcher)
    first = [i for i, _ in searcher.search(units, POOL, enough=limit)]
    own = {t for u in units for alt in u for t in alt}
    best = [a for a in (ctx.store.get(i) for i in first[:3]) if a is not None]
    extra = feedback_terms([a.title + "\n" + a.body for a in best], own, searcher)
    second = [i for i, _ in searcher.search(units + [[[t]] for t in extra], POOL,
                                            any_unit=True)] if extra else []
    near = ranking.leg_share(ctx.config.ranking, "semantic")
    meaning = semantic.semantic_leg(ctx.config, ctx.index.directory, topic, POOL) if near else []
    fused = retrieval.fuse([(first, 1.0), (second, retrieval.FEEDBACK_SHARE)])
    semantic.add_leg(fused, [(i, near * score) for i, score in meaning], 2)
    arts = artifacts_by_id(ctx.store, sorted(fused))
    reach = set(scope.reach)
    live = [
        i for i, a in arts.items()
        if a.type in WORK_ITEM_TYPES and not a.deleted and a.project in reach
        and not a.metadata.get("withheld")
    ]
    live.sort(key=lambda i: (-fused[i][0], i))
    label = semantic.semantic_method(ctx.config) if meaning else ""
    return [(i, METHOD_KEYWORD if 0 in fused[i][1] else METHOD_FEEDBACK if 1 in fused[i][1]
             else label) for i in live[:limit]]


def slim_brief(ctx: ScopeContext, artifact_id: str, method: str) -> dict[str, Any]:
    """A backlog row: id, title, status, parent, criteria, declared links, the body's head."""
    a = ctx.store.get(artifact_id)
    assert a is not None
    declared: dict[str, list[str]] = {}
    for relation, dst in ctx.store.declared_targets(a.id):
        declared.setdefault(relation, []).append(dst)
    row: dict[str, Any] = {"artifact_id": a.id, "title": a.title, "status": a.status,
                           "artifact_type": a.type, "parent": a.parent, "method": method}
    row["acceptance_criteria"] = a.criteria[:CRITERIA_LISTED]
    if len(a.criteria) > CRITERIA_LISTED:
        row["acceptance_criteria_truncated"] = len(a.criteria) - CRITERIA_LISTED
    listed: dict[str, list[str]] = {}
    room = DECLARED_LISTED
    total = 0
    for relation in sorted(declared):
        ids = sorted(declared[relation])
        total += len(ids)
        if room > 0:
            listed[relation] = ids[:room]
            room -= len(listed[relation])
    row["declared_links"] = listed
    if total > DECLARED_LISTED:
        row["declared_links_truncated"] = total - DECLARED_LISTED
    head, cut = cut_on_word(a.body.strip(), BODY_HEAD_CHARS)
    row["body"] = head
    if cut:
        row["body_truncated"] = {"total_chars": len(a.body.strip()), "served_chars": len(head)}
    row.update(row_marks(ctx.store, a))
    return row


def related_block(ctx: ScopeContext, topic: str, limit: int, project: str | None,
                  backlog_ids: set[str]) -> dict[str, Any]:
    """A search at the bundle's limit; what the backlog already serves is named, not repeated."""
    found = search_context(ctx.config, ctx.store, ctx.index, topic, limit=limit,
                           project=project)
    keyed: Mapping[str, Any] = found
    out = {k: keyed[k] for k in RELATED_KEYS if k in keyed}
    in_backlog = sorted({r["artifact_id"] for r in found["artifacts"]
                         if r["artifact_id"] in backlog_ids}
                        | {p["artifact_id"] for p in found["passages"]
                           if p["artifact_id"] in backlog_ids})
    out["artifacts"] = [r for r in found["artifacts"] if r["artifact_id"] not in backlog_ids]
    out["passages"] = [p for p in found["passages"] if p["artifact_id"] not in backlog_ids]
    out["artifacts_in_backlog"] = in_backlog
    return out


def topic_statements(ctx: ScopeContext, topic: str, scope: ProjectScope,
                     served: set[str]) -> list[dict[str, Any]]:
    """The decision, constraint and assumption notes the topic itself matches, not yet served."""
    matched = match_topic(ctx.config, ctx.store, ctx.index, topic, scope)
    ids = [m.artifact_id for m in matched.matched
           if m.artifact_type in STATEMENT_NOTE_TYPES and m.artifact_id not in served]
    arts = artifacts_by_id(ctx.store, ids)
    texts = statement_texts(ctx.store, ids)
    rows = []
    for i in ids:
        a = arts[i]
        rows.append({"artifact_id": i, "title": a.title, "artifact_type": a.type,
                     "status": a.status, "statement": texts.get(i, a.title), "bears_on": i,
                     "method": "topic-match", "position": "own", "stated_at": a.created_at})
    return rows


def shelf_rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The first fifteen whole (without addresses), the rest as pointer rows."""
    out = []
    for n, row in enumerate(rows[:STATEMENTS_SERVED]):
        if n < STATEMENTS_WHOLE:
            out.append({k: v for k, v in row.items() if k not in DROPPED_KEYS})
        else:
            out.append({k: row.get(k) for k in POINTER_KEYS})
    return out


def fit_bundle(payload: dict[str, Any], budget: int) -> None:
    """Cut related first, then binding's tail (naming each cut id, keeping one statement),
    then the backlog's tail; the cut names go last."""
    fit(payload, RELATED_CUTS, budget)
    binding = payload["binding"]
    statements = binding["statements"]
    taken: list[str] = []
    while payload_bytes(payload) > budget and len(statements) > 1:
        taken.insert(0, statements.pop()["artifact_id"])
        binding["truncated_ids"] = taken
    fit(payload, [Cut(("backlog",), "backlog_truncated")], budget)
    ids = binding.get("truncated_ids", [])
    more = 0
    while ids and payload_bytes(payload) > budget:
        ids.pop()
        more += 1
        binding["truncated_ids_more"] = more


def get_authoring_context(
    ctx: ScopeContext, topic: object, *, limit: object = None, project: str | None = None
) -> AuthoringAnswer:
    """The bundle to draft from: nearest backlog, related, and what binds that backlog (built
    key by key through the bundle's cuts, cast to its type; the served schema test pins it)."""
    text = check_topic(topic)
    size = check_limit(limit, DEFAULT_LIMIT, MAX_LIMIT)
    scope = resolve_project(ctx.config, project, with_imports=True)
    budget = read_budget(ctx.config.read.budget)
    nearest = nearest_backlog(ctx, text, scope, size)
    backlog = [slim_brief(ctx, i, m) for i, m in nearest]
    ids = [i for i, _ in nearest]
    binding: dict[str, Any]
    if not ids:
        binding = {"statements": [], "note": NOTHING_FOUND}
    else:
        members = walk_members(ctx.graph, ids)
        result = bind(ctx.store, ctx.graph, members, projects=scope.reach)
        rows = list(result.rows)
        binding = {"scope": {"roots": ids, "member_count": len(members.by_id)}}
        marked_rows = {r["artifact_id"] for r in backlog if "revised_by" in r}
        revised = [m for m in result.revised if m["artifact_id"] not in marked_rows]
        if revised:
            binding["scope"]["revised"] = revised
        try:
            rows += topic_statements(ctx, text, scope, {r["artifact_id"] for r in rows})
        except Refusal as refusal:
            binding["topic_error"] = refusal.payload()["refusal"]
        binding["statements"] = shelf_rows(rows)
        binding["deterministic_statements"] = len(binding["statements"])
        if len(rows) > STATEMENTS_WHOLE:
            binding["pointers"] = {"from": STATEMENTS_WHOLE + 1, "note": POINTERS_NOTE}
        if len(rows) > STATEMENTS_SERVED:
            binding["truncated"] = {"reason": "statement-cap", "total": len(rows),
                                    "listed": STATEMENTS_SERVED,
                                    "note": "read get_scope(question='binding') for the rest"}
        if not rows:
            binding["note"] = ("nothing was gathered for this backlog; that is not a statement "
                               "that nothing binds it")
    payload: dict[str, Any] = {
        "topic": text,
        "backlog": backlog,
        "related": related_block(ctx, text, size, project, set(ids)),
        "paths": paths_block(ctx.config, ctx.store, ids),
        "binding": binding,
    }
    payload.update(envelope(ctx.config, ctx.store, scope))
    fit_bundle(payload, budget)
    return cast(AuthoringAnswer, payload)
