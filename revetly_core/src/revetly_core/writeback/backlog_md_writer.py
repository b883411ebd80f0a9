"""The Backlog.md write adapter: a status flip and a delivery note written into the task's
own file, in the project's format (writeback/backlog_md.py holds the format rules).

It plugs into the write-adapter seam like a tracker does: the hook records the write first
(``.revetly/writeback/<id>.json``), then runs each step; every step here is an atomic file
write and idempotent (the same status twice leaves the file as once; a delivery note is found
again by its marker), so a write cut short is finished by the next call and never doubled.
Backlog.md has no claim of its own (``assignee`` is the team's, not a lock), so the claim is
kept in the instance's records (``claim_kept``). Nothing is committed in the project's
repository: the files are left changed in its work tree, which the next pass reads.
"""

from __future__ import annotations

import datetime as dt

from revetly_core.fsread import ReadRefused, read_file
from revetly_core.refusal import Refusal
from revetly_core.writeback.backlog_md import (
    ARCHIVE,
    LIVE_FOLDERS,
    BacklogMdTarget,
    backlog_md_time,
    contained_path,
    find_task_files,
    home_of,
    set_front_value,
    status_word,
    with_note,
    yaml_text,
)
from revetly_core.writeback.markers import carries
from revetly_core.writeback.protocol import (
    STEP_CLAIM,
    STEP_DELIVERY_NOTE,
    STEP_STATUS,
    Landed,
    RemoteItem,
    WritebackFailed,
)
from revetly_core.writes.files import atomic_write

ARCHIVED = "discarded"
"""The status Backlog.md states by moving the file into ``archive/tasks/``."""
DRAFT_FOLDERS = ("draft", "archived-draft")
"""The connector's folder kinds of drafts: not flipped here (promoting is Backlog.md's)."""


class BacklogMdWriter:
    """Writes status flips and delivery notes into one Backlog.md project's task files."""

    keeps_claims = False

    def __init__(self, target: BacklogMdTarget,
                 clock: type[dt.datetime] = dt.datetime) -> None:
        self.target = target
        self.source = target.source
        self.clock = clock

    def refuse_status(self, item: RemoteItem, status: str) -> Refusal | None:
        """A draft of the project (promoting is Backlog.md's own step) and a status the project
        has no word for (other than discarded: the archive) are refused."""
        if item.metadata.get("folder") in DRAFT_FOLDERS:
            return Refusal("tracker-cannot-hold",
                           f"{item.artifact_id} is a draft of the Backlog.md project "
                           f"{self.source}: promoting it gives it a task id, which is "
                           "Backlog.md's own step", "promote it with Backlog.md "
                           "(`backlog draft promote`), run `revetly sync`, then set its status",
                           {"id": item.artifact_id, "source": self.source, "status": status})
        if len(self._files(item)) > 1:
            return Refusal("ambiguous", f"{item.artifact_id} is carried by more than one file "
                           f"of {self.source}, so which one to write is not known",
                           "remove the copy in the project (`revetly check` names it), run "
                           "`revetly sync`, then set the status again",
                           {"id": item.artifact_id, "source": self.source, "wrote": False})
        if status == ARCHIVED or status_word(status, self.target.settings) is not None:
            return None
        return Refusal("tracker-cannot-hold",
                       f"{item.artifact_id} lives in the Backlog.md project {self.source}, "
                       f"which has no status word for {status}",
                       f"map a word to {status} under the source's statuses, or set ready, "
                       "in-progress, done or discarded",
                       {"id": item.artifact_id, "source": self.source, "status": status})

    def _files(self, item: RemoteItem) -> list[str]:
        """The files holding the task, in the live folders and the archive (a copy in either
        makes the task ambiguous: a move must never write over another file)."""
        written = item.metadata.get("source_id")
        spelled = written if isinstance(written, str) else None
        return find_task_files(self.target.root, item.artifact_id, spelled,
                               (*LIVE_FOLDERS, ARCHIVE))

    def _file(self, item: RemoteItem) -> str:
        found = self._files(item)
        if not found:
            raise WritebackFailed("not-found", f"no file of {self.target.folder}/ holds "
                                  f"{item.artifact_id} any more")
        if len(found) > 1:
            raise WritebackFailed("ambiguous", f"{item.artifact_id} is carried by "
                                  f"{len(found)} files of {self.target.folder}/")
        return found[0]

    def _read(self, rel: str) -> str:
        try:
            data = read_file(self.target.root, rel, self.target.settings.max_file_bytes)
            return data.decode("utf-8")
        except (OSError, ReadRefused, UnicodeDecodeError) as exc:
            raise WritebackFailed("unreadable", f"{self.target.folder}/{rel}: {exc}") from None

    def _write(self, rel: str, text: str) -> None:
        try:
            atomic_write(contained_path(self.target, rel), text.encode("utf-8"))
        except OSError as exc:
            raise WritebackFailed("unwritable", f"{self.target.folder}/{rel}: {exc}") from None

    def set_status(self, item: RemoteItem, status: str) -> Landed:
        """The task file's ``status`` line set to the project's word (``updated_date`` with
        it), in the folder that status belongs in (``home_of``: discarded is the move into
        ``archive/tasks/``, as Backlog.md archives, and leaves the lines as they are)."""
        rel = self._file(item)
        home = home_of(rel, status)
        text = self._read(rel)
        new = text
        if status != ARCHIVED:
            word = status_word(status, self.target.settings)
            assert word is not None  # refused before any write otherwise
            new = set_front_value(text, "status", yaml_text(word))
            if new != text:
                now = backlog_md_time(self.clock.now(dt.UTC))
                new = set_front_value(new, "updated_date", f"'{now}'")
        if new == text and home == rel:
            return Landed(STEP_STATUS, "unchanged", ref=rel)
        self._write(home, new)
        if home != rel:
            try:
                contained_path(self.target, rel).unlink(missing_ok=True)
            except OSError as exc:
                raise WritebackFailed("unwritable",
                                      f"{self.target.folder}/{rel}: {exc}") from None
            return Landed(STEP_STATUS, "set", ref=home, detail=f"moved from {rel}")
        return Landed(STEP_STATUS, "set", ref=rel)

    def keep_claim(self, item: RemoteItem, text: str, *, held: bool) -> Landed:
        """Never called (keeps_claims is False: the claim is kept in the instance)."""
        return Landed(STEP_CLAIM, "unchanged", detail="Backlog.md keeps no claims")

    def post_note(self, item: RemoteItem, text: str, *, marker: str) -> Landed:
        """The note in the task's implementation notes, unless a note with its marker is
        there already (then the file is left as it is)."""
        rel = self._file(item)
        body = self._read(rel)
        if carries(body, marker):
            return Landed(STEP_DELIVERY_NOTE, "unchanged", ref=rel)
        self._write(rel, with_note(body, text))
        return Landed(STEP_DELIVERY_NOTE, "posted", ref=rel)

    def close(self) -> None:
        """Nothing to release: the adapter holds no connection."""
