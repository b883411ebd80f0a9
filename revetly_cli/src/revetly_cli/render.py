"""Human renderings of core payloads (rich tables). Imported only when a human reads them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from revetly_core.answers import (
    ArtifactBranch,
    ArtifactRecord,
    BacklogAnswer,
    BranchNode,
    CheckAnswer,
    HealthAnswer,
    InitAnswer,
    PassSummary,
    SearchAnswer,
    SearchArtifact,
    WithheldArtifact,
)
from rich import box
from rich.console import Console
from rich.table import Table

from revetly_cli.render_text import untrusted
from revetly_cli.render_time import day, when

BUDGET_ENV = "REVETLY_READ_BUDGET"
"""The setting that lifts the per-call read budget the CLI reads under, as the server does."""


def render_status(console: Console, p: HealthAnswer) -> None:
    last: Mapping[str, Any] = p.get("last_pass") or {}
    console.print(
        f"[bold]{untrusted(p['instance'])}[/bold]  corpus revision {p['corpus_revision']}  "
        f"last pass: {last.get('outcome', 'never')} at {when(last.get('ended_at'))}"
    )
    if "context_health" in p:
        console.print(f"[red]the last pass failed:[/red] {untrusted(p['context_health']['error'])}")
    t = Table(title="Sources")
    for col in ("source", "project", "last read", "outcome", "floor", "partial"):
        t.add_column(col)
    for s in p["sources"]:
        t.add_row(untrusted(s["source"]), untrusted(s.get("project") or ""),
                  when(s.get("last_read_at")), s.get("outcome") or "",
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
    outside: Mapping[str, Any] = p.get("outside_backlog") or {}
    if outside.get("count"):
        console.print(f"[yellow]outside the backlog[/yellow]: {outside['count']} items "
                      f"({outside['untyped']} untyped, {outside['unmapped']} unmapped); "
                      f"fix: {untrusted(str(outside.get('fix', '')))}")
    if "capture" in p:
        cap = p["capture"]
        elsewhere = " (pending elsewhere)" if cap.get("pending_elsewhere") else ""
        console.print(f"capture {untrusted(cap['handle'])}: {untrusted(cap['state'])}{elsewhere}")


def render_sync(console: Console, p: PassSummary) -> None:
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
            moved = [f"{c[k]} {k}" for k in ("added", "updated", "deleted") if c.get(k)]
            what = ", ".join(moved) if moved else "nothing changed"
            problems = f", {c['problems']} problems" if c.get("problems") else ""
            console.print(f"  {untrusted(s['source'])}: read {c.get('read', 0)}: {what}{problems}")
    if p["problems"]:
        console.print(f"{p['problems']} file(s) named by `revetly check` (broken files, shared "
                      "ids, assumptions); run it to see them")
    inferred = p.get("inferred")
    if inferred is not None:
        render_inferred_step(console, inferred)


def render_inferred_step(console: Console, step: Mapping[str, Any]) -> None:
    """The full instance's inferred step: episodes, and the cost the provider reported."""
    console.print(
        f"  inferred: {step.get('episodes', 0)} episodes extracted, {step.get('kept', 0)} kept, "
        f"{step.get('removed', 0)} removed, {step.get('pending', 0)} pending; "
        f"{step.get('model_calls', 0)} model calls, {step.get('prompt_tokens', 0)} prompt + "
        f"{step.get('completion_tokens', 0)} completion tokens")
    degraded = step.get("degraded")
    if isinstance(degraded, dict):
        console.print(f"  [yellow]inferred half degraded:[/yellow] "
                      f"{untrusted(str(degraded.get('error')))}")


def render_check(console: Console, p: CheckAnswer) -> None:
    """Each problem as its whole path on one line, then what is wrong beneath it (a path is
    never cut to fit a column)."""
    if p["ok"]:
        console.print(f"[green]ok[/green]: {p['files_checked']} files, {p['artifacts']} artifacts")
        return
    if p["problems"]:
        console.print(f"[bold]Files that break the schema[/bold] ({len(p['problems'])})")
        for pr in p["problems"]:
            console.print(untrusted(str(pr.get("path"))), soft_wrap=True)
            console.print(f"    [yellow]{pr['code']}[/yellow]: {untrusted(pr['detail'])}")
    if p["dangling_links"]:
        console.print(f"[bold]Links to ids CONTEXT does not hold[/bold] "
                      f"({len(p['dangling_links'])})")
        for d in p["dangling_links"]:
            console.print(untrusted(str(d.get("path"))), soft_wrap=True)
            console.print(f"    {untrusted(d['from'])} {d['field']} -> {untrusted(d['to'])}")


