"""record_conversation: a conversation note and its decisions, with supersedes and revises."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from revetly_core.answers.writes import ConversationAnswer, WrittenNote
from revetly_core.markdown.criteria import criteria_fingerprint
from revetly_core.model import NOTE_TYPES, STATEMENT_NOTE_TYPES
from revetly_core.refusal import Refusal
from revetly_core.writes.answers import wrote_nothing
from revetly_core.writes.context import WriteContext
from revetly_core.writes.git_commit import identity
from revetly_core.writes.instance_files import locate_file, next_id, read_markdown, write_markdown
from revetly_core.writes.journal import write_lock
from revetly_core.writes.limits import (
    MAX_BODY_CHARS,
    MAX_TITLE_CHARS,
    check_artifact_id,
    check_list,
    check_text,
)
from revetly_core.writes.principal import Principal
from revetly_core.writes.story_body import criteria_of

DECISION_KEYS = ("title", "decision", "supersedes", "revises", "status", "type")
DECISION_NOTE_STATUSES = ("proposed", "accepted")


@dataclass
class DecisionEntry:
    """One checked decisions entry, ready to be written."""

    title: str
    text: str
    status: str
    type: str
    supersedes: list[str] = field(default_factory=list)
    revises: list[Any] = field(default_factory=list)


def revises_entry(item_id: str, positions: list[int], criteria: list[str]) -> Any:
    """The frontmatter form: the bare id, or {id, criteria, criteria_fp} when positions are named."""
    if not positions:
        return item_id
    return {"id": item_id, "criteria": positions,
            "criteria_fp": [criteria_fingerprint(criteria[p - 1]) for p in positions]}


def _positions(value: object, item: str) -> list[int]:
    if not isinstance(value, list) or not value:
        raise Refusal("bad-revises", f"revises {item}: criteria must list positions from 1",
                      "pass criteria as [1, 3], or revise the whole item by its bare id",
                      {"id": item, "wrote": False})
    out: list[int] = []
    for p in value:
        if isinstance(p, bool) or not isinstance(p, int) or p < 1:
            raise Refusal("bad-revises", f"revises {item}: {p!r} is not a position from 1",
                          "name criteria by 1-based whole numbers", {"id": item, "wrote": False})
        if p not in out:
            out.append(p)
    return out


def check_revises(ctx: WriteContext, value: object) -> list[Any]:
    """Every target a live work item and every position one it has; nothing is written before."""
    out: list[Any] = []
    for raw in check_list(value, "revises"):
        if isinstance(raw, str):
            item, positions = raw, []
        elif isinstance(raw, dict) and set(raw) <= {"id", "criteria"} and "id" in raw:
            item = raw["id"]
            positions = _positions(raw.get("criteria"), str(item)) if "criteria" in raw else []
        else:
            raise Refusal("bad-revises", f"revises entry {raw!r} is neither an id nor "
                          "{id, criteria}", "pass 'STORY-0007' or {'id': 'STORY-0007', "
                          "'criteria': [1, 3]}", {"wrote": False})
        aid = check_artifact_id(item, "revises.id")
        path = ctx.live_work_item_file(aid, "revises")
        front, body = read_markdown(path)
        criteria = criteria_of(body)
        beyond = [p for p in positions if p > len(criteria)]
        if beyond:
            raise Refusal("bad-revises", f"revises {aid} criterion {beyond[0]}, but {aid} has "
                          f"{len(criteria)} acceptance criteria",
                          f"name positions 1 to {len(criteria)}",
                          {"id": aid, "position": beyond[0], "wrote": False})
        out.append(revises_entry(str(front.get("id", aid)), positions, criteria))
    return out


def _held_note(ctx: WriteContext, aid: str) -> Path:
    """The file of a note a decision supersedes; an id held nowhere is refused by name."""
    held = ctx.stored(aid)
    hint = held.source_path if held is not None else None
    path = locate_file(ctx.root, aid, hint, ctx.folders(), scan=held is not None)
    if path is None or (held is not None and held.deleted):
        raise Refusal("not-on-record", f"supersedes names {aid}, which is not a live record here",
                      "name the id of a note this instance holds", {"id": aid, "wrote": False})
    front, _ = read_markdown(path)
    if front.get("type") not in NOTE_TYPES:
        raise Refusal("bad-supersedes", f"{aid} is a {front.get('type')}, not a note: a decision "
                      "supersedes notes", "name it in related_ids or revises instead",
                      {"id": aid, "wrote": False})
    return path


def check_decision(ctx: WriteContext, raw: object, n: int) -> DecisionEntry:
    """One decisions entry: text, optional title/status/type, supersedes and revises checked."""
    if isinstance(raw, str):
        raw = {"decision": raw}
    if not isinstance(raw, dict):
        raise Refusal("bad-argument", f"decisions[{n}] must be text or an object",
                      "pass {'decision': '...', 'supersedes': [...], 'revises': [...]}",
                      {"field": "decisions", "wrote": False})
    unknown = sorted(set(raw) - set(DECISION_KEYS))
    if unknown:
        raise Refusal("bad-argument", f"decisions[{n}] has unknown keys {unknown}",
                      f"use only: {', '.join(DECISION_KEYS)}", {"field": "decisions",
                                                                "wrote": False})
    text = check_text(raw.get("decision"), f"decisions[{n}].decision", MAX_BODY_CHARS)
    title = raw.get("title") or " ".join(text.split())[:80]
    title = check_text(title, f"decisions[{n}].title", MAX_TITLE_CHARS).strip()
    status = raw.get("status", "accepted")
    if status not in DECISION_NOTE_STATUSES:
        raise Refusal("bad-argument", f"decisions[{n}].status {status!r}",
                      "use proposed or accepted", {"field": "decisions", "wrote": False})
    typ = raw.get("type", "decision")
    if typ not in STATEMENT_NOTE_TYPES:
        raise Refusal("bad-argument", f"decisions[{n}].type {typ!r}",
                      f"use one of: {', '.join(STATEMENT_NOTE_TYPES)}",
                      {"field": "decisions", "wrote": False})
    supersedes = [check_artifact_id(s, "supersedes")
                  for s in check_list(raw.get("supersedes"), "supersedes")]
    return DecisionEntry(title, text, str(status), str(typ), supersedes,
                         check_revises(ctx, raw.get("revises")))


@wrote_nothing
def record_conversation(
    ctx: WriteContext, title: str, body: str, decisions: list[Any] | None = None,
    related_ids: list[str] | None = None, *, project: str | None = None,
    principal: Principal | None = None,
) -> ConversationAnswer:
    """Write the conversation note and one note per decision in one commit; check all first."""
    title = check_text(title, "title", MAX_TITLE_CHARS).strip()
    body = check_text(body, "body", MAX_BODY_CHARS)
    related = [check_artifact_id(r, "related_ids") for r in check_list(related_ids, "related_ids")]
    proj = ctx.project(project)
    who = ctx.principal(principal)
    kind = "decide" if decisions else "note"
    with write_lock(ctx.paths.state, ctx.root, kind) as batch:
        entries = [check_decision(ctx, d, i) for i, d in
                   enumerate(check_list(decisions, "decisions"), 1)]
        superseded_paths = {s: _held_note(ctx, s) for e in entries for s in e.supersedes}
        today = dt.date.today().isoformat()
        folder = ctx.folder_for("conversation", proj)
        conv_id = next_id(ctx.root, folder, "CONV", batch=batch)
        files: list[str] = []
        written: list[WrittenNote] = []
        dec_ids: list[str] = []
        dec_folder = ctx.folder_for("decision", proj)
        for e in entries:
            did = next_id(ctx.root, dec_folder, "DEC", batch=batch)  # sees the ones planned
            front: dict[str, Any] = {"id": did, "title": e.title, "type": e.type,
                                     "status": e.status, "created": today,
                                     "recorded_by": who.name, "references": [conv_id]}
            if e.supersedes:
                front["supersedes"] = e.supersedes
            if e.revises:
                front["revises"] = e.revises
            dpath = ctx.root / dec_folder / f"{did}.md"
            write_markdown(dpath, front, e.text.rstrip() + "\n", batch)
            files.append(dpath.relative_to(ctx.root).as_posix())
            dec_ids.append(did)
            row: WrittenNote = {"artifact_id": did, "path": files[-1], "title": e.title}
            if e.supersedes:
                row["supersedes"] = e.supersedes
            if e.revises:
                row["revises"] = e.revises
            written.append(row)
        conv_front: dict[str, Any] = {"id": conv_id, "title": title, "type": "conversation",
                                      "created": today, "recorded_by": who.name}
        if related:
            conv_front["related_ids"] = related
        conv_body = body.rstrip() + "\n"
        if dec_ids:
            conv_body += "\n## Decisions recorded\n\n" + "\n".join(
                f"- {d}: {e.title}" for d, e in zip(dec_ids, entries, strict=True)) + "\n"
        cpath = ctx.root / folder / f"{conv_id}.md"
        write_markdown(cpath, conv_front, conv_body, batch)
        files.append(cpath.relative_to(ctx.root).as_posix())
        superseded: list[str] = []
        for e, did in zip(entries, dec_ids, strict=True):
            for sid in e.supersedes:
                spath = superseded_paths[sid]
                sfront, sbody = read_markdown(spath, batch)
                by = sfront.get("superseded_by")
                by = list(by) if isinstance(by, list) else ([by] if by else [])
                if did not in by:
                    by.append(did)
                sfront["superseded_by"] = by
                if sfront.get("type") in STATEMENT_NOTE_TYPES:
                    sfront["status"] = "superseded"
                write_markdown(spath, sfront, sbody, batch)
                files.append(spath.relative_to(ctx.root).as_posix())
                superseded.append(str(sfront.get("id", sid)))
        message = f"{conv_id}: {title}"
        if dec_ids:
            message += f"\n\nDecisions: {', '.join(dec_ids)}"
        commit = batch.commit(message, identity(who))
    recovered: ConversationAnswer = {"recovered": batch.recovered} if batch.recovered else {}
    out: ConversationAnswer = {**recovered,
        "wrote": True, "project": proj, "recorded_by": who.record(),
        "conversation": {"artifact_id": conv_id, "path": cpath.relative_to(ctx.root).as_posix()},
        "decisions": written, "commit": commit, "capture": ctx.captures.file(commit),
    }
    if superseded:
        out["superseded"] = sorted(set(superseded))
    return out
