"""Human renderings of core payloads (rich tables). Imported only when a human reads them."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table


def render_status(console: Console, p: dict[str, Any]) -> None:
    last = p.get("last_pass") or {}
    console.print(
        f"[bold]{p['instance']}[/bold]  corpus revision {p['corpus_revision']}  "
        f"last pass: {last.get('outcome', 'never')} at {last.get('ended_at', '-')}"
    )
    if "context_health" in p:
        console.print(f"[red]the last pass failed:[/red] {p['context_health']['error']}")
    t = Table(title="Sources")
    for col in ("source", "project", "last read", "outcome", "floor", "partial"):
        t.add_column(col)
    for s in p["sources"]:
        t.add_row(s["source"], s.get("project") or "", s.get("last_read_at") or "",
                  s.get("outcome") or "", s.get("floor") or "", "yes" if s.get("partial") else "")
    console.print(t)
    c = p["counts"]
    t2 = Table(title=f"CONTEXT: {c['artifacts']} live artifacts, {c['links']} live links")
    t2.add_column("type")
    t2.add_column("count", justify="right")
    t2.add_column("by status")
    for typ, n in sorted(c["by_type"].items()):
        statuses = ", ".join(f"{k} {v}" for k, v in sorted(c["by_status"].get(typ, {}).items()))
        t2.add_row(typ, str(n), statuses)
    console.print(t2)
    extras = [f"deleted {c['deleted']}", f"withheld {c['withheld']}", f"problems {p['problems']}"]
    if not p["index"]["current"]:
        extras.append("keyword index behind the store (rebuilt on the next sync)")
    console.print("  ".join(extras))
    if "capture" in p:
        cap = p["capture"]
        elsewhere = " (pending elsewhere)" if cap.get("pending_elsewhere") else ""
        console.print(f"capture {cap['handle']}: {cap['state']}{elsewhere}")


def render_sync(console: Console, p: dict[str, Any]) -> None:
    ch = p["changed"]
    console.print(
        f"[bold]{'full' if p['full'] else 'incremental'} pass {p['outcome']}[/bold]: "
        f"revision {p['corpus_revision']}, +{ch.get('added', 0)} added, "
        f"{ch.get('updated', 0)} updated, {ch.get('deleted', 0)} deleted"
    )
    for s in p["sources"]:
        if s["outcome"] == "failed":
            console.print(f"  [red]{escape(s['source'])} failed:[/red] {escape(s['error'])}")
        else:
            c = s["counts"]
            console.print(f"  {s['source']}: read {c.get('read', 0)}, problems {c.get('problems', 0)}")
    if p["problems"]:
        console.print(f"{p['problems']} file(s) named by `revetly check` (broken files, shared "
                      "ids, assumptions); run it to see them")


def render_check(console: Console, p: dict[str, Any]) -> None:
    if p["ok"]:
        console.print(f"[green]ok[/green]: {p['files_checked']} files, {p['artifacts']} artifacts")
        return
    if p["problems"]:
        t = Table(title="Files that break the schema")
        for col in ("path", "code", "detail"):
            t.add_column(col)
        for pr in p["problems"]:
            t.add_row(escape(str(pr.get("path"))), pr["code"], escape(pr["detail"]))
        console.print(t)
    if p["dangling_links"]:
        t = Table(title="Links to ids CONTEXT does not hold")
        for col in ("path", "from", "field", "to"):
            t.add_column(col)
        for d in p["dangling_links"]:
            t.add_row(escape(str(d.get("path"))), d["from"], d["field"], escape(d["to"]))
        console.print(t)


def render_init(console: Console, p: dict[str, Any]) -> None:
    console.print(f"[green]created[/green] instance at {p['instance']}")
    for c in p["commits"]:
        console.print(f"  commits source {c['name']}: {c['path']}")
    if p.get("source"):
        s = p["source"]
        console.print(f"  {s['kind']} source {s['name']}: {s['path']} ({s['folder']}/)")
    console.print(f"next: {p['next']}")


def _cuts_footer(console: Console, p: dict[str, Any]) -> None:
    """Every cut the payload reports, one line each."""
    for key, value in sorted(p.items()):
        if (key.startswith("truncated") or key.endswith("_truncated")) and isinstance(value, dict):
            listed = value.get("listed", value.get("count"))
            console.print(f"[yellow]cut[/yellow] {key}: {value.get('reason')} "
                          f"(listed {listed} of {value.get('total', '?')})")


def render_search(console: Console, p: dict[str, Any]) -> None:
    t = Table(title=f"search: {escape(p['query'])}", show_lines=True)
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
        text = a["summary"] + ("\n[dim]" + escape("; ".join(marks)) + "[/dim]" if marks else "")
        t.add_row(str(i), a["artifact_id"][:16], a["artifact_type"], a.get("status") or "",
                  text if marks else escape(text))
    console.print(t)
    if p["facts"]:
        console.print("[bold]facts[/bold]")
        for f in p["facts"]:
            console.print("  " + escape(f["fact"]))
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
    console.print(f"[bold]{escape(p['artifact_id'])}[/bold]  {escape(p.get('title') or '')}")
    facts = [p.get("artifact_type"), p.get("status"), p.get("owner") and f"owner {p['owner']}",
             p.get("parent") and f"under {p['parent']}", p.get("source_updated_at")]
    console.print("  " + escape(" · ".join(str(f) for f in facts if f)))
    marks = _marks_line(p)
    if marks:
        console.print(f"  [yellow]{escape(marks)}[/yellow]")
    if p.get("in_context") is False:
        console.print("  withheld: read and committed, but not in CONTEXT")
        return
    if p.get("body"):
        console.print()
        console.print(escape(p["body"].strip()))
    if p.get("acceptance_criteria"):
        console.print("\n[bold]Acceptance criteria[/bold]")
        for i, c in enumerate(p["acceptance_criteria"], start=1):
            console.print(f"  {i}. {escape(c)}")
    elif p.get("criteria_unparsed"):
        console.print("\n[yellow]a criteria heading with no criterion under it[/yellow]")
    if p.get("declared_links"):
        console.print("\n[bold]Declared links[/bold]")
        for relation, ids in sorted(p["declared_links"].items()):
            console.print(f"  {relation}: {escape(', '.join(ids))}")
    if "history_entries" in p:
        t = Table(title=f"History ({p.get('history_total', 0)} entries)")
        for col in ("at", "change", "revision", "author", "summary"):
            t.add_column(col)
        for h in p["history_entries"]:
            t.add_row(str(h.get("at")), str(h.get("change")), str(h.get("revision", ""))[:12],
                      escape(str(h.get("author") or "")), escape(str(h.get("summary") or "")))
        console.print(t)
    _cuts_footer(console, p)


def render_branch(console: Console, p: dict[str, Any]) -> None:
    from rich.tree import Tree

    def label(node: dict[str, Any]) -> str:
        marks = _marks_line(node)
        text = (f"[bold]{escape(node['artifact_id'])}[/bold] {escape(node.get('title') or '')} "
                f"[dim]{escape(str(node.get('artifact_type') or ''))} · "
                f"{escape(str(node.get('status') or ''))}[/dim]")
        return text + (f" [yellow]{escape(marks)}[/yellow]" if marks else "")

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
            console.print(f"[yellow]{key}[/yellow]: {escape(str(p[key]))}")
    _cuts_footer(console, p)


def render_backlog(console: Console, p: dict[str, Any]) -> None:
    t = Table(title=f"Backlog: {p.get('total', 0)} items")
    for col in ("id", "type", "status", "title", "parent", "updated", "marks"):
        t.add_column(col)
    for row in p.get("items", []):
        t.add_row(row["artifact_id"], row.get("artifact_type") or "", row.get("status") or "",
                  escape(row.get("title") or ""), row.get("parent") or "",
                  str(row.get("source_updated_at") or ""), escape(_marks_line(row)))
    console.print(t)
    if p.get("next_cursor"):
        console.print(f"more: --cursor {p['next_cursor']}", soft_wrap=True)
    _cuts_footer(console, p)
