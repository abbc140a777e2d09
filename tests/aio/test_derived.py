"""The async classes are derived from the sync ones by tables (fastodbc/aio/cursor.py and
connection.py): every public member of the sync class is in exactly one table, so a member
added to the sync API can't be silently missing from the async one."""

from __future__ import annotations

import inspect

import pytest

import fastodbc
from fastodbc.aio import connection as aio_connection
from fastodbc.aio import cursor as aio_cursor

pytestmark = pytest.mark.fastodbc_only(reason="fastodbc.aio is fastodbc's")

# Sync members with no async counterpart, and why.
_CURSOR_ONLY_SYNC = {
    "__iter__": "async iteration: __aiter__ / __anext__",
    "__next__": "async iteration: __aiter__ / __anext__",
    "__enter__": "async with: __aenter__ / __aexit__",
    "__exit__": "async with: __aenter__ / __aexit__",
    "__arrow_c_stream__": "an Arrow consumer would read it on the event loop's thread: use fetch_record_batch",
    "_catalog": "private: the catalog methods call it",
    "_ingest": "private: ingest calls it",
    "_open_connection": "private",
}
_CONNECTION_ONLY_SYNC = {
    "__enter__": "async with: __aenter__ / __aexit__",
    "__exit__": "async with: __aenter__ / __aexit__",
    "_check_open": "private",
}


_DUNDERS = {"__iter__", "__next__", "__enter__", "__exit__", "__arrow_c_stream__"}
_PRIVATE = set(_CURSOR_ONLY_SYNC) | set(_CONNECTION_ONLY_SYNC)


def _public(cls: type) -> set[str]:
    names = set()
    for klass in inspect.getmro(cls):
        if klass is object:
            continue
        for name in vars(klass):
            if name.startswith("__") and name not in _DUNDERS:
                continue
            if name.startswith("_") and not name.startswith("__") and name not in _PRIVATE:
                continue
            names.add(name)
    return names


def _tabled(tables: dict[str, tuple[str, ...]]) -> list[str]:
    return [name for names in tables.values() for name in names]


@pytest.mark.parametrize(
    ("sync_cls", "tables", "sync_only"),
    [
        (fastodbc.Cursor, aio_cursor.TABLES, _CURSOR_ONLY_SYNC),
        (fastodbc.Connection, aio_connection.TABLES, _CONNECTION_ONLY_SYNC),
    ],
    ids=["cursor", "connection"],
)
def test_every_sync_member_is_in_one_table(sync_cls, tables, sync_only):
    tabled = _tabled(tables)
    assert len(tabled) == len(set(tabled)), "a member in two tables"
    public = {n for n in _public(sync_cls) if n not in sync_only and not n.startswith(("Warning", "Error"))}
    # The DB-API exception classes are attributes of a connection, not members to derive.
    public -= {n for n in public if isinstance(getattr(sync_cls, n, None), type)}
    assert public - set(tabled) == set(), "sync members missing from the async tables"
    assert set(tabled) - public - {"autocommit", "connection"} == set(), "tabled names the sync class lacks"


@pytest.mark.parametrize(
    ("async_cls", "tables"),
    [(fastodbc.aio.AsyncCursor, aio_cursor.TABLES), (fastodbc.aio.AsyncConnection, aio_connection.TABLES)],
    ids=["cursor", "connection"],
)
def test_awaited_members_are_coroutine_functions(async_cls, tables):
    for name in tables["awaited"] + tables.get("awaited_self", ()):
        assert inspect.iscoroutinefunction(getattr(async_cls, name)), name
    for table in ("forwarded", "settings", "deferred", "snapshot"):
        for name in tables.get(table, ()):
            assert not inspect.iscoroutinefunction(getattr(async_cls, name)), name


def test_the_type_stubs_are_derived_from_the_current_tables():
    # aio/cursor.pyi and aio/connection.pyi are written by scripts/aio_stubs.py from the sync
    # classes and the tables: a change to either without regenerating them fails here.
    import importlib.util
    from pathlib import Path

    script = Path(__file__).resolve().parents[2] / "scripts" / "aio_stubs.py"
    spec = importlib.util.spec_from_file_location("aio_stubs", script)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.main(check=True) == 0
    stub = (Path(aio_cursor.__file__).with_suffix(".pyi")).read_text()
    for name in aio_cursor.TABLES["awaited_self"]:
        assert f"async def {name}(" in stub and "-> AsyncCursor: ..." in stub, name
