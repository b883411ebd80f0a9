"""Property: any issue the fake serves either lands in CONTEXT or is named by check."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.core.connectors.github_instance import TOKEN_ENV, github_instance
from tests.support.fake_github import FakeGitHub, serving

JUNK = st.one_of(st.none(), st.integers(), st.text(max_size=8), st.lists(st.integers(), max_size=2),
                 st.dictionaries(st.text(max_size=3), st.integers(), max_size=2), st.booleans())
FIELDS = ("title", "body", "state", "state_reason", "labels", "assignees", "milestone", "type",
          "created_at", "updated_at", "parent_issue_url", "user", "html_url")


@st.composite
def issues(draw: st.DrawFn) -> list[tuple[int, dict[str, Any]]]:
    count = draw(st.integers(1, 6))
    out = []
    for n in range(1, count + 1):
        broken = draw(st.dictionaries(st.sampled_from(FIELDS), JUNK, max_size=2))
        dropped = draw(st.lists(st.sampled_from(FIELDS), max_size=2))
        text = draw(st.text(min_size=1, max_size=20))
        out.append((n, {"broken": broken, "dropped": dropped, "title": text}))
    return out


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(spec=issues())
def test_every_served_issue_lands_or_is_named(spec: list[tuple[int, dict[str, Any]]],
                                              tmp_path_factory: pytest.TempPathFactory,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(TOKEN_ENV, raising=False)
    fake = FakeGitHub()
    with serving(fake):
        for n, s in spec:
            item = fake.add_issue(n, s["title"], labels=("story",))
            item.update(s["broken"])
            for key in s["dropped"]:
                item.pop(key, None)
        engine = github_instance(tmp_path_factory.mktemp("prop"), fake.url)
        engine.sync()
        named = {p["path"] for p in engine.check()["problems"] if p.get("source") == "github/app"}
        for n, _ in spec:
            if f"issues/{n}" in named:
                continue
            assert engine.get_artifact(f"GH-{n}")["artifact_id"] == f"GH-{n}"
