"""The reviewer's surface on a connection that could not have rendered a review."""

from __future__ import annotations

from typing import Any


def app_only_answer(tool: str, client_name: str | None, client_version: str | None,
                    review_id: str | None = None) -> dict[str, Any]:
    """The answer to a reviewer tool called by a client that declared elicitation and no app.

    Nothing is written and the review stays pending; this is not a rejection.
    """
    who = " ".join(p for p in (client_name, client_version) if p) or "this client"
    answer: dict[str, Any] = {
        "status": "app-only",
        "detail": (f"{tool} is the review app's own surface, and {who} declared no app to render "
                   "it in; nothing was written and the review stays pending"),
        "fix": ("answer the review in the dialog this client renders: find it with list_reviews "
                "and call raise_review with its review_id"),
        "tool": tool,
        "wrote": False,
    }
    if review_id is not None:
        answer["review_id"] = review_id
    return answer


def dismissed_review(review_id: str, state: dict[str, Any]) -> dict[str, Any]:
    """The answer when the reviewer dismissed the dialog: nothing decided, the review pending."""
    if "refusal" in state:
        return state
    return {
        **state,
        "review_id": review_id,
        "dialog": "dismissed",
        "wrote": False,
        "detail": "the review dialog was dismissed; nothing was approved or rejected",
        "fix": "the review stays pending: raise_review puts it back in front of a reviewer",
    }
