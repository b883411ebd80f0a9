"""Human renderings of the operator commands' payloads (doctor, backfill, migrate, ...)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from revetly_core.answers import (
    AuditLinksAnswer,
    BackfillAnswer,
    BackfillPlan,
    DoctorAnswer,
    DoctorServed,
    ManualTopics,
    MigrateAnswer,
    StoppedEvent,
    WatchEvent,
)
from rich.console import Console
from rich.table import Table

from revetly_cli.render_text import untrusted, visible
from revetly_cli.render_time import when


def _command_line(words: list[str]) -> str:
    import shlex

    return " ".join(shlex.quote(w) for w in words)


def _indented(console: Console, text: str, indent: int = 4) -> None:
    """Plain text wrapped at the console's width, every wrapped line under the first's indent
    (words are never split, so a path or a command stays whole and pasteable)."""
    import textwrap

    pad = " " * indent
    console.print(textwrap.fill(text, width=max(console.width, indent + 20), initial_indent=pad,
                                subsequent_indent=pad, break_long_words=False,
                                break_on_hyphens=False), markup=False, highlight=False,
                  soft_wrap=True)


def render_doctor(console: Console, p: DoctorAnswer) -> None:
    console.print(f"[bold]{untrusted(p['instance'])}[/bold]  revetly {p['version']}")
    _indented(console, p["root"], 2)
    console.print("\n[bold]Sources[/bold]")
    for s in p["sources"]:
        held = s["holds"]
        holds = f"holds {held['artifacts']} live"
        if held["deleted"]:
            holds += f", {held['deleted']} deleted"
        if held["problems"]:
            holds += f", {held['problems']} problems"
        if s.get("floor"):
            holds += f"; floor {s['floor']}" + (" (partial)" if s.get("partial") else "")
        reads = "[green]reads[/green]" if s["reads"] else "[red]does not read[/red]"
        console.print(f"- {untrusted(s['source'])}: {reads}; {holds}")
        _indented(console, f"last read {when(s.get('last_read_at'))}; {s['detail']}")
        if "untyped" in s or "unmapped" in s:
            _indented(console, f"untyped items: {s.get('untyped', 0)} (no type, no mapped label)")
            _indented(console, f"unmapped items: {s.get('unmapped', 0)} (a type no map names)")
    index = p.get("index")
    if index is None:
        console.print("index: none yet (run `revetly sync`)")
    else:
        state = "current" if index["current"] else "[yellow]behind[/yellow]"
        console.print(f"index: {index['backend']} at revision {index['revision']}, store at "
                      f"{index['store_revision']}: {state}")
    fresh: Mapping[str, Any] = p.get("freshness") or {}
    if fresh:
        console.print(f"freshness: oldest source read {when(fresh.get('oldest_source_read_at'))},"
                      f" watch {'on' if fresh.get('watch') else 'off'}")
    console.print("\n[bold]Connect[/bold] (the clients manual §6 lists as proven, no other)")
    for line in p["connect"]:
        addr = line["address"]
        where = (_command_line(addr["command"]) if addr["transport"] == "stdio"
                 else addr.get("url") or "no served address declared")
        mark = "[green]ready[/green]" if line["ready"] else "[yellow]needs setup[/yellow]"
        console.print(f"- {untrusted(line['client'])} {line['version']} (proven {line['proven']}):"
                      f" {mark}")
        _indented(console, f"{addr['transport']}: {where}")
        _indented(console, f"gate: {line['gate']}")
        for need in line["needs"]:
            _indented(console, f"needs: {need}")
    _render_served(console, p["served"])
    if p["warnings"]:
        console.print("\n[bold]Warnings[/bold]")
        for w in p["warnings"]:
            console.print(f"- [yellow]{w['code']}[/yellow]: {untrusted(w['detail'])}")
            _indented(console, f"fix: {w['fix']}")
    else:
        console.print("\n[green]no warnings[/green]")


def _render_served(console: Console, served: DoctorServed) -> None:
    console.print("\n[bold]Served endpoint[/bold] (page callers)")
    _indented(console, f"public url: {visible(served['public_url'] or 'none declared')}", 2)
    origins = ", ".join(served["allowed_origins"]) or "none (only the endpoint's own)"
    _indented(console, f"allowed origins: {visible(origins)}", 2)
    refused = served["origins_refused"]
    if refused is None:
        _indented(console, "refused origins: not known (declare [auth] audit_log to record them)",
                  2)
    elif not refused:
        _indented(console, f"refused origins: none in {visible(served['audit_log'] or '')}", 2)
    else:
        for entry in refused:
            _indented(console, f"refused: {visible(entry['origin'])} x{entry['refused']}, last "
                               f"{when(entry['last_at'])}", 2)


def render_backfill(console: Console, p: BackfillPlan | BackfillAnswer) -> None:
    if p["dry_run"] is True:
        if not p["sources"]:
            console.print("no commits source declares a `since` floor: nothing lies below one")
            return
        for s in p["sources"]:
            console.print(f"[bold]{untrusted(s['source'])}[/bold]: floor {s['floor']}, back to "
                          f"{s['to']}: {s['commits']} commits in {len(s['windows'])} windows, "
                          f"about {s['estimated_seconds']:g}s"
                          + (f" (from {s['estimate_from']})" if s.get("estimate_from") else ""))
            t = Table(expand=False)
            for col in ("window", "commits"):
                t.add_column(col, justify="right" if col == "commits" else "left")
            for w in s["windows"]:
                t.add_row(f"{w['start']} .. {w['end']}", str(w["commits"]))
            console.print(t)
        console.print(f"total: {p['commits']} commits, about {p['estimated_seconds']:g}s; "
                      "run without --dry-run to read them")
        return
    if not p["sources"]:
        console.print("nothing to backfill: no commits source has history below its floor")
        return
    for r in p["sources"]:
        state = (f"[yellow]partial[/yellow], {r['windows_left']} windows left"
                 if r["partial"] else "complete")
        console.print(f"[bold]{untrusted(r['source'])}[/bold]: read {r['windows_read']} windows, "
                      f"+{r['added']} commits; floor now {r['floor']}; {state}")


def render_migrate(console: Console, p: MigrateAnswer) -> None:
    if not p["steps"]:
        console.print(f"CONTEXT is at schema {p['schema']}, this engine's: nothing to migrate")
        return
    console.print(f"CONTEXT is at schema {p['schema']}; this engine reads {p['current_schema']}")
    for step in p["steps"]:
        console.print(f"  {step['from']} -> {step['to']}: {untrusted(step['change'])}")
    price: Mapping[str, Any] = p["price"] or {}
    eta = (f"about {price['estimated_seconds']:g}s ({price['estimate_from']})"
           if price.get("estimated_seconds") is not None else "time unknown (no full pass recorded)")
    console.print(f"the re-read: {price.get('artifacts', 0)} artifacts, {eta}")
    if p["dry_run"]:
        console.print("run `revetly migrate` to apply it")
    elif p["migrated"]:
        ps = p["pass"]
        console.print(f"[green]migrated[/green]: full pass {ps['outcome']}, revision "
                      f"{ps['corpus_revision']}")


def render_audit_links(console: Console, p: AuditLinksAnswer) -> None:
    t = Table(title=f"Live links: {p['live_links']}", expand=False)
    t.add_column("method")
    t.add_column("links", justify="right")
    t.add_column("by relation", overflow="fold")
    for method, entry in p["by_method"].items():
        rel = ", ".join(f"{k} {v}" for k, v in sorted(entry["by_relation"].items()))
        t.add_row(method, str(entry["links"]), rel)
    console.print(t)
    share = p["stated_share"]
    console.print(f"retired {p['retired_links']}, dangling {p['dangling_links']}"
                  + ("" if share is None else f", stated {share:.0%}"))


def render_manual_topics(console: Console, p: ManualTopics) -> None:
    t = Table(title="The operator manual", expand=False)
    t.add_column("topic", no_wrap=True)
    t.add_column("title", overflow="fold")
    for row in p["topics"]:
        t.add_row(row["topic"], untrusted(row["title"]))
    console.print(t)
    console.print(f"read one: {p['show']}")


def watch_event_line(event: WatchEvent | StoppedEvent) -> str:
    """One plain line per watch event (it prints as it goes, into a terminal or a log)."""
    if event["event"] == "watching":
        return f"watching {len(event['paths'])} paths (pid {event['pid']}); stop with Ctrl-C"
    if event["event"] == "pass":
        ch = event["changed"]
        return (f"pass {event['outcome']}: revision {event['corpus_revision']}, "
                f"+{ch.get('added', 0)} added, {ch.get('updated', 0)} updated, "
                f"{ch.get('deleted', 0)} deleted")
    if event["event"] == "refused":
        body = event["refusal"]
        return f"pass refused ({body['code']}): {body['detail']}"
    return f"stopped after {event['passes']} passes"
