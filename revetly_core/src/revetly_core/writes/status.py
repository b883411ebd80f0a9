"""set_status: a status flip committed with its claim, its review_log line and its delivery record."""

from __future__ import annotations

from typing import Any

from revetly_core.answers.writes import StatusAnswer
from revetly_core.model import WORK_ITEM_STATUSES, WORK_ITEM_TYPES, Artifact
from revetly_core.refusal import Refusal
from revetly_core.writeback.hook import StatusCall, tracker_set_status
from revetly_core.writeback.registry import writer_for
from revetly_core.writes.answers import wrote_nothing
from revetly_core.writes.claims import Claim, clears_claim, decide_claim
from revetly_core.writes.context import WriteContext
from revetly_core.writes.delivery import (
    delivery_body,
    delivery_front,
    implementing_commits,
    normalise_verdicts,
)
from revetly_core.writes.git_commit import identity
from revetly_core.writes.instance_files import next_id, read_markdown, write_markdown
from revetly_core.writes.journal import WriteBatch, write_lock
from revetly_core.writes.limits import MAX_BODY_CHARS, MAX_TITLE_CHARS, check_artifact_id, check_text
from revetly_core.writes.principal import Principal
from revetly_core.writes.reviews import utc_now
from revetly_core.writes.story_body import criteria_of


def check_status(status: object) -> str:
    """A work item status: draft, ready, in-progress, done, parked or discarded."""
    if status not in WORK_ITEM_STATUSES:
        raise Refusal("bad-argument", f"status {status!r} is not a work item status",
                      f"use one of: {', '.join(WORK_ITEM_STATUSES)}",
                      {"field": "status", "wrote": False})
    return str(status)


def write_delivery(
    ctx: WriteContext, batch: WriteBatch, item_id: str, title: str, criteria: list[str],
    verdicts: list[Any] | None, who: Principal, now: str, project: str,
) -> dict[str, Any]:
    """Write the delivery record of a ship: a verdict per criterion, quoted as it stood."""
    rows = normalise_verdicts(verdicts, criteria, item_id)
    store = ctx.store()
    try:
        commits = implementing_commits(store, item_id)
    finally:
        if store is not None:
            store.close()
    folder = ctx.folder_for("delivery", project)
    did = next_id(ctx.root, folder, "DEL", batch=batch)
    dpath = ctx.root / folder / f"{did}.md"
    write_markdown(dpath, delivery_front(did, item_id, title, who.name, now, rows, commits),
                   delivery_body(item_id, rows), batch)
    delivery: dict[str, Any] = {"artifact_id": did, "path": dpath.relative_to(ctx.root).as_posix(),
                                "verdicts": rows, "implemented_by": commits}
    if not criteria:
        delivery["no_criteria_declared"] = True
    return delivery


def delivery_only(ctx: WriteContext, held: Artifact, new: str, verdicts: list[Any] | None,
                  who: Principal, project: str) -> StatusAnswer:
    """An item another system holds: done records the delivery alone, with no flip anywhere."""
    if new != "done":
        raise Refusal("not-in-this-store",
                      f"{held.id} is held by {held.source}, which this instance does not write "
                      "to: its status is set there",
                      f"set it on {held.source}; set_status(..., 'done', verdicts=...) here "
                      "records the delivery alone", {"id": held.id, "source": held.source})
    with write_lock(ctx.paths.state, ctx.root, "delivery") as batch:
        now = utc_now()
        delivery = write_delivery(ctx, batch, held.id, held.title, list(held.criteria),
                                  verdicts, who, now, project)
        commit = batch.commit(f"{delivery['artifact_id']}: delivery of {held.id}",
                              identity(who))
    return {**recovered_of(batch), "artifact_id": held.id, "status": held.status,
            "previous_status": held.status,
            "project": project, "recorded_by": who.record(), "wrote": True, "commit": commit,
            "did": "delivery-only", "claim": None, "delivery": delivery,
            "note": f"{held.id} lives on {held.source}; no status was flipped anywhere",
            "capture": ctx.captures.file(commit)}


def recovered_of(batch: WriteBatch) -> StatusAnswer:
    """What the write lock's recovery settled before this write ran (nothing when nothing)."""
    return {"recovered": batch.recovered} if batch.recovered else {}


