"""Errors: exception classes per SQLSTATE, error payloads, client-side checks, and the state
of the connection and its transaction after a failed statement."""

import pytest

from profiles import backends_where, with_attributes

EXCEPTIONS = [
    "Warning",
    "Error",
    "InterfaceError",
    "DatabaseError",
    "DataError",
    "OperationalError",
    "IntegrityError",
    "InternalError",
    "ProgrammingError",
    "NotSupportedError",
]


def test_exception_hierarchy(db):
    # PEP 249's tree.
    assert issubclass(db.Warning, Exception)
    assert not issubclass(db.Warning, db.Error)
    assert issubclass(db.Error, Exception)
    assert issubclass(db.InterfaceError, db.Error)
    assert not issubclass(db.InterfaceError, db.DatabaseError)
    assert issubclass(db.DatabaseError, db.Error)
    for name in (
        "DataError",
        "OperationalError",
        "IntegrityError",
        "InternalError",
        "ProgrammingError",
        "NotSupportedError",
    ):
        assert issubclass(getattr(db, name), db.DatabaseError), name
    leaves = {getattr(db, n) for n in EXCEPTIONS}
    assert len(leaves) == len(EXCEPTIONS)


def assert_db_error(db, excinfo, expected, *fragments):
    """expected = (SQLSTATE prefix, exception class name) from the profile."""
    prefix, cls_name = expected
    e = excinfo.value
    assert isinstance(e, getattr(db, cls_name)), (type(e), cls_name, e.args)
    if cls_name == "Error":
        assert not isinstance(e, db.InterfaceError), e.args
    sqlstate, message = e.args[0], e.args[1]
    assert isinstance(sqlstate, str)
    assert len(sqlstate) == 5, sqlstate
    assert sqlstate.startswith(prefix), (sqlstate, prefix)
    assert isinstance(message, str)
    for frag in fragments:
        assert frag.lower() in message.lower(), (frag, message)
    return e


@pytest.fixture
def pk_table(backend, table, cnxn):
    t = table(f"id {backend.ddl('int')} NOT NULL PRIMARY KEY, v {backend.ddl('varchar(10)')}")
    cnxn.cursor().execute(f"INSERT INTO {t} VALUES (1, 'one')")
    cnxn.commit()
    return t


# ------------------------------------------------------------------------ SQLSTATE mapping


def test_syntax_error(db, backend, cursor):
    with pytest.raises(db.Error) as exc:
        cursor.execute("SELEC 1")
    assert_db_error(db, exc, backend.syntax_error, backend.syntax_error_text, "SELEC")


def test_unique_violation(db, backend, cursor, pk_table):
    with pytest.raises(db.Error) as exc:
        cursor.execute(f"INSERT INTO {pk_table} VALUES (1, 'again')")
    assert_db_error(db, exc, backend.unique_violation, backend.unique_violation_text)


def test_not_null_violation(db, backend, cursor, table):
    t = table(f"id {backend.ddl('int')}, v {backend.ddl('varchar(10)')} NOT NULL")
    with pytest.raises(db.Error) as exc:
        cursor.execute(f"INSERT INTO {t} (id, v) VALUES (1, ?)", None)
    assert_db_error(db, exc, backend.unique_violation, "null")


def test_missing_table(db, backend, cursor, table):
    name = table()
    with pytest.raises(db.Error) as exc:
        cursor.execute(f"SELECT * FROM {name}")
    assert_db_error(db, exc, backend.missing_table, name)


def test_division_by_zero(db, backend, cursor):
    if not backend.division_by_zero_raises:
        # Documented: SQLite and MariaDB yield NULL.
        assert cursor.execute("SELECT 1 / 0").fetchone()[0] is None
        return
    with pytest.raises(db.DataError) as exc:
        cursor.execute("SELECT 1 / 0").fetchall()
    assert_db_error(db, exc, ("22012", "DataError"), "division by zero")


def test_bad_cast(db, backend, cursor):
    if not backend.bad_cast_raises:
        # Documented: SQLite and MariaDB cast 'abc' to 0.
        assert cursor.execute("SELECT CAST('abc' AS INTEGER)").fetchone()[0] == 0
        return
    with pytest.raises(db.DataError) as exc:
        cursor.execute("SELECT CAST('abc' AS INTEGER)").fetchall()
    assert_db_error(db, exc, ("22P02", "DataError"), "abc")


