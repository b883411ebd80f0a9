"""The one thread that runs core calls for a server, kept between calls.

`anyio.to_thread.run_sync` under a `CapacityLimiter(1)` costs ~0.09 ms of CPU and ~0.2 ms of
wall per call on this machine (the limiter, a cancel scope, the worker pool's bookkeeping, the
future it resolves), against ~0.03 / ~0.07 ms for handing the call to a thread that waits on a
queue (bench/README.md, decisions/0038). The semantics are anyio's: calls run one at a time in
the order they came, each in a copy of the caller's context (the served endpoint reads the
verified token from a context variable inside the call), and a cancelled caller still waits for
its call to finish, so nothing a call holds outlives the request that made it. The thread ends
after `IDLE_S` without work and the next call starts another, so a server that is dropped leaves
no thread behind.
"""

from __future__ import annotations

import asyncio
import contextvars
import queue
import threading
from collections.abc import Callable
from contextlib import suppress
from typing import Any, TypeVar

import anyio
import anyio.to_thread

T = TypeVar("T")

IDLE_S = 10.0
"""Seconds the thread waits for the next call before it ends (anyio's own workers wait 10 s)."""

_Job = tuple[contextvars.Context, Callable[[], Any], asyncio.AbstractEventLoop, "asyncio.Future[Any]"]


def settle(future: asyncio.Future[Any], value: Any, error: BaseException | None) -> None:
    """Resolve a call's future on its loop with the call's value or its exception."""
    if future.done():
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(value)


def asyncio_loop() -> asyncio.AbstractEventLoop | None:
    """The running asyncio loop, or None where the caller runs on another backend (trio)."""
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


class CoreWorker:
    """Runs callables one at a time in a thread of its own, awaited from an asyncio loop."""

    def __init__(self, name: str = "revetly-core") -> None:
        self.name = name
        self._jobs: queue.SimpleQueue[_Job] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._running = False
        self._fallback = anyio.CapacityLimiter(1)

    async def run(self, call: Callable[[], T]) -> T:
        """The call's value, computed in the worker thread; the caller's cancellation waits
        until the call has finished. Outside asyncio (trio) it is anyio's worker thread, still
        one call at a time."""
        loop = asyncio_loop()
        if loop is None:
            return await anyio.to_thread.run_sync(call, limiter=self._fallback)
        future: asyncio.Future[T] = loop.create_future()
        self._submit((contextvars.copy_context(), call, loop, future))
        with anyio.CancelScope(shield=True):
            value = await future
        return value

    def alive(self) -> bool:
        """Whether the thread is running now (it ends after IDLE_S without work)."""
        with self._lock:
            return self._running

    def _submit(self, job: _Job) -> None:
        with self._lock:
            self._jobs.put(job)
            if not self._running:
                self._running = True
                threading.Thread(target=self._work, name=self.name, daemon=True).start()

    def _work(self) -> None:
        while True:
            try:
                context, call, loop, future = self._jobs.get(timeout=IDLE_S)
            except queue.Empty:
                with self._lock:
                    if self._jobs.empty():
                        self._running = False
                        return
                continue
            try:
                value, error = context.run(call), None
            except BaseException as exc:  # handed to the caller, as anyio does
                value, error = None, exc
            with suppress(RuntimeError):  # the caller's loop closed: nobody awaits the answer
                loop.call_soon_threadsafe(settle, future, value, error)
            del context, call, loop, future, value, error
