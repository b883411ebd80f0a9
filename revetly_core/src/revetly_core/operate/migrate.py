"""`revetly migrate`: bring an instance's CONTEXT store to this engine's schema, priced first."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from revetly_core.answers.operate import MigrateAnswer, MigrationPlan, MigrationStep, RereadPrice
from revetly_core.config import Config
from revetly_core.refusal import Refusal
from revetly_core.store.schema_probe import RereadFacts, SchemaProbe


def _seconds(start: str | None, end: str | None) -> float | None:
    if not start or not end:
        return None
    return (dt.datetime.fromisoformat(end) - dt.datetime.fromisoformat(start)).total_seconds()


def reread_price(facts: RereadFacts) -> RereadPrice:
    """What the full re-read a migration needs will cost: what it re-reads, per source, and the
    time the last full pass over it took (the estimate; None when no full pass is recorded)."""
    per_source = facts.by_source
    last_full = facts.last_full
    seconds = None if last_full is None else _seconds(last_full[0], last_full[1])
    return {"artifacts": sum(per_source.values()), "by_source": per_source,
            "estimated_seconds": seconds,
            "estimate_from": "the last full pass" if seconds is not None else None}


def migration_plan(db: Path) -> MigrationPlan:
    """The steps from the store's schema to this engine's, each with what it changes, priced."""
    from revetly_core.store.db import MIGRATIONS, SCHEMA_VERSION

    if not db.exists():
        raise Refusal("not-synced", "this instance has no CONTEXT store to migrate",
                      "run `revetly sync`: it creates the store at the current schema")
    with SchemaProbe(db) as probe:
        version = probe.stored_schema()
        if version is None:
            raise Refusal("refused", f"{db} records no schema version",
                          "delete .revetly/ and run `revetly sync --full` to rebuild it")
        if version > SCHEMA_VERSION:
            raise Refusal("refused", f"context.db is at schema {version}, newer than this "
                          f"engine ({SCHEMA_VERSION})", "upgrade revetly")
        steps: list[MigrationStep] = []
        for at in range(version, SCHEMA_VERSION):
            step = MIGRATIONS.get(at)
            if step is None:
                raise Refusal("refused", f"context.db is at schema {version} and no step leads "
                              f"from {at} to {at + 1}",
                              "delete .revetly/ and run `revetly sync --full` to rebuild it")
            steps.append({"from": at, "to": at + 1, "change": (step.__doc__ or "").strip()})
        price = reread_price(probe.reread_facts()) if steps else None
    return {"schema": version, "current_schema": SCHEMA_VERSION, "steps": steps,
            "full_pass": bool(steps), "price": price}


def migrate(root: Path, config: Config, *, dry_run: bool = False) -> MigrateAnswer:
    """Price the migration; unless dry_run, apply its steps and run the full pass they need."""
    from revetly_core.instance.layout import InstancePaths

    paths = InstancePaths(root)
    plan = migration_plan(paths.db)
    out: MigrateAnswer = {
        "dry_run": dry_run, "schema": plan["schema"], "current_schema": plan["current_schema"],
        "steps": plan["steps"], "full_pass": plan["full_pass"], "price": plan["price"],
        "migrated": False,
    }
    if dry_run or not plan["steps"]:
        return out
    from revetly_core.ingest.readpass import run_pass

    # the pass opens the store for writing, which applies each step in its own transaction
    out["migrated"] = True
    out["pass"] = run_pass(root, config, full=True).payload()
    return out
