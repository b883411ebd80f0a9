"""The two gated writes and the reviewer's answers: every draft goes on record before anything."""

from __future__ import annotations

import datetime as dt
import hashlib
from pathlib import Path
from typing import Any, cast

from revetly_core.answers.maintenance import ReviewPage
from revetly_core.answers.writes import GateAnswer, ReviewList, ReviewState
from revetly_core.refusal import Refusal
from revetly_core.writeback.backlog_md import draft_target
from revetly_core.writeback.backlog_md_drafts import check_parent, drop_placement, place_draft
from revetly_core.writes.answers import wrote_nothing
from revetly_core.writes.approver_floor import check_approver
from revetly_core.writes.context import WriteContext
from revetly_core.writes.decision import check_decided_via, decided_channel
from revetly_core.writes.gate import GateChoice
from revetly_core.writes.git_commit import identity
from revetly_core.writes.instance_files import next_id, read_markdown, write_markdown
from revetly_core.writes.journal import WriteBatch, write_lock
from revetly_core.writes.limits import (
    MAX_BODY_CHARS,
    MAX_TITLE_CHARS,
    check_artifact_id,
    check_criteria,
    check_text,
)
from revetly_core.writes.principal import Principal, drafting_principal
from revetly_core.writes.reviews import (
    LIST_STATUSES,
    ReviewRecord,
    new_review_id,
    refuse_governed,
    utc_now,
)
from revetly_core.writes.story_body import fold_criteria, render_story_body

TOOLS: dict[str, str] = {"resolve_tool": "resolve_review", "withdraw_tool": "withdraw_review",
         "state_tool": "review_state"}
APPROVED_STATUS = "ready"
"""The status an approved new story is written with (docs/decisions: approved drafts)."""


def file_digest(path: Path) -> str:
    """sha1 of a file's bytes: what a revision was drafted against."""
    return hashlib.sha1(path.read_bytes()).hexdigest()


def _check_repository(ctx: WriteContext, repository: str | None) -> str | None:
    """This store lists one repository (the instance repo): repository may only name it."""
    if repository is None or repository in (ctx.config.instance.name, ctx.root.name):
        return repository
    raise Refusal("unknown-repository",
                  f"repository {repository!r} is not one this store files stories in: it lists "
                  f"only the instance repository ({ctx.config.instance.name})",
                  "leave repository out, or name the instance repository",
                  {"field": "repository", "wrote": False})


def _gate_answer(record: ReviewRecord, gate: GateChoice | None) -> GateAnswer:
    """The submit/raise answer for the gate the review was put on."""
    if gate is None or gate.kind == "parked":
        needs = gate.needs if gate is not None else {"note": "no gate was rendered for this call"}
        return {
            "status": "parked", "review_id": record.review_id, "wrote": False,
            "project": record.project, "needs": needs,
            "detail": "the draft is not written: nobody saw it, so it is neither approved nor "
                      "rejected; it is parked on record for a session that renders a gate",
            "find_with": "list_reviews", "raise_with": "raise_review",
        }
    return {"status": "awaiting-review", "review_id": record.review_id, "gate": gate.kind,
            "resolve_tool": TOOLS["resolve_tool"], "withdraw_tool": TOOLS["withdraw_tool"],
            "state_tool": TOOLS["state_tool"], "wrote": False, "project": record.project}


def _open_review(
    ctx: WriteContext, kind: str, draft: dict[str, Any], project: str, gate: GateChoice | None,
    session_id: str | None, principal: Principal,
) -> ReviewRecord:
    """Write the pending review durably; nothing else happens before this returns."""
    now = utc_now()
    gate_kind = gate.kind if gate is not None else "parked"
    record = ReviewRecord(
        review_id=new_review_id(), kind=kind, status="pending", project=project,
        created_at=now, updated_at=now, drafted_by=principal.record(), draft=draft,
        session_id=session_id, gate=gate_kind,
        raises=[{"at": now, "gate": gate_kind, "session_id": session_id}],
    )
    ctx.reviews.save(record)
    return record


