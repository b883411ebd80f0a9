"""The dashboard's HTML: core's payloads rendered, every value escaped, no script.

Each state-changing control is its own small form posting to the action route with the
session's CSRF value; the page itself decides nothing (ADR 0036).
"""

from __future__ import annotations

import json
from html import escape
from typing import Any

from revetly_mcp.review_html import document

FIGURE_LABELS = {"usd_micros": "USD (micro-units)", "input_tokens": "input tokens",
                 "output_tokens": "output tokens", "model_calls": "model calls"}


def _e(value: object) -> str:
    return escape("" if value is None else str(value))


def _json(value: object) -> str:
    """A value exactly as retained, as indented JSON."""
    return f"<pre>{escape(json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False))}</pre>"


def _refusal(section: dict[str, Any]) -> str:
    refusal = section.get("refusal") or {}
    return (f"<p class='refusal'>refused ({_e(refusal.get('code'))}): {_e(refusal.get('detail'))}"
            f" — {_e(refusal.get('fix'))}</p>")


def _rate(value: object) -> str:
    return "null (undefined)" if value is None else _e(value)


def quality_html(reports: list[dict[str, Any]]) -> str:
    """One table row per frozen schedule: the counts over its denominator, rates null when undefined."""
    if not reports:
        return "<p id='quality-none'>No schedule is frozen for this scope.</p>"
    rows = []
    for r in reports:
        sid = _e(r.get("schedule_id"))
        if "refusal" in r:
            rows.append(f"<tr><td>{sid}</td><td colspan='8'>{_refusal(r)}</td></tr>")
            continue
        rates = r.get("rates") or {}
        rows.append(
            f"<tr id='quality-{sid}'><td>{sid}</td><td>{_e(r.get('task_class'))}</td>"
            f"<td class='scheduled'>{_e(r['scheduled'])}</td><td class='observed'>{_e(r['observed'])}"
            f"</td><td class='missing'>{_e(r['missing'])}</td><td class='succeeded'>"
            f"{_e(r['succeeded'])}</td><td class='failed'>{_e(r['failed'])}</td>"
            f"<td class='unknown'>{_e(r['unknown'])}</td><td class='success-rate'>"
            f"{_rate(rates.get('success'))}</td></tr>")
    return ("<p>Unverified host reports, counted over owner-frozen schedules.</p><table id='quality'>"
            "<tr><th>schedule</th><th>class</th><th>scheduled</th><th>observed</th><th>missing</th>"
            "<th>succeeded</th><th>failed</th><th>unknown</th><th>success rate</th></tr>"
            + "".join(rows) + "</table>")


def usage_html(usage: dict[str, Any]) -> str:
    """Each usage figure with its state: missing (nothing captured, null), partial (a part unknown:
    total null, known subtotal apart), overflow or complete."""
    if "refusal" in usage:
        return _refusal(usage)
    states = usage.get("states") or {}
    rows = []
    for figure, label in FIGURE_LABELS.items():
        f = usage.get(figure) or {}
        total = "null" if f.get("total") is None else _e(f.get("total"))
        rows.append(f"<tr id='usage-{figure}'><td>{_e(label)}</td><td class='state'>"
                    f"{_e(states.get(figure))}</td><td class='total'>{total}</td>"
                    f"<td class='known'>{_e(f.get('known_subtotal'))}</td>"
                    f"<td class='unknown'>{_e(f.get('unknown'))}</td></tr>")
    return (f"<p>{_e(usage.get('label'))}; provider receipts recorded: "
            f"<span id='usage-receipts'>{_e(usage.get('receipts'))}</span>.</p>"
            "<table id='usage'><tr><th>figure</th><th>state</th><th>total</th>"
            "<th>known subtotal</th><th>unknown parts</th></tr>" + "".join(rows) + "</table>")


