"""A lite instance is unchanged byte for byte: declaring [llm] without a real [embedding]
provider (or provider = "none" on both) answers exactly what an instance declaring neither
does, and every inferred key reads absent with the reason lite."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.core.gitrepo import Instance
from tests.core.inferred.conftest import write_stories

LITE_DECLARED = '\n[llm]\nprovider = "none"\n\n[embedding]\nprovider = "none"\n'
LLM_ONLY = ('\n[llm]\nprovider = "openai-compatible"\napi_url = "http://127.0.0.1:9/v1"\n'
            'model = "never-called"\n')
_STAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)?")
_SHA = re.compile(r"\b[0-9a-f]{40}\b")


def answers(inst: Instance) -> str:
    """Every read this issue touches, as JSON text, the instance's folder, the pass clock and
    the commit shas written out of it (the only bytes two instances may differ by: their
    revetly.toml differs, so their commits do)."""
    engine = inst.engine()
    out = {"brief": engine.get_artifact("STORY-0001"),
           "record": engine.get_artifact("STORY-0001", history_after=""),
           "branch": engine.get_artifact("STORY-0001", depth=1),
           "search": engine.search_context("webhook payment"),
           "binding": engine.get_scope("binding", artifact_id="STORY-0001"),
           "topic": engine.get_scope("binding", topic="webhook retries"),
           "health": {k: v for k, v in engine.context_health().items() if k != "counts"}}
    text = json.dumps(out, sort_keys=False).replace(str(inst.root), "<root>")
    return _SHA.sub("<sha>", _STAMP.sub("<time>", text))


@pytest.mark.parametrize("declared", [LITE_DECLARED, LLM_ONLY])
def test_a_lite_instance_answers_byte_for_byte_as_before(tmp_path: Path, declared: str) -> None:
    plain = write_stories(Instance(tmp_path / "alpha"))
    other = write_stories(Instance(tmp_path / "bravo"), declared)
    plain_sync, other_sync = plain.sync(), other.sync()
    assert "inferred" not in plain_sync and "inferred" not in other_sync
    assert answers(plain) == answers(other)


def test_every_inferred_key_reads_absent_lite(instance: Instance) -> None:
    inst = write_stories(instance)
    inst.sync()
    brief = inst.engine().get_artifact("STORY-0001")
    assert brief["full_record"]["inferred_links"] == {"absent": True, "reason": "lite"}
    assert "inferred_summary" not in brief and "entity_types_present" not in brief
    record = inst.engine().get_artifact("STORY-0001", history_after="")
    assert record["inferred_links"] == {"absent": True, "reason": "lite"}
    assert "inferred" not in inst.health()
