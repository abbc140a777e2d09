"""pyodbc's API beyond the DB-API, run unchanged against the module under test: module flags
(`lowercase`, `native_uuid`), `set_attr`, `maxwrite`, `searchescape`, `BinaryNull`,
`Cursor.commit` / `rollback`, the catalog functions, executemany's argument checks and
rowcount after DDL."""

from __future__ import annotations

import uuid

import pytest

# ------------------------------------------------------------------ module flags


@pytest.fixture
def flags(db, monkeypatch):
    """Restores pyodbc's module switches after the test."""
    monkeypatch.setattr(db, "lowercase", db.lowercase)
    monkeypatch.setattr(db, "native_uuid", db.native_uuid)
    return db


@pytest.mark.parametrize("fetch", ["fetchone", "fetchall", "iterate", "nextset"])
def test_lowercase_names_in_description_and_rows(flags, backend, cursor, fetch):
    db = flags
    q = backend.quote
    sql = f"SELECT 1 AS {q('UpperCol')}, 2 AS {q('MixedName')}"

    def rows():
        if fetch == "fetchone":
            return [cursor.fetchone()]
        if fetch == "iterate":
            return list(cursor)
        return cursor.fetchall()

    db.lowercase = True
    cursor.execute(sql)
    if fetch == "nextset":
        # The flag is read when each result set is opened: nextset's too.
        assert not cursor.nextset()
        cursor.execute(sql)
    assert [d[0] for d in cursor.description] == ["uppercol", "mixedname"]
    (row,) = rows()
    assert (row.uppercol, row.mixedname) == (1, 2)
    assert not hasattr(row, "UpperCol")
    assert [d[0] for d in row.cursor_description] == ["uppercol", "mixedname"]

    db.lowercase = False
    cursor.execute(sql)
    assert [d[0] for d in cursor.description] == ["UpperCol", "MixedName"]
    (row,) = rows()
    assert (row.UpperCol, row.MixedName) == (1, 2)


def test_lowercase_is_read_when_the_result_is_opened(flags, backend, cursor):
    db = flags
    cursor.execute(f"SELECT 1 AS {backend.quote('BigI')} UNION ALL SELECT 2 UNION ALL SELECT 3")
    db.lowercase = True  # too late for this result
    assert [d[0] for d in cursor.description] == ["BigI"]
    assert [r.BigI for r in cursor.fetchall()] == [1, 2, 3]


def test_catalog_names_are_lower_case_whatever_the_flag(flags, backend, cursor, table):
    t = table(f"id {backend.ddl('int')}")
    for lowercase in (False, True):
        flags.lowercase = lowercase
        cursor.tables(table=t)
        assert [d[0] for d in cursor.description][:4] == [
            "table_cat",
            "table_schem",
            "table_name",
            "table_type",
        ]
        assert [r.table_name for r in cursor.fetchall()] == [t]


UUID_VALUE = uuid.UUID("6f9619ff-8b86-d011-b42d-00c04fc964ff")


@pytest.mark.parametrize("native", [True, False])
def test_native_uuid(flags, backend, cursor, table, native):
    if not backend.supports_uuid or backend.uuid_fetched_as_str:
        pytest.skip(f"{backend.name} has no column its driver describes as a GUID")
    t = table(f"id {backend.ddl('int')}, u {backend.ddl('uuid')}")
    cursor.execute(f"INSERT INTO {t} VALUES (1, ?), (2, NULL)", UUID_VALUE)
    flags.native_uuid = native
    cursor.execute(f"SELECT u FROM {t} ORDER BY id")
    want = UUID_VALUE if native else str(UUID_VALUE).upper()
    assert cursor.description[0][1] is type(want)
    assert [tuple(r) for r in cursor.fetchall()] == [(want,), (None,)]