def claim_refused(aid: str, holder: Claim, claimant: str) -> StatusAnswer:
    """The answer to a second claimant who gave no reason: the holder, their start, their claim."""
    return {
        "status": "refused", "artifact_id": aid, "wrote": False, "code": "claimed",
        "detail": f"{aid} is in progress with {holder.by} since {holder.at}; {claimant} did not "
                  "say why they are taking it over",
        "fix": "pass reason saying why you are taking it over, or leave it with its holder",
        "holder": holder.by, "held_since": holder.at, "claim": holder.record(),
    }


@wrote_nothing
def set_status(
    ctx: WriteContext, artifact_id: str, status: str, claimed_by: str | None = None,
    reason: str | None = None, verdicts: list[Any] | None = None, *, project: str | None = None,
    principal: Principal | None = None,
) -> StatusAnswer:
    """Flip a work item's status, keeping the claim rules and writing a delivery on done."""
    aid = check_artifact_id(artifact_id)
    new = check_status(status)
    if reason is not None:
        reason = check_text(reason, "reason", MAX_BODY_CHARS, required=False) or None
    if claimed_by is not None:
        claimed_by = check_text(claimed_by, "claimed_by", MAX_TITLE_CHARS).strip()
    if new == "discarded" and not reason:
        raise Refusal("reason-required", "discarding an item needs a reason (kept as "
                      "discard_reason)", "pass reason saying why it is discarded",
                      {"field": "reason", "wrote": False})
    proj = ctx.project(project)
    who = ctx.principal(principal)
    held = ctx.stored(aid)
    if held is not None and not held.deleted and held.source != "repository" \
            and held.type in WORK_ITEM_TYPES:
        writer = writer_for(ctx.config, held.source, ctx.env)
        if writer is not None:
            return tracker_set_status(ctx, held, writer,
                                      StatusCall(new, claimed_by, reason, verdicts, who, proj))
        return delivery_only(ctx, held, new, verdicts, who, proj)
    kind = "delivery" if new == "done" else "status-set"
    with write_lock(ctx.paths.state, ctx.root, kind) as batch:
        path = ctx.live_work_item_file(aid)
        front, body = read_markdown(path)
        held_id = str(front.get("id", aid))
        old = front.get("status")
        now = utc_now()
        answer: StatusAnswer = {"artifact_id": held_id, "previous_status": old,
                                "project": proj, "recorded_by": who.record(),
                                **recovered_of(batch)}
        current = Claim.from_front(front.get("claim"))
        claim: Claim | None = None
        outcome = None
        if new == "in-progress":
            claimant = claimed_by or who.name
            decision = decide_claim(current, claimant, reason, now)
            if decision.outcome == "refused":
                return claim_refused(held_id, decision.claim, claimant)
            claim, outcome = decision.claim, decision.outcome
        if old == new and (new != "in-progress" or outcome == "kept") and new != "done":
            return {**answer, "status": new, "wrote": False, "unchanged": True,
                    "claim": claim.record() if claim else None, "capture": None}
        delivery: dict[str, Any] | None = None
        if new == "done":
            delivery = write_delivery(ctx, batch, held_id, str(front.get("title", "")),
                                      criteria_of(body), verdicts, who, now, proj)
        elif verdicts:
            raise Refusal("bad-argument", "verdicts are given only when setting done",
                          "leave verdicts out for this status", {"field": "verdicts",
                                                                 "wrote": False})
        front["status"] = new
        if claim is not None:
            front["claim"] = claim.record()
        elif clears_claim(new):
            front.pop("claim", None)
        if new == "discarded":
            front["discard_reason"] = reason
        else:
            front.pop("discard_reason", None)
        entry: dict[str, Any] = {"at": now, "action": "status", "from": old, "to": new,
                                 "by": who.name}
        if reason:
            entry["reason"] = reason
        if delivery is not None:
            entry["delivery"] = delivery["artifact_id"]
        log = front.get("review_log")
        front["review_log"] = [*(log if isinstance(log, list) else []), entry]
        write_markdown(path, front, body, batch)
        message = f"{held_id}: {old or 'no status'} -> {new}"
        if claim is not None:
            message += f" ({'taken over by' if outcome == 'takeover' else 'claimed by'} {claim.by})"
        commit = batch.commit(message, identity(who))
    answer.update({"status": new, "wrote": True, "commit": commit,
                   "did": "flip+delivery" if delivery else "flip",
                   "claim": claim.record() if claim else None,
                   "capture": ctx.captures.file(commit)})
    if outcome is not None:
        answer["claim_outcome"] = outcome
    if delivery is not None:
        answer["delivery"] = delivery
    if new == "discarded":
        answer["discard_reason"] = reason
    return answer
