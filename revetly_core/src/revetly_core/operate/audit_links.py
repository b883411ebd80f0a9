"""`revetly audit-links`: how CONTEXT's links were found, counted by method."""

from __future__ import annotations

from typing import Any

from revetly_core.answers.operate import AuditLinksAnswer, MethodCount

LINK_METHODS = ("explicit-ref", "title-mention", "declared", "inferred")
"""Every method a link can carry, stated first: a source's frontmatter, an id in prose, a title
in prose, then a model's inference (this engine stores none; the count says so)."""


def count_by_method(rows: list[tuple[str, str, int]]) -> dict[str, MethodCount]:
    """method -> {links, by_relation} for every method, zero where none was found; an
    unexpected method is counted under its own name rather than dropped."""
    out: dict[str, MethodCount] = {m: {"links": 0, "by_relation": {}} for m in LINK_METHODS}
    for method, relation, n in rows:
        entry = out.setdefault(method, {"links": 0, "by_relation": {}})
        entry["links"] += n
        entry["by_relation"][relation] = entry["by_relation"].get(relation, 0) + n
    return out


def audit_links(store: Any, project: str | None = None) -> AuditLinksAnswer:
    """Live links by method and relation, the retired ones counted apart, and dangling ones."""
    live, retired, dangling = store.link_audit(project)
    methods = count_by_method(live)
    total = sum(m["links"] for m in methods.values())
    return {"project": project, "corpus_revision": store.revision, "live_links": total,
            "by_method": methods, "retired_links": retired, "dangling_links": dangling,
            "stated_share": None if total == 0 else
            round((total - methods["inferred"]["links"]) / total, 4)}
