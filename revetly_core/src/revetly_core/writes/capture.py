"""Capture handles: a write's read pass runs in the background, and a handle says if it landed.

A handle is ``cap-`` and the 40-hex commit the write made. The process that filed it keeps a
ledger entry under .revetly/captures/; context_health(capture=handle) reads it: pending, landed,
failed, unknown, or pending with pending_elsewhere when another live process holds it.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import os
import re
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Literal

from filelock import FileLock, Timeout

from revetly_core.processes import pid_alive
from revetly_core.refusal import Refusal
from revetly_core.writes.files import atomic_write
from revetly_core.writes.reviews import utc_now

log = logging.getLogger("revetly.capture")

CaptureMode = Literal["thread", "process", "none"]
_HANDLE = re.compile(r"cap-[0-9a-f]{40}")
CAPTURES_DIR = "captures"
BUSY_RETRY_S = 0.1
BUSY_DEADLINE_S = 900.0
"""How long a capture waits out other processes' read passes before its handles fail."""
STARTING_GRACE_S = 30.0
"""How long a handle whose filer has exited reads as pending while its detached pass starts."""


def handle_for(commit: str) -> str:
    """The capture handle of a write's commit."""
    return f"cap-{commit}"


def check_handle(value: object) -> str:
    """A handle is cap- and 40 hex digits; anything else is refused before any path is built."""
    if not isinstance(value, str) or not _HANDLE.fullmatch(value):
        raise Refusal("bad-handle", "capture must be a handle a write returned (cap-<40 hex>)",
                      "pass the capture value a write answered with")
    return value



class CaptureLedger:
    """The per-handle ledger files of one instance."""

    def __init__(self, state_dir: Path) -> None:
        self.state = state_dir
        self.folder = state_dir / CAPTURES_DIR

    def path(self, handle: str) -> Path:
        return self.folder / f"{check_handle(handle)}.json"

    def write(self, handle: str, entry: dict[str, Any]) -> None:
        atomic_write(self.path(handle), json.dumps(entry, sort_keys=True).encode("utf-8"))

    def read(self, handle: str) -> dict[str, Any] | None:
        try:
            data = json.loads(self.path(handle).read_bytes())
        except (FileNotFoundError, ValueError):
            return None
        return data if isinstance(data, dict) else None

    def file(self, handle: str, commit: str, pid: int) -> dict[str, Any]:
        entry = {"handle": handle, "commit": commit, "pid": pid, "host": socket.gethostname(),
                 "filed_at": utc_now(), "state": "pending"}
        self.write(handle, entry)
        return entry

    def settle(self, handle: str, state: str, **extra: Any) -> None:
        entry = self.read(handle) or {"handle": handle, "commit": handle[4:]}
        entry.update(state=state, settled_at=utc_now(), **extra)
        self.write(handle, entry)


def covered(root: Path, db: Path, commit: str) -> dict[str, Any] | None:
    """The finished pass whose read of the instance repo holds this commit, if any."""
    import pygit2

    from revetly_core.store.db import Store

    if not db.exists():
        return None
    store = Store(db, readonly=True)
    try:
        head = store.source_state("repository").get("head")
        revision = store.revision
        last = store.last_pass()
    finally:
        store.close()
    if not head:
        return None
    if head != commit:
        try:
            repo = pygit2.Repository(str(root))
            if not repo.descendant_of(head, commit):
                return None
        except (pygit2.GitError, ValueError, KeyError):
            return None
    return {"corpus_revision": revision,
            "pass_id": last["pass_id"] if last is not None else None}


def pass_in_flight(state_dir: Path) -> bool:
    """Some process holds the read-pass lock right now."""
    lock = FileLock(str(state_dir / "pass.lock"))
    try:
        lock.acquire(timeout=0)
    except Timeout:
        return True
    lock.release()
    return False


def run_until_covered(root: Path, handles: list[str], ledger: CaptureLedger,
                      deadline_s: float = BUSY_DEADLINE_S) -> None:
    """Run incremental passes (waiting out another process's pass, up to deadline_s) and
    settle each handle; a lock held past the deadline fails them, naming the wait."""
    from revetly_core.config import load_config
    from revetly_core.ingest.readpass import run_pass
    from revetly_core.instance.layout import InstancePaths

    paths = InstancePaths(root)
    give_up = time.monotonic() + deadline_s
    while True:
        try:
            result = run_pass(root, load_config(root))
        except Refusal as exc:
            if exc.code == "busy" and time.monotonic() < give_up:
                time.sleep(BUSY_RETRY_S)
                continue
            if exc.code == "busy":
                for h in handles:
                    ledger.settle(h, "failed", error=f"another read pass held the lock for over "
                                  f"{deadline_s:g} s; run `revetly sync`")
                return
            for h in handles:
                ledger.settle(h, "failed", error=exc.detail)
            return
        except Exception as exc:  # a pass that dies is reported on the handle, never raised
            for h in handles:
                ledger.settle(h, "failed", error=f"{type(exc).__name__}: {exc}")
            return
        for h in handles:
            if covered(root, paths.db, h[4:]) is not None:
                ledger.settle(h, "landed", pass_id=result.pass_id,
                              corpus_revision=result.revision)
            else:
                ledger.settle(h, "failed", error="the pass did not read the write's commit")
        return


