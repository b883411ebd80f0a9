"""`revetly watch`: run the incremental pass whenever a source changes, debounced.

While it runs, a marker in the instance's state folder names its process, and every read's
``freshness.watch`` is true; the marker goes when the watcher stops (or is found dead).
"""

from __future__ import annotations

import datetime as dt
import json
import os
import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from revetly_core.processes import pid_alive

if TYPE_CHECKING:
    from revetly_core.answers.operate import WatchEvent, WatchSummary
    from revetly_core.config import Config

WATCH_MARKER = "watch.json"
DEBOUNCE_MS = 1600
"""How long changes gather before one pass runs (watchfiles' debounce)."""


def marker_path(state_dir: Path) -> Path:
    return state_dir / WATCH_MARKER



def watch_running(state_dir: Path) -> bool:
    """Whether a watcher is running on this instance: its marker names a live process."""
    try:
        data = json.loads(marker_path(state_dir).read_text())
    except (OSError, ValueError):
        return False
    pid = data.get("pid") if isinstance(data, dict) else None
    return isinstance(pid, int) and pid_alive(pid)


WATCH_TICK_MS = 500
"""How often the watcher wakes with nothing changed (the first wake runs the start pass)."""


def watched_paths(root: Path, config: Config) -> list[Path]:
    """What a change can come from: the instance's folders and git refs, each commits
    repository's git folder (a new commit moves its refs), and each in-place source's folder
    and git folder."""
    from revetly_core.connectors.commits import CommitsConnector
    from revetly_core.connectors.sources import folder_sources

    out = [root / p for p in config.connectors.repository.paths]
    out.append(root / ".git")
    for settings in config.connectors.commits:  # a commits source changes only by its refs
        out.append(CommitsConnector(root, settings, config.default_project).path / ".git")
    for src in folder_sources(root, config):  # read from the work tree, then the refs
        folder = src.find_folder()
        if folder is not None:
            out.append(src.path / folder)
        out.append(src.path / ".git")
    seen: list[Path] = []
    for p in out:
        if p.exists() and p not in seen:
            seen.append(p)
    return seen


def relevant_change(path: str, state_dir: Path) -> bool:
    """A change worth a pass: not the engine's own state, not git's lock or object churn."""
    p = Path(path)
    if state_dir in p.parents or p == state_dir:
        return False
    parts = p.parts
    if ".git" in parts:
        tail = parts[parts.index(".git") + 1:]
        return bool(tail) and tail[0] in ("HEAD", "refs", "packed-refs") and \
            not p.name.endswith(".lock")
    return True


def watch(root: Path, config: Config, *, debounce_ms: int = DEBOUNCE_MS,
          stop: threading.Event | None = None, max_passes: int | None = None,
          report: Callable[[WatchEvent], None] = lambda event: None) -> WatchSummary:
    """Run until ``stop`` is set (or ``max_passes`` passes have run): one incremental pass at
    start and one per debounced batch of relevant changes. Returns what it did."""
    from watchfiles import watch as watch_files

    from revetly_core.ingest.readpass import run_pass
    from revetly_core.instance.layout import InstancePaths
    from revetly_core.refusal import Refusal

    state = InstancePaths(root).state
    state.mkdir(parents=True, exist_ok=True)
    stop = stop or threading.Event()
    started = dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat()
    marker_path(state).write_text(json.dumps({"pid": os.getpid(), "started_at": started}))
    paths = watched_paths(root, config)
    passes = 0
    refused = 0

    def one_pass(changed: Iterable[str]) -> None:
        nonlocal passes, refused
        try:
            result = run_pass(root, config).payload()
        except Refusal as refusal:
            refused += 1
            report({"event": "refused", "refusal": refusal.payload()["refusal"]})
            return
        passes += 1
        report({"event": "pass", "changed_paths": sorted(changed)[:20],
                "outcome": result["outcome"], "corpus_revision": result["corpus_revision"],
                "changed": result["changed"]})

    try:
        report({"event": "watching", "paths": [str(p) for p in paths], "pid": os.getpid()})
        started_pass = False
        # The watches are in place before the first pass runs (its first, empty, yield comes
        # after WATCH_TICK_MS), so a change made during or right after that pass is not lost.
        for changes in watch_files(*paths, debounce=debounce_ms, stop_event=stop,
                                   raise_interrupt=False, yield_on_timeout=True,
                                   rust_timeout=WATCH_TICK_MS):
            wanted = [c[1] for c in changes if relevant_change(c[1], state)]
            if started_pass and not wanted:
                continue
            started_pass = True
            one_pass(wanted)
            if max_passes is not None and passes >= max_passes:
                break
    finally:
        try:
            data = json.loads(marker_path(state).read_text())
            if data.get("pid") == os.getpid():
                marker_path(state).unlink()
        except (OSError, ValueError):
            pass
    return _summary(started, paths, passes, refused)


def _summary(started: str, paths: list[Path], passes: int, refused: int) -> WatchSummary:
    return {"started_at": started, "paths": [str(p) for p in paths], "passes": passes,
            "refused": refused}
