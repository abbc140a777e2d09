"""Cursor: execute, parameters, fetch*, iteration, description, rowcount, arraysize, nextset,
skip, close, setinputsizes/setoutputsize, messages, context manager, catalog functions."""


import pytest


@pytest.fixture
def five(backend, table, cnxn):
    """A committed table with ids 1..5 and names 'n1'..'n5'."""
    t = table(f"id {backend.ddl('int')} NOT NULL PRIMARY KEY, name {backend.ddl('varchar(50)')}")
    cur = cnxn.cursor()
    for i in range(1, 6):
        cur.execute(f"INSERT INTO {t} VALUES (?, ?)", i, f"n{i}")
    cnxn.commit()
    return t


def rows(cursor_rows):
    return [tuple(r) for r in cursor_rows]


# ------------------------------------------------------------------------ execute


def test_execute_returns_cursor(cursor, five):
    assert cursor.execute(f"SELECT id FROM {five}") is cursor


def test_execute_ddl_returns_cursor(cursor, table, backend):
    name = table()
    assert cursor.execute(f"CREATE TABLE {name} (id {backend.ddl('int')})") is cursor


def test_params_as_varargs(cursor, five):
    cursor.execute(f"SELECT id, name FROM {five} WHERE id = ? OR name = ? ORDER BY id", 2, "n4")
    assert rows(cursor.fetchall()) == [(2, "n2"), (4, "n4")]


@pytest.mark.parametrize("container", [tuple, list])
def test_params_as_one_sequence(cursor, five, container):
    params = container([2, "n4"])
    cursor.execute(f"SELECT id, name FROM {five} WHERE id = ? OR name = ? ORDER BY id", params)
    assert rows(cursor.fetchall()) == [(2, "n2"), (4, "n4")]


def test_single_param_sequence_of_one(cursor, five):
    cursor.execute(f"SELECT name FROM {five} WHERE id = ?", [3])
    assert cursor.fetchone()[0] == "n3"


def test_no_params(cursor, five):
    cursor.execute(f"SELECT COUNT(*) FROM {five}")
    assert cursor.fetchone()[0] == 5


@pytest.mark.parametrize("value", [5, "abc", 2.5])
def test_untyped_parameter(backend, cursor, value):
    # SQLite hands the value back as bound. psqlODBC types a bare `SELECT ?` from the bound
    # type when it executes directly, and as text when the statement is prepared.
    got = cursor.execute("SELECT ?", value).fetchone()[0]
    wants = [value, str(value)] if backend.untyped_param_is_text else [value]
    assert any(got == w and type(got) is type(w) for w in wants), got


def test_execute_again_replaces_result(cursor, five):
    cursor.execute(f"SELECT id FROM {five} ORDER BY id")
    assert cursor.fetchone()[0] == 1
    cursor.execute(f"SELECT name FROM {five} WHERE id = 5")
    assert rows(cursor.fetchall()) == [("n5",)]


def test_cursor_connection_attribute(cnxn):
    assert cnxn.cursor().connection is cnxn


def test_two_cursors_independent(cnxn, five):
    a = cnxn.cursor()
    b = cnxn.cursor()
    a.execute(f"SELECT id FROM {five} ORDER BY id")
    b.execute(f"SELECT name FROM {five} ORDER BY id DESC")
    assert a.fetchone()[0] == 1
    assert b.fetchone()[0] == "n5"
    assert a.fetchone()[0] == 2
    assert b.fetchone()[0] == "n4"


# ------------------------------------------------------------------------ fetch


def test_fetchone_sequence_then_none(cursor, five):
    cursor.execute(f"SELECT id FROM {five} ORDER BY id")
    got = [cursor.fetchone()[0] for _ in range(5)]
    assert got == [1, 2, 3, 4, 5]
    assert cursor.fetchone() is None
    assert cursor.fetchone() is None


def test_fetchall(cursor, five):
    cursor.execute(f"SELECT id, name FROM {five} ORDER BY id")
    assert rows(cursor.fetchall()) == [(i, f"n{i}") for i in range(1, 6)]
    assert cursor.fetchall() == []


def test_fetchall_after_partial_fetch(cursor, five):
    cursor.execute(f"SELECT id FROM {five} ORDER BY id")
    cursor.fetchone()
    assert rows(cursor.fetchall()) == [(2,), (3,), (4,), (5,)]


def test_fetchall_empty_result(cursor, five):
    cursor.execute(f"SELECT id FROM {five} WHERE id < 0")
    assert cursor.fetchall() == []
    assert cursor.fetchone() is None


