"""Property: whatever fails on the way, once a call goes through clean the tracker holds the
last status, one claim comment at most, and one delivery note per delivery record."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.core.connectors.github_instance import TOKEN, TOKEN_ENV, github_instance
from tests.core.writeback.conftest import STORY_BODY, delivery_files
from tests.support.fake_github import FakeGitHub, serving

ISSUE1 = "/repos/acme/app/issues/1"
FAULTS = {
    "none": None,
    "patch-5xx": {"path": ISSUE1, "method": "PATCH", "status": 503},
    "post-lost": {"path": f"{ISSUE1}/comments", "method": "POST", "disconnect": True,
                  "apply_first": True},
    "post-dropped": {"path": f"{ISSUE1}/comments", "method": "POST", "disconnect": True},
    "list-5xx": {"path": f"{ISSUE1}/comments", "method": "GET", "status": 500},
}
STEPS = st.lists(st.tuples(st.sampled_from([("in-progress", "a"), ("in-progress", "b"),
                                            ("done", None), ("ready", None)]),
                           st.sampled_from(sorted(FAULTS))), min_size=1, max_size=4)
EXPECTED_STATE = {"in-progress": "open", "ready": "open", "done": "closed"}


def _call(engine: object, status: str, who: str | None) -> dict[str, object]:
    kwargs: dict[str, object] = {}
    if status == "in-progress":
        kwargs = {"claimed_by": who, "reason": "taking it over"}
    elif status == "done":
        kwargs = {"verdicts": ["met", "met"]}
    return engine.set_status("GH-1", status, **kwargs)  # type: ignore[attr-defined, no-any-return]


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(STEPS)
def test_a_clean_call_after_any_failures_leaves_the_tracker_whole(
        steps: list[tuple[tuple[str, str | None], str]]) -> None:
    saved = dict(os.environ)
    os.environ.update({TOKEN_ENV: TOKEN, "REVETLY_ACTOR": "Dana Reyes"})
    os.environ.pop("REVETLY_CRASH_AT", None)
    try:
        fake = FakeGitHub()
        with serving(fake), tempfile.TemporaryDirectory() as tmp:
            fake.add_issue(1, "Offline sync", labels=("story",), body=STORY_BODY)
            engine = github_instance(Path(tmp), fake.url)
            engine.capture_mode = "none"
            engine.sync()
            for (status, who), fault in steps:
                if FAULTS[fault] is not None:
                    fake.fail(**FAULTS[fault])  # type: ignore[arg-type]
                _call(engine, status, who)
                fake.faults.clear()
            (status, who), _ = steps[-1]
            last = _call(engine, status, who)
            assert last["writeback"]["not_landed"] == []  # type: ignore[index]
            assert fake.items[1]["state"] == EXPECTED_STATE[status]
            assert ("in-progress" in fake.label_names(1)) == (status == "in-progress")
            bodies = [str(c["body"]) for c in fake.comments_on(1)]
            assert sum("revetly:claim GH-1" in b for b in bodies) <= 1
            notes = sorted(b.split("revetly:delivery ")[1].split(" ")[0] for b in bodies
                           if "revetly:delivery" in b)
            assert notes == [Path(f).stem for f in delivery_files(engine)]
    finally:
        os.environ.clear()
        os.environ.update(saved)