def actions_html(actions: Any) -> str:
    """Each guarded action: exact arguments and digest, status, checks and source evidence."""
    if isinstance(actions, dict):
        return _refusal(actions)
    if not actions:
        return "<p id='actions-none'>No guarded action in this scope.</p>"
    parts = []
    for a in actions:
        checks = "".join(
            f"<li class='check'>{_e(v['verifier_id'])} ({_e(v['binding'])}): verdict "
            f"<strong>{_e(v['verdict'])}</strong>{_json(v['checks'])}</li>" for v in a["checks"])
        sources = "".join(f"<li class='source'>{_json(s)}</li>" for s in a["sources"])
        parts.append(
            f"<section class='action' id='action-{_e(a['execution_id'])}'>"
            f"<h3>{_e(a['tool'])} {_e(a['tool_version'])} — <span class='status'>"
            f"{_e(a['status'])}</span>{' (holds the tool)' if a['hold'] else ''}</h3>"
            f"<p>{_e(a['execution_id'])} by {_e(a['actor'])} at {_e(a['admitted_at'])}; "
            f"arguments sha256 <code>{_e(a['arguments_sha256'])}</code></p>"
            f"<div class='arguments'>{_json(a['arguments'])}</div>"
            f"<h4>Checks</h4><ul>{checks or '<li>none retained</li>'}</ul>"
            f"<h4>Source evidence</h4><ul>{sources or '<li>none linked</li>'}</ul></section>")
    return "".join(parts)


def _form(csrf: str, action_url: str, action: str, target: str, label: str,
          extra: dict[str, str] | None = None, reason: bool = False) -> str:
    hidden = "".join(f"<input type='hidden' name='{_e(k)}' value='{_e(v)}'>"
                     for k, v in {"csrf": csrf, "action": action, "target": target,
                                  **(extra or {})}.items())
    note = "<input name='reason' placeholder='reason' aria-label='reason'>" if reason else ""
    button_id = f"{action}-{target}" + (f"-{next(iter(extra.values()))}" if extra else "")
    return (f"<form class='control' method='post' action='{_e(action_url)}'>{hidden}{note}"
            f"<button id='{_e(button_id)}'>{_e(label)}</button></form>")


def controls_html(p: dict[str, Any], csrf: str, action_url: str) -> str:
    """A proposal's controls: review while pending, activation under each usable qualification,
    rollback to each offered generation, and the lifecycle moves its state allows."""
    pid = str(p["proposal_id"])
    life = p["lifecycle"]
    controls: list[str] = []
    if p["review_open"]:
        controls += [_form(csrf, action_url, "approve", pid, "Approve", reason=True),
                     _form(csrf, action_url, "reject", pid, "Reject", reason=True)]
    for qid in life["activation"]["qualifications"]:
        controls.append(_form(csrf, action_url, "activate", pid, f"Activate under {qid}",
                              {"qualification": qid}))
    for generation in life["rollback_to"]:
        controls.append(_form(csrf, action_url, "rollback", pid,
                              f"Roll back to generation {generation}",
                              {"generation": str(generation)}))
    for move in life["controls"]:
        controls.append(_form(csrf, action_url, move, pid, move.capitalize(), reason=True))
    return "".join(controls)


def proposal_html(p: dict[str, Any], csrf: str, action_url: str, *, read_only: bool = False) -> str:
    """One proposal: candidate, compiled form, source snapshots, decision and its controls (none
    on a read-only endpoint)."""
    pid = str(p["proposal_id"])
    life = p["lifecycle"]
    offer = life["activation"]
    controls = "" if read_only else controls_html(p, csrf, action_url)
    activation = ("" if offer["available"]
                  else f"<p class='activation-unavailable'>{_e(offer['reason'])}</p>")
    sources = "".join(
        f"<li><code>{_e(s['artifact_id'])}</code> generation {_e(s['generation'])}, sha256 "
        f"<code>{_e(s['content_sha256'])}</code><pre>{_e(s.get('words'))}</pre></li>"
        for s in p["sources"])
    return (f"<section class='proposal' id='proposal-{_e(pid)}'>"
            f"<h3>{_e(p['title'])} <small>({_e(p['proposal_kind'])})</small></h3>"
            f"<p>{_e(pid)} — review <code>{_e(p['review_id'])}</code>: "
            f"<strong class='review-status'>{_e(p['status'])}</strong>; lifecycle "
            f"<strong class='lifecycle-state'>{_e(life['state'] or 'not activated')}</strong></p>"
            f"<h4>Candidate</h4>{_json(p['candidate'])}<h4>Compiled</h4>{_json(p['compiled'])}"
            f"<h4>Sources</h4><ul>{sources}</ul>"
            f"<h4>Qualifications</h4>{_json(life['qualifications'])}{activation}"
            f"<div class='controls'>{controls}</div></section>")