def test_bad_cast_of_parameter(db, backend, cursor):
    if not backend.bad_cast_raises:
        # Documented: as the literal, 0.
        assert cursor.execute("SELECT CAST(? AS INTEGER)", "abc").fetchone()[0] == 0
        return
    with pytest.raises(db.DataError) as exc:
        cursor.execute("SELECT CAST(? AS INTEGER)", "abc").fetchall()
    assert_db_error(db, exc, ("22", "DataError"))


def test_value_too_long(db, backend, cursor, pk_table):
    if not backend.enforces_varchar_length:
        # Documented: SQLite ignores VARCHAR(n) and stores the whole value.
        cursor.execute(f"INSERT INTO {pk_table} VALUES (2, ?)", "x" * 50)
        assert cursor.execute(f"SELECT v FROM {pk_table} WHERE id = 2").fetchone()[0] == "x" * 50
        return
    with pytest.raises(db.DataError) as exc:
        cursor.execute(f"INSERT INTO {pk_table} VALUES (2, ?)", "x" * 50)
    assert_db_error(db, exc, ("22001", "DataError"), "too long")


@pytest.mark.fastodbc_only(reason="pyodbc exceptions have no sqlstate attribute")
def test_sqlstate_attribute(db, backend, cursor, pk_table):
    with pytest.raises(db.Error) as exc:
        cursor.execute(f"INSERT INTO {pk_table} VALUES (1, 'again')")
    assert exc.value.sqlstate == exc.value.args[0]
    assert exc.value.sqlstate.startswith(backend.unique_violation[0])


def test_error_str_contains_sqlstate_and_text(db, backend, cursor):
    with pytest.raises(db.Error) as exc:
        cursor.execute("SELEC 1")
    text = str(exc.value)
    assert exc.value.args[0] in text
    assert backend.syntax_error_text.lower() in text.lower()


# ------------------------------------------------------------------------ connect errors


@pytest.mark.fastodbc_only(
    reason='unixODBC reports an unregistered driver as SQLSTATE 01000 "Can\'t open lib"; '
    "pyodbc raises a plain Error for it"
)
def test_unknown_driver(db):
    with pytest.raises((db.InterfaceError, db.OperationalError)) as exc:
        db.connect("Driver={No Such Driver 1234};Database=x;")
    assert exc.value.args[0] in ("IM002", "IM003", "01000"), exc.value.args
    assert "No Such Driver 1234" in exc.value.args[1]


def test_garbage_connection_string(db):
    with pytest.raises((db.InterfaceError, db.OperationalError)) as exc:
        db.connect("this is not a connection string")
    assert exc.value.args[0] == "IM002", exc.value.args


def test_unknown_dsn(db):
    with pytest.raises(db.InterfaceError) as exc:
        db.connect("DSN=no_such_dsn_fastodbc")
    assert exc.value.args[0] == "IM002"
    assert "not found" in exc.value.args[1]


@pytest.mark.parametrize("backend", backends_where(lambda p: p.is_server), indirect=True)
def test_unreachable_server(db, backend):
    connstr = with_attributes(backend.connstr, Port="1")
    with pytest.raises(db.OperationalError) as exc:
        db.connect(connstr)
    assert exc.value.args[0].startswith("08"), exc.value.args


# ------------------------------------------------------------------------ client-side errors


@pytest.mark.parametrize(
    "sql,params",
    [
        ("INSERT INTO {t} (id, v) VALUES (?, ?)", (5,)),
        ("INSERT INTO {t} (id, v) VALUES (?, ?)", (5, "a", "b")),
        ("INSERT INTO {t} (id, v) VALUES (5, 'a')", (1,)),
        pytest.param(
            "INSERT INTO {t} (id, v) VALUES (?, ?)",
            (),
            marks=pytest.mark.fastodbc_only(
                reason="pyodbc doesn't count markers when no parameters are given"
            ),
        ),
    ],
    ids=["too_few", "too_many", "none_expected", "none_given"],
)
def test_wrong_number_of_parameters(db, cursor, pk_table, sql, params):
    with pytest.raises(db.ProgrammingError) as exc:
        cursor.execute(sql.format(t=pk_table), *params)
    assert str(len(params)) in str(exc.value)
    # Nothing reached the database.
    assert cursor.execute(f"SELECT COUNT(*) FROM {pk_table}").fetchone()[0] == 1