@wrote_nothing
def submit_draft(
    ctx: WriteContext, title: str, description: str, acceptance_criteria: list[str],
    parent: str | None = None, repository: str | None = None, *, project: str | None = None,
    gate: GateChoice | None = None, session_id: str | None = None,
    drafter: Principal | None = None, agent_name: str | None = None,
    agent_version: str | None = None,
) -> GateAnswer:
    """A new story put in front of a human: checked, folded, recorded pending, then gated.

    drafter is who the shell resolved (a token's subject); agent_name/agent_version are the
    client info of the agent that drafted it. With neither, the local caller drafted it."""
    title = check_text(title, "title", MAX_TITLE_CHARS).strip()
    description = check_text(description, "description", MAX_BODY_CHARS, required=False)
    criteria = check_criteria(acceptance_criteria)
    folded = fold_criteria(description, criteria)  # refused here, before a reviewer is asked
    proj = ctx.project(project)
    repo = _check_repository(ctx, repository)
    parent_id = None
    if parent is not None:
        parent_id = check_artifact_id(parent, "parent")
        target = draft_target(ctx.config, ctx.root, proj)
        if target is None:
            ctx.live_work_item_file(parent_id, "parent")
        else:  # the draft lands in the Backlog.md project it reads (write_back)
            check_parent(ctx.stored(parent_id), target, parent_id)
    who = drafting_principal(drafter, agent_name, agent_version, ctx.principal(None))
    draft = {"title": title, "description": folded, "acceptance_criteria": criteria,
             "parent": parent_id, "repository": repo}
    record = _open_review(ctx, "draft", draft, proj, gate, session_id, who)
    return _gate_answer(record, gate)


@wrote_nothing
def submit_revision(
    ctx: WriteContext, artifact_id: str, description: str, acceptance_criteria: list[str], *,
    title: str | None = None, project: str | None = None, gate: GateChoice | None = None,
    session_id: str | None = None, drafter: Principal | None = None,
    agent_name: str | None = None, agent_version: str | None = None,
) -> GateAnswer:
    """A change to an existing story put in front of a human, recorded pending first (drafter
    and the agent's client info as submit_draft takes them)."""
    aid = check_artifact_id(artifact_id)
    description = check_text(description, "description", MAX_BODY_CHARS, required=False)
    criteria = check_criteria(acceptance_criteria)
    if title is not None:
        title = check_text(title, "title", MAX_TITLE_CHARS).strip()
    folded = fold_criteria(description, criteria)
    proj = ctx.project(project)
    base = file_digest(ctx.live_work_item_file(aid))
    who = drafting_principal(drafter, agent_name, agent_version, ctx.principal(None))
    draft = {"artifact_id": aid, "title": title, "description": folded,
             "acceptance_criteria": criteria, "base_sha1": base}
    record = _open_review(ctx, "revision", draft, proj, gate, session_id, who)
    return _gate_answer(record, gate)


def review_state(ctx: WriteContext, review_id: str) -> ReviewState:
    """Whether a review has been answered, and how."""
    record = ctx.reviews.load(review_id)
    return state_payload(record)


def state_payload(record: ReviewRecord) -> ReviewState:
    out: ReviewState = {
        "review_id": record.review_id, "status": record.status, "kind": record.kind,
        "project": record.project, "title": record.draft.get("title"),
        "drafted_by": record.drafted_by, "created_at": record.created_at,
        "updated_at": record.updated_at, "gate": record.gate, "raised": len(record.raises),
        "wrote": record.wrote,
    }
    if record.draft.get("artifact_id"):
        out["artifact_id"] = record.draft["artifact_id"]
    keyed = cast(dict[str, Any], out)  # the decision's and the written story's keys, as recorded
    if record.decision is not None:
        keyed.update(record.decision)
    if record.written is not None:
        keyed.update(record.written)
    if record.refusal is not None:
        out["refusal"] = record.refusal
    return out


def show_review(ctx: WriteContext, review_id: str) -> ReviewState:
    """The whole review: its state and the draft as the reviewer reads it."""
    record = ctx.reviews.load(review_id)
    out = state_payload(record)
    out["draft"] = record.draft
    out["raises"] = record.raises
    return out


