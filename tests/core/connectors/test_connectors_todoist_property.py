"""Property: any task the fake serves for the project either lands in CONTEXT or is named by
check (its id and project are what put it in the project, so they stay intact)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.core.connectors.todoist_instance import TOKEN_ENV, todoist_instance
from tests.support.fake_todoist import FakeTodoist, serving

JUNK = st.one_of(st.none(), st.integers(), st.text(max_size=8), st.lists(st.integers(), max_size=2),
                 st.dictionaries(st.text(max_size=3), st.integers(), max_size=2), st.booleans())
FIELDS = ("content", "description", "labels", "section_id", "parent_id", "responsible_uid",
          "added_at", "updated_at", "completed_at", "priority", "due", "user_id")


@st.composite
def tasks(draw: st.DrawFn) -> list[dict[str, Any]]:
    out = []
    for _ in range(draw(st.integers(1, 6))):
        out.append({"broken": draw(st.dictionaries(st.sampled_from(FIELDS), JUNK, max_size=2)),
                    "dropped": draw(st.lists(st.sampled_from(FIELDS), max_size=2)),
                    "title": draw(st.text(min_size=1, max_size=20)),
                    "done": draw(st.booleans())})
    return out


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(spec=tasks())
def test_every_served_task_lands_or_is_named(spec: list[dict[str, Any]],
                                             tmp_path_factory: pytest.TempPathFactory,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(TOKEN_ENV, raising=False)
    fake = FakeTodoist()
    with serving(fake):
        served = []
        for s in spec:
            item = fake.add_task(s["title"], labels=("story",))
            if s["done"]:
                item = fake.complete(item["id"])
            item.update(s["broken"])
            for key in s["dropped"]:
                item.pop(key, None)
            served.append(item)
        engine = todoist_instance(tmp_path_factory.mktemp("prop"), fake.api_url)
        engine.sync()
        named = {p["path"] for p in engine.check()["problems"] if p.get("source") == "todoist/app"}
        landed = _landed(engine, len(spec))
    for item in served:  # the fake serves every one: open in the sync, completed by window
        assert item["id"] in landed or f"tasks/{item['id']}" in named, item


def _landed(engine: Any, count: int) -> set[str]:
    """The Todoist ids of the tasks CONTEXT holds (numbered 1..count at most)."""
    from revetly_core.refusal import Refusal

    out = set()
    for n in range(1, count + 1):
        try:
            out.add(engine.get_artifact(f"TD-{n}", history_after="")["metadata"]["task_id"])
        except Refusal:
            continue
    return out
