"""Search quality on the Backlog.md fixture: search_context against the FTS5 baseline.

    python tests/eval/evaluate_backlog_md.py            # build the fixture, sync, print a table
    python tests/eval/evaluate_backlog_md.py --losses   # also list the queries Revetly loses

The fixture repository is built from tests/fixtures/backlog_md, an instance is scaffolded with
``revetly init --from backlog-md`` and synced, and the labelled queries of
``backlog_md_queries.toml`` run through both rankers exactly as evaluate.py does for acme.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import tempfile
from pathlib import Path
from types import ModuleType
from typing import Any

HERE = Path(__file__).resolve().parent
QUERIES = HERE / "backlog_md_queries.toml"
FIXTURES = HERE.parent / "fixtures"


def _load(name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses resolve their module by name
    spec.loader.exec_module(module)
    return module


ev = _load("revetly_search_eval", HERE / "evaluate.py")
fixtures = _load("revetly_fixture_repo", FIXTURES / "fixture_repo.py")


def build_backlog_md_instance(out_dir: Path) -> Any:
    """The synced Engine of an instance reading the Backlog.md fixture in place."""
    from revetly_core import Engine

    repo = fixtures.build_fixture_repo(fixtures.BACKLOG_MD, out_dir / "tally")
    Engine.init(out_dir / "inst", source=("backlog-md", str(repo)))
    return ev.open_synced(out_dir / "inst")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--losses", action="store_true", help="list the queries Revetly loses")
    args = parser.parse_args(argv)
    queries = ev.load_queries(QUERIES)
    with tempfile.TemporaryDirectory(prefix="revetly-eval-bmd-") as tmp:
        engine = build_backlog_md_instance(Path(tmp))
        missing = ev.missing_labels(queries, (d.id for d in ev.live_artifacts(engine)))
        evaluation = ev.evaluate_instance(engine, queries)
    print(f"{len(queries)} queries on the Backlog.md fixture; search_context vs SQLite FTS5 bm25")
    print(ev.format_table(evaluation))
    if missing:
        print(f"\nLabelled ids that are not live artifacts: {missing}")
    if args.losses:
        print()
        print(ev.format_losses(evaluation))
    return 0


if __name__ == "__main__":
    sys.exit(main())
