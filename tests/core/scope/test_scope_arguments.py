"""Bad input to the scope reads: every one a refusal with code, detail and fix."""

from __future__ import annotations

from typing import Any

import pytest
from revetly_core.refusal import Refusal
from revetly_core.scope.arguments import Window, check_window, parse_when

from tests.core.scope.corpus import Corpus


def refused(corpus: Corpus, question: str = "binding", **kw: Any) -> Refusal:
    with pytest.raises(Refusal) as caught:
        corpus.engine().get_scope(question, **kw)
    refusal = caught.value
    assert refusal.code and refusal.detail and refusal.fix
    return refusal


def test_several_of_artifact_id_topic_and_path_are_refused(corpus: Corpus) -> None:
    assert refused(corpus, artifact_id="STORY-0003", topic="ledger").code == "invalid-argument"
    assert refused(corpus, topic="ledger", path="src/app/csv_export.py").extra["argument"] == "path"


def test_an_unknown_question_is_refused(corpus: Corpus) -> None:
    assert refused(corpus, "conflicts", artifact_id="STORY-0003").code == "unknown-question"


def test_a_window_ending_before_it_starts_is_refused(corpus: Corpus) -> None:
    assert refused(corpus, "deltas", since="2025-03-01", until="2025-02-01").code == "invalid-window"


def test_an_invalid_clock_is_refused(corpus: Corpus) -> None:
    assert refused(corpus, "deltas", clock="wall").code == "invalid-clock"


def test_a_malformed_date_is_refused(corpus: Corpus) -> None:
    assert refused(corpus, "drift", since="last tuesday").extra["argument"] == "since"


def test_binding_without_a_scope_is_refused(corpus: Corpus) -> None:
    assert refused(corpus).code == "no-scope"


def test_an_unknown_artifact_is_refused(corpus: Corpus) -> None:
    assert refused(corpus, artifact_id="STORY-9999").code == "not-found"


def test_a_hostile_id_is_refused(corpus: Corpus) -> None:
    assert refused(corpus, artifact_id="'; DROP TABLE artifacts; --").code == "invalid-argument"


def test_a_window_on_binding_is_refused(corpus: Corpus) -> None:
    assert refused(corpus, artifact_id="STORY-0003", since="2025-01-01").extra["argument"] == "since"


def test_drift_and_deltas_take_no_topic_or_path(corpus: Corpus) -> None:
    assert refused(corpus, "drift", topic="ledger").extra["argument"] == "topic"
    assert refused(corpus, "deltas", path="src/x.py").extra["argument"] == "path"


def test_a_limit_out_of_range_is_refused(corpus: Corpus) -> None:
    assert refused(corpus, artifact_id="STORY-0003", limit=0).extra["argument"] == "limit"


def test_an_empty_authoring_topic_is_refused(corpus: Corpus) -> None:
    with pytest.raises(Refusal) as caught:
        corpus.engine().get_authoring_context("  ")
    assert caught.value.extra["argument"] == "topic"


def test_a_date_is_midnight_utc_and_the_window_is_half_open() -> None:
    window = check_window("2025-01-01", "2025-01-02")
    assert window.holds("2025-01-01T00:00:00+00:00")
    assert window.holds("2025-01-01")
    assert not window.holds("2025-01-02T00:00:00+00:00")
    assert not window.holds(None)
    assert parse_when("since", None) is None
    assert Window(None, None).bounded is False


def test_path_does_not_combine_with_depth(corpus: Corpus) -> None:
    assert refused(corpus, path="src/app/csv_export.py", depth=1).extra["argument"] == "depth"


def test_a_negative_depth_is_refused(corpus: Corpus) -> None:
    assert refused(corpus, artifact_id="STORY-0003", depth=-1).extra["argument"] == "depth"
