"""Connections: connect(), connection strings, autocommit, transactions, context manager,
close, getinfo, drivers()/dataSources(), timeout."""

import time

import pytest

from profiles import PROFILES, backends_where

# A database in a file; one that names its databases (Database= keyword values).
IN_A_FILE = backends_where(lambda p: not p.is_server)
MAKES_DATABASES = backends_where(lambda p: p.create_database_sql)


def parse_connstr(connstr: str) -> dict:
    """'A=1;B={x;y};' -> {'A': '1', 'B': '{x;y}'} (values kept verbatim, braces included), read
    by fastodbc's one parser of connection strings (the Rust core's)."""
    from fastodbc import _native

    return dict(_native.connstr_attributes(connstr))


def test_parse_connstr_helper():
    assert parse_connstr("Driver={A B};Database=/x;") == {"Driver": "{A B}", "Database": "/x"}
    assert parse_connstr("a=1;b={x;y};c=") == {"a": "1", "b": "{x;y}", "c": ""}


def count_rows(connect, table):
    """Row count as seen by a separate autocommit connection (what is committed)."""
    other = connect(autocommit=True)
    try:
        return other.cursor().execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]
    finally:
        other.close()


# ------------------------------------------------------------------------ connect


def test_connect_returns_connection(db, backend, connect):
    c = connect.track(db.connect(backend.connstr))
    try:
        assert isinstance(c, db.Connection)
        assert c.closed is False
        cur = c.cursor()
        assert isinstance(cur, db.Cursor)
        assert cur.connection is c
        assert cur.execute("SELECT 42").fetchone()[0] == 42
    finally:
        c.close()
    assert c.closed is True


# connect()'s own parameters: an attribute of the same name (sqliteodbc's busy Timeout) can't be
# passed as a keyword (in pyodbc neither: timeout= is the login timeout), so it stays out.
CONNECT_PARAMETERS = {"autocommit", "timeout", "readonly", "attrs_before", "encoding", "ansi"}


def keyword_attributes(parts: dict) -> dict:
    return {k.lower(): v.strip("{}") for k, v in parts.items() if k.lower() not in CONNECT_PARAMETERS}


def test_connect_from_keywords_only(db, backend, connect):
    kwargs = keyword_attributes(parse_connstr(backend.connstr))
    c = connect.track(db.connect(**kwargs))
    try:
        row = c.cursor().execute("SELECT 7").fetchone()
        assert row[0] == 7
    finally:
        c.close()


def test_connect_string_plus_keywords(db, backend, connect):
    parts = parse_connstr(backend.connstr)
    driver = parts.pop("Driver")
    kwargs = keyword_attributes(parts)
    c = connect.track(db.connect(f"Driver={driver}", **kwargs))
    try:
        assert c.cursor().execute("SELECT 8").fetchone()[0] == 8
    finally:
        c.close()


@pytest.mark.parametrize("backend", IN_A_FILE, indirect=True)
@pytest.mark.parametrize("name", ["with space.sqlite", "eq=sign.sqlite", "brace}.sqlite"])
def test_keyword_value_with_special_characters_opens_that_file(
    db, backend, connect, tmp_path, name
):
    d = tmp_path / "kw"
    d.mkdir()
    path = d / name
    c = connect.track(db.connect(driver=backend.driver, database=str(path), autocommit=True))
    c.cursor().execute("CREATE TABLE marker (a INTEGER)")
    c.close()
    assert sorted(p.name for p in d.iterdir()) == [name]


@pytest.mark.fastodbc_only(reason="pyodbc appends keyword values unescaped: 'a;b.sqlite' opens the file 'a'")
@pytest.mark.parametrize("backend", IN_A_FILE, indirect=True)
def test_keyword_value_with_semicolon_never_opens_another_file(db, backend, connect, tmp_path):
    d = tmp_path / "kw"
    d.mkdir()
    path = d / "semi;colon.sqlite"
    try:
        c = connect.track(db.connect(driver=backend.driver, database=str(path), autocommit=True))
    except db.Error:
        assert list(d.iterdir()) == []
        return
    c.cursor().execute("CREATE TABLE marker (a INTEGER)")
    c.close()
    assert sorted(p.name for p in d.iterdir()) == [path.name]


@pytest.fixture
def new_database(backend, connect):
    """create(name) -> creates a database with that name, dropped afterwards."""
    admin = connect(autocommit=True)
    cur = admin.cursor()
    created = []

    def create(name):
        cur.execute(backend.drop_database_sql.format(name=backend.quote(name)))
        cur.execute(backend.create_database_sql.format(name=backend.quote(name)))
        created.append(name)
        return name

    yield create
    connect.release()
    for name in created:
        cur.execute(backend.drop_database_sql.format(name=backend.quote(name)))


def connstr_without_database(backend):
    parts = parse_connstr(backend.connstr)
    parts.pop("Database", None)
    return ";".join(f"{k}={v}" for k, v in parts.items())


