"""Backlog.md write-back: where a write lands in a Backlog.md project read in place, and the
project's own format for it (ADR 0030).

A ``[[connectors.backlog-md]]`` source declaring ``write_back = true`` takes approved drafts
and status flips of its items. Everything written follows the project's own conventions, one
rule per function below: ids in the task family (``TASK-12``), file names as Backlog.md
names them (``task-12 - Title-words.md``, the family lower-cased), tasks in ``tasks/``, the
archive in ``archive/tasks/``, Backlog.md's frontmatter keys and status words, the
description and the criteria between its section and ``AC`` markers. An edit of an existing
file changes only the lines it must (the ``status`` and ``updated_date`` lines, a note inside
the notes section); every other byte stays. Every path is checked to stay inside the
project folder, through no link, before anything is written.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from pathlib import Path

from revetly_core.config import DEFAULT_BACKLOG_MD_STATUSES, Config
from revetly_core.config import BacklogMdConnector as BacklogMdSettings
from revetly_core.ids import id_key
from revetly_core.refusal import Refusal

TASKS = "tasks"
ARCHIVE = "archive/tasks"
ID_FOLDERS = ("tasks", "completed", "drafts", "archive/tasks", "archive/drafts")
"""Where the project's task ids live: a new id is past the highest in any of them."""
LIVE_FOLDERS = ("tasks", "completed", "drafts")
"""Where a task being flipped is looked for (the archive is only moved into)."""
NAME_CHARS = 100
"""Backlog.md cuts the title part of a file name; so do we."""
_FILE_NAME = re.compile(r"^([A-Za-z][A-Za-z0-9]*)-([0-9]+)((?:\.[0-9]+)*)(?:\s*-\s*.*)?\.md$")
_UNSAFE = re.compile(r"[^\w.\-]+", re.UNICODE)
_FRONT_KEY = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)\s*:")


@dataclass(frozen=True)
class BacklogMdTarget:
    """One Backlog.md project a write may land in: its settings, source id and folder."""

    settings: BacklogMdSettings
    source: str
    repo: Path
    folder: str
    """The project folder inside the repository (``backlog``)."""
    project: str

    @property
    def root(self) -> Path:
        """The project folder on disk: every write-back lands under it."""
        return self.repo / self.folder


def backlog_md_target(config: Config, instance_root: Path, name: str) -> BacklogMdTarget | None:
    """The project ``[[connectors.backlog-md]]`` ``name`` writes back to, None when it does
    not declare ``write_back`` (or its folder cannot be found)."""
    from revetly_core.connectors.backlog_md import backlog_md_source_id, find_project_folder
    from revetly_core.connectors.gitfolder import resolve_repo_path

    for settings in config.connectors.backlog_md:
        if settings.name != name or not settings.write_back:
            continue
        repo = resolve_repo_path(instance_root, settings.path)
        folder = find_project_folder(repo, settings.folder)
        if folder is None:
            return None
        return BacklogMdTarget(settings, backlog_md_source_id(name), repo, folder,
                               settings.project or config.default_project)
    return None


def draft_target(config: Config, instance_root: Path, project: str) -> BacklogMdTarget | None:
    """Where an approved draft of ``project`` lands: the first backlog-md source of that
    project declaring ``write_back``; None keeps it in the instance's own backlog."""
    for settings in config.connectors.backlog_md:
        if settings.write_back and (settings.project or config.default_project) == project:
            return backlog_md_target(config, instance_root, settings.name)
    return None


def status_word(status: str, settings: BacklogMdSettings) -> str | None:
    """The project's word for a Revetly status: the source's own ``statuses`` entry first,
    then Backlog.md's defaults (To Do, In Progress, Done); None when neither has one."""
    for table in (settings.statuses, DEFAULT_BACKLOG_MD_STATUSES):
        for word, mapped in table.items():
            if mapped == status:
                return word
    return None


def backlog_md_time(now: dt.datetime) -> str:
    """A time as Backlog.md writes ``created_date`` / ``updated_date``: ``YYYY-MM-DD HH:MM``
    (UTC)."""
    return now.astimezone(dt.UTC).strftime("%Y-%m-%d %H:%M")


def written_id(prefix: str, number: int) -> str:
    """A new task's id as its frontmatter carries it: the family upper-cased (``TASK-12``)."""
    return f"{prefix.upper()}-{number}"


def file_name(task_id: str, title: str) -> str:
    """Backlog.md's file name for a task: the id lower-cased, `` - ``, then the title's words
    joined by ``-`` with characters a file name should not hold dropped (cut at 100)."""
    words = "-".join(part for part in _UNSAFE.split(title.strip()) if part)
    return f"{task_id.lower()} - {words[:NAME_CHARS].rstrip('-.') or 'task'}.md"


def task_number(name: str, families: set[str]) -> int | None:
    """The top-level number of a task file's id (``task-12.3 - X.md`` -> 12) when its family
    is one of ``families`` (upper-case), else None."""
    m = _FILE_NAME.match(name)
    if m is None or m.group(1).upper() not in families:
        return None
    return int(m.group(2))


def next_number(root: Path, families: set[str]) -> int:
    """One past the highest task number any file of the project's id folders carries."""
    highest = 0
    for folder in ID_FOLDERS:
        here = root / folder
        if not here.is_dir() or here.is_symlink():
            continue
        for entry in here.rglob("*.md"):
            n = task_number(entry.name, families)
            if n is not None:
                highest = max(highest, n)
    return highest + 1


