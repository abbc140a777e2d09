"""``Background``: a pool's threads for the work nobody waits on (connecting, closing,
checking idle connections) and its timers (backoff, expiry)."""

from __future__ import annotations

import heapq
import itertools
import logging
import queue
import threading
import time
from collections.abc import Callable

__all__ = ["Background"]

log = logging.getLogger("fastodbc.pool")

Job = Callable[[], None]
_STOP = object()


class Background:
    """``workers`` threads running jobs in order of submission, and one timer thread."""

    def __init__(self, name: str, workers: int) -> None:
        self._name = name
        self._jobs: queue.SimpleQueue[object] = queue.SimpleQueue()
        self._timers: list[tuple[float, int, Job]] = []
        self._seq = itertools.count()
        self._cond = threading.Condition()
        self._stopped = False
        self._threads = [
            threading.Thread(target=self._work, name=f"{name}-worker-{i}", daemon=True) for i in range(workers)
        ]
        self._threads.append(threading.Thread(target=self._tick, name=f"{name}-timer", daemon=True))
        for t in self._threads:
            t.start()

    def soon(self, job: Job) -> None:
        if not self._stopped:
            self._jobs.put(job)

    def later(self, delay: float, job: Job) -> None:
        with self._cond:
            if self._stopped:
                return
            heapq.heappush(self._timers, (time.monotonic() + delay, next(self._seq), job))
            self._cond.notify()

    def stop(self, timeout: float) -> None:
        """Stops taking work, lets the jobs queued finish (up to ``timeout`` seconds)."""
        with self._cond:
            self._stopped = True
            self._timers.clear()
            self._cond.notify()
        workers = self._threads[:-1]
        for _ in workers:
            self._jobs.put(_STOP)
        deadline = time.monotonic() + timeout
        me = threading.current_thread()
        for t in self._threads:
            if t is not me:
                t.join(max(0.0, deadline - time.monotonic()))

    def _work(self) -> None:
        while True:
            job = self._jobs.get()
            if job is _STOP:
                return
            try:
                job()  # type: ignore[operator]
            except Exception:
                log.exception("%s: background job failed", self._name)
            del job  # a job's slot (its connection) must not live on until the next job

    def _tick(self) -> None:
        with self._cond:
            while not self._stopped:
                now = time.monotonic()
                while self._timers and self._timers[0][0] <= now:
                    _, _, job = heapq.heappop(self._timers)
                    self._jobs.put(job)
                wait = self._timers[0][0] - now if self._timers else None
                self._cond.wait(wait)
