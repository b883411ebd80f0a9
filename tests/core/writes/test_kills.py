"""Writes under kill -9: every crash point of every write kind, in real (forked) processes,
and a bounded number of random kills; each time the next sync finishes or rolls back what
the kill left, and history, review records and CONTEXT agree with nothing applied twice."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import pytest

import tests.core.writes.kill_harness as kh

BEFORE_INTENT = ("intent-temp-written",)
"""Points a write dies at before its intent is durable: nothing may land."""
RANDOM_KILLS = 3
"""Random kills per kind in the suite; bench/bench_kills.py runs 25 and more."""


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = kh.seed_template(tmp_path_factory.mktemp("kill") / "acme")
    kh.mark_template(root)
    return root


@pytest.fixture(scope="module")
def server() -> Iterator[kh.KillServer]:
    srv = kh.KillServer()
    yield srv
    srv.close()


MATRIX = [(kind, point) for kind in kh.KINDS for point in kh.points_for(kind)]


@pytest.mark.parametrize(("kind", "point"), MATRIX, ids=[f"{k}@{p}" for k, p in MATRIX])
def test_a_kill_at_each_point_is_finished_once_or_left_undone(
        template: Path, server: kh.KillServer, tmp_path: Path, kind: str, point: str) -> None:
    root = kh.fresh_copy(template, tmp_path / "acme")
    assert server.run(root, kind, point) == 86  # died at the armed point
    out = kh.settle(root, kind, point)
    assert out.problems == []
    expected = 0 if point in BEFORE_INTENT else 1
    assert out.applied == expected
    if point in BEFORE_INTENT or point == "intent-cleared":
        assert out.recovered == []  # nothing was left to settle
    else:
        assert [r["outcome"] for r in out.recovered] == ["completed"]
        assert out.recovered[0]["kind"] == kind
    if out.applied == 0:
        again = kh.retry(root, kind)
        assert again.problems == [] and again.applied == 1


@pytest.mark.parametrize("kind", kh.KINDS)
def test_random_kills_never_apply_twice_or_leave_residue(
        template: Path, server: kh.KillServer, tmp_path: Path, kind: str) -> None:
    rng = random.Random(f"kills-{kind}")
    whole = server.time(kh.fresh_copy(template, tmp_path / "timing"), kind)
    flight = server.flight_time(template, tmp_path, kind)
    for n in range(RANDOM_KILLS):  # the first anywhere in the call, the others in flight
        root = kh.fresh_copy(template, tmp_path / f"acme-{n}")
        if n == 0:
            server.kill(root, kind, rng.uniform(0, 1.5 * whole))
        else:
            server.kill_in_flight(root, kind, flight * rng.random() ** 2)
        out = kh.settle(root, kind, None)
        assert out.problems == [] and out.applied in (0, 1)
        if out.applied == 0:
            again = kh.retry(root, kind)
            assert again.problems == [] and again.applied == 1


def test_an_unarmed_write_leaves_no_intent(template: Path, server: kh.KillServer,
                                           tmp_path: Path) -> None:
    root = kh.fresh_copy(template, tmp_path / "acme")
    assert server.run(root, "note", None) == 0
    out = kh.settle(root, "note", None)
    assert out.problems == [] and out.applied == 1 and out.recovered == []
