"""``PoolCore``: the pool's state and rules, shared by ``ConnectionPool`` and
``fastodbc.aio.AsyncConnectionPool``.

Every state change happens under one lock that is never held across a driver call: connecting,
closing and checking run on the pool's background threads or in the requester's own context,
with the slot out of the idle list while they run.
"""

from __future__ import annotations

import asyncio
import logging
import os
import random
import threading
import time
import weakref
from collections import deque
from collections.abc import Callable
from functools import partial
from typing import Any, Protocol

from ..connection import Connection
from ..errors import ProgrammingError
from .background import Background
from .errors import PoolClosed, PoolTimeout, TooManyRequests
from .slot import Slot
from .steps import CommitFailure, checkout_steps, configure_steps, return_steps, run_blocking
from .waiter import Waiter

__all__ = ["STAT_COUNTERS", "Front", "PoolCore", "PoolTimeout"]

log = logging.getLogger("fastodbc.pool")

STAT_COUNTERS = (
    "requests_num",
    "requests_queued",
    "requests_wait_ms",
    "requests_errors",
    "usage_ms",
    "returns_bad",
    "connections_num",
    "connections_ms",
    "connections_errors",
    "connections_lost",
)

# Backoff between failed connection attempts: doubling from 1 s up to a minute, jittered so
# many pools don't reconnect in step.
_BACKOFF_FIRST, _BACKOFF_MAX, _JITTER = 1.0, 60.0, 0.1


class Front(Protocol):
    """What differs between the thread and the asyncio pool: what a user gets for a native
    connection, and how it is closed from a background thread."""

    loop: asyncio.AbstractEventLoop | None

    def wrap(self, raw: Connection) -> Any: ...

    def close(self, slot: Slot) -> None: ...

    def driver(self, slot: Slot) -> Callable[..., Any] | None:
        """How a background thread makes a driver call on ``slot`` (None: where it is)."""
        ...


_CORES: weakref.WeakSet[PoolCore] = weakref.WeakSet()


def _after_fork_in_child() -> None:
    for core in list(_CORES):
        core.after_fork()


os.register_at_fork(after_in_child=_after_fork_in_child)