def render_init(console: Console, p: InitAnswer) -> None:
    console.print(f"[green]created[/green] instance at {untrusted(p['instance'])}")
    for c in p["commits"]:
        console.print(f"  commits source {untrusted(c['name'])}: {untrusted(c['path'])}")
    if p.get("source"):
        s = p["source"]
        console.print(f"  {untrusted(s['kind'])} source {untrusted(s['name'])}: "
                      f"{untrusted(s['path'])} ({untrusted(s['folder'])}/)")
    first = p.get("first_commit")
    if first:
        console.print(f"  first commit {first[:12]}")
    auth = p.get("auth")
    if auth is not None:
        console.print(f"  served endpoint checks {auth['verifier']} tokens from "
                      f"{untrusted(auth['issuer'])}; audit lines go to {auth['audit_log']}")
    hosts = p.get("host_files", [])
    if hosts:
        commands = sum(1 for h in hosts if h.startswith(".claude/"))
        prompts = sum(1 for h in hosts if h.startswith(".github/"))
        named = [h for h in hosts if not h.startswith((".claude/", ".github/"))]
        parts = [*named, f"{commands} Claude Code commands", f"{prompts} VS Code prompt files"]
        console.print(f"  host files: {', '.join(parts)}")
    code = p.get("code_repository")
    if code is not None:
        if code.get("written") is not None:
            kept = f" (kept as they were: {', '.join(code['kept'])})" if code.get("kept") else ""
            console.print(f"  wrote {len(code['written'])} host files into {code['path']}{kept}")
        else:
            import json

            console.print(f"\nto let agents in {code['path']} reach this instance, paste into "
                          "its .mcp.json (or run `revetly init` with --write-hosts):")
            console.print(json.dumps(code["snippet"][".mcp.json"], indent=2), markup=False,
                          soft_wrap=True)
            console.print("or: " + code["snippet"]["claude_mcp_add"], markup=False,
                          soft_wrap=True)
    console.print(f"next: {untrusted(p['next'])}")


def _cuts_footer(console: Console, p: Mapping[str, Any]) -> None:
    """Every cut the payload reports, one line each."""
    for key, value in sorted(p.items()):
        if (key.startswith("truncated") or key.endswith("_truncated")) and isinstance(value, dict):
            listed = value.get("listed", value.get("count"))
            lift = (f"; {value['note']}: raise it with {BUDGET_ENV}=BYTES"
                    if value.get("reason") == "read-budget" and value.get("note") else
                    f"; raise the read budget with {BUDGET_ENV}=BYTES"
                    if value.get("reason") == "read-budget" else "")
            console.print(f"[yellow]cut[/yellow] {key}: {untrusted(value.get('reason'))} "
                          f"(listed {listed} of {value.get('total', '?')}){lift}")


COMMIT_ID_CHARS = 16
"""How much of a commit's sha a row shows: enough to be unique, and accepted by `inspect`."""


def shown_id(row: Mapping[str, Any]) -> str:
    """The id a row prints: a commit's sha to COMMIT_ID_CHARS, any other id whole (pasteable)."""
    aid = str(row.get("artifact_id", ""))
    if row.get("artifact_type") == "commit":
        return aid[:COMMIT_ID_CHARS]
    return aid


def _search_marks(a: SearchArtifact) -> list[str]:
    marks = []
    if a.get("superseded_by"):
        marks.append("superseded by " + ", ".join(a["superseded_by"]))
    if a.get("revised_by"):
        marks.append("revised by " + ", ".join(r["id"] for r in a["revised_by"]))
    if a.get("deleted"):
        marks.append(f"deleted {when(a.get('deleted_at')) if a.get('deleted_at') else '(date unknown)'}")
    return marks


def render_search(console: Console, p: SearchAnswer, wide: bool = False) -> None:
    """One line per row (the summary cut to the width); --wide prints each summary whole."""
    t = Table(title=f"search: {untrusted(p['query'])}", show_lines=wide, expand=True,
              box=box.SIMPLE_HEAD)
    t.add_column("#", justify="right", no_wrap=True)
    t.add_column("id", no_wrap=True)
    t.add_column("type", no_wrap=True)
    t.add_column("status", no_wrap=True)
    t.add_column("summary", ratio=1, no_wrap=not wide, overflow="fold" if wide else "ellipsis")
    for i, a in enumerate(p["artifacts"], start=1):
        marks = _search_marks(a)
        summary = a["summary"] if wide else " ".join(str(a["summary"]).split())
        text = untrusted(summary)
        if marks:
            text = f"[yellow]{untrusted('; '.join(marks))}[/yellow] · " + text
        t.add_row(str(i), untrusted(shown_id(a)), a["artifact_type"], a.get("status") or "", text)
    console.print(t)
    if p["facts"]:
        console.print("[bold]facts[/bold]")
        for f in p["facts"]:
            line = untrusted(" ".join(str(f["fact"]).split()))
            console.print("  " + line, no_wrap=not wide, overflow="ellipsis" if not wide else "fold")
    if not p["artifacts"]:
        console.print("nothing matched")
    elif not wide:
        console.print("[dim]each summary is cut to one line: --wide prints them whole, "
                      "`revetly inspect ID` one artifact[/dim]")
    _cuts_footer(console, p)


