"""The operator commands' answers: doctor, backfill, migrate, audit-links, manual and watch.

Keys that are Python words (``from``, ``pass``) are declared with the functional form.
"""

from __future__ import annotations

from typing import Literal, NotRequired

from typing_extensions import TypedDict

from revetly_core.answers.common import Freshness, JSONObject
from revetly_core.answers.maintenance import PassSummary


class Probe(TypedDict):
    """Whether one declared source reads now, and a line saying what was found."""

    reads: bool
    detail: str


class Held(TypedDict):
    """What CONTEXT holds of one source: live artifacts by type, deleted, problems."""

    artifacts: int
    by_type: dict[str, int]
    deleted: int
    problems: int
    errors: NotRequired[int]


class DoctorSource(TypedDict):
    """One source in the doctor report: its probe, what is held, and its last read."""

    source: str
    project: str | None
    reads: bool
    detail: str
    holds: Held
    last_read_at: str | None
    outcome: str | None
    floor: NotRequired[str]
    partial: NotRequired[bool]
    untyped: NotRequired[int]
    """Live items of the source no type map covered and that carry no native type."""
    unmapped: NotRequired[int]
    """Live items of the source whose native type no type map names."""


class DoctorWarning(TypedDict):
    """Something doctor found wrong: a code, what it saw, and what to do."""

    code: str
    detail: str
    fix: str


class DoctorIndex(TypedDict):
    """The keyword index beside the store's revision."""

    backend: str
    revision: int | None
    current: bool
    store_revision: int | None


class Address(TypedDict):
    """How a client reaches the engine: stdio and its command, or streamable HTTP and a url."""

    transport: str
    command: NotRequired[list[str]]
    url: NotRequired[str | None]


class ConnectLine(TypedDict):
    """One proven client's connect line: its address, what it still needs, its gate."""

    client: str
    version: str
    proven: str
    address: Address
    needs: list[str]
    gate: str
    gate_proven_over: str
    ready: bool


class RefusedOrigin(TypedDict):
    """An Origin the served endpoint refused, from its audit log: how often, first and last."""

    origin: str
    refused: int
    first_at: str
    last_at: str


class DoctorServed(TypedDict):
    """What doctor knows of the served endpoint's page callers: the origins declared, and the
    undeclared ones the audit log shows refused (null when no audit log is declared)."""

    public_url: str | None
    allowed_origins: list[str]
    audit_log: str | None
    origins_refused: list[RefusedOrigin] | None


class DoctorAnswer(TypedDict):
    """``revetly doctor``: sources, index, freshness, connect lines and warnings."""

    instance: str
    root: str
    version: str
    sources: list[DoctorSource]
    index: DoctorIndex | None
    freshness: Freshness | None
    connect: list[ConnectLine]
    served: DoctorServed
    warnings: list[DoctorWarning]
    ok: bool


class BackfillWindow(TypedDict):
    """One stretch of history below a floor: [start, end) as dates, and its commits."""

    start: str
    end: str
    commits: int


class BackfillPlanSource(TypedDict):
    """One commits source's price: its floor, the windows below it, commits and a time."""

    source: str
    floor: str
    to: str
    windows: list[BackfillWindow]
    commits: int
    estimated_seconds: float
    estimate_from: str | None


class BackfillPlan(TypedDict):
    """``revetly backfill --dry-run``: the price of reading below each floor."""

    dry_run: Literal[True]
    window_days: int
    sources: list[BackfillPlanSource]
    commits: int
    estimated_seconds: float
    inferred: NotRequired[JSONObject]


class BackfillRead(TypedDict):
    """One source's backfill: windows read and left, artifacts added, the floor now."""

    source: str
    windows_read: int
    windows_left: int
    added: int
    floor: str
    partial: bool


class BackfillAnswer(TypedDict):
    """``revetly backfill``: what each source read, and the plan it followed."""

    dry_run: Literal[False]
    window_days: int
    sources: list[BackfillRead]
    plan: BackfillPlan


MigrationStep = TypedDict("MigrationStep", {"from": int, "to": int, "change": str})
"""One schema step and what it changes."""


class RereadPrice(TypedDict):
    """What the full re-read a migration needs costs, per source, and its estimate."""

    artifacts: int
    by_source: dict[str, int]
    estimated_seconds: float | None
    estimate_from: str | None


class MigrationPlan(TypedDict):
    """The steps from the store's schema to this engine's, and the re-read they need, priced."""

    schema: int
    current_schema: int
    steps: list[MigrationStep]
    full_pass: bool
    price: RereadPrice | None


MigrateAnswer = TypedDict("MigrateAnswer", {
    "dry_run": bool, "schema": int, "current_schema": int, "steps": list[MigrationStep],
    "full_pass": bool, "price": RereadPrice | None, "migrated": bool,
    "pass": NotRequired[PassSummary],
})
"""``revetly migrate``: the plan, whether it was applied, and the full pass it ran."""


class MethodCount(TypedDict):
    """Links one method found, by relation."""

    links: int
    by_relation: dict[str, int]


class AuditLinksAnswer(TypedDict):
    """``revetly audit-links``: live links by method, retired and dangling ones, stated share."""

    project: str | None
    corpus_revision: int
    live_links: int
    by_method: dict[str, MethodCount]
    retired_links: int
    dangling_links: int
    stated_share: float | None


class ManualTopic(TypedDict):
    """One topic of the manual and its title."""

    topic: str
    title: str


class ManualTopics(TypedDict):
    """``revetly manual``: every topic, and how to show one."""

    topics: list[ManualTopic]
    show: str


class ManualPage(TypedDict):
    """``revetly manual show TOPIC``: one page whole."""

    topic: str
    title: str
    text: str


class WatchSummary(TypedDict):
    """What ``revetly watch`` did when it stopped: its paths, passes run and passes refused."""

    started_at: str
    paths: list[str]
    passes: int
    refused: int



class WatchingEvent(TypedDict):
    """Reported once the watches are in place: the paths watched and the watcher's pid."""

    event: Literal["watching"]
    paths: list[str]
    pid: int


class PassEvent(TypedDict):
    """Reported after each pass the watcher ran: what changed on disk and what the pass did."""

    event: Literal["pass"]
    changed_paths: list[str]
    outcome: str
    corpus_revision: int
    changed: dict[str, int]


class RefusedEvent(TypedDict):
    """Reported when a pass was refused: the refusal as the read surface serves it."""

    event: Literal["refused"]
    refusal: JSONObject


class StoppedEvent(WatchSummary):
    """The CLI's last line of ``watch --json``: the summary, tagged."""

    event: Literal["stopped"]


WatchEvent = WatchingEvent | PassEvent | RefusedEvent
"""One line ``watch`` reports as it runs; ``event`` names which."""
