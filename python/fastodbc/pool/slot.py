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
        "generation",
        "lifetime_share",
        "liveness",
        "lost",
        "pid",
        "raw",
        "returned",
        "state",
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
        # When SQL_ATTR_CONNECTION_DEAD is worth reading ("probe", "status", "unknown").
        self.liveness = raw._liveness
        # An error that means the session is gone passed through it while it was out.
        self.lost = False

    def remember_state(self) -> None:
        self.state = SessionState.read(self.raw)

    def restore_state(self) -> None:
        if self.state is not None:
            self.state.restore(self.raw)

    def age(self, now: float) -> float:
        return now - self.created
