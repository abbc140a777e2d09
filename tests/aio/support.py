"""Helpers of the asyncio tests: running a coroutine, an async connection closed after use, and
a ticker measuring how long the event loop was kept from running."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, TypeVar

import fastodbc.aio
from interpreter import FREE_THREADED_BUILD

T = TypeVar("T")

#: How late a 1 ms timer may fire while the driver works on the connection's thread: the loop
#: is never kept waiting on the driver. Generous for a loaded 2-core machine; a loop blocked
#: by a statement or a fetch is late by the statement's or the fetch's whole time (seconds).
LOOP_LAG_LIMIT_S = 0.1

#: How long a cancelled statement may take to end the awaiting task: SQLCancel's round trip,
#: well under the connection's cancel_timeout (5 s) and the statements' own 30 s.
CANCEL_PROMPT_S = 4.0


#: A free-threaded CPython's collections are full ones that stop every thread, the loop's
#: included: 40-150 ms each over this suite's heap, whoever allocated. They are the
#: interpreter's pauses, not a wait on the driver, so there the measures below leave them out
#: (with a GIL they count, as before).
_collector = {"since": 0.0, "total": 0.0}


def _on_collection(phase: str, info: dict[str, Any]) -> None:
    now = time.perf_counter()
    if phase == "start":
        _collector["since"] = now
    else:
        _collector["total"] += now - _collector["since"]


if FREE_THREADED_BUILD:
    gc.callbacks.append(_on_collection)


def collector_seconds() -> float:
    """Seconds the free-threaded collector has stopped the world so far (0 with a GIL)."""
    return _collector["total"]


def run(main: Callable[[], Awaitable[T]] | Awaitable[T], timeout: float = 100.0) -> T:
    """Runs a coroutine (or a coroutine function) on a new event loop, bounded by ``timeout``."""

    async def bounded() -> T:
        coro = main() if callable(main) else main
        return await asyncio.wait_for(coro, timeout)

    return asyncio.run(bounded())


@contextlib.asynccontextmanager
async def opened(connstr: str, **kwargs: Any) -> AsyncIterator[fastodbc.aio.AsyncConnection]:
    """``await fastodbc.aio.connect(connstr, **kwargs)``, closed at the end."""
    cnxn = await fastodbc.aio.connect(connstr, **kwargs)
    try:
        yield cnxn
    finally:
        await cnxn.close()


class Ticker:
    """``async with Ticker() as ticker:`` a task sleeping 1 ms at a time notes how late each
    wake-up is: ``ticker.max_lag`` (seconds) and ``ticker.ticks``."""

    def __init__(self, period: float = 0.001) -> None:
        self.period = period
        self.max_lag = 0.0
        self.ticks = 0
        self.started = 0.0
        self.elapsed = 0.0
        self._task: asyncio.Task | None = None

    async def _run(self) -> None:
        while True:
            before, collected = time.perf_counter(), collector_seconds()
            await asyncio.sleep(self.period)
            lag = time.perf_counter() - before - self.period - (collector_seconds() - collected)
            self.max_lag = max(self.max_lag, lag)
            self.ticks += 1

    async def __aenter__(self) -> Ticker:
        self.started = time.perf_counter()
        self._task = asyncio.create_task(self._run())
        await asyncio.sleep(0)  # the ticker's first sleep begins now
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._task is not None
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task
        self.elapsed = time.perf_counter() - self.started

    def assert_never_blocked(self, what: str) -> None:
        assert self.max_lag < LOOP_LAG_LIMIT_S, f"{what}: the event loop waited {self.max_lag * 1000:.0f} ms"
        # At least a tick every 10 ms on average: the ticker really ran all along.
        assert self.ticks >= self.elapsed / 0.01, f"{what}: {self.ticks} ticks in {self.elapsed:.2f} s"


async def wait_for_condition(condition: Callable[[], Any], timeout: float, what: str) -> Any:
    """Polls ``condition`` (a plain function) on the loop until it is true."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        assert time.monotonic() < deadline, f"not within {timeout} s: {what}"
        await asyncio.sleep(0.01)
