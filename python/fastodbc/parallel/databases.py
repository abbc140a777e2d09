"""What each database can do for a partitioned read, by its ``SQL_DBMS_NAME``: whether its
partitions can read one snapshot (and the statements that share it), where it sorts NULLs,
and whether it has the window function the quantile planner uses.

The facts are the databases' own (docs/partitioned-reads.md cites them); what fastodbc does
about them is in ``plan.py``.
"""

from __future__ import annotations

import dataclasses
import re


@dataclasses.dataclass(frozen=True)
class ReadConsistency:
    """A database's answer to "can N connections read the same moment?"."""

    #: What the partitions see, in the plan's words.
    without_snapshot: str
    #: Statements the planning connection runs first (autocommit off), then a query whose one
    #: value is the snapshot's id; None: no snapshot can be shared.
    export: tuple[str, ...] | None = None
    export_query: str | None = None
    #: Statements each reader runs before its partition ({snapshot}: the id).
    adopt: tuple[str, ...] = ()
    #: What an id looks like (checked before it is put into ``adopt``'s SQL).
    snapshot_id: str = r"[0-9A-Fa-f-]+"
    #: ASC puts NULLs first (True), last (False), or unknown (None).
    nulls_first: bool | None = None
    #: NTILE() OVER (ORDER BY ...) is there: the quantile planner asks the database.
    ntile: bool = False
    #: One writer at a time (SQLite: writers of deferred transactions that read first wait
    #: out each other's busy timeout): a parallel load computes its partitions in parallel
    #: and writes them over one connection.
    one_writer: bool = False

    def adopt_statements(self, snapshot: str) -> list[str]:
        """The statements that make a reader's transaction read ``snapshot``."""
        if not re.fullmatch(self.snapshot_id, snapshot):
            raise ValueError(f"not a snapshot id: {snapshot!r}")
        return [s.format(snapshot=snapshot) for s in self.adopt]


_EACH_OWN = "each partition reads the table as it is when that partition starts"

POSTGRESQL = ReadConsistency(
    without_snapshot=_EACH_OWN,
    # pg_export_snapshot() in a REPEATABLE READ transaction; a reader's SET TRANSACTION
    # SNAPSHOT must come before any query of its own REPEATABLE READ transaction, and the
    # snapshot lives as long as the exporting transaction stays open.
    export=("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ",),
    export_query="SELECT pg_export_snapshot()",
    adopt=("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ", "SET TRANSACTION SNAPSHOT '{snapshot}'"),
    nulls_first=False,
    ntile=True,
)
# MariaDB / MySQL: START TRANSACTION WITH CONSISTENT SNAPSHOT is one connection's; nothing
# hands a snapshot to another session.
MARIADB = ReadConsistency(without_snapshot=_EACH_OWN, nulls_first=True, ntile=True)
# SQLite: each connection's read transaction sees the file as of its first read.
SQLITE = ReadConsistency(without_snapshot=_EACH_OWN, nulls_first=True, ntile=True, one_writer=True)
#: A database not in the table: no snapshot shared, NULL order unknown, no window functions
#: assumed (the planner reads the sorted keys instead).
UNKNOWN = ReadConsistency(without_snapshot=_EACH_OWN)

_BY_NAME = {
    "postgresql": POSTGRESQL,
    "mariadb": MARIADB,
    "mysql": MARIADB,
    "sqlite": SQLITE,
}


#: Connection-string attributes a driver needs for the snapshot statements, by its
#: SQL_DRIVER_NAME. psqlODBC wraps each statement of a transaction in a savepoint of its own
#: (rollback on error "statement", its default) and PostgreSQL refuses pg_export_snapshot() and
#: SET TRANSACTION SNAPSHOT in a subtransaction (25001): level 1 rolls the transaction back on
#: an error instead, which a read-only partition loses nothing by.
SNAPSHOT_ATTRIBUTES = {
    "psqlodbcw.so": "Protocol=7.4-1",
    "psqlodbca.so": "Protocol=7.4-1",
}


def snapshot_attributes(driver_name: str) -> str:
    """What to add to a connection string of the driver ``driver_name`` (its file name) so
    that its connections can export and adopt a snapshot ("" for nothing)."""
    return SNAPSHOT_ATTRIBUTES.get(driver_name.strip().lower(), "")


def consistency_of(dbms_name: str) -> ReadConsistency:
    """The entry for a ``SQL_DBMS_NAME`` (compared without case), or ``UNKNOWN``."""
    return _BY_NAME.get(dbms_name.strip().lower(), UNKNOWN)
