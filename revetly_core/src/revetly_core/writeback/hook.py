"""The hook ``set_status`` calls for an item a write adapter reaches: the local write first
(the delivery record, the claim file of a store that keeps no claims, and the write-back
record), durable and committed; then each remote step, in order, its outcome saved as it
lands. A remote call that fails leaves the step ``not_landed`` in the record and in the
answer; the next ``set_status`` on the item lands it (markers keep a retried note single).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from revetly_core.answers.writes import StatusAnswer
from revetly_core.model import Artifact
from revetly_core.refusal import Refusal
from revetly_core.writeback.claim_files import claim_file_rel, plan_claim_file, read_claim_file
from revetly_core.writeback.markers import delivery_marker
from revetly_core.writeback.notes import claim_note_text, delivery_note_text, released_note_text
from revetly_core.writeback.protocol import (
    STEP_CLAIM,
    STEP_DELIVERY_NOTE,
    STEP_STATUS,
    Landed,
    RemoteItem,
    TrackerWriter,
    WritebackFailed,
)
from revetly_core.writeback.record import (
    LANDED,
    NOT_LANDED,
    PENDING,
    WritebackRecord,
    digest_of,
    restore_prior,
    save_record,
    settled_record,
)
from revetly_core.writeback.registry import remote_item
from revetly_core.writes.claims import Claim, decide_claim
from revetly_core.writes.context import WriteContext
from revetly_core.writes.crash import crash_point
from revetly_core.writes.git_commit import identity
from revetly_core.writes.journal import WriteBatch, write_lock
from revetly_core.writes.principal import Principal
from revetly_core.writes.reviews import utc_now

WRITEBACK_CRASH_POINTS = ("writeback-recorded", "writeback-step-landed")
"""Where a kill -9 test can stop a write-back: the record durable, no remote call yet; one
step landed and saved, the next not tried."""


@dataclass(frozen=True)
class StatusCall:
    """What one set_status call asks of a tracker item."""

    status: str
    claimed_by: str | None
    reason: str | None
    verdicts: list[Any] | None
    who: Principal
    project: str


def criteria_of_item(held: Artifact) -> list[str]:
    """The criteria a ship on a tracker item rules on: those CONTEXT parsed, else the
    checklist under the body's "Acceptance criteria" heading (an issue's Markdown task list,
    read as Backlog.md's is)."""
    from revetly_core.connectors.backlog_md_markers import acceptance_criteria

    return list(held.criteria) or [i.text for i in acceptance_criteria(held.body or "")[0]]


def tracker_moved(held: Artifact, record: WritebackRecord) -> bool:
    """The tracker changed the item's status after Revetly's last write (someone reopened
    it there, say): a read since that write shows another status. No clocks are compared:
    the read is newer when the item's update stamp is no longer the one the write saw."""
    return held.status != record.status and held.source_updated_at != record.seen_updated


def claim_rel(ctx: WriteContext, held: Artifact) -> str:
    """The claim file of an item of a store that keeps no claims (its project's records)."""
    return claim_file_rel(ctx.folder_for("delivery", held.project), held.id)


def current_claim(ctx: WriteContext, writer: TrackerWriter, record: WritebackRecord | None,
                  held: Artifact) -> Claim | None:
    """Who holds the item now: the claim file (a store that keeps no claims), else the claim
    Revetly last put on the tracker."""
    if not writer.keeps_claims:
        return read_claim_file(ctx.root, claim_rel(ctx, held))
    if record is None or record.status != "in-progress" or tracker_moved(held, record):
        return None
    return Claim.from_front(record.claim)


def is_repeat(record: WritebackRecord | None, held: Artifact, new: str,
              outcome: str | None) -> bool:
    """The same status again, the tracker not moved since: nothing new is written locally;
    what did not land before is landed now."""
    if record is None or record.status != new or tracker_moved(held, record):
        return False
    return new != "in-progress" or outcome == "kept"


