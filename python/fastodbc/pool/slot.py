"""``Slot``: one pooled connection and what the pool knows of it."""

from __future__ import annotations

import os
import random
import time
from typing import Any

from ..connection import Connection
from .state import SessionState

__all__ = ["Slot"]


class Slot:
    """A pooled connection: ``conn`` is what users get (a ``Connection``, or the
    ``AsyncConnection`` around it), ``raw`` the native connection under it."""

    __slots__ = (
        "conn",
        "created",
        "failure",
        "generation",
        "lifetime_share",
        "liveness",
        "lost",
        "pid",
        "raw",
        "returned",
        "stale",
        "state",
        "state_version",
        "suspect",
    )

    def __init__(self, conn: Any, raw: Connection, generation: int) -> None:
        self.conn = conn
        self.raw = raw
        self.created = time.monotonic()
        self.returned = self.created
        self.generation = generation
        self.lifetime_share = random.uniform(0.95, 1.0)
        self.pid = os.getpid()
        self.state: SessionState | None = None
        self.state_version = -1
        # When SQL_ATTR_CONNECTION_DEAD is worth reading ("probe", "status", "unknown").
        self.liveness = raw._driver_traits.liveness
        # An error that means the session is gone passed through it while it was out.
        self.lost = False
        # Validated before it is handed out this time: it was idle past the pool's
        # check_idle_after, or a loss was seen while it was idle (`suspect`).
        self.stale = False
        self.suspect = False
        # Why its last check at checkout failed (for the PoolTimeout that may follow).
        self.failure: BaseException | None = None

    def remember_state(self) -> None:
        self.state = SessionState.read(self.raw)
        self.state_version = self.raw._settings_version

    def restore_state(self) -> None:
        """Puts back the remembered state, if a setting changed since (one read when none did:
        the common return)."""
        if self.state is not None and self.raw._settings_version != self.state_version:
            self.state.restore(self.raw)
            self.state_version = self.raw._settings_version

    def tidy(self, ended: bool, read_dead: bool) -> bool:
        """What a return does on the driver, in one call (one hop to the connection's thread
        under asyncio): cursors closed, the transaction rolled back unless ``ended``, the state
        restored; then whether the driver reports the connection dead (read if ``read_dead``)."""
        raw = self.raw
        raw._close_cursors()
        if not ended:
            raw.rollback()
        self.restore_state()
        return read_dead and raw._connection_dead()

    def age(self, now: float) -> float:
        return now - self.created
