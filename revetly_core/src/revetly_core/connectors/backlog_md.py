"""The backlog-md connector: a Backlog.md project folder inside a git repository, in place.

Layout (under ``backlog/``, ``.backlog/`` or the folder ``backlog.config.yml`` names):
``tasks/``, ``drafts/``, ``completed/``, ``archive/tasks``, ``archive/drafts``,
``milestones/``, ``docs/``, ``decisions/`` and ``config.yml``. Tasks keep their ids as written
(family upper-cased, padding and dotted sub-task parts kept); decisions become decision notes,
docs reference notes and milestones the grouping above tasks. Messy files are read leniently
where the meaning is clear, and every assumption is reported as a problem naming the file.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from revetly_core.config import BacklogMdConnector as BacklogMdSettings
from revetly_core.config import Config
from revetly_core.connectors.backlog_md_markers import (
    acceptance_criteria,
    definition_of_done,
    final_summary,
    without_markers,
)
from revetly_core.connectors.backlog_md_status import (
    FOLDER_RANK,
    decision_status,
    folder_kind,
    work_item_status,
)
from revetly_core.connectors.base import (
    FileProblem,
    KnownArtifact,
    Progress,
    Removal,
    SourceBatch,
    no_progress,
)
from revetly_core.connectors.gitfolder import FolderSource, changed_paths, guarded
from revetly_core.connectors.lenient_yaml import LenientFrontmatter, decode_lenient, read_lenient
from revetly_core.fsread import ReadRefused, read_file
from revetly_core.ids import id_key
from revetly_core.markdown.frontmatter import FrontmatterError
from revetly_core.model import Artifact, HistoryEntry

FOLDER_CANDIDATES = ("backlog", ".backlog")
ROOT_CONFIG = "backlog.config.yml"
# ids are ASCII by rule: [0-9], never \d (which takes full-width and other digits)
_WRITTEN_ID = re.compile(r"^\s*([A-Za-z][A-Za-z0-9]*)[-_ ]([0-9]+)((?:\.[0-9]+)*)\s*$")
_FILE_ID = re.compile(r"^([A-Za-z][A-Za-z0-9]*-[0-9]+(?:\.[0-9]+)*)(?:\s*-\s*(.*))?\.md$")
_LEGACY_FILE_ID = re.compile(
    r"^([A-Za-z][A-Za-z0-9]*)-([A-Za-z][A-Za-z0-9]*)-([0-9]+(?:\.[0-9]+)*)(?:\s*-\s*(.*))?\.md$")
_LEGACY_REF = re.compile(r"^\s*([A-Za-z][A-Za-z0-9]*)-([A-Za-z][A-Za-z0-9]*)-([0-9]+(?:\.[0-9]+)*)\s*$")
_BOLD_FIELD = re.compile(r"^\s*[-*]?\s*\*\*([A-Za-z][A-Za-z /-]{0,40}?)\s*:?\s*\*\*\s*:?\s*(.+?)\s*$")
_ID_TOKEN = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z][A-Za-z0-9]*)?-[0-9]+(?:\.[0-9]+)*")
BOLD_KEYS = {"status": "status", "priority": "priority", "parent": "parent_task_id",
             "parent task": "parent_task_id", "dependencies": "dependencies",
             "depends on": "dependencies", "assignee": "assignee", "created": "created_date",
             "date": "created_date", "labels": "labels"}
"""Bold ``**Key:** value`` lines an old note without frontmatter states, and the field each is."""
CONFIG_BYTES = 1_000_000
"""The most a Backlog.md config file is read (bounded like every file)."""
ASSUMED = "assumed"
"""Problem code prefix of a file read leniently (it is served; check names what was assumed)."""


def backlog_md_source_id(name: str) -> str:
    """The source id of a declared Backlog.md project: ``backlog-md/<name>``."""
    return f"backlog-md/{name}"


def find_project_folder(repo_root: Path, declared: str | None = None) -> str | None:
    """The project folder: declared, else ``backlog.config.yml``'s, else backlog/ or .backlog/."""
    if declared is not None:
        return declared.strip("/")
    root_config = repo_root / ROOT_CONFIG
    if root_config.is_file():
        try:
            text = read_file(repo_root, ROOT_CONFIG, CONFIG_BYTES).decode("utf-8")
            data = read_lenient("---\n" + text + "\n---\n").data
        except (OSError, UnicodeDecodeError, FrontmatterError, ReadRefused):
            data = {}
        named = data.get("backlog_directory") or data.get("backlogDirectory")
        if isinstance(named, str) and named.strip() and ".." not in Path(named).parts:
            return named.strip().strip("/")
    for candidate in FOLDER_CANDIDATES:
        if (repo_root / candidate).is_dir():
            return candidate
    return None