def test_fetchmany(cursor, five):
    cursor.execute(f"SELECT id FROM {five} ORDER BY id")
    assert rows(cursor.fetchmany(2)) == [(1,), (2,)]
    assert rows(cursor.fetchmany(2)) == [(3,), (4,)]
    assert rows(cursor.fetchmany(2)) == [(5,)]
    assert cursor.fetchmany(2) == []


def test_fetchmany_defaults_to_arraysize(cursor, five):
    assert cursor.arraysize == 1
    cursor.execute(f"SELECT id FROM {five} ORDER BY id")
    assert rows(cursor.fetchmany()) == [(1,)]
    cursor.arraysize = 3
    assert cursor.arraysize == 3
    assert rows(cursor.fetchmany()) == [(2,), (3,), (4,)]
    assert rows(cursor.fetchmany()) == [(5,)]


def test_fetchmany_larger_than_result(cursor, five):
    cursor.execute(f"SELECT id FROM {five} ORDER BY id")
    assert rows(cursor.fetchmany(100)) == [(i,) for i in range(1, 6)]


def test_fetch_results_are_lists_of_rows(db, cursor, five):
    cursor.execute(f"SELECT id FROM {five} ORDER BY id")
    many = cursor.fetchmany(2)
    rest = cursor.fetchall()
    assert type(many) is list
    assert type(rest) is list
    assert all(isinstance(r, db.Row) for r in many + rest)


def test_fetchval(cursor, five):
    assert cursor.execute(f"SELECT name, id FROM {five} WHERE id = 4").fetchval() == "n4"


def test_fetchval_no_rows(cursor, five):
    assert cursor.execute(f"SELECT name FROM {five} WHERE id = 99").fetchval() is None


def test_iteration(cursor, five):
    cursor.execute(f"SELECT id FROM {five} ORDER BY id")
    assert [r[0] for r in cursor] == [1, 2, 3, 4, 5]


def test_iter_returns_self_and_next(cursor, five):
    cursor.execute(f"SELECT id FROM {five} ORDER BY id")
    assert iter(cursor) is cursor
    assert next(cursor)[0] == 1
    assert cursor.fetchone()[0] == 2
    rest = [r[0] for r in cursor]
    assert rest == [3, 4, 5]
    with pytest.raises(StopIteration):
        next(cursor)


def test_execute_chain(cursor, five):
    result = cursor.execute(f"SELECT id FROM {five} WHERE id > ? ORDER BY id", 3)
    assert [r.id for r in result] == [4, 5]


# ------------------------------------------------------------------------ description

# The columns of test_description: (name, kind, NOT NULL).
DESCRIBED_COLUMNS = [
    ("id", "int", True),
    ("name", "varchar(50)", False),
    ("amount", "numeric(18,4)", False),
    ("data", "bytes", False),
    ("flag", "bool", False),
    ("ts", "timestamp", False),
    ("d", "date", False),
    ("big", "bigint", False),
    ("f", "float", False),
]


def test_description(backend, cursor, table):
    # (name, type_code, display_size, internal_size, precision, scale, null_ok), as the
    # profile says its driver describes each column kind.
    columns = ", ".join(
        f"{name} {backend.ddl(kind)}{' NOT NULL PRIMARY KEY' if not_null else ''}"
        for name, kind, not_null in DESCRIBED_COLUMNS
    )
    t = table(columns)
    cursor.execute(f"SELECT * FROM {t}")
    got = [tuple(d) for d in cursor.description]
    assert got == [
        (name, *backend.descriptions[kind], not (not_null and backend.reports_not_null))
        for name, kind, not_null in DESCRIBED_COLUMNS
    ]
    for d in cursor.description:
        assert len(d) == 7


def test_description_keeps_alias_case_and_spaces(backend, cursor, five):
    q = backend.quote
    cursor.execute(f"SELECT id AS {q('MixedCase')}, name AS {q('with space')} FROM {five}")
    assert [d[0] for d in cursor.description] == ["MixedCase", "with space"]


def test_description_none_for_non_query(cursor, five):
    cursor.execute(f"UPDATE {five} SET name = 'x' WHERE id = 1")
    assert cursor.description is None


@pytest.mark.parametrize("where, params", [("id = ?", (10,)), ("id IN (NULL) AND 1 = 0", ())])
def test_delete_returning_no_rows_is_a_statement_without_rows(backend, cursor, five, where, params):
    # psqlODBC answers SQL_NO_DATA, counts the RETURNING columns, and the driver manager
    # refuses to describe them (HY010 was raised): no rows, nothing to describe.
    cursor.execute(f"DELETE FROM {five} WHERE {where} RETURNING id, name", *params)
    if cursor.description is not None:
        assert cursor.fetchall() == []
    assert cursor.rowcount in (0, -1)
    cursor.execute(f"DELETE FROM {five} WHERE id = ? RETURNING id, name", 2)
    if backend.dml_returning_rows:
        assert [d[0] for d in cursor.description] == ["id", "name"]
        assert rows(cursor.fetchall()) == [(2, "n2")]
    assert rows(cursor.execute(f"SELECT id FROM {five} ORDER BY id").fetchall()) == [(1,), (3,), (4,), (5,)]


