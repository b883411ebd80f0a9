"""Every full-instance answer validates against its declared type: the inferred keys are part
of the served schema, not extras."""

from __future__ import annotations

from revetly_core.answers import (
    ArtifactAnswer,
    BackfillPlan,
    BindingAnswer,
    HealthAnswer,
    PassSummary,
    SearchAnswer,
)

from tests.core.answers.conforms import assert_conforms
from tests.core.gitrepo import Instance
from tests.core.inferred.conftest import FakeLlm, write_stories


def test_full_instance_answers_conform_to_their_types(instance: Instance,
                                                      fake_llm: FakeLlm) -> None:
    inst = write_stories(instance, fake_llm.config())
    assert_conforms(PassSummary, inst.sync())
    engine = inst.engine()
    brief = engine.get_artifact("STORY-0001")
    assert "inferred_summary" in brief
    assert_conforms(ArtifactAnswer, brief)
    assert_conforms(ArtifactAnswer, engine.get_artifact("STORY-0001", history_after=""))
    assert_conforms(ArtifactAnswer, engine.get_artifact("STORY-0001", depth=1))
    found = engine.search_context("stripe webhook payment")
    assert isinstance(found["concepts"], list)
    assert_conforms(SearchAnswer, found)
    assert_conforms(BindingAnswer, engine.get_scope("binding", artifact_id="STORY-0001"))
    assert_conforms(HealthAnswer, engine.context_health())
    assert_conforms(BackfillPlan, engine.backfill(dry_run=True))
