"""Backend profiles: one per database + ODBC driver pair the tests run against.

A profile carries what differs between databases as data (SQL dialect, driver quirks, error
classes, what a database cannot keep), so a test states *what* it expects and the profile
says how a given pair behaves; no test asks which database it runs on. Adding a database is
a profile (tests/profiles/<database>.py, listed in PROFILES), the script that starts its
server (scripts/), and its driver's entry in scripts/odbcinst.sh: tests/README.md.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .mariadb import MARIADB
from .postgresql import POSTGRESQL
from .profile import DIFFERENTIAL_KINDS, LOCK_TIMEOUT_S, Profile, ServerControl, with_attributes, with_credentials
from .sqlite import SQLITE

# Every backend the suite runs on, in test-id order: conftest parametrizes `backend` with
# these, scripts/test.sh starts their servers (python -m profiles servers).
PROFILES: list[Profile] = [SQLITE, POSTGRESQL, MARIADB]
BY_NAME: dict[str, Profile] = {p.name: p for p in PROFILES}
BACKENDS: list[str] = list(BY_NAME)
assert len(BY_NAME) == len(PROFILES) and all(BACKENDS), "profile names must be unique, not empty"


def backends_where(has: Callable[[Profile], Any]) -> list[str]:
    """The names of the profiles with a behaviour, for a test of that behaviour only:
    ``@pytest.mark.parametrize("backend", backends_where(lambda p: ...), indirect=True)``."""
    return [p.name for p in PROFILES if has(p)]


__all__ = [
    "BACKENDS",
    "BY_NAME",
    "DIFFERENTIAL_KINDS",
    "LOCK_TIMEOUT_S",
    "PROFILES",
    "Profile",
    "ServerControl",
    "backends_where",
    "with_attributes",
    "with_credentials",
]
