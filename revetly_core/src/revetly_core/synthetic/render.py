"""A planned artifact as the markdown file an instance holds, at one version of its history."""

from __future__ import annotations

from dataclasses import dataclass

from revetly_core.synthetic.calendar import iso_day
from revetly_core.synthetic.items import Item


@dataclass(frozen=True)
class Version:
    """One state of a file in git: added, updated, edited or deleted on a day."""

    day: int
    action: str
    """'add', 'update', 'edit' or 'delete'."""
    item: Item


def versions(item: Item) -> list[Version]:
    """Every state the item's file takes, in day order."""
    out = [Version(item.created, "add", item)]
    if item.updated > item.created:
        out.append(Version(item.updated, "update", item))
    if item.edit is not None:
        out.append(Version(item.edit.day, "edit", item))
    if item.deleted is not None:
        out.append(Version(item.deleted, "delete", item))
    return out


def _quoted(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _ids(values: list[str]) -> str:
    return "[" + ", ".join(values) + "]"


def frontmatter(item: Item, status: str | None, updated: int) -> list[str]:
    """The YAML block's lines (without the fences), in the order instance-format.md lists keys."""
    lines = [f"id: {item.id}", f"title: {_quoted(item.title)}", f"type: {item.kind}"]
    if status:
        lines.append(f"status: {status}")
    if item.parent:
        lines.append(f"parent: {item.parent}")
    if item.owner:
        lines.append(f"owner: {item.owner}")
    if item.dated:
        lines += [f"created: {iso_day(item.created)}", f"updated: {iso_day(updated)}"]
    for key, values in (("cites", item.cites), ("references", item.references),
                        ("related_ids", item.related), ("supersedes", item.supersedes)):
        if values:
            lines.append(f"{key}: {_ids(values)}")
    if item.revises:
        lines.append("revises:")
        for entry in item.revises:
            if entry.positions is None:
                lines.append(f"  - {entry.target}")
                continue
            text = f"  - {{id: {entry.target}, criteria: {_ids([str(p) for p in entry.positions])}"
            if entry.fingerprints is not None:
                text += ", criteria_fp: " + _ids([_quoted(f) for f in entry.fingerprints])
            lines.append(text + "}")
    if item.delivers:
        lines.append(f"delivers: {item.delivers}")
        if item.implemented_by:
            lines.append("implemented_by: " + _ids([_quoted(s) for s in item.implemented_by]))
        lines.append(f"delivered_by: {item.delivered_by}")
        lines.append("verdicts:")
        for n, (verdict, note) in enumerate(item.verdicts, 1):
            tail = f", note: {_quoted(note)}" if note else ""
            lines.append(f"  - {{criterion: {n}, verdict: {verdict}{tail}}}")
    return lines


def render(item: Item, action: str) -> str:
    """The file's whole text after an 'add', 'update' or 'edit' version."""
    status, updated = (item.first_status, item.created) if action == "add" and (
        item.updated > item.created) else (item.status, item.updated)
    body, criteria = item.body, item.criteria
    if action == "edit" and item.edit is not None:
        updated = item.edit.day
        status = item.edit.status or status
        body = item.edit.body or body
        criteria = item.edit.criteria or criteria
    text = "---\n" + "\n".join(frontmatter(item, status, updated)) + "\n---\n\n" + body + "\n"
    if criteria:
        text += "\n## Acceptance criteria\n\n" + "\n".join(f"- {c}" for c in criteria) + "\n"
    return text


def final_text(item: Item) -> str:
    """The file as the final work tree holds it (the item must not be doomed)."""
    last = [v for v in versions(item) if v.action != "delete"][-1]
    return render(item, last.action)
