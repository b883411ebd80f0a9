"""The review page's HTML: core's payloads rendered, every value escaped, no script."""

from __future__ import annotations

from html import escape
from typing import Any

STYLE = ("body{font-family:system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem}"
         "pre{white-space:pre-wrap;background:#f5f5f5;padding:.75rem}"
         "button{margin-right:.5rem;padding:.4rem 1rem}textarea{width:100%}")


def document(title: str, body: str) -> str:
    """A whole page around a body."""
    return (f"<!doctype html><html lang='en'><head><meta charset='utf-8'>"
            f"<title>{escape(title)}</title><style>{STYLE}</style></head>"
            f"<body>{body}</body></html>")


def draft_html(view: dict[str, Any]) -> str:
    """The draft as the reviewer reads it: title, description, acceptance criteria."""
    draft = view.get("draft") or {}
    criteria = "".join(f"<li>{escape(str(c))}</li>"
                       for c in draft.get("acceptance_criteria") or [])
    target = (f"<p>Revision of <code>{escape(str(draft['artifact_id']))}</code></p>"
              if draft.get("artifact_id") else "")
    drafted = (view.get("drafted_by") or {}).get("name", "?")
    return (f"{target}<h2 id='draft-title'>{escape(str(draft.get('title') or '(unchanged)'))}</h2>"
            f"<p>Drafted by <span id='drafted-by'>{escape(str(drafted))}</span></p>"
            f"<pre id='draft-description'>{escape(str(draft.get('description') or ''))}</pre>"
            f"<h3>Acceptance criteria</h3><ol id='draft-criteria'>{criteria}</ol>")


def review_page(view: dict[str, Any], *, action: str, nonce: str, csrf: str,
                signed_in_as: str) -> str:
    """The review and its decision form (approve / reject / withdraw, with a reason)."""
    rid = str(view.get("review_id"))
    form = (f"<form id='decision' method='post' action='{escape(action)}'>"
            f"<input type='hidden' name='nonce' value='{escape(nonce)}'>"
            f"<input type='hidden' name='csrf' value='{escape(csrf)}'>"
            "<label for='reason'>Reason</label><textarea id='reason' name='reason'></textarea>"
            "<p><button id='approve' name='decision' value='approve'>Approve</button>"
            "<button id='reject' name='decision' value='reject'>Reject</button>"
            "<button id='withdraw' name='decision' value='withdraw'>Withdraw without deciding"
            "</button></p></form>")
    body = (f"<h1>Review <span id='review-id'>{escape(rid)}</span></h1>"
            f"<p>Signed in as <strong id='signed-in'>{escape(signed_in_as)}</strong></p>"
            f"{draft_html(view)}{form}")
    return document(f"Review {rid}", body)


def outcome_page(payload: dict[str, Any]) -> str:
    """What the decision did: the review's state now, or the refusal that left it pending."""
    refusal = payload.get("refusal")
    if isinstance(refusal, dict):
        body = (f"<h1 id='outcome'>refused</h1><p id='detail'>{escape(str(refusal.get('detail')))}"
                f"</p><p id='fix'>{escape(str(refusal.get('fix')))}</p>"
                f"<p id='rule'>{escape(str(refusal.get('rule') or refusal.get('code')))}</p>")
        return document("Review refused", body)
    status = str(payload.get("status"))
    body = (f"<h1 id='outcome'>{escape(status)}</h1>"
            f"<p>Review <code id='review-id'>{escape(str(payload.get('review_id')))}</code>"
            f" is {escape(status)}.</p>")
    written = payload.get("artifact_id") if status == "applied" else None
    if written:
        body += f"<p>Wrote <code id='written'>{escape(str(written))}</code>.</p>"
    return document(f"Review {status}", body)


def signin_failed_page(detail: str) -> str:
    """The issuer's answer did not sign anyone in."""
    return document("Sign-in failed", f"<h1 id='outcome'>sign-in failed</h1><p>{escape(detail)}</p>")
