"""Property: any work item the fake serves either lands in CONTEXT or is named by check."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.core.connectors.azure_devops_instance import TOKEN_ENV, azure_devops_instance
from tests.support.fake_azure_devops import FakeAzureDevOps, serving

JUNK = st.one_of(st.none(), st.integers(), st.text(max_size=8), st.lists(st.integers(), max_size=2),
                 st.dictionaries(st.text(max_size=3), st.integers(), max_size=2), st.booleans())
FIELDS = ("System.Title", "System.WorkItemType", "System.State", "System.Description",
          "System.Tags", "System.AssignedTo", "System.CreatedDate", "System.ChangedDate",
          "System.AreaPath", "System.CreatedBy")
TOP = ("fields", "relations", "rev", "url")
TYPES = ("User Story", "Bug", "Epic", "Issue", "Test Plan")


@st.composite
def work_items(draw: st.DrawFn) -> list[tuple[int, dict[str, Any]]]:
    count = draw(st.integers(1, 6))
    out = []
    for n in range(1, count + 1):
        out.append((n, {
            "type": draw(st.sampled_from(TYPES)),
            "title": draw(st.text(min_size=1, max_size=20)),
            "broken": draw(st.dictionaries(st.sampled_from(FIELDS), JUNK, max_size=2)),
            "dropped": draw(st.lists(st.sampled_from(FIELDS), max_size=2)),
            "top": draw(st.dictionaries(st.sampled_from(TOP), JUNK, max_size=1)),
            "parent": draw(st.one_of(st.none(), st.integers(1, 8)))}))
    return out


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(spec=work_items())
def test_every_served_work_item_lands_or_is_named(spec: list[tuple[int, dict[str, Any]]],
                                                  tmp_path_factory: pytest.TempPathFactory,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(TOKEN_ENV, raising=False)
    fake = FakeAzureDevOps()
    with serving(fake):
        for n, s in spec:
            fake.add_item(n, s["title"], work_item_type=s["type"], parent=s["parent"],
                          state=fake.states[s["type"]][0][0])
            item = fake.items[n]
            item.fields.update(s["broken"])
            for key in s["dropped"]:
                item.fields.pop(key, None)
            if s["top"]:
                served = {"id": n, "rev": 1, "fields": dict(item.fields),
                          "relations": list(item.relations), **s["top"]}
                fake.served[n] = served
        engine = azure_devops_instance(tmp_path_factory.mktemp("prop"), fake.url)
        engine.sync()
        named = {p["path"] for p in engine.check()["problems"]
                 if p.get("source") == "azure-devops/web"}
        for n, _ in spec:
            if f"workitems/{n}" in named:
                continue
            assert engine.get_artifact(f"ADO-{n}")["artifact_id"] == f"ADO-{n}"
