"""A request for a connection, and the two ways of waiting for one.

Whoever frees a connection offers it to the oldest waiter; the waiter may give up (timeout,
task cancelled) at the same moment. The claim is settled under the waiter's own lock: either
the offer lands and the requester owns the connection, or the requester is gone and the offer
fails, so the connection goes to the next waiter or back to the pool. A connection is never
handed to a requester that stopped waiting, and never lost.
"""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

from .errors import PoolTimeout
from .slot import Slot

__all__ = ["FutureWaiter", "ThreadWaiter", "Waiter"]

_PENDING, _SETTLED, _GONE = range(3)


class Waiter:
    """One request's claim on the next free connection."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._state = _PENDING
        self._slot: Slot | None = None
        self._error: BaseException | None = None
        self.queued = time.monotonic()

    def offer(self, slot: Slot) -> bool:
        """Hands ``slot`` over; false if the requester is gone (the slot stays the caller's)."""
        return self._settle(slot, None)

    def fail(self, error: BaseException) -> bool:
        return self._settle(None, error)

    def _settle(self, slot: Slot | None, error: BaseException | None) -> bool:
        with self._lock:
            if self._state != _PENDING:
                return False
            self._state, self._slot, self._error = _SETTLED, slot, error
            if self._wake():
                return True
            self._state, self._slot, self._error = _GONE, None, None
            return False

    def withdraw(self) -> Slot | None:
        """The requester stops waiting: the slot offered meanwhile (now the requester's), or
        None; raises the error it was failed with."""
        with self._lock:
            if self._state == _PENDING:
                self._state = _GONE
                return None
            if self._error is not None:
                raise self._error
            return self._slot

    def _wake(self) -> bool:
        """Tells the requester; false if it can't be told (its event loop is closed)."""
        raise NotImplementedError


class ThreadWaiter(Waiter):
    """Waited for by a thread (``ConnectionPool.getconn``)."""

    def __init__(self) -> None:
        super().__init__()
        self._event = threading.Event()

    def _wake(self) -> bool:
        self._event.set()
        return True

    def wait(self, deadline: float, timeout: float) -> Slot:
        self._event.wait(max(0.0, deadline - time.monotonic()))
        slot = self.withdraw()
        if slot is None:
            raise PoolTimeout(f"couldn't get a connection after {timeout:.2f} sec")
        return slot


class FutureWaiter(Waiter):
    """Waited for by an asyncio task (``AsyncConnectionPool.getconn``): the event loop never
    blocks on the pool's lock while another thread holds it across a driver call."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__()
        self._loop = loop
        self._future: asyncio.Future[None] = loop.create_future()

    def _wake(self) -> bool:
        try:
            self._loop.call_soon_threadsafe(_resolve, self._future)
        except RuntimeError:  # the loop is closed: nobody will take this slot
            return False
        return True

    async def wait(self, deadline: float, timeout: float) -> Slot:
        """The slot, or ``PoolTimeout`` at the deadline. Cancelled, it takes no slot: one
        offered meanwhile is given back by the caller (``withdraw`` in its cleanup)."""
        try:
            await asyncio.wait_for(asyncio.shield(self._future), max(0.0, deadline - time.monotonic()))
        except asyncio.TimeoutError:
            pass
        slot = self.withdraw()
        if slot is None:
            raise PoolTimeout(f"couldn't get a connection after {timeout:.2f} sec")
        return slot


def _resolve(future: asyncio.Future[Any]) -> None:
    if not future.done():
        future.set_result(None)
