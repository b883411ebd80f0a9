"""The CLI-only answers that read or mend CONTEXT: sync, check (and --repair), init, review pages.

Keys that are Python words (``from``) or file names are declared with the functional form.
"""

from __future__ import annotations

from typing import NotRequired

from typing_extensions import TypedDict

from revetly_core.answers.common import JSONObject


class PassSource(TypedDict):
    """One source's line in a pass summary: its outcome, and its counts or its error."""

    source: str
    outcome: str
    counts: NotRequired[dict[str, int]]
    error: NotRequired[str]


class PassSummary(TypedDict):
    """What one read pass did (``revetly sync``); ``recovered`` when a dead write was finished."""

    pass_id: int
    outcome: str
    full: bool
    corpus_revision: int
    started_at: str
    ended_at: str
    changed: dict[str, int]
    sources: list[PassSource]
    problems: int
    recovered: NotRequired[list[JSONObject]]
    inferred: NotRequired[JSONObject]


class CheckProblem(TypedDict):
    """One file or source that breaks the schema, with its severity and, where known, a fix."""

    code: str
    detail: str
    path: NotRequired[str | None]
    id: NotRequired[str]
    source: NotRequired[str]
    fix: NotRequired[str]
    severity: NotRequired[str]


DanglingLink = TypedDict("DanglingLink", {
    "from": str, "field": str, "to": str, "path": str | None})
"""A declared link to an id CONTEXT does not hold: which artifact, which field, which target."""


class RepairedFile(TypedDict):
    """A file whose doubled criteria section --repair folded."""

    path: str


class RepairAnswer(TypedDict):
    """What ``check --repair`` wrote: the files folded, and the commit when it wrote any."""

    repaired: list[RepairedFile]
    wrote: bool
    commit: NotRequired[str]
    capture: NotRequired[str]


class CheckAnswer(TypedDict):
    """``revetly check``: every problem and dangling link; ``repair`` after ``--repair``."""

    ok: bool
    severity_counts: dict[str, int]
    files_checked: int
    artifacts: int
    problems: list[CheckProblem]
    dangling_links: list[DanglingLink]
    store_consulted: bool
    repair: NotRequired[RepairAnswer]


class DeclaredCommits(TypedDict):
    """A code repository init declared as a commits source."""

    name: str
    path: str


class HostFilesWritten(TypedDict):
    """The host files written into a folder, and those kept because they were there."""

    written: list[str]
    kept: list[str]


class CodeRepository(TypedDict):
    """The code repository ``init --from`` reads: a snippet to paste, or the files written."""

    path: str
    snippet: JSONObject
    written: NotRequired[list[str]]
    kept: NotRequired[list[str]]


class ScaffoldedSource(TypedDict):
    """The source ``init --from`` declared, with what it read of the repository's settings."""

    kind: str
    name: str
    path: str
    folder: str
    task_prefix: NotRequired[str]
    statuses: NotRequired[dict[str, str]]
    unmapped_statuses: NotRequired[list[str]]
    legacy_families: NotRequired[list[str]]


class ScaffoldedAuth(TypedDict):
    """``init --auth``: the verifier and issuer declared, and where audit lines go."""

    verifier: str
    issuer: str
    audit_log: str


class InitAnswer(TypedDict):
    """``revetly init``: the instance created, its files, and what to do next."""

    instance: str
    created_repository: bool
    config: str
    folders: list[str]
    commits: list[DeclaredCommits]
    host_files: list[str]
    host_files_kept: list[str]
    next: str
    first_commit: NotRequired[str | None]
    source: NotRequired[ScaffoldedSource]
    code_repository: NotRequired[CodeRepository]
    auth: NotRequired[ScaffoldedAuth]


class ReviewPage(TypedDict):
    """One page of a draft paginated for a dialog: content pages, then the decision page."""

    header: str
    nav: str
    body: str
    kind: str
    withdraw: bool