def test_wrong_number_of_parameters_in_executemany(db, cursor, pk_table):
    with pytest.raises(db.ProgrammingError):
        cursor.executemany(f"INSERT INTO {pk_table} (id, v) VALUES (?, ?)", [(5, "a", "b")])
    assert cursor.execute(f"SELECT COUNT(*) FROM {pk_table}").fetchone()[0] == 1


@pytest.mark.parametrize("backend", backends_where(lambda p: p.bracket_marker_expr), indirect=True)
def test_markers_inside_brackets_count_where_brackets_are_not_names(db, cursor, backend, pk_table):
    # PostgreSQL's ARRAY[?, ?] and a[?]: the markers inside are counted (they were read as a
    # bracketed name, as SQL Server's [a?b], and the statement refused as having too few).
    expr, params, expected = backend.bracket_marker_expr
    assert cursor.execute(f"SELECT {expr}", *params).fetchone()[0] == expected
    with pytest.raises(db.ProgrammingError):
        cursor.execute(f"SELECT {expr}", *params[:-1])
    cursor.executemany(
        f"INSERT INTO {pk_table} (id, v) VALUES ({expr}, ?)",
        [(*params, "x"), (*(p * 3 for p in params[:-1]), params[-1], "y")],
    )
    rows = cursor.execute(f"SELECT id, v FROM {pk_table} WHERE v IN ('x', 'y') ORDER BY v").fetchall()
    assert [tuple(r) for r in rows] == [(expected, "x"), (expected * 3, "y")]


@pytest.mark.parametrize(
    "value", [object(), {"a": 1}, {1, 2}, 1 + 2j], ids=lambda v: type(v).__name__
)
def test_unsupported_parameter_type(db, cursor, pk_table, value):
    with pytest.raises((db.ProgrammingError, TypeError)) as exc:
        cursor.execute(f"INSERT INTO {pk_table} (id, v) VALUES (?, ?)", 9, value)
    assert type(value).__name__ in str(exc.value), str(exc.value)
    assert cursor.execute(f"SELECT COUNT(*) FROM {pk_table}").fetchone()[0] == 1


def test_closed_cursor(db, cnxn):
    cur = cnxn.cursor()
    cur.close()
    for call in (
        lambda: cur.execute("SELECT 1"),
        lambda: cur.executemany("SELECT ?", [(1,)]),
        lambda: cur.fetchone(),
        lambda: cur.fetchall(),
        lambda: cur.fetchmany(1),
    ):
        with pytest.raises(db.ProgrammingError):
            call()


def test_closed_connection(db, connect):
    c = connect()
    cur = c.cursor()
    c.close()
    for call in (
        c.cursor,
        c.commit,
        c.rollback,
        lambda: c.execute("SELECT 1"),
        lambda: cur.execute("SELECT 1"),
    ):
        with pytest.raises(db.ProgrammingError):
            call()


def test_fetch_before_execute(db, cnxn):
    cur = cnxn.cursor()
    for call in (cur.fetchone, cur.fetchall, lambda: cur.fetchmany(2), cur.fetchval):
        with pytest.raises(db.ProgrammingError):
            call()


def test_fetch_after_non_query(db, cursor, pk_table):
    cursor.execute(f"UPDATE {pk_table} SET v = 'x'")
    with pytest.raises(db.ProgrammingError):
        cursor.fetchone()


# ------------------------------------------------------------------------ state after errors


def _fail_syntax(db, cur, t):
    cur.execute("SELEC 1")


def _fail_unique(db, cur, t):
    cur.execute(f"INSERT INTO {t} VALUES (1, 'dup')")


def _fail_missing_table(db, cur, t):
    cur.execute(f"SELECT * FROM {t}_missing")


def _fail_division(db, cur, t):
    cur.execute("SELECT 1 / 0").fetchall()