def _marks_line(row: Mapping[str, Any]) -> str:
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


def body_without_criteria(body: str) -> str:
    """The body with its acceptance-criteria section (heading and list) taken out: the list is
    printed once, beneath, with each criterion's checked state."""
    from revetly_core.markdown.criteria import criteria_section

    span = criteria_section(body)
    if span is None:
        return body
    lines = body.splitlines()
    return "\n".join(lines[: span[0] - 1] + lines[span[1]:])


def render_artifact(console: Console, p: ArtifactRecord | WithheldArtifact) -> None:
    head: Mapping[str, Any] = p  # owner and parent are the brief's; a withheld row has neither
    console.print(f"[bold]{untrusted(p['artifact_id'])}[/bold]  {untrusted(p.get('title') or '')}")
    updated = p.get("source_updated_at")
    facts = [p.get("artifact_type"), p.get("status"), head.get("owner") and f"owner {head['owner']}",
             head.get("parent") and f"under {head['parent']}", updated and f"updated {when(updated)}"]
    console.print("  " + untrusted(" · ".join(str(f) for f in facts if f)))
    marks = _marks_line(p)
    if marks:
        console.print(f"  [yellow]{untrusted(marks)}[/yellow]")
    if p.get("in_context") is False:
        console.print("  withheld: read and committed, but not in CONTEXT")
        return
    p = cast(ArtifactRecord, p)  # not withheld: the brief, or the full record
    criteria = p.get("acceptance_criteria") or []
    if p.get("body"):
        body = body_without_criteria(p["body"]) if criteria else p["body"]
        if body.strip():
            console.print()
            console.print(untrusted(body.strip()))
    if criteria:
        console.print("\n[bold]Acceptance criteria[/bold]")
        checked = p.get("criteria_checked")
        for i, c in enumerate(criteria, start=1):
            box_mark = "" if checked is None else ("[x] " if checked[i - 1] else "[ ] ")
            console.print(f"  {i}. {untrusted(box_mark)}{untrusted(c)}")
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
            t.add_row(when(h.get("at")), str(h.get("change")), str(h.get("revision", ""))[:12],
                      untrusted(str(h.get("author") or "")), untrusted(str(h.get("summary") or "")))
        console.print(t)
    _cuts_footer(console, p)


def render_branch(console: Console, p: ArtifactBranch) -> None:
    from rich.tree import Tree

    def label(node: BranchNode) -> str:
        marks = _marks_line(node)
        text = (f"[bold]{untrusted(node['artifact_id'])}[/bold] {untrusted(node.get('title') or '')} "
                f"[dim]{untrusted(str(node.get('artifact_type') or ''))} · "
                f"{untrusted(str(node.get('status') or ''))}[/dim]")
        return text + (f" [yellow]{untrusted(marks)}[/yellow]" if marks else "")

    def grow(tree: Any, node: BranchNode) -> None:
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


def render_backlog(console: Console, p: BacklogAnswer) -> None:
    """Rows in serve order (by type, then id in number order: BACK-4.2 before BACK-4.10); the
    title takes the width the short columns leave."""
    t = Table(title=f"Backlog: {p.get('total', 0)} items", expand=True, box=box.SIMPLE_HEAD)
    for col in ("id", "type", "status"):
        t.add_column(col, no_wrap=True)
    t.add_column("title", ratio=1, overflow="fold")
    t.add_column("parent", no_wrap=True)
    t.add_column("updated", no_wrap=True)
    for row in p.get("items", []):
        marks = _marks_line(row)
        title = untrusted(row.get("title") or "")
        if marks:
            title += f" [yellow]({untrusted(marks)})[/yellow]"
        t.add_row(untrusted(shown_id(row)), row.get("artifact_type") or "", row.get("status") or "",
                  title, untrusted(row.get("parent") or ""), day(row.get("source_updated_at")))
    console.print(t)
    if p.get("next_cursor"):
        console.print(f"more: --cursor {untrusted(p['next_cursor'])}", soft_wrap=True)
    _outside_rows(console, p)
    _cuts_footer(console, p)


def _outside_rows(console: Console, p: BacklogAnswer) -> None:
    """The items no type map covers, one line each, under the table (none: nothing printed)."""
    outside: Mapping[str, Any] = p.get("outside_backlog") or {}
    if not outside.get("count"):
        return
    console.print(f"[bold]Outside the backlog[/bold]: {outside['count']} items no type map covers")
    for row in outside.get("items", []):
        why = row["why"] + (f" ({row['native_type']})" if row.get("native_type") else "")
        labels = f" [{', '.join(row['labels'])}]" if row.get("labels") else ""
        console.print(f"  {untrusted(row['artifact_id'])} {untrusted(row['kind'])}, "
                      f"{untrusted(why)}: {untrusted(row['title'])}{untrusted(labels)}")