@pytest.mark.parametrize("backend", MAKES_DATABASES, indirect=True)
def test_keyword_database_with_special_characters_postgresql(db, backend, connect, new_database):
    # psqlODBC 13.02 does not strip {braces} from Database=: a value must reach it raw.
    name = new_database("fastodbc t=e}st")
    c = connect.track(db.connect(connstr_without_database(backend), database=name))
    assert c.cursor().execute(backend.current_database_sql).fetchone()[0] == name


@pytest.mark.fastodbc_only(reason="pyodbc appends keyword values unescaped: Database=a;b connects to database a")
@pytest.mark.parametrize("backend", MAKES_DATABASES, indirect=True)
def test_keyword_database_with_semicolon_never_connects_elsewhere(db, backend, connect, new_database):
    new_database("fastodbc_semi")
    name = new_database("fastodbc_semi;colon")
    try:
        c = connect.track(db.connect(connstr_without_database(backend), database=name))
    except db.Error:
        return
    assert c.cursor().execute(backend.current_database_sql).fetchone()[0] == name


def test_connection_execute_shortcut(cnxn):
    cur = cnxn.execute("SELECT 1, 2")
    assert tuple(cur.fetchone()) == (1, 2)


# ------------------------------------------------------------------------ autocommit


def test_autocommit_default_off(cnxn):
    assert cnxn.autocommit is False


def test_autocommit_keyword(connect):
    c = connect(autocommit=True)
    assert c.autocommit is True


def test_autocommit_toggle(cnxn):
    cnxn.autocommit = True
    assert cnxn.autocommit is True
    cnxn.autocommit = False
    assert cnxn.autocommit is False


def test_autocommit_on_makes_writes_visible(connect, backend, table):
    t = table(f"id {backend.ddl('int')}")
    c = connect(autocommit=True)
    c.cursor().execute(f"INSERT INTO {t} VALUES (1)")
    assert count_rows(connect, t) == 1


def test_autocommit_switched_on_commits_pending_work(connect, backend, table):
    # ODBC: turning autocommit on commits the open transaction.
    t = table(f"id {backend.ddl('int')}")
    c = connect()
    c.cursor().execute(f"INSERT INTO {t} VALUES (1)")
    c.autocommit = True
    assert count_rows(connect, t) == 1


# ------------------------------------------------------------------------ transactions


def test_rollback_discards(connect, cnxn, backend, table):
    t = table(f"id {backend.ddl('int')}")
    cur = cnxn.cursor()
    cur.execute(f"INSERT INTO {t} VALUES (1)")
    assert cur.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] == 1
    cnxn.rollback()
    assert cur.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] == 0
    cnxn.rollback()
    assert count_rows(connect, t) == 0


def test_commit_persists(connect, cnxn, backend, table):
    t = table(f"id {backend.ddl('int')}")
    cnxn.cursor().execute(f"INSERT INTO {t} VALUES (1)")
    cnxn.commit()
    assert count_rows(connect, t) == 1
    cnxn.rollback()  # nothing pending: no effect
    assert count_rows(connect, t) == 1


def test_uncommitted_work_invisible_to_others(connect, cnxn, backend, table):
    t = table(f"id {backend.ddl('int')}")
    cnxn.cursor().execute(f"INSERT INTO {t} VALUES (1)")
    assert count_rows(connect, t) == 0
    cnxn.commit()
    assert count_rows(connect, t) == 1


def test_close_rolls_back(connect, backend, table):
    t = table(f"id {backend.ddl('int')}")
    c = connect()
    c.cursor().execute(f"INSERT INTO {t} VALUES (1)")
    c.close()
    assert count_rows(connect, t) == 0


# ------------------------------------------------------------------------ context manager


def test_context_manager_commits_on_success(db, backend, connect, table):
    t = table(f"id {backend.ddl('int')}")
    with connect.track(db.connect(backend.connstr)) as c:
        c.cursor().execute(f"INSERT INTO {t} VALUES (1)")
    # pyodbc semantics: __exit__ commits; the connection is not closed.
    assert c.closed is False
    assert count_rows(connect, t) == 1
    c.close()


def test_context_manager_rolls_back_on_exception(db, backend, connect, table):
    t = table(f"id {backend.ddl('int')}")
    with pytest.raises(KeyError):
        with connect.track(db.connect(backend.connstr)) as c:
            c.cursor().execute(f"INSERT INTO {t} VALUES (1)")
            raise KeyError("boom")
    c.rollback()
    assert count_rows(connect, t) == 0
    c.close()


def test_context_manager_returns_connection(db, backend, connect):
    c = connect.track(db.connect(backend.connstr))
    with c as entered:
        assert entered is c
    c.close()


# ------------------------------------------------------------------------ close


def test_close_twice(db, connect):
    c = connect()
    c.close()
    assert c.closed is True
    # pyodbc raises ProgrammingError on a second close; a no-op is fine too.
    try:
        c.close()
    except db.ProgrammingError:
        pass
    assert c.closed is True


