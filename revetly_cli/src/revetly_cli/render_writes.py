"""Human renderings of the write payloads (rich). Imported only when a human reads them."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table


def render_reviews(console: Console, p: dict[str, Any]) -> None:
    t = Table(title=f"{p['count']} review(s), status {p['status']}")
    for col in ("review", "status", "kind", "title", "drafted by", "created", "gate"):
        t.add_column(col)
    for r in p["reviews"]:
        t.add_row(r["review_id"], r["status"], r["kind"], escape(str(r.get("title") or "")),
                  escape(str(r.get("drafted_by") or "")), r["created_at"][:19], r["gate"])
    console.print(t)
    for c in p.get("corrupt", []):
        console.print(f"[red]corrupt record[/red] {escape(c['file'])}: {escape(c['problem'])}")


def render_review(console: Console, p: dict[str, Any]) -> None:
    d = p["draft"]
    head = f"[bold]{p['review_id']}[/bold] {p['kind']} · {p['status']}"
    if d.get("artifact_id"):
        head += f" · revises {d['artifact_id']}"
    console.print(head)
    console.print(f"drafted by {escape(str(p['drafted_by'].get('name')))} at {p['created_at']}")
    console.print(f"\n[bold]{escape(str(d.get('title') or '(title unchanged)'))}[/bold]")
    if d.get("parent"):
        console.print(f"parent: {d['parent']}")
    console.print("\n" + escape(str(d.get("description", "")).rstrip()))
    console.print("\n[bold]Acceptance criteria[/bold]")
    for i, c in enumerate(d.get("acceptance_criteria", []), 1):
        console.print(f"  {i}. {escape(c)}")
    if p["status"] == "pending":
        console.print(f"\nrevetly review approve {p['review_id']}  |  reject --reason …  |  "
                      "withdraw")


def render_answer(console: Console, p: dict[str, Any]) -> None:
    line = f"[bold]{p['review_id']}[/bold] is {p['status']}"
    if p.get("artifact_id") and p.get("wrote"):
        line += f": wrote {p['artifact_id']} ({p.get('path')}) in commit {str(p['commit'])[:12]}"
    console.print(line)
    if p.get("answered_now") is False:
        console.print(escape(str(p.get("detail", ""))))
    if p.get("refusal"):
        console.print(f"[red]the write was refused:[/red] {escape(p['refusal']['detail'])}")
    if p.get("decided_via"):
        console.print(f"decided via {p['decided_via']} ({p['decided_channel']}), gate enforced: "
                      f"{p['decision_gate_enforced']}")


def render_status_set(console: Console, p: dict[str, Any]) -> None:
    if p.get("status") == "refused":
        console.print(f"[red]refused:[/red] {escape(p['detail'])}\n  fix: {escape(p['fix'])}")
        return
    if p.get("unchanged"):
        console.print(f"{p['artifact_id']} is already {p['status']}; nothing written")
    else:
        console.print(f"{p['artifact_id']}: {p['previous_status']} -> {p['status']} "
                      f"(commit {str(p['commit'])[:12]})")
    if p.get("claim"):
        c = p["claim"]
        extra = f", taken over from {c['taken_over_from']}" if c.get("taken_over_from") else ""
        console.print(f"claimed by {escape(c['by'])} since {c['at']}{extra}")
    if p.get("delivery"):
        console.print(f"delivery record {p['delivery']['artifact_id']} ({p['delivery']['path']})")
    if p.get("capture"):
        console.print(f"capture: {p['capture']}  (revetly status --capture …)")


def render_recorded(console: Console, p: dict[str, Any]) -> None:
    conv = p["conversation"]
    console.print(f"recorded {conv['artifact_id']} ({conv['path']}) in commit "
                  f"{str(p['commit'])[:12]}")
    for d in p["decisions"]:
        console.print(f"  decision {d['artifact_id']}: {escape(d['title'])}")
    if p.get("superseded"):
        console.print(f"  superseded: {', '.join(p['superseded'])}")
    console.print(f"capture: {p['capture']}")


def render_recovered(console: Console, p: dict[str, Any]) -> None:
    """One line per interrupted write the call settled first: finished or rolled back."""
    for r in p.get("recovered", []):
        console.print(f"[yellow]recovered[/yellow] an interrupted {escape(str(r.get('kind')))} "
                      f"write ({escape(str(r.get('intent')))}): {escape(str(r.get('outcome')))}, "
                      f"{escape(str(r.get('detail', '')))}")