def project_settings(repo_root: Path, folder: str) -> dict[str, Any]:
    """The project's own config.yml (statuses, prefixes, milestones), {} when unreadable."""
    try:
        text = read_file(repo_root, f"{folder}/config.yml", CONFIG_BYTES).decode("utf-8")
        return read_lenient("---\n" + text + "\n---\n").data
    except (OSError, UnicodeDecodeError, FrontmatterError, ReadRefused):
        return {}


def declared_task_prefix(settings: dict[str, Any]) -> str:
    """The task id prefix a project's config.yml declares (``prefixes.task``), TASK if none."""
    prefixes = settings.get("prefixes")
    value = prefixes.get("task") if isinstance(prefixes, dict) else None
    value = value or settings.get("task_prefix")
    return str(value).strip().upper() if value else "TASK"


def iso_when(value: Any) -> str | None:
    """A Backlog.md date (``2025-07-26`` or ``'2025-07-26 14:30'``) as ISO text, None if not."""
    if value is None:
        return None
    text = str(value).strip()
    try:
        when = dt.datetime.fromisoformat(text.replace(" ", "T", 1))
    except ValueError:
        return None
    return text if len(text) == 10 else when.isoformat()


def is_folder_readme(name: str) -> bool:
    """True for a folder's ``README.md``: Backlog.md's own notes about a folder, not an item."""
    return name.casefold() == "readme.md"


def legacy_file_id(name: str, task_families: set[str],
                   legacy: set[str]) -> tuple[str, str] | None:
    """(written id, title) of an old note named ``task-epic-11.2 - Title.md``: the family after
    the task prefix is a declared legacy family; None when the name is not of that shape."""
    m = _LEGACY_FILE_ID.match(name)
    if not m or m.group(1).upper() not in task_families or m.group(2).upper() not in legacy:
        return None
    return f"{m.group(2).upper()}-{m.group(3)}", (m.group(4) or "").replace("-", " ").strip()


def bold_fields(body: str) -> dict[str, Any]:
    """The ``**Status:** Done`` lines heading a note written without frontmatter, as the
    frontmatter fields they stand for (references kept as the ids they name)."""
    out: dict[str, Any] = {}
    for line in body.splitlines():
        if line.startswith("## "):
            break
        m = _BOLD_FIELD.match(line)
        if not m:
            continue
        key = BOLD_KEYS.get(m.group(1).strip().casefold())
        if key is None or key in out:
            continue
        value = m.group(2).strip()
        if key in ("dependencies", "parent_task_id"):
            ids = _ID_TOKEN.findall(value)
            if ids:
                out[key] = ids if key == "dependencies" else ids[0]
        else:
            out[key] = value
    return out


def as_list(value: Any) -> list[str]:
    """A scalar or list frontmatter value as a list of non-empty strings."""
    if value is None:
        return []
    items = value if isinstance(value, list) else [value]
    return [str(v).strip() for v in items if str(v).strip()]


@dataclass
class Parsed:
    """One file read: the artifact (None when skipped) and the problems to name."""

    artifact: Artifact | None
    problems: list[FileProblem] = field(default_factory=list)