def proposals_html(proposals: dict[str, Any], csrf: str, action_url: str, *,
                   read_only: bool = False) -> str:
    if not proposals.get("available"):
        if "refusal" in proposals:
            return _refusal(proposals)
        return f"<p id='proposals-unavailable'>{_e(proposals.get('reason'))}</p>"
    items = proposals["items"]
    if not items:
        return "<p id='proposals-none'>No proposal in this scope.</p>"
    note = ("<p id='read-only'>This endpoint serves reads only: no action is taken here.</p>"
            if read_only else "")
    return note + "".join(proposal_html(p, csrf, action_url, read_only=read_only) for p in items)


def dashboard_page(view: dict[str, Any], *, csrf: str, action_url: str, signout_url: str) -> str:
    """The whole screen for a signed-in person."""
    who = view["signed_in"]
    scope = view["scope"]
    head = (f"<h1>Feedback dashboard</h1><p>Signed in as <strong id='signed-in'>{_e(who['name'])}"
            f"</strong>{' (owner)' if who['owner'] else ''} — scope <code id='scope'>"
            f"{_e(scope['workspace'])}/{_e(scope['agent'])}</code></p>"
            f"<form method='post' action='{_e(signout_url)}'><input type='hidden' name='csrf' "
            f"value='{_e(csrf)}'><button id='signout'>Sign out</button></form>")
    if view.get("status") != "ready":
        return document("Feedback dashboard", head + _refusal(view))
    body = (f"{head}<h2>Quality</h2>{quality_html(view['quality'])}"
            f"<h2>Usage</h2>{usage_html(view['usage'])}"
            f"<h2>Actions</h2>{actions_html(view['actions'])}"
            f"<h2>Proposals and rules</h2>"
            f"{proposals_html(view['proposals'], csrf, action_url, read_only=bool(view.get('read_only')))}"
            f"<p class='note'>Export is not on this dashboard.</p>")
    return document("Feedback dashboard", body)


def unconfigured_page(view: dict[str, Any]) -> str:
    """The screen without the application's binding or a sign-in."""
    missing = "".join(f"<li>{_e(m)}</li>" for m in view["missing"])
    return document("Feedback dashboard", f"<h1 id='status'>unconfigured</h1><ul>{missing}</ul>"
                    f"<p id='fix'>{_e(view['fix'])}</p>")


def action_outcome_page(payload: dict[str, Any], back: str) -> str:
    """What an action did, or the refusal that left everything as it was; a link back."""
    link = f"<p><a id='back' href='{_e(back)}'>Back to the dashboard</a></p>"
    refusal = payload.get("refusal")
    if isinstance(refusal, dict):
        return document("Dashboard action refused",
                        f"<h1 id='outcome'>refused</h1><p id='code'>{_e(refusal.get('code'))}</p>"
                        f"<p id='detail'>{_e(refusal.get('detail'))}</p>"
                        f"<p id='fix'>{_e(refusal.get('fix'))}</p>{link}")
    answer = payload.get("answer") or {}
    state = answer.get("state") or answer.get("status")
    return document("Dashboard action", f"<h1 id='outcome'>{_e(payload.get('action'))}</h1>"
                    f"<p><code id='target'>{_e(payload.get('target'))}</code> is now "
                    f"<strong id='state'>{_e(state)}</strong></p>{link}")


def message_page(title: str, detail: str) -> str:
    """A plain answer (sign-in failed, not a dashboard user, signed out)."""
    return document(title, f"<h1 id='outcome'>{_e(title)}</h1><p id='detail'>{_e(detail)}</p>")
