"""What a connection given back to the pool is made to be again (docs/pool-and-async.md,
"Return"): its cursors closed, its transaction rolled back, what the user changed restored to
the state after ``configure`` (or after connecting)."""

from __future__ import annotations

import pytest

import fastodbc
from fastodbc import SQL_ATTR_AUTOCOMMIT, SQL_CHAR, SQL_INTEGER, SQL_WCHAR

from .support import count_rows

pytestmark = pytest.mark.fastodbc_only(reason="fastodbc.pool is fastodbc's own")


ANY_TYPE_OF_A_NUMBER = [
    getattr(fastodbc, f"SQL_{name}")
    for name in (
        "INTEGER", "BIGINT", "SMALLINT", "TINYINT", "NUMERIC", "DECIMAL", "DOUBLE", "FLOAT", "REAL",
        "CHAR", "VARCHAR", "LONGVARCHAR", "WCHAR", "WVARCHAR", "WLONGVARCHAR",
    )
]


def _converter_a(value):
    return ("a", value)


def _converter_b(value):
    return ("b", value)


def _set_attr(name):
    return lambda cnxn, value: setattr(cnxn, name, value)


def _set_converter(cnxn, func):
    if func is None:
        cnxn.remove_output_converter(SQL_INTEGER)
    else:
        cnxn.add_output_converter(SQL_INTEGER, func)


def _clear_or_set_converter(cnxn, func):
    if func is None:
        cnxn.clear_output_converters()
    else:
        cnxn.add_output_converter(SQL_INTEGER, func)


#: name -> (read it, set it, values to set): state the user may change on a lent connection.
STATE = {
    "autocommit": (lambda c: c.autocommit, _set_attr("autocommit"), (False, True)),
    "timeout": (lambda c: c.timeout, _set_attr("timeout"), (0, 3, 7)),
    "read_ahead": (lambda c: c.read_ahead, _set_attr("read_ahead"), (True, False)),
    "fetch_buffer_bytes": (
        lambda c: c.fetch_buffer_bytes,
        _set_attr("fetch_buffer_bytes"),
        (2 * 1024 * 1024, 64 * 1024, 256 * 1024),
    ),
    "char_decoding": (
        lambda c: c.getdecoding(SQL_CHAR),
        lambda c, v: c.setdecoding(SQL_CHAR, encoding=v),
        ("utf-8", "latin-1", "utf-16le"),
    ),
    "wchar_decoding": (
        lambda c: c.getdecoding(SQL_WCHAR),
        lambda c, v: c.setdecoding(SQL_WCHAR, encoding=v),
        ("utf-16le", "utf-8", "latin-1"),
    ),
    "output_converter": (
        lambda c: c.get_output_converter(SQL_INTEGER),
        _set_converter,
        (None, _converter_a, _converter_b),
    ),
    "maxwrite": (lambda c: c.maxwrite, _set_attr("maxwrite"), (0, 1000, 4096)),
    # The same states through their other setters (each must count as a change; not in "all").
    "autocommit_by_set_attr": (
        lambda c: c.autocommit,
        lambda c, v: c.set_attr(SQL_ATTR_AUTOCOMMIT, int(v)),
        (False, True),
    ),
    "output_converters_cleared": (
        lambda c: c.get_output_converter(SQL_INTEGER),
        _clear_or_set_converter,
        (None, _converter_a, _converter_b),
    ),
    "encoding": (
        lambda c: c._get_encoding(),
        lambda c, v: c.setencoding(v),
        ("utf-16le", "utf-8"),
    ),
}


#: STATE's entries that change a state another entry changes.
OTHER_SETTERS = ("autocommit_by_set_attr", "output_converters_cleared")


def change(cnxn, name: str):
    """Sets state ``name`` of ``cnxn`` to another value than it has; returns the new value."""
    get, put, values = STATE[name]
    current = get(cnxn)
    for value in values:
        put(cnxn, value)
        if get(cnxn) != current:
            return get(cnxn)
    raise AssertionError(f"{name} could not be changed from {current!r}")


@pytest.mark.parametrize("configured", [False, True], ids=["defaults", "configured"])
@pytest.mark.parametrize("name", [*STATE, "all"])
def test_return_restores_what_the_user_changed(db, backend, make_pool, name, configured):
    names = [n for n in STATE if n not in OTHER_SETTERS] if name == "all" else [name]

    def configure(cnxn):
        for n in names:
            change(cnxn, n)

    pool = make_pool(min_size=1, configure=configure if configured else None)
    cnxn = pool.getconn(timeout=30)
    expected = {n: STATE[n][0](cnxn) for n in names}
    for n in names:
        assert change(cnxn, n) != expected[n]
    cnxn.cursor().execute("SELECT 1").fetchall()
    pool.putconn(cnxn)
    again = pool.getconn(timeout=30)
    assert again is cnxn  # the pool's one connection, back
    assert {n: STATE[n][0](again) for n in names} == expected
    again.cursor().execute("SELECT 1").fetchall()
    pool.putconn(again)


def test_output_converter_no_longer_applies_after_return(db, backend, make_pool):
    pool = make_pool(min_size=1)
    with pool.connection(timeout=30) as cnxn:
        plain = cnxn.cursor().execute("SELECT 5").fetchval()
        # Every SQL type a driver may describe `SELECT 5` as.
        for sqltype in ANY_TYPE_OF_A_NUMBER:
            cnxn.add_output_converter(sqltype, lambda value: "converted")
        assert cnxn.cursor().execute("SELECT 5").fetchval() == "converted"
    with pool.connection(timeout=30) as again:
        assert again is cnxn
        assert again.cursor().execute("SELECT 5").fetchval() == plain


def test_open_transaction_is_rolled_back_on_return(db, backend, make_pool, table, admin):
    t = table("id INTEGER")
    pool = make_pool(min_size=1)
    cnxn = pool.getconn(timeout=30)
    assert cnxn.autocommit is False
    cnxn.cursor().execute(f"INSERT INTO {t} VALUES (1)")
    pool.putconn(cnxn)
    assert count_rows(admin, t) == 0
    # No transaction is left holding locks: another connection writes at once (SQLite's
    # file lock would make it wait its busy timeout, then fail) ...
    admin.cursor().execute(f"INSERT INTO {t} VALUES (2)")
    again = pool.getconn(timeout=30)
    assert again is cnxn
    # ... and the connection sees only what is committed, not its own uncommitted row.
    assert [tuple(r) for r in again.cursor().execute(f"SELECT id FROM {t}").fetchall()] == [(2,)]
    pool.putconn(again)


def test_open_cursors_are_closed_on_return(db, backend, make_pool):
    pool = make_pool(min_size=1)
    cnxn = pool.getconn(timeout=30)
    unused = cnxn.cursor()
    reading = cnxn.cursor()
    reading.execute(backend.series(5000))
    assert reading.fetchone()[0] == 1  # a result left half read
    done = cnxn.cursor()
    done.execute("SELECT 1").fetchall()
    pool.putconn(cnxn)
    assert unused.closed and reading.closed and done.closed
    with pytest.raises(db.ProgrammingError):
        reading.fetchone()
    again = pool.getconn(timeout=30)
    assert again is cnxn
    assert [r[0] for r in again.cursor().execute(backend.series(3)).fetchall()] == [1, 2, 3]
    pool.putconn(again)
