"""The pool's exceptions: all ``OperationalError`` subclasses, as psycopg_pool's."""

from __future__ import annotations

from ..errors import OperationalError

__all__ = ["PoolClosed", "PoolTimeout", "TooManyRequests", "checkout_timeout", "is_lost"]


class PoolTimeout(OperationalError):
    """No connection became available within the timeout."""


def checkout_timeout(timeout: PoolTimeout, failure: BaseException | None) -> PoolTimeout:
    """The ``PoolTimeout`` a request ends in; after a connection failed its check at checkout
    (a server down), it names that failure, also its ``__cause__``."""
    if failure is None:
        return timeout
    error = PoolTimeout(f"{timeout.args[0]}; the last connection checked failed: {failure}")
    error.__cause__ = failure
    return error


class PoolClosed(OperationalError):
    """The pool is closed (or was never opened)."""


class TooManyRequests(OperationalError):
    """``max_waiting`` requests are already waiting for a connection."""


# SQLSTATEs that mean the session is gone: class 08 (connection exception) and PostgreSQL's
# 57P01-57P03 (the server shut the session down, crashed, or refuses connections for now).
_LOST_PREFIXES = ("08", "57P0")


def is_lost(error: BaseException) -> bool:
    """``error`` says the connection it came from is lost: it must not be handed out again."""
    if not isinstance(error, OperationalError):
        return False
    state = error.sqlstate
    return state is not None and state.startswith(_LOST_PREFIXES)
