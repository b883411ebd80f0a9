"""The one liveness rule for pids our processes leave in markers and locks."""

from __future__ import annotations

import os
import subprocess
import sys

from revetly_core.processes import pid_alive


def test_this_process_is_alive() -> None:
    assert pid_alive(os.getpid())


def test_a_process_that_exited_is_not_alive() -> None:
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)
    assert not pid_alive(int(done.stdout))