def list_reviews(ctx: WriteContext, status: str = "pending",
                 project: str | None = None) -> ReviewList:
    """Reviews on record by status (pending by default; 'all' for every one)."""
    if status not in LIST_STATUSES:
        raise Refusal("bad-argument", f"status {status!r} is not a review status",
                      f"use one of: {', '.join(LIST_STATUSES)}", {"field": "status"})
    if project is not None:
        ctx.project(project)
    records, corrupt = ctx.reviews.scan()
    rows = [r.row() for r in sorted(records, key=lambda r: (r.created_at, r.review_id))
            if (status == "all" or r.status == status)
            and (project is None or r.project == project)]
    out: ReviewList = {"status": status, "count": len(rows), "reviews": rows}
    if project is not None:
        out["project"] = project
    if corrupt:
        out["corrupt"] = corrupt
    return out


@wrote_nothing
def raise_review(ctx: WriteContext, review_id: str, *, gate: GateChoice | None = None,
                 session_id: str | None = None) -> GateAnswer | ReviewState:
    """Put a waiting review back in front of a human; a review no longer pending answers its state."""
    with ctx.reviews.locked(review_id), write_lock(ctx.paths.state, ctx.root, "raise"):
        record = ctx.reviews.load(review_id)
        refuse_governed(record)
        if record.status != "pending":
            return {**state_payload(record), "raised_now": False,
                    "detail": f"review {record.review_id} is {record.status}, not waiting"}
        now = utc_now()
        gate_kind = gate.kind if gate is not None else "parked"
        record.raises.append({"at": now, "gate": gate_kind, "session_id": session_id})
        record.gate = gate_kind
        record.updated_at = now
        ctx.reviews.save(record)
    return _gate_answer(record, gate)


def _chunks(text: str, limit: int) -> list[str]:
    """Text cut at line ends into pieces of at most limit characters (a long line is split)."""
    pieces: list[str] = []
    current = ""
    for line in text.splitlines(keepends=True):
        while len(line) > limit:
            if current:
                pieces.append(current)
                current = ""
            pieces.append(line[:limit])
            line = line[limit:]
        if len(current) + len(line) > limit:
            pieces.append(current)
            current = ""
        current += line
    if current.strip() or not pieces:
        pieces.append(current)
    return [p.rstrip("\n") for p in pieces]


def review_pages(ctx: WriteContext, review_id: str, *, body_limit: int = 2000) -> list[ReviewPage]:
    """The draft paginated for dialogs: content pages, then a decision page."""
    if body_limit < 200:
        raise Refusal("bad-argument", "body_limit must be at least 200 characters",
                      "pass a larger body_limit", {"field": "body_limit"})
    record = ctx.reviews.load(review_id)
    refuse_governed(record)
    d = record.draft
    lines = [f"Title: {d.get('title') or '(unchanged)'}"]
    if record.kind == "revision":
        lines.insert(0, f"Revision of {d['artifact_id']}")
    if d.get("parent"):
        lines.append(f"Parent: {d['parent']}")
    lines += ["", d.get("description", "").rstrip(), "", "Acceptance criteria:"]
    lines += [f"{i}. {c}" for i, c in enumerate(d.get("acceptance_criteria", []), 1)]
    content = _chunks("\n".join(lines), body_limit)
    total = len(content) + 1
    drafted = record.drafted_by.get("name", "?")
    pages: list[ReviewPage] = []
    for i, body in enumerate(content, 1):
        pages.append({
            "header": f"Review {record.review_id}: {d.get('title') or d.get('artifact_id')} "
                      f"(drafted by {drafted})",
            "nav": f"Page {i} of {total}. Proceed to read on; dismiss to leave it pending.",
            "body": body, "kind": "content", "withdraw": False,
        })
    target = d.get("artifact_id") or "a new story"
    decision = (f"Approve to write {target} ({len(d.get('acceptance_criteria', []))} criteria) "
                "and commit it; reject to keep it out, with a reason.")
    rewithdraw = len(record.raises) > 1
    if rewithdraw:
        decision += " Withdraw takes it off the list without deciding it."
    pages.append({
        "header": f"Review {record.review_id}: decide",
        "nav": f"Page {total} of {total}. Approve or reject.",
        "body": decision[:body_limit], "kind": "decision", "withdraw": rewithdraw,
    })
    return pages


