"""Property: whatever set_status calls and failed remote calls come in whatever order, a work
item carries at most one claim comment and at most one note per delivery record."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.core.connectors.azure_devops_instance import TOKEN, TOKEN_ENV, azure_devops_instance
from tests.support.fake_azure_devops import FakeAzureDevOps, serving

BASE = "/fabrikam/Fabrikam Web/_apis/wit"
CALLS = st.sampled_from([
    ("in-progress", {"claimed_by": "agent-7"}),
    ("in-progress", {"claimed_by": "agent-9", "reason": "taking it over"}),
    ("ready", {}),
    ("done", {"verdicts": ["met"]}),
])
FAULTS = st.sampled_from([
    None,
    {"path": f"{BASE}/workitems/1", "method": "PATCH", "status": 502},
    {"path": f"{BASE}/workItems/1/comments", "method": "POST", "disconnect": True,
     "apply_first": True},
    {"path": f"{BASE}/workItems/1/comments", "method": "GET", "status": 503},
])
MARKER = re.compile(r"<!-- revetly:(claim|delivery) (\S+) -->")


@settings(max_examples=12, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=st.lists(st.tuples(CALLS, FAULTS), min_size=1, max_size=5))
def test_notes_stay_single_under_any_calls_and_failures(
        steps: list[tuple[tuple[str, dict[str, Any]], dict[str, Any] | None]],
        tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TOKEN_ENV, TOKEN)
    monkeypatch.setenv("REVETLY_ACTOR", "Dana Reyes")
    for name in ("REVETLY_INSTANCE", "REVETLY_REVIEWER", "REVETLY_ACTOR_KIND",
                 "REVETLY_SERVICE_IDENTITY", "REVETLY_CRASH_AT"):
        monkeypatch.delenv(name, raising=False)
    fake = FakeAzureDevOps()
    with serving(fake):
        fake.add_item(1, "Offline sync", acceptance_criteria="<ul><li>Edits sync</li></ul>")
        engine = azure_devops_instance(tmp_path_factory.mktemp("prop"), fake.url)
        engine.capture_mode = "none"
        engine.sync()
        for (status, kwargs), fault in steps:
            if fault is not None:
                fake.fail(**fault)
            out = engine.set_status("ADO-1", status, **kwargs)
            assert out["status"] in (status, "refused")
            fake.faults.clear()
            marks = Counter(m.groups() for c in fake.comments_on(1)
                            for m in MARKER.finditer(str(c["text"])))
            assert all(n == 1 for n in marks.values()), marks
            assert sum(1 for kind, _ in marks if kind == "claim") <= 1
