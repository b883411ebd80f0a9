"""The adr connector: an architecture-decision folder (MADR or adr-tools), read in place.

MADR keeps ``docs/decisions/`` or ``docs/adr/`` with ``NNNN-title.md`` files whose status
sits in frontmatter or in a Status section; adr-tools keeps ``doc/adr/NNNN-title.md`` with a
``## Status`` section carrying "Supersedes" / "Superseded by" links. Every record becomes a
decision note ``<prefix>-NNNN``; supersession, stated on either side, becomes a declared
``supersedes`` edge from the newer record to the older one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from revetly_core.config import AdrConnector as AdrSettings
from revetly_core.config import Config
from revetly_core.connectors.backlog_md import ASSUMED, iso_when
from revetly_core.connectors.backlog_md_markers import heading_section
from revetly_core.connectors.backlog_md_status import decision_status
from revetly_core.connectors.base import (
    FileProblem,
    KnownArtifact,
    Progress,
    Removal,
    SourceBatch,
    no_progress,
)
from revetly_core.connectors.gitfolder import FolderSource, guarded
from revetly_core.connectors.lenient_yaml import decode_lenient, read_lenient
from revetly_core.markdown.frontmatter import FrontmatterError
from revetly_core.model import Artifact

FOLDER_CANDIDATES = ("docs/decisions", "docs/adr", "doc/adr", "doc/decisions",
                     "docs/architecture/decisions", "adr")
NOT_RECORDS = re.compile(r"^(readme|index|template|adr-template|.*-template)\.md$", re.I)
_RECORD = re.compile(r"^([0-9]+)-(.+)\.md$")  # ids are ASCII by rule
_TITLE = re.compile(r"^#\s+(?:(?:ADR[- ]?)?\d+[.:]?\s+)?(.*?)\s*#*\s*$")
_STATUS_LINE = re.compile(r"^\s*(?:[-*]\s+)?\**status\**\s*:\s*\**\s*(.+?)\s*$", re.I)
_DATE_LINE = re.compile(r"^\s*(?:[-*]\s+)?\**date\**\s*:\s*\**\s*(\S+)", re.I)
_STATUS_TITLE = re.compile(r"^status\s*$", re.I)
_LINK_TARGET = re.compile(r"\]\(([^)]*?)(\d+)-[^)/]*\.md\)")
_ID_WORD = re.compile(r"\b(?:ADR|adr)[- ]?(\d+)\b")


def adr_source_id(name: str) -> str:
    """The source id of a declared decision folder: ``adr/<name>``."""
    return f"adr/{name}"


def find_adr_folder(repo_root: Path, declared: str | None = None) -> str | None:
    """The decision folder: declared, else the first conventional one that exists."""
    if declared is not None:
        return declared.strip("/")
    for candidate in FOLDER_CANDIDATES:
        if (repo_root / candidate).is_dir():
            return candidate
    return None


def record_numbers(line: str) -> list[int]:
    """Record numbers a line points at: ``[..](0003-x.md)`` links, else ``ADR-0003`` words."""
    found = [int(m.group(2)) for m in _LINK_TARGET.finditer(line)]
    return found or [int(m.group(1)) for m in _ID_WORD.finditer(line)]


@dataclass
class AdrRecord:
    """One record as read: its artifact, the numbers it supersedes and is superseded by."""

    artifact: Artifact
    number: int
    supersedes: list[int] = field(default_factory=list)
    superseded_by: list[int] = field(default_factory=list)
    amends: list[int] = field(default_factory=list)
    """Records this one amends or is amended by: declared as related, not superseding."""


def status_lines(fm_data: dict[str, Any], body: str) -> tuple[str | None, list[str], str]:
    """(status word, lines that state supersession, where the status came from)."""
    section = heading_section(body, _STATUS_TITLE)
    lines = [ln for ln in (section or []) if ln.strip()]
    if fm_data.get("status"):
        text = str(fm_data["status"])
        return text, [text, *lines], "frontmatter"
    if lines:
        return lines[0].strip(" *-"), lines, "status section"
    for line in body.splitlines():
        m = _STATUS_LINE.match(line)
        if m:
            return m.group(1), [m.group(1)], "status line"
    return None, [], "none"


def parse_record(path: str, data: bytes, *, settings: AdrSettings, source_id: str,
                 project: str, blob: str | None) -> AdrRecord | list[FileProblem]:
    """One ``NNNN-title.md`` file as a decision record, or the problems that skip it."""
    name = PurePosixPath(path).name

    def problem(code: str, detail: str, severity: str | None = None) -> list[FileProblem]:
        return [FileProblem(source_id, path, code, detail, blob, severity)]

    m = _RECORD.match(name)
    if not m:
        return problem("no-number", f"{name!r} is not an NNNN-title.md record; it is skipped",
                       "warning")
    if len(data) > settings.max_file_bytes:
        return problem("too-large", f"{len(data)} bytes is over the {settings.max_file_bytes}"
                                    "-byte limit")
    if b"\x00" in data:
        return problem("binary", "the file holds NUL bytes: not a markdown text file")
    text, decoded = decode_lenient(data)
    try:
        fm = read_lenient(text)
    except FrontmatterError as exc:
        return problem(exc.code, f"{exc}; it is skipped")
    assumed = ([decoded] if decoded else []) + [a for a in fm.assumed if fm.present]
    number = int(m.group(1))
    title = str(fm.data.get("title") or "").strip()
    if not title:
        for line in fm.body.splitlines():
            t = _TITLE.match(line)
            if t and t.group(1):
                title = t.group(1).strip()
                break
    if not title:
        title = m.group(2).replace("-", " ").strip().capitalize()
        assumed.append(f"no '# title' heading: read {title!r} from the file name")
    written, lines, origin = status_lines(fm.data, fm.body)
    word = written.split()[0].strip(".,:;*") if written and written.split() else None
    reading = decision_status(word)
    if reading.assumed and word and written and reading.status == "proposed":
        assumed.append(f"status {written.strip()!r} is not a decision status; read as proposed")
    elif reading.assumed:
        assumed.append(reading.assumed)
    status = reading.status
    supersedes: list[int] = []
    superseded_by: list[int] = []
    amends: list[int] = []
    for line in lines:
        low = line.casefold()
        if low.lstrip(" *-").startswith(("amends", "amended by")):
            amends += record_numbers(line)
        elif "superseded by" in low or "superseded-by" in low:
            superseded_by += record_numbers(line)
            status = "superseded"
        elif "supersedes" in low:
            supersedes += record_numbers(line)
    for key, into in (("supersedes", supersedes), ("superseded_by", superseded_by)):
        for v in fm.data.get(key) or []:
            into += record_numbers(f"ADR-{v}" if str(v).isdigit() else str(v))
    date = iso_when(fm.data.get("date"))
    if date is None:
        for line in fm.body.splitlines()[:30]:
            d = _DATE_LINE.match(line)
            if d:
                date = iso_when(d.group(1))
                break
    artifact_id = f"{settings.prefix}-{m.group(1)}"
    metadata: dict[str, Any] = {"source_kind": "adr", "status_from": origin, "declared": {}}
    if written:
        metadata["source_status"] = written.strip()
    if date:
        metadata["declared_created"] = date
    for key in ("deciders", "consulted", "informed", "tags"):
        if fm.data.get(key):
            metadata[key] = fm.data[key]
    art = Artifact(id=artifact_id, type="decision", title=title, source=source_id,
                   project=project, body=fm.body, status=status, metadata=metadata,
                   source_path=path, source_uri=path, blob=blob, created_at=date,
                   provenance="source-of-record")
    record = AdrRecord(art, number, sorted(set(supersedes) - {number}),
                       sorted(set(superseded_by) - {number}), sorted(set(amends) - {number}))
    art.metadata["assumed"] = assumed
    return record


def supersession(records: dict[int, AdrRecord]) -> dict[int, list[int]]:
    """Record number -> the numbers it supersedes, from both sides of every statement."""
    out: dict[int, set[int]] = {n: set(r.supersedes) for n, r in records.items()}
    for n, r in records.items():
        for newer in r.superseded_by:
            out.setdefault(newer, set()).add(n)
    return {n: sorted(v) for n, v in out.items() if v}


class AdrConnector(FolderSource):
    """Reads one declared decision folder; every pass re-derives supersession across it."""

    def __init__(self, instance_root: Path, settings: AdrSettings, config: Config) -> None:
        super().__init__(instance_root, settings, config, adr_source_id(settings.name))
        self.settings = settings

    def find_folder(self) -> str | None:
        return find_adr_folder(self.path, self.settings.folder)

    def missing_folder(self) -> str:
        return (f"{self.path} holds no decision folder ({', '.join(FOLDER_CANDIDATES)}); "
                "set `folder` for this source")

    def read(
        self,
        known: dict[str, KnownArtifact],
        cursor: dict[str, Any],
        *,
        full: bool,
        now: str,
        progress: Progress = no_progress,
    ) -> SourceBatch:
        gf = self._folder()
        batch = SourceBatch(source=self.source_id)
        batch.history, batch.history_complete = gf.history(None if full else cursor.get("head"))
        current = {p: b for p, b in gf.blobs().items()
                   if not NOT_RECORDS.match(PurePosixPath(p).name)
                   and "/" not in p[len(gf.prefix):]}
        records: dict[int, AdrRecord] = {}
        by_id: dict[str, str] = {}
        for path in sorted(current):
            data = gf.read_or_problem(path, current[path], self.source_id)
            parsed = [data] if isinstance(data, FileProblem) else guarded(
                self.source_id, path, current[path], parse_record, path, data,
                settings=self.settings, source_id=self.source_id, project=self.project,
                blob=current[path])
            if isinstance(parsed, FileProblem):
                parsed = [parsed]
            if isinstance(parsed, list):
                batch.problems.extend(parsed)
                continue
            a = parsed.artifact
            assumed = a.metadata.pop("assumed")
            if parsed.number in records:
                batch.problems.append(FileProblem(
                    self.source_id, path, "duplicate-id",
                    f"record number {parsed.number} is also used by "
                    f"{by_id[records[parsed.number].artifact.id]}; this file is skipped",
                    current[path]))
                continue
            if assumed:
                batch.problems.append(FileProblem(self.source_id, path, ASSUMED,
                                                  "; ".join(assumed), current[path]))
            records[parsed.number] = parsed
            by_id[a.id] = path
        derived = supersession(records)
        prior: dict[str, list[str]] = {} if full else dict(cursor.get("derived", {}))
        spelled = {n: r.artifact.id for n, r in records.items()}
        now_derived: dict[str, list[str]] = {}
        for n, r in sorted(records.items()):
            a = r.artifact
            targets = [spelled.get(t, f"{self.settings.prefix}-{t:04d}")
                       for t in derived.get(n, [])]
            declared: dict[str, Any] = {}
            if targets:
                declared["supersedes"] = targets
            if r.amends:
                declared["related_ids"] = [spelled.get(t, f"{self.settings.prefix}-{t:04d}")
                                           for t in r.amends]
            a.metadata["declared"] = declared
            if r.superseded_by:
                a.metadata["superseded_by"] = [spelled.get(t, f"{self.settings.prefix}-{t:04d}")
                                               for t in r.superseded_by]
            now_derived[a.id] = targets + [f"~{t}" for t in declared.get("related_ids", [])]
            k = known.get(a.id)
            if (full or k is None or k.deleted or k.blob != a.blob or k.path != a.source_path
                    or prior.get(a.id, []) != now_derived[a.id]):
                batch.upserts.append(a)
        batch.read_count = len(current)
        batch.cleared_paths = set(current) | {k.path for k in known.values() if k.path}
        for k in sorted(known.values(), key=lambda k: k.id):
            if not k.deleted and k.id not in by_id:
                batch.removals.append(Removal(k.id, now, "found", "missing from the decision "
                                                                   "folder"))
        batch.cursor = {"head": gf.head, "derived": now_derived}
        return batch