@pytest.mark.fastodbc_only(reason="pyodbc reads native_uuid for every value")
def test_native_uuid_is_read_when_the_result_is_opened(flags, backend, cursor, table):
    if not backend.supports_uuid or backend.uuid_fetched_as_str:
        pytest.skip(f"{backend.name} has no column its driver describes as a GUID")
    t = table(f"u {backend.ddl('uuid')}")
    cursor.executemany(f"INSERT INTO {t} VALUES (?)", [(uuid.uuid4(),) for _ in range(40)])
    flags.native_uuid = False
    cursor.execute(f"SELECT u FROM {t}")
    flags.native_uuid = True
    values = [r[0] for r in cursor.fetchall()]
    assert all(type(v) is str and v == v.upper() and uuid.UUID(v) for v in values)


def test_module_constants(db):
    assert db.odbcversion == "3.X"
    assert db.BinaryNull is not None
    assert db.lowercase is False


# ------------------------------------------------------------------ connection


SQL_AUTOCOMMIT_OFF, SQL_AUTOCOMMIT_ON = 0, 1  # sqlext.h; neither module exports them


def test_set_attr_autocommit(db, backend, connect, table):
    t = table(f"id {backend.ddl('int')}")
    cnxn = connect()
    cnxn.set_attr(db.SQL_ATTR_AUTOCOMMIT, SQL_AUTOCOMMIT_ON)
    cnxn.cursor().execute(f"INSERT INTO {t} VALUES (1)")
    other = connect()
    assert other.cursor().execute(f"SELECT COUNT(*) FROM {t}").fetchval() == 1
    cnxn.set_attr(db.SQL_ATTR_AUTOCOMMIT, SQL_AUTOCOMMIT_OFF)
    cnxn.cursor().execute(f"INSERT INTO {t} VALUES (2)")
    cnxn.rollback()
    assert other.cursor().execute(f"SELECT COUNT(*) FROM {t}").fetchval() == 1


@pytest.mark.fastodbc_only(reason="pyodbc's autocommit keeps its own copy of the setting")
def test_set_attr_autocommit_is_reflected(db, cnxn):
    assert cnxn.autocommit is False
    cnxn.set_attr(db.SQL_ATTR_AUTOCOMMIT, SQL_AUTOCOMMIT_ON)
    assert cnxn.autocommit is True


def test_set_attr_on_a_closed_connection(db, connect):
    cnxn = connect()
    cnxn.close()
    with pytest.raises(db.ProgrammingError):
        cnxn.set_attr(db.SQL_ATTR_AUTOCOMMIT, SQL_AUTOCOMMIT_ON)


def test_maxwrite(db, connect):
    cnxn = connect()
    assert cnxn.maxwrite == 0
    cnxn.maxwrite = 255
    assert cnxn.maxwrite == 255
    cnxn.maxwrite = 0
    with pytest.raises(ValueError):
        cnxn.maxwrite = 254
    with pytest.raises(TypeError):
        cnxn.maxwrite = "1000"
    assert cnxn.maxwrite == 0
    cnxn.close()
    with pytest.raises(db.ProgrammingError):
        cnxn.maxwrite  # noqa: B018


def test_searchescape(db, cnxn):
    escape = cnxn.searchescape
    assert type(escape) is str
    assert escape == cnxn.getinfo(db.SQL_SEARCH_PATTERN_ESCAPE)


    with pytest.raises(cnxn.Error):
        cnxn.cursor().execute("SELECT * FROM fastodbc_no_such_table_xyz").fetchall()


# ------------------------------------------------------------------ cursor


def test_cursor_commit_and_rollback(db, backend, connect, table):
    t = table(f"id {backend.ddl('int')}")
    cnxn = connect()
    cursor = cnxn.cursor()
    other = connect(autocommit=True).cursor()
    cursor.execute(f"INSERT INTO {t} VALUES (1)")
    cursor.rollback()
    assert other.execute(f"SELECT COUNT(*) FROM {t}").fetchval() == 0
    cursor.execute(f"INSERT INTO {t} VALUES (2)")
    cnxn.cursor().commit()  # the connection's transaction: any cursor's work
    assert other.execute(f"SELECT id FROM {t}").fetchval() == 2
    cursor.close()
    for method in (cursor.commit, cursor.rollback):
        with pytest.raises(db.ProgrammingError):
            method()


