"""The server's one core thread: anyio's worker-thread semantics at a smaller cost per call."""

from __future__ import annotations

import contextvars
import itertools
import threading
import time

import anyio
import pytest
from revetly_mcp.core_worker import CoreWorker

from revetly_mcp import core_worker

pytestmark = pytest.mark.anyio

CALLER = contextvars.ContextVar[str]("caller", default="nobody")


async def test_the_call_runs_in_another_thread_and_its_value_comes_back() -> None:
    worker = CoreWorker()
    ran_in = await worker.run(threading.get_ident)
    assert ran_in != threading.get_ident()
    assert await worker.run(lambda: {"answer": 42}) == {"answer": 42}


async def test_calls_run_one_at_a_time_in_the_order_they_came() -> None:
    worker = CoreWorker()
    spans: list[tuple[int, float, float]] = []

    def call(n: int) -> int:
        start = time.perf_counter()
        time.sleep(0.01)
        spans.append((n, start, time.perf_counter()))
        return n

    results: list[int] = []

    async def ask(n: int) -> None:
        results.append(await worker.run(lambda: call(n)))

    async with anyio.create_task_group() as group:
        for n in range(5):
            group.start_soon(ask, n)
            await anyio.sleep(0)  # each task submits before the next starts
    assert [n for n, _, _ in spans] == [0, 1, 2, 3, 4]
    assert sorted(results) == [0, 1, 2, 3, 4]
    for (_, _, end), (_, start, _) in itertools.pairwise(spans):
        assert end <= start  # no two calls overlapped


async def test_the_call_sees_the_callers_context_variables() -> None:
    worker = CoreWorker()
    token = CALLER.set("alice")
    try:
        assert await worker.run(CALLER.get) == "alice"
    finally:
        CALLER.reset(token)
    assert await worker.run(CALLER.get) == "nobody"


async def test_an_exception_of_the_call_is_raised_to_the_caller() -> None:
    worker = CoreWorker()

    def fails() -> None:
        raise ValueError("no such artifact")

    with pytest.raises(ValueError, match="no such artifact"):
        await worker.run(fails)
    assert await worker.run(lambda: "still serving") == "still serving"


async def test_a_cancelled_caller_waits_until_its_call_has_finished() -> None:
    worker = CoreWorker()
    started, release = threading.Event(), threading.Event()
    finished: list[bool] = []
    seen_at_cancel: list[bool] = []

    def long_call() -> None:
        started.set()
        release.wait(10)
        finished.append(True)

    async def caller() -> None:
        try:
            await worker.run(long_call)
        finally:
            seen_at_cancel.append(bool(finished))

    async with anyio.create_task_group() as group:
        group.start_soon(caller)
        await anyio.to_thread.run_sync(started.wait, 10)
        group.cancel_scope.cancel()
        await anyio.sleep(0.05)
        assert not seen_at_cancel  # still waiting for the call, as anyio's run_sync does
        release.set()
    assert seen_at_cancel == [True]


async def test_the_loop_keeps_serving_while_a_long_call_runs() -> None:
    worker = CoreWorker()
    release = threading.Event()
    pinged: list[str] = []

    async def ping() -> None:
        await anyio.sleep(0.01)
        pinged.append("pong")
        release.set()  # answered while the long call still holds the worker

    async with anyio.create_task_group() as group:
        group.start_soon(ping)
        assert await worker.run(lambda: release.wait(10)) is True
    assert pinged == ["pong"]


async def test_the_thread_ends_when_idle_and_the_next_call_starts_another(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(core_worker, "IDLE_S", 0.05)
    worker = CoreWorker()
    first = await worker.run(threading.get_ident)
    assert worker.alive()
    for _ in range(200):
        if not worker.alive():
            break
        await anyio.sleep(0.01)
    assert not worker.alive()
    second = await worker.run(threading.get_ident)
    assert second != threading.get_ident()
    assert first != threading.get_ident()


async def test_one_worker_serves_callers_of_two_loops_in_turn() -> None:
    worker = CoreWorker()
    assert await worker.run(lambda: 1) == 1
    other: list[int] = []

    def another_loop() -> None:
        async def ask() -> None:
            other.append(await worker.run(lambda: 2))
        anyio.run(ask)

    await anyio.to_thread.run_sync(another_loop)
    assert other == [2]


async def test_without_an_asyncio_loop_the_call_goes_to_anyios_worker_thread(
        monkeypatch: pytest.MonkeyPatch) -> None:
    worker = CoreWorker()
    monkeypatch.setattr(core_worker, "asyncio_loop", lambda: None)  # as under trio
    token = CALLER.set("bob")
    try:
        ran_in, caller = await worker.run(lambda: (threading.get_ident(), CALLER.get()))
    finally:
        CALLER.reset(token)
    assert ran_in != threading.get_ident() and caller == "bob"
    assert not worker.alive()  # the kept thread was never started