def test_closed_connection_cursor_raises(db, connect):
    c = connect()
    c.close()
    with pytest.raises(db.ProgrammingError):
        c.cursor()
    with pytest.raises(db.ProgrammingError):
        c.commit()
    with pytest.raises(db.ProgrammingError):
        c.rollback()


def test_close_connection_invalidates_cursors(db, connect):
    c = connect()
    cur = c.cursor()
    c.close()
    with pytest.raises(db.ProgrammingError):
        cur.execute("SELECT 1")


# ------------------------------------------------------------------------ getinfo

def test_getinfo_known_values(db, backend, cnxn):
    for name, want in backend.getinfo.items():
        if name == "SQL_DATABASE_NAME" and "fastodbc_test" not in backend.connstr:
            continue
        got = cnxn.getinfo(getattr(db, name))
        assert got == want, name
        assert type(got) is type(want), name


def test_getinfo_dbms_version_is_str(db, cnxn):
    ver = cnxn.getinfo(db.SQL_DBMS_VER)
    assert isinstance(ver, str)
    assert ver[:1].isdigit(), ver


def test_getinfo_types(db, cnxn):
    # String-valued, 16-bit and 32-bit info types come back as str / int.
    assert isinstance(cnxn.getinfo(db.SQL_DRIVER_VER), str)
    assert isinstance(cnxn.getinfo(db.SQL_TXN_CAPABLE), int)
    assert isinstance(cnxn.getinfo(db.SQL_MAX_COLUMN_NAME_LEN), int)
    assert cnxn.getinfo(db.SQL_MAX_COLUMN_NAME_LEN) > 0


def test_getinfo_unknown_type_raises(db, cnxn):
    with pytest.raises(db.Error):
        cnxn.getinfo(9999)


def test_getinfo_out_of_range_type_raises(db, cnxn):
    # SQLGetInfo takes a 16-bit info type.
    with pytest.raises((db.Error, OverflowError, ValueError)):
        cnxn.getinfo(999999)


# ------------------------------------------------------------------------ drivers / DSNs


def test_drivers(db):
    names = db.drivers()
    assert isinstance(names, list)
    assert all(type(n) is str for n in names)
    for profile in PROFILES:  # registered by scripts/odbcinst.sh
        assert profile.driver in names


def test_data_sources(db):
    sources = db.dataSources()
    assert isinstance(sources, dict)
    for k, v in sources.items():
        assert type(k) is str
        assert type(v) is str


# ------------------------------------------------------------------------ timeout


def test_timeout_default_zero(cnxn):
    assert cnxn.timeout == 0


@pytest.mark.fastodbc_only(
    where=lambda p: p.refuses_connection_timeout,
    reason="pyodbc sets SQL_ATTR_CONNECTION_TIMEOUT, which psqlODBC rejects (HY000)",
)
def test_timeout_settable(cnxn):
    cnxn.timeout = 3
    assert cnxn.timeout == 3
    cnxn.timeout = 0
    assert cnxn.timeout == 0


def test_timeout_rejects_negative(cnxn):
    with pytest.raises((ValueError, OverflowError)):
        cnxn.timeout = -1
    assert cnxn.timeout == 0


@pytest.mark.fastodbc_only(
    where=lambda p: p.refuses_connection_timeout,
    reason="pyodbc can't set a timeout on psqlODBC connections",
)
def test_query_timeout_cancels_long_query(db, backend, connect):
    if not backend.honours_query_timeout:
        pytest.skip(f"{backend.name}'s driver ignores query timeouts")
    c = connect()
    c.timeout = 1
    cur = c.cursor()
    for attempt in range(3):
        start = time.monotonic()
        with pytest.raises(db.OperationalError) as exc:
            cur.execute(backend.sleep(5))
        elapsed = time.monotonic() - start
        assert elapsed < 4, (attempt, elapsed)
        assert exc.value.args[0] in ("HYT00", "HYT01", "57014"), exc.value.args
        # The connection is still usable afterwards.
        c.rollback()
        assert cur.execute("SELECT 1").fetchone()[0] == 1
    assert connect().cursor().execute("SELECT 2").fetchval() == 2


def test_server_time_limit_fails_the_statement(db, backend, connect):
    # The server's own statement time limit (PostgreSQL statement_timeout, MariaDB
    # max_statement_time) is an OperationalError with a timeout's SQLSTATE.
    if backend.server_time_limit is None:
        pytest.skip(f"{backend.name} puts no time limit on statements")
    set_limit, slow_sql, states = backend.server_time_limit
    c = connect(autocommit=True)
    cur = c.cursor()
    cur.execute(set_limit)
    start = time.monotonic()
    with pytest.raises(db.OperationalError) as exc:
        cur.execute(slow_sql).fetchall()
    assert time.monotonic() - start < 4
    assert exc.value.args[0] in states, exc.value.args
    assert cur.execute("SELECT 1").fetchone()[0] == 1