def test_binary_null(db, backend, cursor, table):
    t = table(f"id {backend.ddl('int')}, b {backend.ddl('bytes')}")
    cursor.execute(f"INSERT INTO {t} VALUES (?, ?)", 1, db.BinaryNull)
    cursor.executemany(
        f"INSERT INTO {t} VALUES (?, ?)", [(2, db.BinaryNull), (3, b"\x00\x01"), (4, db.BinaryNull)]
    )
    rows = cursor.execute(f"SELECT id, b FROM {t} ORDER BY id").fetchall()
    assert [tuple(r) for r in rows] == [(1, None), (2, None), (3, b"\x00\x01"), (4, None)]


def test_rowcount_of_a_fresh_cursor(cnxn):
    assert cnxn.cursor().rowcount == -1


def test_rowcount_after_ddl(backend, cursor, table):
    t = table()
    cursor.execute(f"CREATE TABLE {t} (id {backend.ddl('int')})")
    assert cursor.rowcount == backend.create_rowcount
    cursor.execute(f"DROP TABLE {t}")
    assert cursor.rowcount == backend.drop_rowcount


@pytest.mark.parametrize("autocommit", [False, True], ids=["in_transaction", "autocommit"])
def test_rowcount_after_ddl_is_the_drivers(backend, connect, table, autocommit):
    """pyodbc's own test_rowcount (its PostgreSQL suite: CREATE TABLE after changes in the
    transaction counts 0), extended: there fastodbc runs statements prepared on psqlODBC, and
    every DDL still counts as the driver counts it run directly, as pyodbc runs it."""
    cnxn = connect(autocommit=autocommit)
    cur = cnxn.cursor()
    t1, t2 = table(), table(suffix="2")
    cur.execute(f"CREATE TABLE {t1} (i {backend.ddl('int')})")
    assert cur.rowcount == backend.create_rowcount
    for i in range(4):
        cur.execute(f"INSERT INTO {t1} VALUES (?)", i)
    assert cur.rowcount == 1
    cur.execute(f"CREATE TABLE {t2} (i {backend.ddl('int')})")
    assert cur.rowcount == backend.create_rowcount
    cur.execute(f"CREATE INDEX {t2}_i ON {t2} (i)")
    assert cur.rowcount == backend.create_rowcount
    cur.execute(f"ALTER TABLE {t2} ADD j {backend.ddl('int')}")
    assert cur.rowcount == backend.alter_rowcount
    cur.execute(f"DELETE FROM {t1} WHERE i < ?", 2)
    assert cur.rowcount == 2
    cur.execute(f"DROP TABLE {t2}")
    assert cur.rowcount == backend.drop_rowcount
    cnxn.commit()


NOT_ROWS = {
    "set": {(1, "a"), (2, "b")},
    "frozenset": frozenset({(1, "a")}),
    "dict": {1: (1, "a")},
    "dict_keys": {(1, "a"): None}.keys(),
    "str": "ab",
    "bytes": b"ab",
    "int": 12,
    "none": None,
}


@pytest.mark.parametrize("fast", [True, False])
@pytest.mark.parametrize("rows", NOT_ROWS.values(), ids=NOT_ROWS.keys())
def test_executemany_refuses_rows_out_of_order_or_not_rows(db, backend, cursor, table, rows, fast):
    t = table(f"id {backend.ddl('int')}, v {backend.ddl('varchar(10)')}")
    cursor.fast_executemany = fast
    with pytest.raises(db.ProgrammingError):
        cursor.executemany(f"INSERT INTO {t} VALUES (?, ?)", rows)
    assert cursor.execute(f"SELECT COUNT(*) FROM {t}").fetchval() == 0


NOT_A_ROW = {"set": {1, "a"}, "dict": {"id": 1, "v": "a"}, "str": "ab", "bytes": b"ab", "int": 1}


@pytest.mark.parametrize("fast", [True, False])
@pytest.mark.parametrize("row", NOT_A_ROW.values(), ids=NOT_A_ROW.keys())
def test_executemany_refuses_a_row_that_is_not_a_sequence(db, backend, cursor, table, row, fast):
    t = table(f"id {backend.ddl('int')}, v {backend.ddl('varchar(10)')}")
    cursor.fast_executemany = fast
    with pytest.raises(TypeError):
        cursor.executemany(f"INSERT INTO {t} VALUES (?, ?)", [row])
    assert cursor.execute(f"SELECT COUNT(*) FROM {t}").fetchval() == 0