def test_description_before_execute_is_none(cnxn):
    assert cnxn.cursor().description is None


def test_description_present_for_empty_result(cursor, five):
    cursor.execute(f"SELECT id, name FROM {five} WHERE 1 = 0")
    assert [d[0] for d in cursor.description] == ["id", "name"]


# ------------------------------------------------------------------------ rowcount


def test_rowcount_dml(cursor, five):
    assert cursor.execute(f"UPDATE {five} SET name = 'x' WHERE id > 2").rowcount == 3
    assert cursor.execute(f"DELETE FROM {five} WHERE id = 1").rowcount == 1
    assert cursor.execute(f"UPDATE {five} SET name = 'x' WHERE id = 999").rowcount == 0
    assert cursor.execute(f"INSERT INTO {five} (id, name) VALUES (10, 'a')").rowcount == 1


def test_rowcount_before_execute(cnxn):
    assert cnxn.cursor().rowcount == -1


def test_rowcount_after_select(backend, cursor, five):
    cursor.execute(f"SELECT id FROM {five}")
    assert cursor.rowcount in backend.select_rowcounts(5)


def test_rowcount_ddl(backend, cursor, table):
    name = table()
    cursor.execute(f"CREATE TABLE {name} (id {backend.ddl('int')})")
    assert cursor.rowcount in (-1, 0)


# ------------------------------------------------------------------------ nextset / skip


def test_nextset_single_result(cursor, five):
    cursor.execute(f"SELECT id FROM {five}")
    assert cursor.nextset() is False


def test_nextset_multiple_results(db, backend, cursor, five):
    if not backend.multiple_statements:
        pytest.skip(f"{backend.name} runs one statement per execute")
    cursor.execute(f"SELECT id FROM {five} WHERE id = 1; SELECT name FROM {five} WHERE id = 2")
    assert rows(cursor.fetchall()) == [(1,)]
    assert cursor.nextset() is True
    assert [d[0] for d in cursor.description] == ["name"]
    assert rows(cursor.fetchall()) == [("n2",)]
    assert cursor.nextset() is False


def test_multiple_statements_refused(db, backend, cursor):
    if backend.multiple_statements:
        pytest.skip(f"{backend.name} accepts several statements")
    with pytest.raises(db.Error):
        cursor.execute("SELECT 1; SELECT 2")


def test_skip(cursor, five):
    cursor.execute(f"SELECT id FROM {five} ORDER BY id")
    assert cursor.skip(2) is None
    assert cursor.fetchone()[0] == 3
    cursor.skip(1)
    assert cursor.fetchone()[0] == 5
    cursor.skip(3)
    assert cursor.fetchone() is None


# ------------------------------------------------------------------------ close


def test_close_cursor(db, cnxn, five):
    cur = cnxn.cursor()
    cur.execute(f"SELECT id FROM {five}")
    cur.close()
    with pytest.raises(db.ProgrammingError):
        cur.fetchone()
    with pytest.raises(db.ProgrammingError):
        cur.execute("SELECT 1")
    # Other cursors and the connection are unaffected.
    assert cnxn.cursor().execute(f"SELECT COUNT(*) FROM {five}").fetchone()[0] == 5


def test_close_cursor_with_pending_rows(cnxn, five):
    cur = cnxn.cursor()
    cur.execute(f"SELECT id FROM {five}")
    cur.fetchone()
    cur.close()
    cnxn.commit()


def test_cursor_context_manager_commits(connect, cnxn, five):
    # pyodbc: Cursor.__exit__ commits when autocommit is off and no exception occurred.
    with cnxn.cursor() as cur:
        cur.execute(f"DELETE FROM {five} WHERE id = 1")
    other = connect(autocommit=True)
    assert other.cursor().execute(f"SELECT COUNT(*) FROM {five}").fetchone()[0] == 4


def test_cursor_context_manager_exception_does_not_commit(connect, cnxn, five):
    with pytest.raises(KeyError):
        with cnxn.cursor() as cur:
            cur.execute(f"DELETE FROM {five} WHERE id = 1")
            raise KeyError("boom")
    cnxn.rollback()
    other = connect(autocommit=True)
    assert other.cursor().execute(f"SELECT COUNT(*) FROM {five}").fetchone()[0] == 5


def test_cursor_context_manager_returns_cursor(cnxn):
    cur = cnxn.cursor()
    with cur as entered:
        assert entered is cur


