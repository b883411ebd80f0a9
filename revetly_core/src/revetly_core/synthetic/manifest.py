"""The ground truth of a synthetic instance, which tests compare the engine's reading with."""

from __future__ import annotations

from typing import Any

from revetly_core.synthetic.calendar import iso_day
from revetly_core.synthetic.coderepo import CodeHistory
from revetly_core.synthetic.plan import Plan


def manifest(plan: Plan, code: CodeHistory | None) -> dict[str, Any]:
    """Everything a reader of the instance should find, as JSON-ready data.

    deleted: the files later commits removed (id, path, day); edited: the later edits;
    explicit_refs / title_mentions: [source, target] pairs planted in bodies; superseded:
    [new, old] pairs; revised: [note, item] pairs; criterion_changed: fingerprinted criteria
    reworded after the note; counts: live artifacts by type; code_*: the code repository's
    commits, the ids each commit names, its renames and each record's implementing commits.
    """
    items = sorted(plan.items, key=lambda i: i.id)
    return {
        "seed": plan.seed,
        "n": plan.n,
        "counts": plan.live_counts(),
        "deleted": [{"id": i.id, "path": i.path, "date": iso_day(i.deleted)}
                    for i in items if i.deleted is not None],
        "edited": [{"id": i.id, "date": iso_day(i.edit.day), "kind": i.edit.what}
                   for i in items if i.edit is not None],
        "explicit_refs": [[i.id, i.names_id] for i in items if i.names_id],
        "title_mentions": [[i.id, i.names_title] for i in items if i.names_title],
        "superseded": [[i.id, old] for i in items for old in i.supersedes],
        "revised": [[i.id, e.target] for i in items for e in i.revises],
        "criterion_changed": [{"note": note, "item": item, "criterion": position}
                              for note, item, position in plan.criterion_changed],
        "delivered": {i.id: i.delivers for i in items if i.delivers},
        "code_commits": code.commits if code else None,
        "code_named": code.named if code else {},
        "code_renames": code.renames if code else [],
        "implemented_by": code.implemented if code else {},
    }