def _review_log_entry(action: str, record: ReviewRecord, approver: Principal,
                      decided_via: str, at: str) -> dict[str, Any]:
    """The review_log line an approval writes: who approved it, and who (and which agent)
    drafted it, as the review recorded them."""
    entry = {"at": at, "action": action, "by": approver.name, "by_kind": approver.kind,
             "verified": approver.verified, "review_id": record.review_id,
             "decided_via": decided_via, "drafted_by": record.drafted_by.get("name"),
             "drafted_by_kind": record.drafted_by.get("kind")}
    if record.drafted_by.get("agent"):
        entry["drafted_via"] = record.drafted_by["agent"]
    return entry


def _credit(record: ReviewRecord, approver: Principal) -> str:
    """The commit message's credit line: the drafter (and its agent) and the approver."""
    d = record.drafted_by
    agent = f" via {d['agent']}" if d.get("agent") and d.get("agent") != d.get("name") else ""
    return f"drafted by {d.get('name')}{agent}, approved by {approver.name}"


def _plan_apply(ctx: WriteContext, record: ReviewRecord, approver: Principal,
                decided_via: str, at: str, batch: WriteBatch) -> tuple[str, dict[str, Any]]:
    """Plan the approved draft's file in the batch: (commit message, what will be written)."""
    d = record.draft
    today = dt.date.today().isoformat()
    if record.kind == "draft":
        folder = ctx.folder_for("story", record.project)
        aid = next_id(ctx.root, folder, "STORY", batch=batch)
        path = ctx.root / folder / f"{aid}.md"
        front: dict[str, Any] = {"id": aid, "title": d["title"], "type": "story",
                                 "status": APPROVED_STATUS}
        if d.get("parent"):
            front["parent"] = d["parent"]
        front["created"] = today
        front["drafted_by"] = record.drafted_by.get("name")
        front["review_log"] = [_review_log_entry("approved", record, approver, decided_via, at)]
        body = render_story_body(d["description"], d["acceptance_criteria"])
        message = f"{aid}: {d['title']}\n\nApproved draft {record.review_id} " \
                  f"({_credit(record, approver)})"
    else:
        aid = d["artifact_id"]
        path = ctx.live_work_item_file(aid)
        if d.get("base_sha1") and file_digest(path) != d["base_sha1"]:
            raise Refusal("story-changed", f"{aid} changed after this revision was drafted; "
                          "approving it would overwrite that change",
                          "submit the revision again against the story as it is now",
                          {"id": aid})
        front, _old = read_markdown(path)
        if d.get("title"):
            front["title"] = d["title"]
        front["updated"] = today
        log = front.get("review_log")
        log = list(log) if isinstance(log, list) else []
        log.append(_review_log_entry("revised", record, approver, decided_via, at))
        front["review_log"] = log
        body = render_story_body(d["description"], d["acceptance_criteria"])
        aid = str(front.get("id", aid))
        message = f"{aid}: revised\n\nApproved revision {record.review_id} " \
                  f"({_credit(record, approver)})"
    write_markdown(path, front, body, batch)
    return message, {"artifact_id": aid, "path": path.relative_to(ctx.root).as_posix()}


def already_answered(record: ReviewRecord) -> ReviewState:
    """A second answer to a closed review: its state, never a second decision."""
    return {**state_payload(record), "answered_now": False,
            "detail": f"review {record.review_id} was already {record.status}"}


def raising_session(record: ReviewRecord) -> str | None:
    """The session that last put the review in front of a person: its latest raise, else its submit."""
    return record.raises[-1].get("session_id") if record.raises else record.session_id


def _decision(decision: str, reason: str | None, by: Principal, at: str, decided_via: str,
              record: ReviewRecord, session_id: str | None) -> dict[str, Any]:
    """The answer's fields on the record: what was decided, by whom, on which channel."""
    channel = decided_channel(decided_via, raising_session(record), session_id)
    return {"decision": decision, "reason": reason, "decided_by": by.record(),
            "decided_at": at, "decided_via": decided_via, "decided_channel": channel.channel,
            "decided_channel_detail": channel.detail,
            "decision_gate_enforced": channel.enforced}