class BacklogMdReader:
    """Turns one Backlog.md file into an artifact, given the source's settings."""

    def __init__(self, settings: BacklogMdSettings, source_id: str, project: str,
                 folder: str, milestones: dict[str, str]) -> None:
        self.s = settings
        self.source_id = source_id
        self.project = project
        self.folder = folder.strip("/") + "/" if folder.strip("/") else ""
        self.milestones = milestones
        self.table = settings.status_table()
        self.aliases = {a.upper() for a in settings.aliases}
        self.legacy = {f.upper() for f in settings.legacy_families}
        self.task_families = {settings.task_prefix, *self.aliases}

    def prefix_of(self, kind: str) -> str:
        s = self.s
        return {"milestone": s.milestone_prefix, "decision": s.decision_prefix,
                "doc": s.doc_prefix}.get(kind, s.task_prefix)

    def normal_id(self, written: str, kind: str) -> tuple[str | None, str | None]:
        """(canonical id, assumption) of a written id for a file of this kind."""
        legacy = self.legacy_ref(written) if kind not in ("milestone", "decision", "doc") else None
        if legacy is not None:
            return legacy, None
        m = _WRITTEN_ID.match(written)
        if not m:
            return None, None
        family = m.group(1).upper()
        prefix = self.prefix_of(kind)
        allowed = {prefix, *self.aliases}
        if kind not in ("milestone", "decision", "doc"):
            allowed |= self.legacy
        if kind in ("draft", "archived-draft"):
            allowed.add(self.s.draft_prefix)
        assumed = None
        if family not in allowed:
            assumed = f"id {written.strip()!r} does not use the declared prefix {prefix}"
            family = prefix
        elif family in self.aliases:
            family = prefix
        if family in self.legacy:
            return f"{family}-{m.group(2)}{m.group(3)}", None
        return f"{family}-{m.group(2)}{m.group(3)}", (
            f"{assumed}; read as {family}-{m.group(2)}{m.group(3)}" if assumed else None)

    def legacy_ref(self, written: str) -> str | None:
        """``task-epic-11.2`` as EPIC-11.2 when EPIC is a declared legacy family, else None."""
        m = _LEGACY_REF.match(written)
        if m and m.group(1).upper() in self.task_families and m.group(2).upper() in self.legacy:
            return f"{m.group(2).upper()}-{m.group(3)}"
        return None

    def ref(self, written: str) -> str | None:
        """A reference to another task (parent, dependency) in canonical spelling, or None."""
        legacy = self.legacy_ref(written)
        if legacy is not None:
            return legacy
        m = _WRITTEN_ID.match(written)
        if not m:
            return None
        family = m.group(1).upper()
        if family in self.aliases:
            family = self.s.task_prefix
        return f"{family}-{m.group(2)}{m.group(3)}"

    def parse(self, path: str, data: bytes, blob: str | None) -> Parsed:
        """One file read as an artifact, with every problem and assumption named."""
        rel = path[len(self.folder):]
        kind = folder_kind(rel)
        out = Parsed(None)

        def note(code: str, detail: str, severity: str | None = None) -> None:
            out.problems.append(FileProblem(self.source_id, path, code, detail, blob, severity))

        if kind is None or kind == "archived-milestone" or is_folder_readme(Path(rel).name):
            return out
        front = self._front(data, note)
        if front is None:
            return out
        fm, assumptions = front
        data_fields = self._fields(fm, assumptions)
        name = Path(rel).name
        file_match = _FILE_ID.match(name)
        legacy = legacy_file_id(name, self.task_families, self.legacy) \
            if file_match is None and kind not in ("milestone", "decision", "doc") else None
        written = self._written_id(data_fields, name, file_match, legacy, assumptions)
        artifact_id, id_note = self.normal_id(written, kind) if written else (None, None)
        if artifact_id is None:
            note("no-id", f"no id in the frontmatter or the file name ({name!r}); "
                          "the file is skipped", "warning")
            return out
        if id_note:
            assumptions.append(id_note)
        title = self._title(data_fields, fm.body, file_match, legacy, artifact_id, assumptions)
        art = Artifact(id=artifact_id, type="task", title=title, source=self.source_id,
                       project=self.project, body=without_markers(fm.body), source_path=path,
                       source_uri=path, blob=blob, provenance="source-of-record")
        metadata: dict[str, Any] = {"source_kind": "backlog-md", "folder": kind,
                                    "source_id": written}
        declared: dict[str, Any] = {}
        _dates(data_fields, art, metadata)
        if kind == "decision":
            self._decision(data_fields, art, declared, assumptions)
        elif kind == "doc":
            art.type = "reference"
            if data_fields.get("type"):
                metadata["doc_type"] = str(data_fields["type"])
        elif kind == "milestone":
            art.type = self.s.milestone_type
        else:
            self._task(kind, data_fields, fm.body, art, metadata, declared, assumptions)
        metadata["declared"] = declared
        art.metadata = metadata
        if assumptions:
            note(ASSUMED, "; ".join(assumptions))
        out.artifact = art
        return out

    def _front(self, data: bytes, note: Callable[..., None]
               ) -> tuple[LenientFrontmatter, list[str]] | None:
        """The file's frontmatter and the assumptions reading it took; None (named) when the
        file is too large, binary or has frontmatter nothing can repair."""
        if len(data) > self.s.max_file_bytes:
            note("too-large", f"{len(data)} bytes is over the {self.s.max_file_bytes}-byte limit")
            return None
        if b"\x00" in data:
            note("binary", "the file holds NUL bytes: not a markdown text file; it is skipped")
            return None
        text, decoded = decode_lenient(data)
        try:
            fm = read_lenient(text)
        except FrontmatterError as exc:
            note(exc.code, f"{exc}; the file is skipped")
            return None
        return fm, ([decoded] if decoded else []) + list(fm.assumed)

    @staticmethod
    def _fields(fm: LenientFrontmatter, assumptions: list[str]) -> dict[str, Any]:
        """The frontmatter's fields; without frontmatter, its '**Key:** value' lines."""
        data_fields = dict(fm.data)
        if not fm.present:
            bold = bold_fields(fm.body)
            if bold:
                data_fields = {**bold, **data_fields}
                assumptions.append("fields read from its '**Key:** value' lines: "
                                   + ", ".join(sorted(bold)))
        return data_fields

    @staticmethod
    def _written_id(data_fields: dict[str, Any], name: str, file_match: re.Match[str] | None,
                    legacy: tuple[str, str] | None, assumptions: list[str]) -> str:
        """The id as written: the frontmatter's, else the file name's ('' when neither)."""
        written = str(data_fields.get("id") or "").strip()
        if not written and file_match:
            written = file_match.group(1)
            assumptions.append(f"no id in the frontmatter: read {written!r} from the file name")
        elif not written and legacy:
            written = legacy[0]
            assumptions.append(f"no id in the frontmatter: read {written!r} from the legacy "
                               f"file name {name!r}")
        return written

    @staticmethod
    def _title(data_fields: dict[str, Any], body: str, file_match: re.Match[str] | None,
               legacy: tuple[str, str] | None, artifact_id: str, assumptions: list[str]) -> str:
        """The frontmatter's title, else the first heading, else the file name's, else the id."""
        title = str(data_fields.get("title") or "").strip()
        if not title:
            heading = re.search(r"^#\s+(.+?)\s*#*\s*$", body, re.MULTILINE)
            title = heading.group(1) if heading else ""
        if not title:
            title = (file_match.group(2) or "").replace("-", " ").strip() if file_match else ""
            title = title or (legacy[1] if legacy else "") or artifact_id
            assumptions.append(f"no title in the frontmatter: read {title!r}")
        return title

    def _decision(self, data_fields: dict[str, Any], art: Artifact, declared: dict[str, Any],
                  assumptions: list[str]) -> None:
        """A decision record: its status read, and what it declares it supersedes."""
        art.type = "decision"
        reading = decision_status(str(data_fields.get("status") or "") or None)
        art.status = reading.status
        if reading.assumed:
            assumptions.append(reading.assumed)
        supersedes = [r for r in (self.ref(v) for v in as_list(data_fields.get("supersedes")))
                      if r]
        if supersedes:
            declared["supersedes"] = supersedes

    def _task(self, kind: str, data_fields: dict[str, Any], body: str, art: Artifact,
              metadata: dict[str, Any], declared: dict[str, Any], assumptions: list[str]) -> None:
        """A task: its status, fields, criteria, definition of done and final summary."""
        art.type = self.s.task_type
        written_status = data_fields.get("status")
        reading = work_item_status(str(written_status) if written_status else None, kind,
                                   self.table)
        art.status = reading.status
        if written_status:
            metadata["source_status"] = str(written_status)
        if reading.assumed:
            assumptions.append(reading.assumed)
        self._task_fields(data_fields, art, metadata, declared)
        items, from_markers = acceptance_criteria(body)
        art.criteria = [i.text for i in items]
        if items:
            metadata["criteria_checked"] = [i.checked for i in items]
            metadata["criteria_source"] = "markers" if from_markers else "heading"
        dod = definition_of_done(body)
        if dod:
            metadata["definition_of_done"] = [i.payload() for i in dod]
        shipped = final_summary(body)
        if shipped:
            metadata["final_summary"] = shipped

    def _task_fields(self, data: dict[str, Any], art: Artifact, metadata: dict[str, Any],
                     declared: dict[str, Any]) -> None:
        assignees = [a.lstrip("@") for a in as_list(data.get("assignee"))]
        if assignees:
            art.owner = assignees[0]
            metadata["assignees"] = assignees
        for key in ("labels", "priority", "reporter", "ordinal"):
            if data.get(key) not in (None, [], ""):
                metadata[key] = data[key]
        parent = self.ref(str(data.get("parent_task_id") or data.get("parent") or ""))
        own = id_key(art.id)
        if parent is None and own is not None and own.sub:
            m = _WRITTEN_ID.match(art.id)
            parent = f"{m.group(1)}-{m.group(2)}" if m else None
            if m and m.group(3).count(".") > 1:
                parent = f"{m.group(1)}-{m.group(2)}{m.group(3).rsplit('.', 1)[0]}"
        milestone = str(data.get("milestone") or "").strip()
        if milestone:
            metadata["milestone"] = milestone
            grouping = self.milestones.get(milestone.casefold())
            if grouping:
                metadata["milestone_id"] = grouping
                if parent is None:
                    parent = grouping
        if parent:
            art.parent = parent
            declared["parent"] = parent
        deps = [r for r in (self.ref(v) for v in as_list(data.get("dependencies"))) if r]
        if deps:
            declared["dependencies"] = deps
        refs = as_list(data.get("references"))
        id_refs = [r for r in (self.ref(v) for v in refs) if r]
        if id_refs:
            declared["references"] = id_refs
        other = [v for v in refs if self.ref(v) is None]
        if other:
            metadata["references"] = other
        docs = as_list(data.get("documentation"))
        if docs:
            metadata["documentation"] = docs


