"""get_scope: three questions against one scope — binding, drift and deltas."""

from __future__ import annotations

from typing import Any, cast

from revetly_core.answers.scope import BindingAnswer, DeltasAnswer, DriftAnswer, ScopeAnswer
from revetly_core.inferred.instance import is_full
from revetly_core.reads.artifact import artifact_not_found, check_artifact_id, lookup_artifact
from revetly_core.reads.budget import Cut, fit, read_budget
from revetly_core.reads.envelope import ProjectScope, envelope, resolve_project
from revetly_core.refusal import Refusal
from revetly_core.scope.arguments import (
    check_clock,
    check_depth,
    check_limit,
    check_one_scope,
    check_path,
    check_question,
    check_topic,
    check_window,
    invalid,
)
from revetly_core.scope.binding import bind, statements_block
from revetly_core.scope.context import ScopeContext
from revetly_core.scope.members import walk_members
from revetly_core.scope.topic import match_topic
from revetly_core.store.inferred import InferredStore

BINDING_CUTS = [Cut(("scope", "members"), "members_truncated"),
                Cut(("statements",), "statements_truncated"),
                Cut(("behind",), "behind_truncated")]


def scope_root(ctx: ScopeContext, artifact_id: object, scope: ProjectScope) -> str:
    """The artifact a scope is rooted at, checked: held, and reachable from the project."""
    wanted = check_artifact_id(artifact_id)
    a = lookup_artifact(ctx.store, wanted)
    if a is None:
        raise artifact_not_found(wanted)
    if a.project not in scope.reach:
        raise Refusal("not-found", f"{a.id} is not held by project {scope.label} nor by a "
                      "project it imports", f"pass project={a.project!r} to read it there",
                      {"artifact_id": a.id, "project": scope.label})
    return a.id


def binding_for_roots(
    ctx: ScopeContext, scope: ProjectScope, roots: list[str], limit: int,
    scope_block: dict[str, Any], *,
    words: list[str] | None = None, topic_matched: frozenset[str] = frozenset(),
    depth: int | None = None,
) -> dict[str, Any]:
    """Walk the members from these roots and serve what binds them."""
    members = walk_members(ctx.graph, roots, depth)
    result = bind(ctx.store, ctx.graph, members, words=words, topic_matched=topic_matched,
                  projects=scope.reach)
    inferred = InferredStore(ctx.index.directory) if is_full(ctx.config) else None
    return statements_block(ctx.store, members, result, limit, scope_block, inferred)


def binding(ctx: ScopeContext, scope: ProjectScope, *, artifact_id: object, topic: object,
            path: object, limit: int, depth: int | None,
            given_limit: int | None = None) -> dict[str, Any]:
    """question='binding' over an artifact, a topic or a path; ``given_limit`` is the limit
    the caller named (None when it named none), which sizes a path's list of stories."""
    if path not in (None, ""):
        if depth is not None:
            raise invalid("depth", "path does not combine with depth",
                          "drop depth; the path's leading stories are walked whole")
        from revetly_core.scope.behind import behind_path, stories_listed

        block, leading = behind_path(ctx.config, ctx.store, ctx.graph, ctx.root,
                                     check_path(path), ctx.path_cache,
                                     stories_listed(given_limit))
        scope_block: dict[str, Any] = {"kind": "path", "roots": leading}
        body = binding_for_roots(ctx, scope, leading, limit, scope_block)
        return {"question": "binding", **block, **body}
    if topic not in (None, ""):
        text = check_topic(topic)
        matched = match_topic(ctx.config, ctx.store, ctx.index, text, scope)
        scope_block = {"topic": text, **matched.payload()}
        roots = [m.artifact_id for m in matched.matched]
        topic_matched = frozenset(m.artifact_id for m in matched.matched
                                  if m.artifact_type in ("decision", "constraint", "assumption"))
        body = binding_for_roots(ctx, scope, roots, limit, scope_block, words=matched.words,
                                 topic_matched=topic_matched, depth=depth)
        return {"question": "binding", **body}
    if artifact_id in (None, ""):
        raise invalid("artifact_id", "binding needs a scope: an artifact_id, a topic or a path",
                      "pass artifact_id='STORY-0014', topic='invoice export' or "
                      "path='src/billing/export.py'", "no-scope")
    root = scope_root(ctx, artifact_id, scope)
    scope_block = {"kind": "artifact", "artifact_id": root}
    if depth is not None:
        scope_block["depth"] = depth
    return {"question": "binding", **binding_for_roots(ctx, scope, [root], limit, scope_block,
                                                       depth=depth)}


def get_scope(
    ctx: ScopeContext,
    question: object = "binding",
    *,
    artifact_id: object = None,
    topic: object = None,
    path: object = None,
    depth: object = None,
    project: str | None = None,
    since: object = None,
    until: object = None,
    clock: object = None,
    limit: object = None,
) -> ScopeAnswer:
    """Answer one of the three scope questions; every bad argument is refused by name.

    binding and drift are built key by key (drift's lists and their cut reports in one loop)
    and cast to their type here; deltas is built as its type. The served schema test pins all
    three (tests/mcp/test_mcp_output_schemas.py)."""
    asked = check_question(question)
    check_one_scope(artifact_id, topic, path)
    budget = read_budget(ctx.config.read.budget)
    if asked == "binding":
        if since not in (None, "") or until not in (None, "") or clock not in (None, ""):
            name = "since" if since else "until" if until else "clock"
            raise invalid(name, f"{name} is a window argument; binding takes none",
                          "drop the window, or ask question='deltas' or 'drift'")
        scope = resolve_project(ctx.config, project, with_imports=True)
        rows = check_limit(limit)
        payload = binding(ctx, scope, artifact_id=artifact_id, topic=topic, path=path,
                          limit=rows, depth=check_depth(depth),
                          given_limit=None if limit is None else rows)
        payload.update(envelope(ctx.config, ctx.store, scope))
        return cast(BindingAnswer, fit(payload, BINDING_CUTS, budget))
    if topic not in (None, "") or path not in (None, ""):
        name = "topic" if topic else "path"
        raise invalid(name, f"{asked} is asked of the whole project or of one artifact's "
                      f"branch, not of a {name}", f"pass artifact_id, or nothing, with {asked}")
    if depth is not None:
        raise invalid("depth", f"{asked} reads the whole branch beneath artifact_id; it takes "
                      "no depth", "drop depth, or name a narrower artifact_id")
    window = check_window(since, until)
    scope = resolve_project(ctx.config, project, with_imports=artifact_id not in (None, ""))
    root = None if artifact_id in (None, "") else scope_root(ctx, artifact_id, scope)
    if asked == "drift":
        from revetly_core.scope.drift import DRIFT_CUTS, drift

        if clock not in (None, ""):
            raise invalid("clock", "drift reads the times records state; it takes no clock",
                          "drop clock, or ask question='deltas'")
        payload = drift(ctx, scope, root, window, check_limit(limit))
        payload.update(envelope(ctx.config, ctx.store, scope))
        return cast(DriftAnswer, fit(payload, DRIFT_CUTS, budget))
    from revetly_core.scope.deltas import DELTAS_CUTS, deltas

    changed = deltas(ctx, scope, root, window, check_clock(clock), check_limit(limit))
    answer: DeltasAnswer = {**changed, **envelope(ctx.config, ctx.store, scope)}
    return fit(answer, DELTAS_CUTS, budget)