@pytest.mark.fastodbc_only(reason="pyodbc raises ProgrammingError, which is no TypeError")
def test_executemany_argument_errors_are_type_errors(db, cursor):
    with pytest.raises(TypeError) as exc:
        cursor.executemany("SELECT ?", {(1,)})
    assert isinstance(exc.value, db.ProgrammingError)
    assert type(exc.value) is db.ParameterTypeError
    assert "set" in str(exc.value)


ROWS = [(1, "a"), (2, "b")]
ROW_SOURCES = {
    "list": lambda: list(ROWS),
    "tuple": lambda: tuple(ROWS),
    "lists": lambda: [list(r) for r in ROWS],
    "iterator": lambda: iter(ROWS),
    "generator": lambda: (r for r in ROWS),
}


@pytest.mark.parametrize("make_rows", ROW_SOURCES.values(), ids=ROW_SOURCES.keys())
def test_executemany_takes_sequences_iterators_and_generators(backend, cursor, table, make_rows):
    t = table(f"id {backend.ddl('int')}, v {backend.ddl('varchar(10)')}")
    cursor.executemany(f"INSERT INTO {t} VALUES (?, ?)", make_rows())
    assert [tuple(r) for r in cursor.execute(f"SELECT id, v FROM {t} ORDER BY id")] == ROWS


# ------------------------------------------------------------------ catalog functions

FOREIGN_KEY_COLUMNS = [
    "pktable_cat",
    "pktable_schem",
    "pktable_name",
    "pkcolumn_name",
    "fktable_cat",
    "fktable_schem",
    "fktable_name",
    "fkcolumn_name",
    "key_seq",
    "update_rule",
    "delete_rule",
    "fk_name",
    "pk_name",
    "deferrability",
]
STATISTICS_COLUMNS = [
    "table_cat",
    "table_schem",
    "table_name",
    "non_unique",
    "index_qualifier",
    "index_name",
    "type",
    "ordinal_position",
    "column_name",
    "asc_or_desc",
    "cardinality",
    "pages",
    "filter_condition",
]
SPECIAL_COLUMNS = [
    "scope",
    "column_name",
    "data_type",
    "type_name",
    "column_size",
    "buffer_length",
    "decimal_digits",
    "pseudo_column",
]
TYPE_INFO_COLUMNS = [
    "type_name",
    "data_type",
    "column_size",
    "literal_prefix",
    "literal_suffix",
    "create_params",
    "nullable",
    "case_sensitive",
    "searchable",
    "unsigned_attribute",
    "fixed_prec_scale",
    "auto_unique_value",
    "local_type_name",
    "minimum_scale",
    "maximum_scale",
    "sql_data_type",
    "sql_datetime_sub",
    "num_prec_radix",
    "interval_precision",
]
SQL_TABLE_STAT = 0


def names(cursor) -> list[str]:
    return [d[0] for d in cursor.description]


@pytest.fixture
def parent_child(backend, table):
    parent = table(f"id {backend.ddl('int')} PRIMARY KEY, code {backend.ddl('varchar(10)')}")
    child = table(
        f"id {backend.ddl('int')} PRIMARY KEY, parent_id {backend.ddl('int')} REFERENCES "
        f"{parent}(id), v {backend.ddl('int')}"
    )
    return parent, child


@pytest.mark.parametrize("direction", ["table", "foreignTable"])
def test_foreign_keys(parent_child, cursor, direction):
    # The tables exist before the connection: sqliteodbc's foreign-key list comes from the
    # schema as the connection's open transaction saw it.
    parent, child = parent_child
    if direction == "table":
        rows = cursor.foreignKeys(table=parent).fetchall()
    else:
        rows = cursor.foreignKeys(foreignTable=child).fetchall()
    assert names(cursor) == FOREIGN_KEY_COLUMNS
    assert [(r.pktable_name, r.pkcolumn_name, r.fktable_name, r.fkcolumn_name, r.key_seq) for r in rows] == [
        (parent, "id", child, "parent_id", 1)
    ]
    assert cursor.foreignKeys(parent, foreignTable=parent).fetchall() == []