def milestone_map(reader: BacklogMdReader, files: dict[str, bytes]) -> dict[str, str]:
    """Milestone title or id (case-folded) -> the milestone's canonical id."""
    out: dict[str, str] = {}
    for path in sorted(files):
        parsed = reader.parse(path, files[path], None)
        a = parsed.artifact
        if a is not None and a.type == reader.s.milestone_type:
            out.setdefault(a.title.casefold(), a.id)
            out.setdefault(a.id.casefold(), a.id)
            out.setdefault(str(a.metadata.get("source_id", "")).casefold(), a.id)
    return out


def _rank(path: str, folder: str, added: dict[str, str]) -> tuple[int, str, str]:
    """Which of two files carrying one id holds it: live folder first, then the file git
    added first, then the path."""
    kind = folder_kind(path[len(folder):]) or ""
    return FOLDER_RANK.get(kind, 9), added.get(path, "~"), path


def first_added(history: list[HistoryEntry]) -> dict[str, str]:
    """path -> when git first added it, from the history entries read."""
    out: dict[str, str] = {}
    for e in history:
        if e.change == "added":
            out.setdefault(e.artifact_id, e.at)
    return out


COPY_MARK = "~"
"""Joins an id shared by two files to the word that tells the second copy apart."""
COPY_WORDS = {"task": "tasks", "completed": "completed", "draft": "drafts",
              "archived-task": "archived", "archived-draft": "archived-draft"}


