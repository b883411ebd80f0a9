"""A pass killed while the repository source streams its artifacts into the store's one
transaction: CONTEXT keeps serving the revision before it, and the next pass lands everything."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from revetly_core.ingest.readpass import WRITE_CHUNK

from tests.core.gitrepo import Instance, md

FILES = WRITE_CHUNK + 100
"""Enough files that at least one chunk is written before the kill."""
STARTS_WITHIN = 300.0
"""Seconds the child may take to reach the kill point (the machine is shared and slow)."""

CHILD = """
import sys, time
from pathlib import Path
from revetly_core import Engine

root, marker, after = sys.argv[1], Path(sys.argv[2]), int(sys.argv[3])

def progress(phase, done, total):
    if phase == "read files" and done >= after:
        marker.write_text(str(done))  # a chunk has been written inside the open transaction
        time.sleep(3600)              # wait here to be killed

Engine.open(root).sync(progress=progress)
"""


def stories(body: str) -> dict[str, str | bytes]:
    return {f"backlog/STORY-{n:04d}.md": md(f"STORY-{n:04d}", f"Story number {n}", body=body)
            for n in range(1, FILES + 1)}


def killed_mid_stream(root: Path, marker: Path) -> int:
    """Run a pass in a child process, kill -9 it once a chunk was written; its exit status."""
    proc = subprocess.Popen([sys.executable, "-c", CHILD, str(root), str(marker),
                             str(WRITE_CHUNK)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + STARTS_WITHIN
    while not marker.exists():
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            out = proc.communicate()[0].decode(errors="replace")
            raise AssertionError(f"the pass never reached the kill point: {out}")
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    return proc.wait()


def test_a_pass_killed_while_streaming_leaves_the_last_revision_and_the_next_pass_lands(
        instance: Instance, tmp_path: Path) -> None:
    instance.git.write_and_commit(stories("First words.\n"))
    first = instance.sync()
    before = instance.snapshot()
    instance.git.write_and_commit(stories("Second words, after an edit.\n"))

    assert killed_mid_stream(instance.root, tmp_path / "reached") == -signal.SIGKILL

    assert instance.snapshot() == before
    assert instance.health()["corpus_revision"] == first["corpus_revision"]
    result = instance.sync()
    assert result["outcome"] == "succeeded"
    assert result["changed"]["updated"] == FILES
    assert instance.get("STORY-0001").body.strip() == "Second words, after an edit."
    assert instance.get(f"STORY-{FILES:04d}").body.strip() == "Second words, after an edit."
