"""Human renderings of core payloads (rich tables). Imported only when a human reads them."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table

from revetly_cli.render_text import untrusted


def render_status(console: Console, p: dict[str, Any]) -> None:
    last = p.get("last_pass") or {}
    console.print(
        f"[bold]{untrusted(p['instance'])}[/bold]  corpus revision {p['corpus_revision']}  "
        f"last pass: {last.get('outcome', 'never')} at {last.get('ended_at', '-')}"
    )
    if "context_health" in p:
        console.print(f"[red]the last pass failed:[/red] {untrusted(p['context_health']['error'])}")
    t = Table(title="Sources")
    for col in ("source", "project", "last read", "outcome", "floor", "partial"):
        t.add_column(col)
    for s in p["sources"]:
        t.add_row(untrusted(s["source"]), untrusted(s.get("project") or ""),
                  s.get("last_read_at") or "", s.get("outcome") or "",
                  untrusted(s.get("floor") or ""), "yes" if s.get("partial") else "")
    console.print(t)
    c = p["counts"]
    t2 = Table(title=f"CONTEXT: {c['artifacts']} live artifacts, {c['links']} live links")
    t2.add_column("type")
    t2.add_column("count", justify="right")
    t2.add_column("by status")
    for typ, n in sorted(c["by_type"].items()):
        statuses = ", ".join(f"{k} {v}" for k, v in sorted(c["by_status"].get(typ, {}).items()))
        t2.add_row(untrusted(typ), str(n), untrusted(statuses))
    console.print(t2)
    extras = [f"deleted {c['deleted']}", f"withheld {c['withheld']}", f"problems {p['problems']}"]
    if not p["index"]["current"]:
        extras.append("keyword index behind the store (rebuilt on the next sync)")
    console.print("  ".join(extras))
    if "capture" in p:
        cap = p["capture"]
        elsewhere = " (pending elsewhere)" if cap.get("pending_elsewhere") else ""
        console.print(f"capture {untrusted(cap['handle'])}: {untrusted(cap['state'])}{elsewhere}")


def render_sync(console: Console, p: dict[str, Any]) -> None:
    ch = p["changed"]
    console.print(
        f"[bold]{'full' if p['full'] else 'incremental'} pass {p['outcome']}[/bold]: "
        f"revision {p['corpus_revision']}, +{ch.get('added', 0)} added, "
        f"{ch.get('updated', 0)} updated, {ch.get('deleted', 0)} deleted"
    )
    for s in p["sources"]:
        if s["outcome"] == "failed":
            console.print(f"  [red]{untrusted(s['source'])} failed:[/red] {untrusted(s['error'])}")
        else:
            c = s["counts"]
            console.print(f"  {untrusted(s['source'])}: read {c.get('read', 0)}, "
                          f"problems {c.get('problems', 0)}")
    if p["problems"]:
        console.print(f"{p['problems']} file(s) break the schema: run `revetly check`")


def render_check(console: Console, p: dict[str, Any]) -> None:
    if p["ok"]:
        console.print(f"[green]ok[/green]: {p['files_checked']} files, {p['artifacts']} artifacts")
        return
    if p["problems"]:
        t = Table(title="Files that break the schema")
        for col in ("path", "code", "detail"):
            t.add_column(col)
        for pr in p["problems"]:
            t.add_row(untrusted(str(pr.get("path"))), untrusted(pr["code"]),
                      untrusted(pr["detail"]))
        console.print(t)
    if p["dangling_links"]:
        t = Table(title="Links to ids CONTEXT does not hold")
        for col in ("path", "from", "field", "to"):
            t.add_column(col)
        for d in p["dangling_links"]:
            t.add_row(untrusted(str(d.get("path"))), untrusted(d["from"]), untrusted(d["field"]),
                      untrusted(d["to"]))
        console.print(t)


def render_init(console: Console, p: dict[str, Any]) -> None:
    console.print(f"[green]created[/green] instance at {untrusted(p['instance'])}")
    for c in p["commits"]:
        console.print(f"  commits source {untrusted(c['name'])}: {untrusted(c['path'])}")
    if p.get("source"):
        s = p["source"]
        console.print(f"  {untrusted(s['kind'])} source {untrusted(s['name'])}: "
                      f"{untrusted(s['path'])} ({untrusted(s['folder'])}/)")
    console.print(f"next: {untrusted(p['next'])}")


def _cuts_footer(console: Console, p: dict[str, Any]) -> None:
    """Every cut the payload reports, one line each."""
    for key, value in sorted(p.items()):
        if (key.startswith("truncated") or key.endswith("_truncated")) and isinstance(value, dict):
            listed = value.get("listed", value.get("count"))
            console.print(f"[yellow]cut[/yellow] {key}: {untrusted(value.get('reason'))} "
                          f"(listed {listed} of {value.get('total', '?')})")


def render_search(console: Console, p: dict[str, Any]) -> None:
    t = Table(title=f"search: {untrusted(p['query'])}", show_lines=True)
    for col in ("#", "id", "type", "status", "summary"):
        t.add_column(col)
    for i, a in enumerate(p["artifacts"], start=1):
        marks = []
        if a.get("superseded_by"):
            marks.append("superseded by " + ", ".join(a["superseded_by"]))
        if a.get("revised_by"):
            marks.append("revised by " + ", ".join(r["id"] for r in a["revised_by"]))
        if a.get("deleted"):
            marks.append(f"deleted {a.get('deleted_at') or '(date unknown)'}")
        text = untrusted(a["summary"]) + (
            "\n[dim]" + untrusted("; ".join(marks)) + "[/dim]" if marks else "")
        t.add_row(str(i), untrusted(a["artifact_id"][:16]), untrusted(a["artifact_type"]),
                  untrusted(a.get("status") or ""), text)
    console.print(t)
    if p["facts"]:
        console.print("[bold]facts[/bold]")
        for f in p["facts"]:
            console.print("  " + untrusted(f["fact"]))
    if not p["artifacts"]:
        console.print("nothing matched")
    _cuts_footer(console, p)


def _marks_line(row: dict[str, Any]) -> str:
    marks = []
    if row.get("superseded_by"):
        marks.append("superseded by " + ", ".join(row["superseded_by"]))
    for rev in row.get("revised_by", []):
        changed = " (criterion since changed)" if rev.get("criterion_changed") else ""
        marks.append(f"revised by {rev['id']} {rev.get('criteria') or ''}{changed}")
    if row.get("deleted"):
        clock = row.get("deleted_clock", "")
        marks.append(f"deleted {row.get('deleted_at') or '(date unknown)'} {clock}".strip())
    if row.get("withheld"):
        marks.append("withheld")
    return "; ".join(marks)


def render_artifact(console: Console, p: dict[str, Any]) -> None:
    console.print(f"[bold]{untrusted(p['artifact_id'])}[/bold]  {untrusted(p.get('title') or '')}")
    facts = [p.get("artifact_type"), p.get("status"), p.get("owner") and f"owner {p['owner']}",
             p.get("parent") and f"under {p['parent']}", p.get("source_updated_at")]
    console.print("  " + untrusted(" · ".join(str(f) for f in facts if f)))
    marks = _marks_line(p)
    if marks:
        console.print(f"  [yellow]{untrusted(marks)}[/yellow]")
    if p.get("in_context") is False:
        console.print("  withheld: read and committed, but not in CONTEXT")
        return
    if p.get("body"):
        console.print()
        console.print(untrusted(p["body"].strip()))
    if p.get("acceptance_criteria"):
        console.print("\n[bold]Acceptance criteria[/bold]")
        for i, c in enumerate(p["acceptance_criteria"], start=1):
            console.print(f"  {i}. {untrusted(c)}")
    elif p.get("criteria_unparsed"):
        console.print("\n[yellow]a criteria heading with no criterion under it[/yellow]")
    if p.get("declared_links"):
        console.print("\n[bold]Declared links[/bold]")
        for relation, ids in sorted(p["declared_links"].items()):
            console.print(f"  {relation}: {untrusted(', '.join(ids))}")
    if "history_entries" in p:
        t = Table(title=f"History ({p.get('history_total', 0)} entries)")
        for col in ("at", "change", "revision", "author", "summary"):
            t.add_column(col)
        for h in p["history_entries"]:
            t.add_row(untrusted(h.get("at")), untrusted(h.get("change")),
                      untrusted(str(h.get("revision", ""))[:12]),
                      untrusted(str(h.get("author") or "")), untrusted(str(h.get("summary") or "")))
        console.print(t)
    _cuts_footer(console, p)


def render_branch(console: Console, p: dict[str, Any]) -> None:
    from rich.tree import Tree

    def label(node: dict[str, Any]) -> str:
        marks = _marks_line(node)
        text = (f"[bold]{untrusted(node['artifact_id'])}[/bold] {untrusted(node.get('title') or '')} "
                f"[dim]{untrusted(str(node.get('artifact_type') or ''))} · "
                f"{untrusted(str(node.get('status') or ''))}[/dim]")
        return text + (f" [yellow]{untrusted(marks)}[/yellow]" if marks else "")

    def grow(tree: Any, node: dict[str, Any]) -> None:
        for child in node.get("children", []):
            grow(tree.add(label(child)), child)

    root = p.get("tree")
    if root:
        tree = Tree(label(root))
        grow(tree, root)
        console.print(tree)
    rollup = p.get("rollup", {})
    if rollup.get("by_status"):
        parts = [f"{k} {v['count']}" for k, v in sorted(rollup["by_status"].items())]
        console.print("by status: " + ", ".join(parts))
    for key in ("cycles", "withdrawn"):
        if p.get(key):
            console.print(f"[yellow]{key}[/yellow]: {untrusted(str(p[key]))}")
    _cuts_footer(console, p)


def render_backlog(console: Console, p: dict[str, Any]) -> None:
    t = Table(title=f"Backlog: {p.get('total', 0)} items")
    for col in ("id", "type", "status", "title", "parent", "updated", "marks"):
        t.add_column(col)
    for row in p.get("items", []):
        t.add_row(untrusted(row["artifact_id"]), untrusted(row.get("artifact_type") or ""),
                  untrusted(row.get("status") or ""),
                  untrusted(row.get("title") or ""), untrusted(row.get("parent") or ""),
                  str(row.get("source_updated_at") or ""), untrusted(_marks_line(row)))
    console.print(t)
    if p.get("next_cursor"):
        console.print(f"more: --cursor {untrusted(p['next_cursor'])}", soft_wrap=True)
    _cuts_footer(console, p)