def base_id(artifact_id: str) -> str:
    """The id a file declares, without the suffix a second copy of it is served under."""
    return artifact_id.split(COPY_MARK, 1)[0]


def _key_of(artifact_id: str) -> str:
    key = id_key(base_id(artifact_id))
    return artifact_id if key is None else key.text()


def copy_id(base: str, path: str, folder: str, taken: set[str]) -> str:
    """The id a second file carrying ``base`` is served under: ``BACK-1~archived`` (the
    folder it sits in), numbered ``~archived2`` when that is taken too."""
    word = COPY_WORDS.get(folder_kind(path[len(folder):]) or "", "copy")
    candidate, n = f"{base}{COPY_MARK}{word}", 2
    while candidate in taken:
        candidate, n = f"{base}{COPY_MARK}{word}{n}", n + 1
    return candidate


def assign_ids(bases: dict[str, str], prior: dict[str, str], folder: str,
               added: dict[str, str]) -> dict[str, str]:
    """path -> the id it is served under. Files sharing an id all stay served: the file that
    already held it keeps it (a new copy never displaces it), else the ranking decides; every
    other copy gets the id plus a suffix naming its folder, kept from pass to pass."""
    groups: dict[str, list[str]] = {}
    for path, base in bases.items():
        groups.setdefault(_key_of(base), []).append(path)
    out: dict[str, str] = {}
    taken: set[str] = set()
    for paths in groups.values():
        paths.sort(key=lambda p: (prior.get(p) != bases[p], _rank(p, folder, added)))
        out[paths[0]] = bases[paths[0]]
        taken.add(bases[paths[0]])
        for p in paths[1:]:
            kept = prior.get(p)
            if kept is not None and kept != bases[p] and base_id(kept) == bases[p] \
                    and kept not in taken:
                out[p] = kept
            else:
                out[p] = copy_id(bases[p], p, folder, taken)
            taken.add(out[p])
    return out