@wrote_nothing
def resolve_review(
    ctx: WriteContext, review_id: str, decision: str, reason: str | None = None, *,
    decided_via: str = "cli", session_id: str | None = None, approver: Principal | None = None,
    served: bool = False,
) -> ReviewState:
    """The human's answer: the floor first, then approve writes and commits, reject keeps reason.

    approver is who the shell resolved as answering (a token's subject); without one, the
    local reviewer (REVETLY_REVIEWER, then the local principal) answers. The record moves
    in the same intent as the story's commit, so a retry after a kill never applies it twice.
    """
    check_decided_via(decided_via)
    if decision not in ("approve", "reject"):
        raise Refusal("bad-argument", f"decision {decision!r} is neither approve nor reject",
                      "pass decision='approve' or decision='reject'", {"field": "decision"})
    if reason is not None:
        reason = check_text(reason, "reason", MAX_BODY_CHARS, required=False)
    who = ctx.principal(approver, reviewer=True)
    kind = "approve" if decision == "approve" else "reject"
    commit: str | None = None
    with ctx.reviews.locked(review_id), write_lock(ctx.paths.state, ctx.root, kind) as batch:
        record = ctx.reviews.load(review_id)  # read after recovery: the record is current
        refuse_governed(record)
        if record.status != "pending":
            return {**already_answered(record), **_recovered(batch)}
        if decision == "approve":
            check_approver(who, Principal.from_record(record.drafted_by), served=served,
                           may_draft=ctx.config.auth.approver_may_draft, env=ctx.env)
        at = utc_now()
        record.decision = _decision(decision, reason, who, at, decided_via, record, session_id)
        record.updated_at = at
        if decision == "reject":
            record.status = "resolved"
            batch.save_review(record)
        else:
            target = (draft_target(ctx.config, ctx.root, record.project)
                      if record.kind == "draft" else None)
            try:
                if target is not None:  # into the Backlog.md project it reads (write_back)
                    message, written = "", place_draft(ctx.paths.state, target, review_id,
                                                       record.draft)
                else:
                    message, written = _plan_apply(ctx, record, who, decided_via, at, batch)
            except Refusal as exc:
                batch.discard()
                record.status = "refused"
                record.refusal = exc.payload()["refusal"]
                batch.save_review(record)
            else:
                record.status, record.wrote = "applied", True
                record.written = {**written, "commit": None, "capture": None}
                if target is not None:
                    batch.save_review(record)
                    drop_placement(ctx.paths.state, review_id)
                else:
                    drafter = Principal.from_record(record.drafted_by)
                    commit = batch.commit(message, identity(drafter), identity(who), record)
                record = ctx.reviews.load(review_id)
    if commit is not None:
        ctx.captures.file(commit)
    return {**state_payload(record), "answered_now": True, **_recovered(batch)}


def _recovered(batch: WriteBatch) -> ReviewState:
    return {"recovered": batch.recovered} if batch.recovered else {}


@wrote_nothing
def withdraw_review(
    ctx: WriteContext, review_id: str, reason: str | None = None, *, decided_via: str = "cli",
    session_id: str | None = None, approver: Principal | None = None,
) -> ReviewState:
    """Take a review off the list without deciding it: nothing is written, nothing rejected
    (approver: who the shell resolved as answering, as resolve_review takes it)."""
    check_decided_via(decided_via)
    if reason is not None:
        reason = check_text(reason, "reason", MAX_BODY_CHARS, required=False)
    who = ctx.principal(approver, reviewer=True)
    with ctx.reviews.locked(review_id), \
            write_lock(ctx.paths.state, ctx.root, "withdraw") as batch:
        record = ctx.reviews.load(review_id)
        refuse_governed(record)
        if record.status != "pending":
            return {**already_answered(record), **_recovered(batch)}
        at = utc_now()
        record.status = "withdrawn"
        record.updated_at = at
        record.decision = _decision("withdraw", reason, who, at, decided_via, record, session_id)
        batch.save_review(record)
    return {**state_payload(record), "answered_now": True, **_recovered(batch)}
