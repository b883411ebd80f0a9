"""What a pass that changed little costs: nothing written when nothing changed, only the
declared sources' readers loaded, and a file the store cannot hold judged again every pass."""

from __future__ import annotations

import sys
from pathlib import Path

from revetly_core.config import parse_config
from revetly_core.ingest.readpass import (
    SourceWriter,
    declares_sources,
    index_needs_writing,
    known_for,
)
from revetly_core.model import Artifact
from revetly_core.store.db import Store
from revetly_core.store.known import StoredKnown

from tests.core.gitrepo import Instance, md


def test_the_index_is_left_alone_when_nothing_changed() -> None:
    assert not index_needs_writing(set(), set(), full=False)
    assert index_needs_writing(set(), set(), full=True)
    assert index_needs_writing({"STORY-1"}, set(), full=False)
    assert index_needs_writing(set(), {"STORY-1"}, full=False)


def test_a_pass_that_changed_nothing_writes_no_index_file(instance: Instance) -> None:
    instance.git.write("backlog/STORY-1.md", md("STORY-1", "One"))
    instance.git.commit("story")
    first = instance.sync()
    stamp = instance.root / ".revetly" / "index" / "REVISION"
    before = stamp.stat()
    again = instance.sync()
    after = stamp.stat()
    assert again["corpus_revision"] == first["corpus_revision"]
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)
    assert stamp.read_text() == str(first["corpus_revision"])


def test_declared_sources_are_only_the_other_tools(tmp_path: Path) -> None:
    plain = parse_config({"instance": {"name": "acme"}})
    assert not declares_sources(plain)
    with_adr = parse_config({"instance": {"name": "acme"},
                             "ids": {"families": {"STORY": "story", "ADR": "decision"}},
                             "connectors": {"adr": [{"name": "decisions", "path": str(tmp_path)}]}})
    assert declares_sources(with_adr)


def test_a_plain_instance_pass_never_loads_the_declared_sources_readers(
    instance: Instance,
) -> None:
    import subprocess

    code = (
        "import sys; from revetly_core import Engine; "
        f"Engine.open({str(instance.root)!r}).sync(); "
        "print('revetly_core.connectors.sources' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"


def test_the_repository_looks_its_known_rows_up(instance: Instance) -> None:
    from revetly_core.config import load_config
    from revetly_core.connectors.repository import RepositoryConnector

    instance.sync()
    store = Store(instance.root / ".revetly" / "context.db")
    try:
        known = known_for(store, RepositoryConnector(instance.root, load_config(instance.root)))
        assert isinstance(known, StoredKnown)
    finally:
        store.close()


def test_the_sink_says_when_the_store_cannot_hold_an_artifact(tmp_path: Path) -> None:
    store = Store(tmp_path / "context.db")
    try:
        writer = SourceWriter(store, "repository", {}, full=False, now="2030-01-01T00:00:00Z")
        good = Artifact(id="STORY-1", type="story", title="t", source="repository",
                        project="acme", source_path="backlog/a.md")
        bad = Artifact(id="STORY-2", type="story", title="\ud800", source="repository",
                       project="acme", source_path="backlog/b.md")
        assert writer.add(good) is True
        assert writer.add(bad) is False
        assert [(p.path, p.code) for p in writer.problems] == [("backlog/b.md", "unstorable")]
    finally:
        store.close()


def test_a_file_the_sink_refuses_is_judged_again_next_pass(instance: Instance) -> None:
    """A file whose artifact the store refused has nothing stored and no cached problem: the
    read puts it in the cursor's files judged again, so the next read looks at it again."""
    from revetly_core.config import load_config
    from revetly_core.connectors.repository import RepositoryConnector

    instance.git.write("backlog/STORY-1.md", md("STORY-1", "Refused"))
    instance.git.write("backlog/STORY-2.md", md("STORY-2", "Kept"))
    instance.git.commit("stories")
    connector = RepositoryConnector(instance.root, load_config(instance.root))
    handed: list[str] = []

    def refuse_story_1(a: Artifact) -> bool:
        handed.append(a.id)
        return a.id != "STORY-1"

    batch = connector.read({}, {}, full=True, now="2030-01-01T00:00:00Z", sink=refuse_story_1)
    assert handed == ["STORY-1", "STORY-2"]
    assert batch.cursor["rejudge"] == ["backlog/STORY-1.md"]
