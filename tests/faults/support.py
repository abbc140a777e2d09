"""What the fault tests share: a call bounded in time (a hung driver call fails its test, never
the run), and the checks every fault ends with."""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Callable
from typing import Any

# Seconds a call may take past its own timeout before it counts as hung: the driver's round of
# cleanup after the limit, a loaded 2-core CI host.
GRACE_S = 3.0
# The timeout the dead-link tests give (cnxn.timeout, the login timeout).
TIMEOUT_S = 2
# A call on a connection known lost raises at once, without a round trip.
AT_ONCE_S = 0.5


@dataclasses.dataclass
class Outcome:
    value: Any = None
    error: BaseException | None = None
    elapsed: float = 0.0
    returned: bool = False


def bounded(fn: Callable[[], Any], limit: float) -> Outcome:
    """Runs ``fn`` on a daemon thread and waits at most ``limit`` seconds for it. A call that
    does not return is left behind (the test's fault proxy closing at teardown ends it: its
    links are reset), so a hang fails one test instead of the whole run."""
    out = Outcome()

    def run() -> None:
        started = time.monotonic()
        try:
            out.value = fn()
        except BaseException as e:  # noqa: BLE001 - handed to the test
            out.error = e
        out.elapsed = time.monotonic() - started
        out.returned = True

    th = threading.Thread(target=run, name="bounded-call", daemon=True)
    th.start()
    th.join(limit)
    return out


def raises_within(db, fn: Callable[[], Any], limit: float, what: str) -> BaseException:
    """The ``db.Error`` that ``fn`` raises within ``limit`` seconds (the assertion says which
    of: it hung, it returned, it raised something else)."""
    out = bounded(fn, limit)
    assert out.returned, f"{what}: still waiting after {limit:.1f} s"
    assert out.error is not None, f"{what}: returned {out.value!r} after {out.elapsed:.2f} s, no error"
    assert isinstance(out.error, db.Error), f"{what}: {out.error!r}"
    return out.error


def sqlstate(error: BaseException) -> str:
    return str(error.args[0]) if error.args else ""


def assert_lost(db, backend, error: BaseException, also: tuple[str, ...] = ()) -> None:
    """``error`` says the connection is lost: OperationalError, a class 08 SQLSTATE (or one the
    profile lists as a lost connection, or one of ``also``: HYT00 / HYT01 for a timeout)."""
    assert isinstance(error, db.OperationalError), repr(error)
    assert sqlstate(error).startswith((*backend.lost_connection_states, *also)), error.args


def assert_broken(db, backend, cnxn, also: tuple[str, ...] = ()) -> None:
    """A connection found lost stays so: its next statement raises at once (AT_ONCE_S), which a
    round trip through a stalled proxy could not."""
    error = raises_within(
        db, lambda: cnxn.cursor().execute("SELECT 1").fetchall(), AT_ONCE_S + GRACE_S, "a statement on it"
    )
    assert_lost(db, backend, error, also)
    started = time.monotonic()
    try:
        cnxn.cursor().execute("SELECT 1").fetchall()
    except db.Error:
        pass
    assert time.monotonic() - started < AT_ONCE_S, "the next statement on a lost connection waited on the link"


def count(connect, sql: str, *params) -> int:
    """A value read over a direct connection (not the proxy), in autocommit."""
    c = connect(autocommit=True)
    try:
        return c.cursor().execute(sql, *params).fetchval()
    finally:
        c.close()