# ------------------------------------------------------------------------ no-ops


def test_setinputsizes_setoutputsize_are_noops(db, cursor, five):
    assert cursor.setinputsizes([(db.SQL_INTEGER, 0, 0)]) is None
    assert cursor.setinputsizes(None) is None
    assert cursor.setoutputsize(10) is None
    assert cursor.setoutputsize(10, 0) is None
    cursor.execute(f"SELECT name FROM {five} WHERE id = ?", 1)
    assert cursor.fetchone()[0] == "n1"


# ------------------------------------------------------------------------ messages


def test_messages_empty_after_plain_statement(cursor, five):
    cursor.execute(f"SELECT id FROM {five}")
    assert cursor.messages == []


def test_messages_from_server(backend, cursor):
    if not backend.has_notices:
        pytest.skip(f"{backend.name} sends no server messages")
    cursor.execute("DO $$ BEGIN RAISE NOTICE 'hello notice'; END $$")
    msgs = cursor.messages
    assert len(msgs) == 1
    assert isinstance(msgs[0], tuple)
    assert len(msgs[0]) == 2
    assert all(type(x) is str for x in msgs[0])
    assert "hello notice" in msgs[0][1]
    # Cleared by the next execute.
    cursor.execute("SELECT 1")
    assert cursor.messages == []


# ------------------------------------------------------------------------ catalog


# The columns of catalog_table: (name, kind, nullable).
CATALOG_COLUMNS = [("id", "int", 0), ("name", "varchar(50)", 1), ("amount", "numeric(18,4)", 1)]


@pytest.fixture
def catalog_table(backend, table):
    return table(
        ", ".join(
            f"{name} {backend.ddl(kind)}{'' if nullable else ' NOT NULL PRIMARY KEY'}"
            for name, kind, nullable in CATALOG_COLUMNS
        )
    )


def test_tables(cursor, catalog_table):
    found = cursor.tables(table=catalog_table).fetchall()
    assert len(found) == 1
    row = found[0]
    assert row.table_name == catalog_table
    assert row.table_type == "TABLE"
    assert [d[0] for d in cursor.description][:5] == [
        "table_cat",
        "table_schem",
        "table_name",
        "table_type",
        "remarks",
    ]


@pytest.mark.fastodbc_only(reason="pyodbc finds nothing on MariaDB, silently")
def test_catalog_name_with_units_a_driver_reads_past(db, backend, cursor, table):
    name = table(f"id {backend.ddl('int')}", suffix="_Ø")
    if backend.catalog_misreads_names:
        for call in (lambda: cursor.tables(table=name), lambda: cursor.columns(table=name)):
            with pytest.raises(db.NotSupportedError):
                call()
        return
    assert [r.table_name for r in cursor.tables(table=name)] == [name]
    assert [r.column_name for r in cursor.columns(table=name)] == ["id"]


def test_tables_returns_cursor(cursor, catalog_table):
    assert cursor.tables(table=catalog_table) is cursor


def test_tables_no_match(cursor, catalog_table):
    assert cursor.tables(table=catalog_table + "_nonexistent").fetchall() == []


def test_tables_lists_all(cursor, catalog_table):
    names = [r.table_name for r in cursor.tables(tableType="TABLE")]
    assert catalog_table in names


def test_columns(backend, cursor, catalog_table):
    got = [
        (r.column_name, r.data_type, r.nullable, r.ordinal_position)
        for r in cursor.columns(table=catalog_table)
    ]
    assert got == [
        (name, backend.catalog_types[kind][0], nullable, position)
        for position, (name, kind, nullable) in enumerate(CATALOG_COLUMNS, 1)
    ]


def test_columns_single_column(cursor, catalog_table):
    got = [r.column_name for r in cursor.columns(table=catalog_table, column="name")]
    assert got == ["name"]


def test_columns_type_name(backend, cursor, catalog_table):
    names = {r.column_name: r.type_name for r in cursor.columns(table=catalog_table)}
    want = {name: backend.catalog_types[kind][1] for name, kind, _ in CATALOG_COLUMNS}
    assert names == want


def test_primary_keys(cursor, catalog_table):
    got = cursor.primaryKeys(catalog_table).fetchall()
    assert [(r.table_name, r.column_name, r.key_seq) for r in got] == [(catalog_table, "id", 1)]
    assert [d[0] for d in cursor.description] == [
        "table_cat",
        "table_schem",
        "table_name",
        "column_name",
        "key_seq",
        "pk_name",
    ]


def test_catalog_then_query_on_same_cursor(cursor, catalog_table):
    cursor.columns(table=catalog_table).fetchall()
    cursor.execute(f"SELECT COUNT(*) FROM {catalog_table}")
    assert cursor.fetchone()[0] == 0
