"""The read path's imports: opening an engine and searching load nothing the read does not use."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.core.gitrepo import Instance, env_without_instance, md

HEAVY = ("pydantic", "pydantic_core", "yaml", "networkx", "pygit2", "rich", "typer", "mcp",
         "numpy", "httpx", "whoosh.index", "whoosh.searching", "revetly_core.config_schema",
         "revetly_core.markdown.frontmatter", "revetly_core.answers", "revetly_core.store.protocols",
         "revetly_core.instance.scaffold", "revetly_core.store.inferred")
"""Modules a search never needs (whoosh's Porter stemmer is the query's analysis, so it may load;
whoosh's index and searcher belong to the whoosh backend only; the answer types and the store's
protocols are annotations, imported for the type checker only; the inferred store is read on a
full instance only)."""

PROBE = """
import json, sys
from revetly_core.engine import Engine
answer = Engine.open(sys.argv[1]).search_context("invoice export")
heavy = json.loads(sys.argv[2])
print(json.dumps({"served": [a["artifact_id"] for a in answer["artifacts"]],
                  "loaded": sorted(m for m in heavy if m in sys.modules)}))
"""


def synced(instance: Instance) -> Instance:
    instance.git.write_and_commit({
        "backlog/STORY-001.md": md("STORY-001", "Export invoices as CSV",
                                   body="The invoice export writes one row per line item.\n"),
        "notes/DEC-001.md": md("DEC-001", "Exports run nightly", "decision",
                               body="Invoice export runs after midnight.\n"),
    })
    instance.sync(full=True)
    instance.engine()  # the first open after the pass validates revetly.toml and caches it
    return instance


def probe(instance: Instance) -> dict[str, list[str]]:
    done = subprocess.run([sys.executable, "-c", PROBE, str(instance.root), json.dumps(HEAVY)],
                          capture_output=True, text=True, timeout=300, check=True,
                          env=env_without_instance())
    result: dict[str, list[str]] = json.loads(done.stdout)
    return result


def test_open_and_search_import_no_pydantic_nor_other_heavy_modules(instance: Instance) -> None:
    result = probe(synced(instance))
    assert result["served"], "the search served nothing, so it proves nothing"
    assert result["loaded"] == []


def test_a_changed_config_is_validated_in_the_fresh_process(instance: Instance) -> None:
    synced(instance)
    config = instance.root / "revetly.toml"
    config.write_text(config.read_text() + "\n[read]\nbudget = 4096\n")
    result = probe(instance)
    assert result["served"]
    assert "revetly_core.config_schema" in result["loaded"]
