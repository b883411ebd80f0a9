"""Regression: the semantic leg's heavy imports (numpy, httpx, the model) load only where a
provider is declared, so a lite instance's CLI start pays nothing for them."""

from __future__ import annotations

import subprocess
import sys


def test_the_read_path_imports_no_provider_library() -> None:
    probe = (
        "import sys\n"
        "import revetly_cli.app, revetly_core.reads.search, revetly_core.scope.authoring\n"
        "import revetly_core.surface.surface, revetly_core.ingest.readpass\n"
        "print(sorted(m for m in ('numpy', 'httpx', 'wordllama') if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "[]"
