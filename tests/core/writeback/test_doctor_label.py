"""doctor names a GitHub source's in-progress label until the repository has it."""

from __future__ import annotations

from revetly_core.operate.doctor import label_warning

from revetly_core import Engine
from tests.support.fake_github import FakeGitHub


def _label_codes(engine: Engine) -> list[str]:
    return [w["code"] for w in engine.doctor()["warnings"] if "label" in w["code"]]


def test_a_missing_label_is_named_until_it_exists(gh: tuple[Engine, FakeGitHub]) -> None:
    engine, fake = gh
    warning = next(w for w in engine.doctor()["warnings"]
                   if w["code"] == "in-progress-label-missing")
    assert "'in-progress'" in warning["detail"] and "acme/app" in warning["fix"]
    assert fake.requests[-1].path == "/repos/acme/app/labels/in-progress"
    fake.repo_labels.add("in-progress")
    assert _label_codes(engine) == []


def test_a_label_that_cannot_be_looked_up_says_so(gh: tuple[Engine, FakeGitHub]) -> None:
    engine, fake = gh
    fake.fail("/labels/in-progress", status=500)
    assert _label_codes(engine) == ["in-progress-label-unchecked"]


def test_the_label_line_rule() -> None:
    assert label_warning("github/app", "acme/app", "wip", True) is None
    missing = label_warning("github/app", "acme/app", "wip", False)
    assert missing is not None and missing["code"] == "in-progress-label-missing"
