"""Human renderings of the write payloads (rich). Imported only when a human reads them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from revetly_core.answers import (
    ConversationAnswer,
    ReviewList,
    ReviewState,
    StatusAnswer,
)
from rich.console import Console
from rich.table import Table

from revetly_cli.render_text import untrusted


def render_reviews(console: Console, p: ReviewList) -> None:
    t = Table(title=f"{p['count']} review(s), status {p['status']}")
    for col in ("review", "status", "kind", "title", "drafted by", "created", "gate"):
        t.add_column(col)
    for r in p["reviews"]:
        t.add_row(r["review_id"], r["status"], r["kind"], untrusted(str(r.get("title") or "")),
                  untrusted(str(r.get("drafted_by") or "")), r["created_at"][:19], r["gate"])
    console.print(t)
    for c in p.get("corrupt", []):
        console.print(f"[red]corrupt record[/red] {untrusted(c['file'])}: {untrusted(c['problem'])}")


def render_review(console: Console, p: ReviewState) -> None:
    d = p["draft"]
    head = f"[bold]{p['review_id']}[/bold] {p['kind']} · {p['status']}"
    if d.get("artifact_id"):
        head += f" · revises {untrusted(d['artifact_id'])}"
    console.print(head)
    console.print(f"drafted by {untrusted(str(p['drafted_by'].get('name')))} at {p['created_at']}")
    console.print(f"\n[bold]{untrusted(str(d.get('title') or '(title unchanged)'))}[/bold]")
    if d.get("parent"):
        console.print(f"parent: {untrusted(d['parent'])}")
    console.print("\n" + untrusted(str(d.get("description", "")).rstrip()))
    console.print("\n[bold]Acceptance criteria[/bold]")
    for i, c in enumerate(d.get("acceptance_criteria", []), 1):
        console.print(f"  {i}. {untrusted(c)}")
    if p["status"] == "pending":
        console.print(f"\nrevetly review approve {p['review_id']}  |  reject --reason …  |  "
                      "withdraw")


def render_answer(console: Console, p: ReviewState) -> None:
    line = f"[bold]{p['review_id']}[/bold] is {p['status']}"
    if p.get("artifact_id") and p.get("wrote"):
        line += (f": wrote {untrusted(p['artifact_id'])} ({untrusted(p.get('path'))}) "
                 f"in commit {str(p['commit'])[:12]}")
    console.print(line)
    if p.get("answered_now") is False:
        console.print(untrusted(str(p.get("detail", ""))))
    if p.get("refusal"):
        console.print(f"[red]the write was refused:[/red] {untrusted(p['refusal']['detail'])}")
    if p.get("decided_via"):
        console.print(f"decided via {p['decided_via']} ({p['decided_channel']}), gate enforced: "
                      f"{p['decision_gate_enforced']}")


def render_status_set(console: Console, p: StatusAnswer) -> None:
    if p.get("status") == "refused":
        console.print(f"[red]refused:[/red] {untrusted(p['detail'])}\n  fix: {untrusted(p['fix'])}")
        return
    if p.get("unchanged"):
        console.print(f"{p['artifact_id']} is already {p['status']}; nothing written")
    else:
        where = f"commit {str(p['commit'])[:12]}" if p.get("commit") else \
            f"on {untrusted(str(p.get('writeback', {}).get('target', '')))}"
        console.print(f"{p['artifact_id']}: {p['previous_status']} -> {p['status']} ({where})")
    c = p.get("claim")
    if c:
        extra = f", taken over from {untrusted(c['taken_over_from'])}" if c.get("taken_over_from") else ""
        console.print(f"claimed by {untrusted(c['by'])} since {c['at']}{extra}")
    if p.get("delivery"):
        console.print(f"delivery record {untrusted(p['delivery']['artifact_id'])} "
                      f"({untrusted(p['delivery']['path'])})")
    render_writeback(console, p)
    if p.get("capture"):
        console.print(f"capture: {p['capture']}  (revetly status --capture …)")


def render_writeback(console: Console, p: StatusAnswer) -> None:
    """What a write adapter left on the tracker, and what it did not."""
    for what, note in (("claim note", p.get("claim_note")),
                       ("delivery note", p.get("delivery_note"))):
        if note:
            console.print(f"{what} {untrusted(str(note.get('action')))}: "
                          f"{untrusted(str(note.get('url') or note.get('ref') or ''))}")
    if p.get("claim_kept"):
        console.print(f"claim kept in {untrusted(str(p['claim_kept'].get('path')))}")
    if p.get("claim_not_recorded"):
        console.print(f"[yellow]claim not recorded:[/yellow] {untrusted(p['claim_not_recorded'])}")
    for missed in (p.get("writeback") or {}).get("not_landed", []):
        console.print(f"[yellow]not landed:[/yellow] {untrusted(str(missed.get('step')))} "
                      f"({untrusted(str(missed.get('code')))}: "
                      f"{untrusted(str(missed.get('detail')))}); the next status-set lands it")


def render_recorded(console: Console, p: ConversationAnswer) -> None:
    conv = p["conversation"]
    console.print(f"recorded {untrusted(conv['artifact_id'])} ({untrusted(conv['path'])}) in commit "
                  f"{str(p['commit'])[:12]}")
    for d in p["decisions"]:
        console.print(f"  decision {d['artifact_id']}: {untrusted(d['title'])}")
    if p.get("superseded"):
        console.print(f"  superseded: {untrusted(', '.join(p['superseded']))}")
    console.print(f"capture: {p['capture']}")


def render_recovered(console: Console, p: Mapping[str, Any]) -> None:
    """One line per interrupted write the call settled first: finished or rolled back."""
    for r in p.get("recovered", []):
        console.print(f"[yellow]recovered[/yellow] an interrupted {untrusted(str(r.get('kind')))} "
                      f"write ({untrusted(str(r.get('intent')))}): {untrusted(str(r.get('outcome')))}, "
                      f"{untrusted(str(r.get('detail', '')))}")