def _fail_param_count(db, cur, t):
    cur.execute(f"INSERT INTO {t} VALUES (?, ?)", 1)


FAILURES = {
    "syntax": _fail_syntax,
    "unique": _fail_unique,
    "missing_table": _fail_missing_table,
    "division": _fail_division,
    "param_count": _fail_param_count,
}


def _fail(db, backend, cur, t, kind):
    if kind == "division" and not backend.division_by_zero_raises:
        pytest.skip(f"{backend.name}: 1/0 is not an error")
    with pytest.raises(db.Error):
        FAILURES[kind](db, cur, t)


@pytest.mark.parametrize("kind", sorted(FAILURES))
def test_connection_usable_after_error(db, backend, cnxn, pk_table, kind):
    cur = cnxn.cursor()
    _fail(db, backend, cur, pk_table, kind)
    assert cur.execute(f"SELECT v FROM {pk_table} WHERE id = 1").fetchone()[0] == "one"
    other = cnxn.cursor()
    assert other.execute("SELECT 1").fetchone()[0] == 1


@pytest.mark.parametrize("kind", sorted(FAILURES))
def test_error_then_rollback_discards_transaction(db, backend, connect, cnxn, pk_table, kind):
    cur = cnxn.cursor()
    cur.execute(f"INSERT INTO {pk_table} VALUES (2, 'two')")
    _fail(db, backend, cur, pk_table, kind)
    cnxn.rollback()
    assert [tuple(r) for r in cur.execute(f"SELECT id FROM {pk_table} ORDER BY id")] == [(1,)]
    other = connect(autocommit=True)
    assert [tuple(r) for r in other.cursor().execute(f"SELECT id FROM {pk_table}")] == [(1,)]


PSQLODBC_PARSE_ERROR = pytest.mark.fastodbc_only(
    where=lambda p: p.syntax_error_rolls_back,
    reason="psqlODBC silently rolls back the whole transaction on a parse error",
)


@pytest.mark.parametrize(
    "kind",
    [pytest.param(k, marks=PSQLODBC_PARSE_ERROR) if k == "syntax" else k for k in sorted(FAILURES)],
)
def test_error_then_commit_keeps_transaction(db, backend, connect, cnxn, pk_table, kind):
    """A failed statement is rolled back alone: earlier work in the transaction survives,
    is not committed by the failure, and is committed by commit()."""
    if not backend.statement_level_rollback:
        pytest.skip(f"{backend.name} aborts the transaction on error")
    cur = cnxn.cursor()
    cur.execute(f"INSERT INTO {pk_table} VALUES (2, 'two')")
    _fail(db, backend, cur, pk_table, kind)
    other = connect(autocommit=True)
    ocur = other.cursor()
    # Not committed by the failure...
    assert [tuple(r) for r in ocur.execute(f"SELECT id FROM {pk_table} ORDER BY id")] == [(1,)]
    # ...still there in the transaction...
    cur.execute(f"INSERT INTO {pk_table} VALUES (3, 'three')")
    assert [tuple(r) for r in cur.execute(f"SELECT id FROM {pk_table} ORDER BY id")] == [
        (1,),
        (2,),
        (3,),
    ]
    cnxn.commit()
    # ...and committed with it.
    assert [tuple(r) for r in ocur.execute(f"SELECT id FROM {pk_table} ORDER BY id")] == [
        (1,),
        (2,),
        (3,),
    ]


def test_error_in_autocommit_mode(db, backend, connect, pk_table):
    c = connect(autocommit=True)
    cur = c.cursor()
    cur.execute(f"INSERT INTO {pk_table} VALUES (2, 'two')")
    with pytest.raises(db.Error):
        cur.execute(f"INSERT INTO {pk_table} VALUES (2, 'dup')")
    cur.execute(f"INSERT INTO {pk_table} VALUES (3, 'three')")
    assert [tuple(r) for r in cur.execute(f"SELECT id FROM {pk_table} ORDER BY id")] == [
        (1,),
        (2,),
        (3,),
    ]


@pytest.mark.fastodbc_only(reason="pyodbc has no DB-API exception attributes on connections")
def test_connection_exception_attributes(db, cnxn):
    for name in EXCEPTIONS:
        assert getattr(cnxn, name) is getattr(db, name)