@pytest.fixture
def indexed(backend, table, connect):
    """A table with a primary key `id` and a plain index on `v`."""
    t = table(f"id {backend.ddl('int')} PRIMARY KEY, v {backend.ddl('int')}")
    connect(autocommit=True).cursor().execute(f"CREATE INDEX {t}_v ON {t} (v)")
    return t


@pytest.mark.parametrize("unique", [False, True])
def test_statistics(backend, indexed, cursor, unique):
    child = indexed
    rows = cursor.statistics(child, unique=unique).fetchall()
    assert names(cursor) == STATISTICS_COLUMNS
    indexed = sorted((r.column_name, r.non_unique) for r in rows if r.type != SQL_TABLE_STAT)
    assert indexed == ([("id", 0)] if unique else [("id", 0), ("v", 1)])
    assert all(r.table_name == child for r in rows)
    # quick=False asks for exact statistics: the same indexes.
    rows = cursor.statistics(table=child, quick=False, unique=unique).fetchall()
    assert sorted((r.column_name, r.non_unique) for r in rows if r.type != SQL_TABLE_STAT) == indexed


@pytest.mark.parametrize("method", ["rowIdColumns", "rowVerColumns"])
@pytest.mark.parametrize("nullable", [True, False])
def test_special_columns(parent_child, cursor, method, nullable):
    _, child = parent_child
    rows = getattr(cursor, method)(child, nullable=nullable).fetchall()
    # The ODBC columns, then any the driver adds (sqliteodbc: nullable).
    assert names(cursor)[: len(SPECIAL_COLUMNS)] == SPECIAL_COLUMNS
    assert all(type(r.column_name) is str for r in rows)


def test_procedures(db, backend, cursor, cnxn):
    if backend.create_procedure_sql is None:
        # No procedures: empty results with their columns.
        assert cursor.procedures().fetchall() == []
        assert names(cursor)[0] == "procedure_cat" and names(cursor)[2] == "procedure_name"
        assert cursor.procedureColumns().fetchall() == []
        assert names(cursor)[3] == "column_name"
        return
    name = "fastodbc_proc_probe"
    admin = cnxn.cursor()
    admin.execute(backend.drop_procedure_sql.format(name=name))
    admin.execute(backend.create_procedure_sql.format(name=name))
    cnxn.commit()
    try:
        rows = cursor.procedures(procedure=name).fetchall()
        assert names(cursor)[0] == "procedure_cat" and names(cursor)[2] == "procedure_name"
        assert [r.procedure_name for r in rows] == [name]
        rows = cursor.procedureColumns(name).fetchall()
        assert names(cursor)[3] == "column_name"
        assert "a" in [r.column_name for r in rows]
    finally:
        admin.execute(backend.drop_procedure_sql.format(name=name))
        cnxn.commit()


def test_get_type_info(db, cursor):
    everything = cursor.getTypeInfo().fetchall()
    assert names(cursor) == TYPE_INFO_COLUMNS
    integers = cursor.getTypeInfo(db.SQL_INTEGER).fetchall()
    assert integers and all(r.data_type == db.SQL_INTEGER for r in integers)
    assert len(everything) > len(integers)
    assert {r.type_name for r in integers} <= {r.type_name for r in everything}


@pytest.mark.fastodbc_only(reason="pyodbc ignores getTypeInfo's keyword argument")
def test_get_type_info_keyword(db, cursor):
    rows = cursor.getTypeInfo(sqlType=db.SQL_INTEGER).fetchall()
    assert rows and all(r.data_type == db.SQL_INTEGER for r in rows)


def test_catalog_functions_need_a_table_name(db, cursor):
    for method in ("statistics", "rowIdColumns", "rowVerColumns"):
        with pytest.raises((TypeError, db.Error)):  # pyodbc: either; fastodbc: HY009
            getattr(cursor, method)(None)
        assert cursor.execute("SELECT 1").fetchval() == 1
