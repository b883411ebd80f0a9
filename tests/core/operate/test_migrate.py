"""`revetly migrate`: a store on an older schema, priced, then moved and re-read."""

from __future__ import annotations

import sqlite3

import pytest
from revetly_core.operate.migrate import migration_plan
from revetly_core.refusal import Refusal
from revetly_core.store.db import SCHEMA_VERSION

from tests.core.gitrepo import Instance


def downgrade_to_v1(db: str) -> None:
    """Put a store back to schema 1: no id_key column, no phrases table, no problem severity."""
    conn = sqlite3.connect(db)
    conn.execute("DROP INDEX IF EXISTS artifacts_id_key")
    conn.execute("ALTER TABLE artifacts DROP COLUMN id_key")
    conn.execute("DROP TABLE phrases")
    conn.execute("ALTER TABLE problems DROP COLUMN severity")
    conn.execute("UPDATE meta SET value='1' WHERE key='schema_version'")
    conn.commit()
    conn.close()


def test_a_current_store_has_nothing_to_migrate(floored: Instance) -> None:
    report = floored.engine().migrate(dry_run=True)
    assert report["schema"] == SCHEMA_VERSION
    assert report["steps"] == [] and report["price"] is None


def test_dry_run_prices_the_reread_and_changes_nothing(floored: Instance) -> None:
    db = floored.root / ".revetly" / "context.db"
    downgrade_to_v1(str(db))
    report = floored.engine().migrate(dry_run=True)
    assert report["steps"][0]["from"] == 1 and report["steps"][0]["to"] == 2
    assert report["steps"][0]["change"]
    assert report["full_pass"] is True
    assert report["price"]["artifacts"] == 13  # 3 stories + 10 commits above the floor
    assert report["price"]["estimated_seconds"] is not None
    assert migration_plan(db)["schema"] == 1
    assert report["migrated"] is False


def test_migrate_moves_the_store_and_reads_it_again(floored: Instance) -> None:
    downgrade_to_v1(str(floored.root / ".revetly" / "context.db"))
    report = floored.engine().migrate()
    assert report["migrated"] is True
    assert report["pass"]["full"] is True
    assert floored.engine().get_artifact("STORY-0001")["title"] == "Export invoices"


def test_migrate_without_a_store_is_refused(instance: Instance) -> None:
    with pytest.raises(Refusal) as info:
        instance.engine().migrate(dry_run=True)
    assert info.value.code == "not-synced"