class PoolCore:
    """The connections of one pool, who waits for them, and the background work."""

    def __init__(
        self,
        front: Front,
        owner: Any,
        *,
        connect: Callable[[], Connection],
        min_size: int,
        max_size: int | None,
        timeout: float,
        max_waiting: int,
        max_lifetime: float,
        max_idle: float,
        check_idle_after: float | None,
        reconnect_timeout: float,
        reconnect_failed: Callable[[Any], None] | None,
        check: Callable[[Any], Any] | None,
        configure: Callable[[Any], Any] | None,
        reset: Callable[[Any], Any] | None,
        name: str,
        num_workers: int,
    ) -> None:
        if max_size is None:
            max_size = max(min_size, 1)
        if min_size < 0 or max_size < 1 or max_size < min_size:
            raise ValueError(f"need 0 <= min_size <= max_size and max_size >= 1, got {min_size}, {max_size}")
        if num_workers < 1:
            raise ValueError("num_workers must be at least 1")
        if check_idle_after is not None and not check_idle_after >= 0:
            raise ValueError(f"check_idle_after must be None or >= 0, got {check_idle_after!r}")
        self.front = front
        self._owner = owner
        self._connect_fn = connect
        self.min_size, self.max_size = min_size, max_size
        self.timeout = timeout
        self.max_waiting = max_waiting
        self.max_lifetime = max_lifetime
        self.max_idle = max_idle
        self.check_idle_after = check_idle_after
        self.reconnect_timeout = reconnect_timeout
        self._reconnect_failed = reconnect_failed
        self.check = check
        self.configure = configure
        self.reset = reset
        self.name = name
        self._num_workers = num_workers
        # Entered as the bare lock (a Condition's `with` is a Python-level call); waits and
        # notifications go through the condition on the same lock.
        self._lock = threading.Lock()
        self._cond = threading.Condition(self._lock)
        self._fresh_state()
        self.opened = False
        self.closed = True
        _CORES.add(self)

    def _fresh_state(self) -> None:
        self._idle: deque[Slot] = deque()
        self._out: dict[int, Slot] = {}
        self._waiting: deque[Waiter] = deque()
        self._nconns = 0  # connected or being connected, out or idle
        self._connecting = 0
        self._ready = 0  # connected (idle or out)
        self._generation = 0
        self._gave_up = False
        self._checking_idle = False
        self._bg: Background | None = None
        self._counters = dict.fromkeys(STAT_COUNTERS, 0)
        self._pid = os.getpid()

    # ----------------------------------------------------------------- life cycle

    def open(self) -> None:
        with self._lock:
            if self.opened:
                if self.closed:
                    raise PoolClosed(f"pool {self.name!r} was closed and cannot be opened again")
                return
            self.opened, self.closed = True, False
            self._bg = Background(f"fastodbc-pool-{self.name}", self._num_workers)
            self._grow_locked()
        self._schedule_housekeeping()

    def close(self, timeout: float) -> None:
        """Closes idle connections now, the ones out when they come back."""
        with self._lock:
            if self.closed:
                return
            self.closed = True
            idle = list(self._idle)
            self._idle.clear()
            self._nconns -= len(idle)
            self._ready -= len(idle)
            waiting = list(self._waiting)
            self._waiting.clear()
            bg, self._bg = self._bg, None
            self._cond.notify_all()
        for w in waiting:
            w.fail(PoolClosed(f"pool {self.name!r} is closed"))
        for slot in idle:
            self._close_now(slot)
        if bg is not None:
            bg.stop(timeout)

    def wait(self, timeout: float) -> None:
        """Until ``min_size`` connections are ready; else closes the pool, ``PoolTimeout``."""
        deadline = time.monotonic() + timeout
        with self._lock:
            self._check_open_locked()
            self._running_locked()
            while self._ready < self.min_size:
                left = deadline - time.monotonic()
                if left <= 0 or self.closed:
                    break
                self._cond.wait(left)
            ready = self._ready >= self.min_size
        if not ready:
            # Connection attempts stuck in the driver are not waited for: their threads are
            # daemons, and what they connect is closed as the pool is.
            self.close(0.0)
            raise PoolTimeout(f"pool {self.name!r} initialization incomplete after {timeout:.2f} sec")

    def after_fork(self) -> None:
        """In a forked child: the parent's connections, threads and waiters are not ours. Its
        connections are forgotten unclosed (fastodbc never disconnects a parent's session
        from a child) and the pool starts over at its first use in the child (a child that
        never uses it opens nothing)."""
        self._lock = threading.Lock()
        self._cond = threading.Condition(self._lock)
        opened, closed = self.opened, self.closed
        self._fresh_state()
        self.opened, self.closed = opened, closed

    def _running_locked(self) -> None:
        """Starts the background threads of an open pool that has none (a forked child's)."""
        if self._bg is None and self.opened and not self.closed:
            self._bg = Background(f"fastodbc-pool-{self.name}", self._num_workers)
            self._grow_locked()
            self._bg.later(0.0, self._housekeeping)

    # ----------------------------------------------------------------- checkout and return

    def acquire(self, make_waiter: Callable[[], Waiter]) -> Slot | Waiter:
        """An idle slot (now out), or a waiter queued for the next one."""
        with self._lock:
            self._check_open_locked()
            self._running_locked()
            self._counters["requests_num"] += 1
            now = time.monotonic()
            while self._idle:
                slot = self._idle.pop()  # the most recently used: the others may idle out
                if self._expired(slot, now):
                    self._discard_locked(slot)
                    continue
                # HikariCP's rule: one used within the window is trusted, one idle longer is
                # validated at checkout (a session the server ended meanwhile is not lent).
                after = self.check_idle_after
                slot.stale = slot.suspect or (after is not None and now - slot.returned > after)
                slot.suspect = False
                self._lend_locked(slot, now)
                return slot
            if self.max_waiting and len(self._waiting) >= self.max_waiting:
                self._counters["requests_errors"] += 1
                raise TooManyRequests(f"the pool {self.name!r} has already {len(self._waiting)} requests waiting")
            waiter = make_waiter()
            self._waiting.append(waiter)
            self._counters["requests_queued"] += 1
            self._gave_up = False
            self._grow_locked()
            return waiter

    def waited(self, waiter: Waiter, slot: Slot | None) -> None:
        """A waiter is done: ``slot`` if it got one, None if it timed out or was cancelled."""
        with self._lock:
            try:
                self._waiting.remove(waiter)
            except ValueError:
                pass
            if slot is None:
                self._counters["requests_errors"] += 1
            else:
                self._counters["requests_wait_ms"] += int((time.monotonic() - waiter.queued) * 1000)

    def abandoned(self, waiter: Waiter) -> None:
        """A requester stopped waiting (timed out, interrupted, cancelled): a slot offered to it
        at that moment goes back to the pool unused."""
        try:
            late = waiter.withdraw()
        except Exception:  # failed with PoolClosed meanwhile: nothing was handed over
            late = None
        if late is not None:
            self.unused(late)

    def slot_of(self, conn: Any) -> Slot:
        """The slot of a connection this pool lent out."""
        with self._lock:
            slot = self._out.get(id(conn))
        if slot is None or slot.conn is not conn:
            raise ProgrammingError(f"can't return a connection to pool {self.name!r}: it did not come from it")
        return slot

    def give_back(self, slot: Slot, ok: bool) -> None:
        """A slot back from a user (after ``return_steps``) or from a failed checkout."""
        with self._lock:
            if self._out.pop(id(slot.conn), None) is None:
                return
            now = time.monotonic()
            self._counters["usage_ms"] += int((now - slot.returned) * 1000)
            # (The pool's pid is this process's: after a fork, `after_fork` renews it.)
            keep = ok and not self.closed and slot.pid == self._pid and not self._expired(slot, now)
            if not keep:
                if not ok:
                    self._counters["returns_bad"] += 1
                self._discard_locked(slot)
                if slot.lost:
                    self._lost_locked()
                return
            self._release_locked(slot)

    def unused(self, slot: Slot) -> None:
        """A slot handed to a requester that stopped waiting: back to the pool as it is."""
        with self._lock:
            self._out.pop(id(slot.conn), None)
            if self.closed:
                self._discard_locked(slot)
            else:
                self._release_locked(slot)

    def discard(self, slot: Slot, lost: bool) -> None:
        """A slot out that must not be used again: closed, replaced; if ``lost``, the idle
        ones are checked too (a restarted server has killed them all)."""
        with self._lock:
            self._out.pop(id(slot.conn), None)
            self._discard_locked(slot)
            if lost:
                self._lost_locked()

    def _lost_locked(self) -> None:
        """A connection was found lost: the idle ones are checked (a restarted server has
        killed them all, and a status read can't tell), in the background, and each at its
        next checkout meanwhile, however recently it was used."""
        self._counters["connections_lost"] += 1
        for slot in self._idle:
            slot.suspect = True
        if not self._checking_idle and self._idle and self._bg is not None:
            self._checking_idle = True
            self._bg.soon(self._check_idle_after_loss)

    def read_dead_at_checkout(self, slot: Slot) -> bool:
        # Free reads only; a ping ("probe") is kept for a connection that idled.
        return slot.liveness in ("status", "local")

    def read_dead_at_return(self, slot: Slot) -> bool:
        return slot.liveness == "status"

    def checkout(self, slot: Slot, deadline: float | None = None) -> Any:
        """The steps that decide whether ``slot`` is lent; its validation, if any, given up at
        ``deadline`` (a checkout's: a dead link never holds a caller past its timeout)."""
        return checkout_steps(slot, self.check, self.read_dead_at_checkout(slot), deadline=deadline)

    def returning(self, slot: Slot, commit: CommitFailure | None = None) -> Any:
        return return_steps(slot, self.reset, self.read_dead_at_return(slot), commit)

    # ----------------------------------------------------------------- maintenance

    def check_idle(self) -> None:
        """A round trip (``check``, else ``probe``) on every idle connection, taken out while
        it runs; the ones that fail are replaced."""
        with self._lock:
            slots = list(self._idle)
            self._idle.clear()
            now = time.monotonic()
            for slot in slots:
                self._lend_locked(slot, now)
        for slot in slots:
            deadline = time.monotonic() + self.timeout
            steps = checkout_steps(slot, self.check, self.read_dead_at_checkout(slot), validate=True, deadline=deadline)
            ok = run_blocking(steps, self.front.loop, self.timeout, self.front.driver(slot))
            if ok:
                self.unused(slot)
            else:
                self.discard(slot, lost=False)

    def _check_idle_after_loss(self) -> None:
        try:
            self.check_idle()
        finally:
            with self._lock:
                self._checking_idle = False

    def drain(self) -> None:
        with self._lock:
            self._check_open_locked()
            self._generation += 1
            idle = list(self._idle)
            self._idle.clear()
            for slot in idle:
                self._discard_locked(slot)

    def resize(self, min_size: int, max_size: int | None) -> None:
        if max_size is None:
            max_size = max(min_size, 1)
        if min_size < 0 or max_size < 1 or max_size < min_size:
            raise ValueError(f"need 0 <= min_size <= max_size and max_size >= 1, got {min_size}, {max_size}")
        with self._lock:
            self.min_size, self.max_size = min_size, max_size
            while self._idle and self._nconns > max_size:
                self._discard_locked(self._idle.popleft())
            self._grow_locked()

    def stats(self, reset: bool) -> dict[str, int]:
        with self._lock:
            out = {
                "pool_min": self.min_size,
                "pool_max": self.max_size,
                "pool_size": self._nconns,
                "pool_available": len(self._idle),
                "requests_waiting": len(self._waiting),
                **self._counters,
            }
            if reset:
                self._counters = dict.fromkeys(STAT_COUNTERS, 0)
        return out

    def _schedule_housekeeping(self) -> None:
        interval = min(max(min(self.max_idle, self.max_lifetime) / 4, 0.05), 30.0)
        with self._lock:
            if self._bg is not None:
                self._bg.later(interval, self._housekeeping)

    def _housekeeping(self) -> None:
        with self._lock:
            if self.closed:
                return
            now = time.monotonic()
            for slot in [s for s in self._idle if self._expired(s, now)]:
                self._idle.remove(slot)
                self._discard_locked(slot)
            # The least recently used first: the left end of the idle list.
            while self._idle and self._nconns > self.min_size and now - self._idle[0].returned > self.max_idle:
                self._discard_locked(self._idle.popleft())
            if not self._gave_up:
                self._grow_locked()
        self._schedule_housekeeping()

    # ----------------------------------------------------------------- connecting

    def _grow_locked(self) -> None:
        """Starts connecting up to ``min_size``, and one more per waiter not yet covered."""
        if self.closed or self._bg is None:
            return
        while self._nconns < self.max_size and (
            self._nconns < self.min_size or self._connecting < len(self._waiting)
        ):
            self._nconns += 1
            self._connecting += 1
            self._bg.soon(partial(self._connect, None, _BACKOFF_FIRST))

    def _connect(self, first_failure: float | None, backoff: float) -> None:
        if self.closed:
            with self._lock:
                self._nconns -= 1
                self._connecting -= 1
            return
        start = time.monotonic()
        try:
            slot = self._open_slot()
        except Exception as e:
            self._connect_failed(e, first_failure, backoff)
            return
        with self._lock:
            self._counters["connections_num"] += 1
            self._counters["connections_ms"] += int((time.monotonic() - start) * 1000)
            self._connecting -= 1
            self._ready += 1
            self._gave_up = False
            if self.closed or slot.pid != os.getpid():
                self._nconns -= 1
                self._ready -= 1
                closing = True
            else:
                self._release_locked(slot)
                closing = False
            self._cond.notify_all()  # wait() counts connections made, wherever they went
        if closing:
            self._close_now(slot)

    def _connect_failed(self, error: Exception, first_failure: float | None, backoff: float) -> None:
        now = time.monotonic()
        first = now if first_failure is None else first_failure
        with self._lock:
            self._counters["connections_errors"] += 1
            give_up = self.closed or now - first >= self.reconnect_timeout
            if give_up:
                self._nconns -= 1
                self._connecting -= 1
                self._gave_up = not self.closed
            elif self._bg is not None:
                delay = backoff * random.uniform(1 - _JITTER, 1 + _JITTER)
                self._bg.later(delay, partial(self._connect, first, min(backoff * 2, _BACKOFF_MAX)))
        if not give_up:
            log.warning("pool %r: connection attempt failed, retrying: %s", self.name, error)
        elif not self.closed:
            log.warning("pool %r: reconnection gave up after %.1f s: %s", self.name, now - first, error)
            if self._reconnect_failed is not None:
                try:
                    self._reconnect_failed(self._owner)
                except Exception:
                    log.exception("pool %r: reconnect_failed callback raised", self.name)

    def _open_slot(self) -> Slot:
        raw = self._connect_fn()
        try:
            conn = self.front.wrap(raw)
            slot = Slot(conn, raw, self._generation)
            run_blocking(configure_steps(slot, self.configure), self.front.loop, self.timeout, self.front.driver(slot))
        except BaseException:
            raw.close()
            raise
        return slot

    # ----------------------------------------------------------------- under the lock

    def _check_open_locked(self) -> None:
        if self.closed:
            raise PoolClosed(f"the pool {self.name!r} is {'closed' if self.opened else 'not open yet'}")

    def _expired(self, slot: Slot, now: float) -> bool:
        # Each connection's lifetime is cut by up to 5 %, so those opened together don't all
        # expire together.
        return slot.age(now) > self.max_lifetime * slot.lifetime_share or slot.generation != self._generation

    def _lend_locked(self, slot: Slot, now: float) -> None:
        slot.returned = now
        self._out[id(slot.conn)] = slot

    def _release_locked(self, slot: Slot) -> None:
        """To the oldest waiter still waiting, else idle."""
        now = time.monotonic()
        slot.stale = slot.suspect = False  # handed over as it comes back: just used
        while self._waiting:
            waiter = self._waiting.popleft()
            self._out[id(slot.conn)] = slot
            slot.returned = now
            if waiter.offer(slot):
                return
            del self._out[id(slot.conn)]
        slot.returned = now
        self._idle.append(slot)
        self._cond.notify_all()

    def _discard_locked(self, slot: Slot) -> None:
        self._nconns -= 1
        self._ready -= 1
        self._close_later(slot)
        self._grow_locked()

    def _close_later(self, slot: Slot) -> None:
        if self._bg is not None:
            self._bg.soon(partial(self._close_now, slot))
        else:
            threading.Thread(target=self._close_now, args=(slot,), daemon=True).start()

    def _close_now(self, slot: Slot) -> None:
        if slot.pid != os.getpid():
            return  # the parent's: forgotten, never closed here
        try:
            self.front.close(slot)
        except Exception as e:
            log.info("pool %r: closing a connection failed: %s", self.name, e)