def new_steps(ctx: WriteContext, writer: TrackerWriter, aid: str, call: StatusCall,
              claim: Claim | None, before: Claim | None, delivery: dict[str, Any] | None,
              now: str) -> list[dict[str, Any]]:
    """The remote steps of a fresh write, in order: status, claim note, delivery note."""
    steps: list[dict[str, Any]] = [{"step": STEP_STATUS, "state": PENDING,
                                    "status": call.status}]
    if writer.keeps_claims and claim is not None:
        steps.append({"step": STEP_CLAIM, "state": PENDING, "held": True,
                      "text": claim_note_text(aid, claim.record())})
    elif writer.keeps_claims and before is not None:
        steps.append({"step": STEP_CLAIM, "state": PENDING, "held": False,
                      "text": released_note_text(aid, call.status, call.who.name, now)})
    if delivery is not None and ctx.config.backend.tracker_note:
        did = str(delivery["artifact_id"])
        steps.append({"step": STEP_DELIVERY_NOTE, "state": PENDING,
                      "marker": delivery_marker(did), "delivery": did,
                      "text": delivery_note_text(aid, delivery)})
    return steps


def carried_steps(record: WritebackRecord | None) -> list[dict[str, Any]]:
    """What a new write keeps of the last one's unlanded steps: its delivery notes (a record
    of what happened); its status and claim give way to the new ones."""
    if record is None:
        return []
    return [s for s in record.open_steps() if s.get("step") == STEP_DELIVERY_NOTE]


def run_step(writer: TrackerWriter, item: RemoteItem, step: dict[str, Any]) -> Landed:
    """One step through the adapter."""
    if step["step"] == STEP_STATUS:
        return writer.set_status(item, str(step["status"]))
    if step["step"] == STEP_CLAIM:
        return writer.keep_claim(item, str(step["text"]), held=bool(step["held"]))
    return writer.post_note(item, str(step["text"]), marker=str(step["marker"]))


def land_steps(ctx: WriteContext, writer: TrackerWriter, item: RemoteItem,
               record: WritebackRecord) -> list[dict[str, Any]]:
    """Try every open step in order, saving the record after each; returns the steps tried.
    A failed step does not stop the ones after it (each is independent and idempotent)."""
    tried: list[dict[str, Any]] = []
    for step in record.open_steps():
        try:
            landed = run_step(writer, item, step)
        except WritebackFailed as exc:
            step.update(state=NOT_LANDED, failure={"code": exc.code, "detail": exc.detail,
                                                   "at": utc_now()})
        else:
            step["state"] = LANDED
            step.pop("failure", None)
            step["landed"] = landed.record()
        tried.append(step)
        save_record(ctx.paths.state, record)
        if step["state"] == LANDED:
            crash_point("writeback-step-landed")
    return tried


def writeback_report(source: str, tried: list[dict[str, Any]]) -> dict[str, Any]:
    """The answer's ``writeback`` block: what landed on the tracker and what did not."""
    return {"target": source,
            "landed": [s["landed"] for s in tried if s["state"] == LANDED],
            "not_landed": [{"step": s["step"], **s["failure"]} for s in tried
                           if s["state"] == NOT_LANDED]}


def _step(tried: list[dict[str, Any]], name: str, **match: Any) -> dict[str, Any] | None:
    for s in tried:
        if s["step"] == name and all(s.get(k) == v for k, v in match.items()):
            return s
    return None


def claim_fields(ctx: WriteContext, writer: TrackerWriter, held: Artifact, claim: Claim | None,
                 tried: list[dict[str, Any]], record: WritebackRecord) -> StatusAnswer:
    """claim (null when it did not land), claim_note, claim_kept, claim_not_recorded."""
    if claim is None:
        return {"claim": None}
    if not writer.keeps_claims:
        rel = claim_rel(ctx, held)
        return {"claim": claim.record(), "claim_kept": {
            "path": rel, "detail": f"{writer.source} keeps no claims: the claim is kept in "
            f"{rel}, so a second claimant is refused, but people reading {writer.source} do "
            "not see who has the item"}}
    step = _step(tried, STEP_CLAIM) or _step(record.steps, STEP_CLAIM)
    if step is not None and step["state"] == LANDED:
        return {"claim": claim.record(), "claim_note": step["landed"]}
    why = step["failure"]["detail"] if step is not None and "failure" in step else "not tried"
    return {"claim": None, "claim_not_recorded":
            f"the claim note did not land on {writer.source} ({why}); the next set_status "
            "on the item lands it"}


