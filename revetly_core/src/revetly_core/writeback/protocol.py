"""The write-adapter seam: what a tracker (or any store Revetly does not own) must do so that
``set_status`` can keep a status, a claim and a delivery note where the team looks.

An adapter implements :class:`TrackerWriter`. Every method is **idempotent** — calling it
twice with the same arguments leaves the tracker as one call does — and answers a
:class:`Landed` saying what is now there, or raises :class:`WritebackFailed` when the remote
call did not land (the hook records that in the item's write-back record and the next call
lands it). A note (the claim comment, a delivery note) is found again by its hidden marker
(``writeback/markers.py``), edited in place when found, posted only when not: a retry after a
lost answer never duplicates it. Adapters never touch instance files and never decide claims:
the hook in ``writes/status.py`` does both, before it calls them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from revetly_core.refusal import Refusal

STEP_STATUS = "status"
"""The tracker holds the item's status (GitHub: state and the in-progress label)."""
STEP_CLAIM = "claim"
"""The tracker shows who holds the item (GitHub, Azure DevOps: one claim comment)."""
STEP_DELIVERY_NOTE = "delivery_note"
"""The delivery record, posted on the item as a note."""
STEPS = (STEP_STATUS, STEP_CLAIM, STEP_DELIVERY_NOTE)


@dataclass(frozen=True)
class RemoteItem:
    """The tracker item a write goes to, as CONTEXT last read it."""

    artifact_id: str
    """Revetly's id (``GH-12``)."""
    source: str
    """The source id that holds it (``github/app``); the adapter was chosen by it."""
    native_id: str
    """The tracker's own id of the item (an issue number, a work item id, a task id)."""
    type: str
    native_type: str | None = None
    status: str | None = None
    metadata: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Landed:
    """What one step left on the tracker."""

    step: str
    """One of STEPS."""
    action: str
    """``set`` / ``unchanged`` (status), ``posted`` / ``edited`` / ``released`` (a note)."""
    ref: str | None = None
    """The tracker's id of what landed (a comment id), when it has one."""
    url: str | None = None
    detail: str | None = None

    def record(self) -> dict[str, Any]:
        """The JSON the answer and the write-back record carry."""
        out: dict[str, Any] = {"step": self.step, "action": self.action}
        for key in ("ref", "url", "detail"):
            if getattr(self, key) is not None:
                out[key] = getattr(self, key)
        return out


class WritebackFailed(Exception):
    """A remote call that did not land: ``code`` (``server-error``, ``disconnected``,
    ``rate-limited``, ``refused``, ``malformed`` …) and a ``detail`` that never carries a
    token. The hook keeps the step pending; the next call on the item tries it again."""

    def __init__(self, code: str, detail: str) -> None:
        super().__init__(detail)
        self.code = code
        self.detail = detail


class TrackerWriter(Protocol):
    """One adapter bound to one declared source. Build it cheaply (no request in __init__);
    the hook calls ``close`` when the write is over."""

    source: str
    """The source id it writes to (``github/<name>``)."""
    keeps_claims: bool
    """Whether the tracker itself shows who holds an item. False: the hook keeps the claim
    in ``records/claims/<id>.json`` (``claim_kept``) and never calls ``keep_claim``."""

    def refuse_status(self, item: RemoteItem, status: str) -> Refusal | None:
        """Why the tracker cannot hold ``status`` for this item (code ``tracker-cannot-hold``,
        naming the status), or None. Asked before anything is written; no request."""
        ...

    def set_status(self, item: RemoteItem, status: str) -> Landed:
        """Make the tracker hold ``status`` (step ``status``)."""
        ...

    def keep_claim(self, item: RemoteItem, text: str, *, held: bool) -> Landed:
        """The one claim note on the item, found by ``claim_marker(item.artifact_id)`` and
        edited in place, else posted; ``text`` already carries the marker. ``held`` False
        releases the claim (the note is edited to say so; nothing is posted when there is no
        note). Step ``claim``."""
        ...

    def post_note(self, item: RemoteItem, text: str, *, marker: str) -> Landed:
        """A note on the item found by ``marker`` (edited in place) or posted; ``text``
        already carries the marker. Step ``delivery_note``."""
        ...

    def close(self) -> None:
        """Release the adapter's connections."""
        ...