def home_of(rel: str, status: str) -> str:
    """Where a task file belongs once it holds ``status``: ``archive/tasks/`` when discarded;
    a file in ``completed/`` stays while done; one in ``completed/`` or the archive set to
    anything else goes back to ``tasks/`` (the folder's meaning would override the status
    line); else where it is."""
    name = Path(rel).name
    if status == "discarded":
        return rel if rel.startswith(ARCHIVE + "/") else f"{ARCHIVE}/{name}"
    if rel.startswith(ARCHIVE + "/") or (rel.startswith("completed/") and status != "done"):
        return f"{TASKS}/{name}"
    return rel


def task_families(settings: BacklogMdSettings) -> set[str]:
    """The families a task file of the project may be named with: its prefix and aliases."""
    return {settings.task_prefix.upper(), *(a.upper() for a in settings.aliases)}


def find_task_files(root: Path, artifact_id: str, written: str | None,
                    folders: tuple[str, ...] = LIVE_FOLDERS) -> list[str]:
    """The project-relative paths of the files holding a task: named with its written id or
    with any spelling of its id (``task-7.2`` finds ``TASK-7.02``), in folder order."""
    want = id_key(artifact_id)
    found: list[str] = []
    for folder in folders:
        here = root / folder
        if not here.is_dir() or here.is_symlink():
            continue
        for entry in sorted(here.rglob("*.md")):
            m = _FILE_NAME.match(entry.name)
            if m is None:
                continue
            spelled = f"{m.group(1)}-{m.group(2)}{m.group(3)}"
            if (written and spelled.casefold() == written.casefold()) or (
                    want is not None and id_key(spelled) == want):
                found.append(entry.relative_to(root).as_posix())
    return found


def contained_path(target: BacklogMdTarget, rel: str) -> Path:
    """The path a write-back may use for ``rel``; one leaving the project folder (``..``, an
    absolute path, a link on the way, something not a regular file) is refused."""
    from revetly_core.writes.containment import contained

    try:
        return target.root / contained(target.root, target.root / rel)
    except Refusal as refused:
        raise Refusal("outside-instance", f"{target.source}: {refused.detail}; a write-back "
                      f"lands only inside {target.folder}/ of {target.repo}",
                      "replace the link with a real folder or file, then write again",
                      {"path": rel, "source": target.source, "wrote": False}) from None


def front_bounds(lines: list[str]) -> tuple[int, int] | None:
    """(first, closing) line index of the frontmatter's ``---`` fences, None without one."""
    if not lines or lines[0].rstrip("\r\n") != "---":
        return None
    for i in range(1, len(lines)):
        if lines[i].rstrip("\r\n") in ("---", "..."):
            return 0, i
    return None


def set_front_value(text: str, key: str, value: str) -> str:
    """The file with frontmatter ``key`` set to ``value`` on its one line (replaced, or added
    before the closing fence); a key written over several lines is replaced whole; every
    other line is kept byte for byte. A file without frontmatter is given one."""
    lines = text.splitlines(keepends=True)
    bounds = front_bounds(lines)
    entry = f"{key}: {value}\n"
    if bounds is None:
        return f"---\n{entry}---\n\n{text}"
    _, close = bounds
    for i in range(1, close):
        m = _FRONT_KEY.match(lines[i])
        if m and m.group(1) == key:
            end = i + 1
            while end < close and (lines[end][:1] in (" ", "\t", "-") and not
                                   _FRONT_KEY.match(lines[end])):
                end += 1
            return "".join([*lines[:i], entry, *lines[end:]])
    return "".join([*lines[:close], entry, *lines[close:]])


def yaml_text(value: str) -> str:
    """A text value as Backlog.md's frontmatter holds it: plain when YAML reads it back as
    the same text, else single-quoted."""
    import yaml

    try:
        plain_ok = yaml.safe_load(f"k: {value}") == {"k": value} and "#" not in value
    except yaml.YAMLError:
        plain_ok = False
    return value if plain_ok and value.strip() == value else "'" + value.replace("'", "''") + "'"


def task_text(task_id: str, title: str, status: str, created: str, description: str,
              criteria: list[str], parent: str | None) -> str:
    """A new task file as Backlog.md writes one: its frontmatter keys in its order, the
    description between its section markers, the criteria numbered between ``AC`` markers."""
    front = [f"id: {task_id}", f"title: {yaml_text(title)}", f"status: {yaml_text(status)}",
             "assignee: []", f"created_date: '{created}'", "labels: []", "dependencies: []"]
    if parent:
        front.append(f"parent_task_id: {parent}")
    body = ["## Description", "", "<!-- SECTION:DESCRIPTION:BEGIN -->",
            description.strip(), "<!-- SECTION:DESCRIPTION:END -->"]
    if criteria:
        body += ["", "## Acceptance Criteria", "<!-- AC:BEGIN -->"]
        body += [f"- [ ] #{n} {' '.join(c.split())}" for n, c in enumerate(criteria, 1)]
        body.append("<!-- AC:END -->")
    return "---\n" + "\n".join(front) + "\n---\n\n" + "\n".join(body) + "\n"


NOTES_BEGIN = "<!-- SECTION:NOTES:BEGIN -->"
NOTES_END = "<!-- SECTION:NOTES:END -->"
NOTES_HEADING = "## Implementation Notes"


def with_note(text: str, note: str) -> str:
    """The file with ``note`` added to its implementation notes: before the notes section's
    end marker, else a new notes section (heading and markers) at the end of the file."""
    block = note.rstrip("\n") + "\n"
    lines = text.splitlines(keepends=True)
    for i, line in enumerate(lines):
        if line.strip() == NOTES_END:
            lead = "" if i == 0 or lines[i - 1].strip() in ("", NOTES_BEGIN) else "\n"
            return "".join(lines[:i]) + lead + block + "".join(lines[i:])
    tail = "" if text.endswith("\n") or not text else "\n"
    return f"{text}{tail}\n{NOTES_HEADING}\n\n{NOTES_BEGIN}\n{block}{NOTES_END}\n"
