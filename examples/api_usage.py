"""Revetly from Python: open an instance, read it, and print what an agent would see.

    python examples/build_acme.py build/demo --force
    python examples/api_usage.py build/demo/acme
    python examples/api_usage.py build/demo/acme --write   # also the writes (commits to acme)
"""

from __future__ import annotations

import json
import sys

from revetly_core import Engine, Refusal


def main(argv: list[str]) -> int:
    if len(argv) not in (2, 3) or (len(argv) == 3 and argv[2] != "--write"):
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
    if len(argv) == 3:
        write_tour(engine, page["items"][0]["artifact_id"] if page["items"] else None)
    return 0


def write_tour(engine: Engine, in_progress: str | None) -> None:
    """The writes: a draft parked for review and answered, a note, a status flip, a capture."""
    from revetly_core.writes import ClientDeclaration, select_gate

    gate = select_gate(ClientDeclaration.from_initialize({"capabilities": {}}))
    draft = engine.submit_draft(
        "Dunning reminder preview", "Finance wants to preview a reminder before it goes out.",
        ["The preview shows the exact email text", "Sending from the preview is one click"],
        gate=gate)
    print(f"draft {draft['review_id']}: {draft['status']} (no gate declared)")
    print(f"{engine.list_reviews()['count']} review(s) waiting")
    answer = engine.resolve_review(draft["review_id"], "reject", "needs the legal wording first")
    print(f"answered at the terminal: {answer['status']}, enforced {answer['decision_gate_enforced']}")

    note = engine.record_conversation("Reminder wording", "Legal reviews every reminder text.",
                                      related_ids=[in_progress] if in_progress else [])
    print(f"recorded {note['conversation']['artifact_id']} in {note['commit'][:12]}")
    if in_progress:
        flip = engine.set_status(in_progress, "in-progress", claimed_by="api-usage-example")
        print(f"{in_progress}: claim {flip.get('claim')}")
    engine.wait_for_captures()
    print("capture:", engine.context_health(capture=note["capture"])["capture"]["state"])


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
