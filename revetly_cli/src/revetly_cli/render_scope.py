"""Human renderings of the scope reads (rich). Imported only when a human reads them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from revetly_core.answers import (
    AuthoringAnswer,
    BindingAnswer,
    DeltasAnswer,
    DriftAnswer,
    Statement,
)
from rich.console import Console
from rich.table import Table
from rich.tree import Tree

from revetly_cli.render_text import untrusted


def _cuts(console: Console, p: Mapping[str, Any]) -> None:
    """One dim line per cut the payload reports, so nothing is silently shorter."""
    for key, value in sorted(p.items()):
        if isinstance(value, dict) and ("truncated" in key or key == "truncated"):
            console.print(f"[dim]{key}: {value.get('listed', '?')} of {value.get('total', '?')} "
                          f"({untrusted(value.get('reason', ''))})[/dim]")


def _statement_line(s: Statement) -> str:
    marks = []
    if s.get("superseded_by"):
        marks.append(f"superseded by {untrusted(', '.join(s['superseded_by']))}")
    if s.get("via"):
        marks.append(f"via {untrusted(s['via'])}")
    if s.get("also_bears_on"):
        marks.append(f"also {untrusted(', '.join(s['also_bears_on']))}")
    tail = f" [dim]({'; '.join(marks)})[/dim]" if marks else ""
    return (f"[bold]{untrusted(s['artifact_id'])}[/bold] "
            f"[cyan]{untrusted(s.get('artifact_type', ''))}[/cyan] "
            f"[dim]{untrusted(s.get('method', ''))}[/dim] "
            f"{untrusted(s.get('statement') or s['title'])}{tail}")


def binding_tree(p: BindingAnswer) -> Tree:
    """The scope as a tree of its members, each statement under the member it bears on."""
    scope = p.get("scope", {})
    members = {m["artifact_id"]: m for m in scope.get("members", [])}
    path: Mapping[str, Any] = p.get("path") or {}
    label = scope.get("artifact_id") or scope.get("topic") or path.get("path")
    root = Tree(f"[bold]binding[/bold] {untrusted(str(label))}")
    nodes: dict[str, Tree] = {}

    def node_for(mid: str) -> Tree:
        if mid in nodes:
            return nodes[mid]
        m = members.get(mid, {"artifact_id": mid})
        parent = m.get("parent")
        above = node_for(parent) if parent in members and parent != mid else root
        text = (f"[bold]{untrusted(mid)}[/bold] {untrusted(m.get('title') or '')} "
                f"[dim]{untrusted(m.get('artifact_type') or '')} {untrusted(m.get('status') or '')} "
                f"{m.get('position') or ''}[/dim]")
        nodes[mid] = above.add(text)
        return nodes[mid]

    ordered = sorted(members.values(), key=lambda m: -m.get("distance", 0)
                     if m.get("position") == "above" else m.get("distance", 0))
    for m in ordered:
        node_for(m["artifact_id"])
    for s in p.get("statements", []):
        node_for(s["bears_on"]).add(_statement_line(s))
    return root


def render_binding(console: Console, p: BindingAnswer) -> None:
    if "behind" in p:
        path: Mapping[str, Any] = p.get("path") or {}
        repos = path.get("repos", [])
        for r in repos:
            console.print(f"[bold]{untrusted(r['repository'])}[/bold]:{untrusted(r['path'])} "
                          f"{r['commits']} commits, {r['first'][:10]} .. {r['last'][:10]}")
        t = Table(title="Behind this file")
        for col in ("id", "kind", "title", "why"):
            t.add_column(col)
        for b in p["behind"]:
            t.add_row(untrusted(b["artifact_id"]), untrusted(b["kind"]), untrusted(b["title"]),
                      untrusted(b["why"]))
        console.print(t)
        if p.get("reason"):
            console.print(f"[yellow]{untrusted(p['reason'])}[/yellow]")
    scope = p.get("scope", {})
    if scope.get("note"):
        console.print(f"[yellow]{untrusted(scope['note'])}[/yellow]")
    console.print(binding_tree(p))
    if p.get("note"):
        console.print(f"[dim]{untrusted(p['note'])}[/dim]")
    for r in scope.get("revised", []):
        ids = ", ".join(e["id"] for e in r["revised_by"])
        console.print(f"[magenta]{untrusted(r['artifact_id'])} is revised by "
                      f"{untrusted(ids)}[/magenta]")
    if p.get("ancestors_summarised"):
        a = p["ancestors_summarised"]
        console.print(f"[dim]{a['count']} more statements on ancestors: {untrusted(a['note'])}[/dim]")
    _cuts(console, p)


def render_drift(console: Console, p: DriftAnswer) -> None:
    c = p["counts"]
    console.print(f"[bold]drift[/bold] delivered {c['delivered']}: clean {c['clean']}, with "
                  f"departures {c['with_departures']}, no criteria declared "
                  f"{c['no_criteria_declared']}; done without record {c['done_without_record']}"
                  f"; read from the item's own checklist {c.get('checked_in_source', 0)}")
    t = Table(title="Departures")
    for col in ("item", "record", "#", "verdict", "criterion", "note"):
        t.add_column(col)
    for d in p["departures"]:
        t.add_row(untrusted(d["artifact_id"]), untrusted(d["record"] or "(checklist)"), str(d["criterion"]),
                  untrusted(d.get("verdict") or ""),
                  untrusted(d.get("text", "(not declared)")), untrusted(d.get("note", "")))
    console.print(t)
    if p["done_without_record"]:
        console.print("done without a record: " + ", ".join(
            untrusted(r["artifact_id"]) for r in p["done_without_record"]))
    _cuts(console, p)


def render_deltas(console: Console, p: DeltasAnswer) -> None:
    w = p["window"]
    console.print(f"[bold]deltas[/bold] on the {p['clock']} clock, {w.get('since') or '…'} .. "
                  f"{w.get('until') or '…'}: {p['counts']['artifacts']} artifacts changed")
    t = Table()
    for col in ("last change", "id", "type", "title", "changes"):
        t.add_column(col)
    for r in p["changed"]:
        t.add_row(untrusted(r["last_change_at"]), untrusted(r["artifact_id"]),
                  untrusted(r["artifact_type"]), untrusted(r["title"]),
                  untrusted(", ".join(e["change"] for e in r["changes"])))
    console.print(t)
    if p.get("undated", {}).get("count"):
        console.print(f"undated: {p['undated']['count']}")
    _cuts(console, p)


def render_author(console: Console, p: AuthoringAnswer) -> None:
    t = Table(title=f"Nearest backlog for {untrusted(p['topic'])}")
    for col in ("id", "status", "title", "criteria"):
        t.add_column(col)
    for b in p["backlog"]:
        t.add_row(untrusted(b["artifact_id"]), untrusted(b.get("status") or ""),
                  untrusted(b["title"]),
                  str(len(b["acceptance_criteria"])))
    console.print(t)
    binding = p["binding"]
    if binding.get("note"):
        console.print(f"[yellow]{untrusted(binding['note'])}[/yellow]")
    for s in binding.get("statements", []):
        console.print(_statement_line(s) if "statement" in s else
                      f"[bold]{untrusted(s['artifact_id'])}[/bold] {untrusted(s['title'])} "
                      f"[dim](pointer, bears on {untrusted(s['bears_on'])})[/dim]")
    related = p.get("related", {})
    if related.get("artifacts"):
        console.print("related: " + ", ".join(untrusted(r["artifact_id"])
                                              for r in related["artifacts"]))
    _cuts(console, binding)