def tracker_set_status(ctx: WriteContext, held: Artifact, writer: TrackerWriter,
                       call: StatusCall) -> StatusAnswer:
    """set_status on an item a write adapter reaches: local record first, then the tracker."""
    from revetly_core.writes.status import claim_refused, recovered_of, write_delivery

    item = remote_item(held)
    refusal = writer.refuse_status(item, call.status)
    if refusal is not None:
        raise refusal
    if call.verdicts and call.status != "done":
        raise Refusal("bad-argument", "verdicts are given only when setting done",
                      "leave verdicts out for this status", {"field": "verdicts",
                                                             "wrote": False})
    aid, new = held.id, call.status
    state = ctx.paths.state
    with write_lock(state, ctx.root, "writeback") as batch:
        record = settled_record(ctx.root, state, aid)
        now = utc_now()
        before = current_claim(ctx, writer, record, held)
        claim: Claim | None = None
        outcome: str | None = None
        if new == "in-progress":
            decision = decide_claim(before, call.claimed_by or call.who.name, call.reason, now)
            if decision.outcome == "refused":
                return claim_refused(aid, decision.claim, call.claimed_by or call.who.name)
            claim, outcome = decision.claim, decision.outcome
        answer: StatusAnswer = {"artifact_id": aid, "previous_status": held.status
                                if record is None or tracker_moved(held, record)
                                else record.status, "project": call.project,
                                "recorded_by": call.who.record(), **recovered_of(batch)}
        commit: str | None = None
        if is_repeat(record, held, new, outcome):
            assert record is not None
            delivery = record.delivery
            answer["unchanged"] = True
        else:
            delivery = (write_delivery(ctx, batch, aid, held.title, criteria_of_item(held),
                                       call.verdicts, call.who, now, call.project)
                        if new == "done" else None)
            if not writer.keeps_claims:
                plan_claim_file(batch, ctx.root, claim_rel(ctx, held), aid, held.source, claim)
            record = WritebackRecord(
                aid, held.source, new, now, claim.record() if claim else None, delivery,
                carried_steps(record) + new_steps(ctx, writer, aid, call, claim, before,
                                                   delivery, now),
                {rel: digest_of(data) for rel, data in batch.planned.items()},
                prior=_without_prior(record), seen_updated=held.source_updated_at)
            commit = _commit_with_record(ctx, batch, record, aid, new, claim, outcome, call)
        try:
            tried = land_steps(ctx, writer, item, record)
        finally:
            writer.close()
    answer.update(claim_fields(ctx, writer, held, claim, tried, record))
    report = writeback_report(held.source, tried)
    answer.update({"status": new, "commit": commit, "writeback": report,
                   "wrote": commit is not None or bool(report["landed"]),
                   "did": "flip+delivery" if delivery is not None else "flip",
                   "capture": ctx.captures.file(commit) if commit else None})
    if outcome is not None:
        answer["claim_outcome"] = outcome
    if delivery is not None:
        answer["delivery"] = delivery
        note = _step(record.steps, STEP_DELIVERY_NOTE, delivery=delivery["artifact_id"])
        if note is not None and note["state"] == LANDED:
            answer["delivery_note"] = note["landed"]
    return answer


def _without_prior(record: WritebackRecord | None) -> dict[str, Any] | None:
    if record is None:
        return None
    data = record.to_json()
    data["prior"] = None
    return data


def _commit_with_record(ctx: WriteContext, batch: WriteBatch, record: WritebackRecord,
                        aid: str, new: str, claim: Claim | None, outcome: str | None,
                        call: StatusCall) -> str | None:
    """Save the record, then commit the write's local files (when it has any); a commit that
    fails puts the record before it back."""
    state = ctx.paths.state
    save_record(state, record)
    crash_point("writeback-recorded")
    if not batch.planned:
        return None
    message = f"{aid}: {new} on {record.source}"
    if claim is not None:
        message += f" ({'taken over by' if outcome == 'takeover' else 'claimed by'} {claim.by})"
    try:
        commit = batch.commit(message, identity(call.who))
    except BaseException:
        restore_prior(state, record)
        raise
    record.commit = commit
    save_record(state, record)
    return commit
