"""A driver call waiting on a dead link stops its own thread only: the process's other threads
keep running (the call releases the GIL). Found by the soak (scripts/soak.py): a cursor freed
on a stalled link froze every thread of the process until the link was cut."""

from __future__ import annotations

import itertools
import threading
import time

import pytest

from .support import GRACE_S

pytestmark = [
    pytest.mark.fastodbc_only(reason="fastodbc's own GIL handling"),
    pytest.mark.timeout(60),
]

STALL_S = 3.0  # then the proxy cuts the link by itself, whatever this process does
TICK_S = 0.05
FROZEN_S = 1.0  # a tick this late: every thread was stopped


class Ticker:
    """A thread noting the time every TICK_S: a long pause between two notes is a time when
    no Python thread could run."""

    def __init__(self) -> None:
        self.ticks: list[float] = []
        self.stop = threading.Event()
        threading.Thread(target=self._run, daemon=True).start()

    def _run(self) -> None:
        while not self.stop.is_set():
            self.ticks.append(time.monotonic())
            time.sleep(TICK_S)

    def longest_gap(self, since: float) -> float:
        self.stop.set()
        ticks = [t for t in self.ticks if t >= since - TICK_S]
        return max((b - a - TICK_S for a, b in itertools.pairwise(ticks)), default=0.0)


@pytest.mark.parametrize("call", ["execute", "cursor-freed"])
def test_a_call_waiting_on_a_dead_link_leaves_the_other_threads_running(
    db, backend, connect, table, fault_proxy, call, request
):
    cnxn = connect(backend.at(fault_proxy.host, fault_proxy.port))
    t = table("id INTEGER")
    holder = [cnxn.cursor()]
    # A prepared statement (executemany prepares), on the server where the driver does so.
    holder[0].executemany(f"INSERT INTO {t} VALUES (?)", [(i,) for i in range(10)])
    fault_proxy.stall(cut_after=STALL_S)
    done = threading.Event()

    def waiting() -> None:
        try:
            if call == "execute":
                holder[0].execute("SELECT ?", 2).fetchall()
            else:
                holder.clear()  # the last reference: the cursor is freed here
        except db.Error:
            pass
        finally:
            done.set()

    ticker = Ticker()
    started = time.monotonic()
    threading.Thread(target=waiting, daemon=True).start()
    assert done.wait(STALL_S + GRACE_S + 5), "the call still waits after the link was cut"
    time.sleep(2 * TICK_S)
    gap = ticker.longest_gap(started)
    assert gap < FROZEN_S, f"every thread stopped for {gap:.1f} s while a {call} waited on a dead link"
