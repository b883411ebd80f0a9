"""The review file schema is built on first use: recovering writes at a pass loads no pydantic."""

from __future__ import annotations

import subprocess
import sys


def test_the_write_journal_imports_without_pydantic() -> None:
    code = ("import sys, revetly_core.writes.journal, revetly_core.writes.reviews; "
            "print('pydantic' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, timeout=120)
    assert done.stdout.strip() == "False"


def test_the_schema_is_built_once_and_kept() -> None:
    from revetly_core.writes.reviews import record_schema

    assert record_schema() is record_schema()