class BacklogMdConnector(FolderSource):
    """Reads one declared Backlog.md project, incrementally by blob id."""

    def __init__(self, instance_root: Path, settings: BacklogMdSettings, config: Config) -> None:
        super().__init__(instance_root, settings, config, backlog_md_source_id(settings.name))
        self.settings = settings

    def find_folder(self) -> str | None:
        return find_project_folder(self.path, self.settings.folder)

    def missing_folder(self) -> str:
        return (f"{self.path} holds no Backlog.md project (no backlog/ or .backlog/ folder); "
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
        prior_head = None if full else cursor.get("head")
        history, batch.history_complete = gf.history(prior_head)
        batch.history = history
        current = gf.blobs()
        milestone_files = {p: d for p, b in current.items()
                           if (folder_kind(p[len(gf.prefix):]) or "") == "milestone"
                           and isinstance(d := gf.read_or_problem(p, b, self.source_id), bytes)}
        probe = BacklogMdReader(self.settings, self.source_id, self.project, gf.prefix, {})
        milestones = milestone_map(probe, milestone_files)
        digest = hashlib.sha1(json.dumps(milestones, sort_keys=True).encode()).hexdigest()[:16]
        if cursor.get("milestones") != digest:
            full = True  # a milestone appeared, vanished or was renamed: every task re-reads
        reader = BacklogMdReader(self.settings, self.source_id, self.project, gf.prefix,
                                 milestones)
        prior_problems: dict[str, str] = {} if full else dict(cursor.get("problems", {}))
        changed = changed_paths(current, known, prior_problems, full=full)
        problems = {p: b for p, b in prior_problems.items() if current.get(p) == b}
        batch.cleared_paths = set(changed) | {
            p for p, b in prior_problems.items() if current.get(p) != b}
        prior_ids = {k.path: k.id for k in known.values()
                     if k.path in current and not k.deleted}
        bases = {p: base_id(i) for p, i in prior_ids.items() if p not in changed}
        parsed_now: dict[str, Artifact] = {}
        for i, path in enumerate(changed):
            if i % 500 == 0:
                progress(f"read {self.source_id}", i, len(changed))
            data = gf.read_or_problem(path, current[path], self.source_id)
            parsed = (Parsed(None, [data]) if isinstance(data, FileProblem) else guarded(
                self.source_id, path, current[path], reader.parse, path, data, current[path]))
            if isinstance(parsed, FileProblem):
                parsed = Parsed(None, [parsed])
            batch.problems.extend(parsed.problems)
            if parsed.artifact is None:
                bases.pop(path, None)
                if folder_kind(path[len(gf.prefix):]) not in (None, "archived-milestone") \
                        and not is_folder_readme(Path(path).name):
                    problems[path] = current[path]
                continue
            parsed_now[path] = parsed.artifact
            bases[path] = parsed.artifact.id
        served = assign_ids(bases, prior_ids, gf.prefix, first_added(history))
        moved = sorted(p for p, i in served.items() if p not in parsed_now and prior_ids[p] != i)
        for path in moved:  # an unchanged file whose id shifts (its twin came or went): re-read
            parsed = reader.parse(path, gf.read(path, current[path]), current[path])
            batch.problems.extend(parsed.problems)
            batch.cleared_paths.add(path)
            if parsed.artifact is not None:
                parsed_now[path] = parsed.artifact
        holders = {_key_of(i): p for p, i in served.items() if i == bases[p]}
        for path in sorted(parsed_now):
            a = parsed_now[path]
            a.id = served[path]
            if a.id != bases[path]:
                holder = holders.get(_key_of(bases[path]), "")
                a.metadata["declared_id"] = bases[path]
                a.metadata["id_shared_with"] = holder
                batch.problems.append(FileProblem(
                    self.source_id, path, "duplicate-id",
                    f"id {bases[path]} is also carried by {holder}; this copy is served as "
                    f"{a.id}", current[path], "warning"))
            batch.upserts.append(a)
        batch.read_count = len(changed) + len(moved)
        live = set(served.values())
        for k in sorted(known.values(), key=lambda k: k.id):
            if k.deleted or k.id in live:
                continue
            if k.path in problems:
                continue  # a file that broke keeps its last good artifact serving
            batch.removals.append(Removal(k.id, now, "found", "missing from the Backlog.md "
                                                               "project"))
        batch.cursor = {"head": gf.head, "milestones": digest,
                        "problems": dict(sorted(problems.items()))}
        return batch


def _dates(data_fields: dict[str, Any], art: Artifact, metadata: dict[str, Any]) -> None:
    """The created and updated dates the file declares, on the artifact and in its metadata."""
    created = iso_when(data_fields.get("created_date") or data_fields.get("date")
                       or data_fields.get("created"))
    updated = iso_when(data_fields.get("updated_date") or data_fields.get("updated"))
    if created:
        metadata["declared_created"] = created
        art.created_at = created
    if updated:
        metadata["declared_updated"] = updated
        art.source_updated_at = updated
