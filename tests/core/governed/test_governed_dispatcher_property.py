"""A property of the dispatcher over any sequence of calls: no effect ever happens twice for one
admission, and while an effect is uncertain no new key reaches the handler."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from revetly_core import Refusal
from tests.core.governed.governed_world import make_world
from tests.core.governed.guarded_world import make_guarded

CALLS = st.lists(st.tuples(st.sampled_from(["k1", "k2", "k3", "k4"]), st.booleans(),
                           st.sampled_from(["a", "b"])), min_size=1, max_size=8)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(calls=CALLS)
def test_no_admission_is_dispatched_twice_and_uncertainty_blocks_new_keys(
        calls: list[tuple[str, bool, str]]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        world = make_world(Path(tmp) / "homes")
        guarded = make_guarded(world, Path(tmp))
        held_by: str | None = None
        admitted: dict[str, str] = {}
        try:
            for key, lose_ack, text in calls:
                guarded.backend.fail = lose_ack
                before = len(guarded.backend.lines())
                try:
                    answer = guarded.dispatcher.execute(world.session, "send_notice",
                                                        {"to": "ops", "text": text}, idempotency_key=key)
                    code = None
                except Refusal as refusal:
                    answer, code = refusal.extra, refusal.code
                dispatched = len(guarded.backend.lines()) - before
                if key in admitted:  # a retry: never a second dispatch
                    assert dispatched == 0
                    assert code in (None, "idempotency_conflict")
                elif held_by is not None:  # an uncertain effect holds the tool
                    assert code == "execution_held" and answer["held_by"] == held_by
                    assert dispatched == 0
                else:
                    assert dispatched == 1
                    admitted[key] = str(answer["execution_id"])
                    if lose_ack:
                        assert code == "effect_uncertain"
                        held_by = admitted[key]
                    else:
                        assert code is None and answer["status"] == "acknowledged"
            per_execution = [line["invocation_id"] for line in guarded.backend.lines()]
            assert len(per_execution) == len(set(per_execution))
        finally:
            guarded.dispatcher.close()
            world.rag.close()
            world.evidence.close()