class CaptureRunner:
    """Files handles and runs the background pass: a thread, a detached process, or nothing."""

    def __init__(self, root: Path, state_dir: Path, mode: CaptureMode = "thread") -> None:
        self.root = root
        self.ledger = CaptureLedger(state_dir)
        self.mode: CaptureMode = mode
        self._lock = threading.Lock()
        self._queue: list[str] = []
        self._worker: threading.Thread | None = None

    def file(self, commit: str) -> str:
        """File a handle for a commit just made and start its pass; returns the handle."""
        handle = handle_for(commit)
        if self.mode == "none":
            return handle
        if self.mode == "process":  # filed first; the detached worker then names itself
            self.ledger.file(handle, commit, os.getpid())
            subprocess.Popen(
                [sys.executable, "-m", "revetly_core.writes.capture", str(self.root), handle],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                start_new_session=True,
            )
            return handle
        self.ledger.file(handle, commit, os.getpid())
        with self._lock:
            self._queue.append(handle)
            if self._worker is None or not self._worker.is_alive():
                self._worker = threading.Thread(target=self._drain, name="revetly-capture",
                                                daemon=True)
                self._worker.start()
        return handle

    def _drain(self) -> None:
        while True:
            with self._lock:
                batch, self._queue = self._queue, []
                if not batch:
                    self._worker = None
                    return
            run_until_covered(self.root, batch, self.ledger)

    def wait(self, timeout: float = 60.0) -> None:
        """Block until this runner's queue is drained (for scripts and benchmarks)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self._lock:
                worker = self._worker
            if worker is None:
                return
            worker.join(timeout=0.05)


def still_starting(entry: dict[str, Any], now: dt.datetime | None = None) -> bool:
    """A pending entry filed less than STARTING_GRACE_S ago: its detached pass may not hold the
    ledger or the pass lock yet (the filing process can exit first)."""
    if entry.get("state") != "pending":
        return False
    try:
        filed = dt.datetime.fromisoformat(str(entry.get("filed_at")))
    except ValueError:
        return False
    age = ((now or dt.datetime.now(dt.UTC)) - filed).total_seconds()
    return 0 <= age < STARTING_GRACE_S


def capture_state(root: Path, state_dir: Path, db: Path, handle: str) -> dict[str, Any]:
    """pending / landed / failed / unknown for one handle, with pending_elsewhere where it applies."""
    ledger = CaptureLedger(state_dir)
    entry = ledger.read(check_handle(handle))
    commit = handle[4:]
    out: dict[str, Any] = {"handle": handle, "commit": commit}
    if entry is not None and entry.get("state") in ("landed", "failed"):
        out["state"] = entry["state"]
        for key in ("pass_id", "corpus_revision", "error", "settled_at"):
            if key in entry:
                out[key] = entry[key]
        return out
    if entry is not None:
        pid = int(entry.get("pid", 0))
        if pid == os.getpid():
            out["state"] = "pending"
            return out
        if pid and pid_alive(pid) and entry.get("host") == socket.gethostname():
            out.update(state="pending", pending_elsewhere=True,
                       running={"pid": pid, "host": entry.get("host"),
                                "since": entry.get("filed_at")})
            return out
    landed = covered(root, db, commit)
    if landed is not None:
        out.update(state="landed", **landed)
        return out
    if pass_in_flight(state_dir):
        out.update(state="pending", pending_elsewhere=True,
                   running={"note": "another process holds the read-pass lock"})
        return out
    if entry is not None and still_starting(entry):
        out.update(state="pending", note="the write's read pass is starting")
        return out
    out["state"] = "unknown"
    out["note"] = "no ledger holds this handle, no finished pass covers it, none is in flight"
    return out


def _main(argv: list[str]) -> int:
    """python -m revetly_core.writes.capture ROOT HANDLE...: run the pass for detached handles."""
    root = Path(argv[0])
    from revetly_core.instance.layout import InstancePaths

    ledger = CaptureLedger(InstancePaths(root).state)
    handles = [check_handle(h) for h in argv[1:]]
    for h in handles:  # the ledger names this process as the one running the pass
        entry = ledger.read(h) or {"handle": h, "commit": h[4:]}
        entry.update(pid=os.getpid(), host=socket.gethostname())
        ledger.write(h, entry)
    run_until_covered(root, handles, ledger)
    return 0


if __name__ == "__main__":
    raise SystemExit(_main(sys.argv[1:]))
