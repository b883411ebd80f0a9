"""Revetly from Python: open an instance, read it, and print what an agent would see.

    python examples/build_acme.py build/demo --force
    python examples/api_usage.py build/demo/acme
"""

from __future__ import annotations

import json
import sys

from revetly_core import Engine, Refusal


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__)
        return 2
    engine = Engine.open(argv[1])
    engine.sync()  # incremental: only what changed since the last pass is read

    health = engine.context_health()
    print(f"corpus revision {health['corpus_revision']}, {health['counts']['artifacts']} artifacts")

    found = engine.search_context("dunning emails after a dispute", limit=3)
    for row in found["artifacts"]:
        print(f"  {row['artifact_id']:<10} {row['title']}")

    story = engine.get_artifact(found["artifacts"][0]["artifact_id"])
    print(json.dumps({k: story[k] for k in ("artifact_id", "status", "declared_links")}, indent=2))

    page = engine.list_backlog(status="in-progress", limit=5)
    print(f"{page['total']} items in progress; first page: "
          + ", ".join(row["artifact_id"] for row in page["items"]))

    try:
        engine.get_artifact("STORY-9999")
    except Refusal as refusal:
        print("refused:", refusal.payload()["refusal"]["code"])
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
