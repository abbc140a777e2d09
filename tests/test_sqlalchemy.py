"""A real client: SQLAlchemy 2.0 through fastodbc's own dialects (``mysql+fastodbc``,
``postgresql+fastodbc``; python/fastodbc/sqlalchemy), found through their entry points. What
SQLAlchemy reads from the driver is tested here: the native error code in a message (its
MariaDB dialect parses ``(1146)``), a killed session recognised as a lost connection (the pyodbc
connector recognised none by its code, so even ``pool_pre_ping`` raised), transactions the ORM
and pandas run through it, and values through pandas. SQLAlchemy's own dialect suite:
tests/test_sqlalchemy_suite.py.
"""


import pytest

from profiles import backends_where, with_credentials

sqlalchemy = pytest.importorskip("sqlalchemy")

pytestmark = [
    pytest.mark.parametrize("backend", backends_where(lambda p: p.sqlalchemy_dialect), indirect=True),
    pytest.mark.fastodbc_only(reason="fastodbc standing in for pyodbc under SQLAlchemy"),
]

LOGIN = "fastodbc_sqla"


def engine_for(db, backend, connstr=None, **options):
    """An engine of fastodbc's dialect (found through its entry point) over ``connstr``."""
    connstr = connstr or backend.connstr
    return sqlalchemy.create_engine(
        f"{backend.sqlalchemy_dialect}+fastodbc://",
        creator=lambda: db.connect(connstr),
        **options,
    )


@pytest.fixture
def weak_login(db, backend):
    """A login whose password is ``1``: a digit of every version number and error code."""
    admin = db.connect(backend.connstr, autocommit=True)
    admin.cursor().execute(backend.drop_login_sql.format(user=LOGIN))
    admin.cursor().execute(backend.create_login_sql.format(user=LOGIN, password="1", database=backend.database))
    yield with_credentials(backend.connstr, LOGIN, "1")
    admin.cursor().execute(backend.drop_login_sql.format(user=LOGIN))
    admin.close()


def error_code(engine, sql: str):
    if not hasattr(engine.dialect, "_extract_error_code"):
        pytest.skip(f"SQLAlchemy's {engine.dialect.name} dialect reads no native error code")
    with engine.connect() as conn, pytest.raises(sqlalchemy.exc.DBAPIError) as exc:
        conn.exec_driver_sql(sql)
    return engine.dialect._extract_error_code(exc.value.orig), exc.value


def test_the_native_error_code_survives_a_weak_password(db, backend, weak_login):
    # Issue 29: with password 1 the message read "(******46)" and the dialect found no code.
    plain, _ = error_code(engine_for(db, backend), "SELECT * FROM no_such_table_1146")
    weak, exc = error_code(engine_for(db, backend, weak_login), "SELECT * FROM no_such_table_1146")
    assert plain is not None
    assert weak == plain, exc
    assert "no_such_table_1146" in str(exc.orig)


def test_orm_and_pandas_round_trip_in_one_transaction(db, backend, table):
    from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column

    name = table()

    class Base(DeclarativeBase):
        pass

    class Item(Base):
        __tablename__ = name
        id: Mapped[int] = mapped_column(primary_key=True, autoincrement=False)
        label: Mapped[str] = mapped_column(sqlalchemy.String(40))

    engine = engine_for(db, backend)
    Base.metadata.create_all(engine)
    with Session(engine) as session:
        session.add_all([Item(id=i, label=f"item {i}") for i in range(1, 101)])
        session.flush()
        session.rollback()  # nothing of it stays
    with Session(engine) as session:
        assert session.scalar(sqlalchemy.select(sqlalchemy.func.count()).select_from(Item)) == 0
        session.add_all([Item(id=i, label=f"item {i}") for i in range(1, 101)])
        session.commit()
    pd = pytest.importorskip("pandas")
    frame = pd.read_sql(sqlalchemy.select(Item.id, Item.label).order_by(Item.id), engine)
    assert list(frame["id"]) == list(range(1, 101))
    assert frame["label"].iloc[41] == "item 42"


def test_a_killed_session_is_a_lost_connection_and_pre_ping_replaces_it(db, backend, connect):
    if backend.kill_session_sql is None:
        pytest.skip(f"{backend.name} has no server session to kill")
    admin = connect(autocommit=True)
    engine = engine_for(db, backend, pool_size=1, max_overflow=0)
    with engine.connect() as conn:
        session = backend.session_id(conn.connection.dbapi_connection)
    backend.kill_session(admin, session)
    # The pooled connection's session is gone: a statement on it raises, marked as a lost
    # connection, and the pool drops it.
    with engine.connect() as conn, pytest.raises(sqlalchemy.exc.DBAPIError) as exc:
        conn.exec_driver_sql("SELECT 1")
    assert exc.value.connection_invalidated, exc.value
    with engine.connect() as conn:
        assert conn.exec_driver_sql("SELECT 1").scalar() == 1
    # With pre-ping, the checkout finds the dead session itself and hands out a new one.
    pinged = engine_for(db, backend, pool_size=1, max_overflow=0, pool_pre_ping=True)
    with pinged.connect() as conn:
        session = backend.session_id(conn.connection.dbapi_connection)
    backend.kill_session(admin, session)
    with pinged.connect() as conn:
        assert backend.session_id(conn.connection.dbapi_connection) != session
        assert conn.exec_driver_sql("SELECT 1").scalar() == 1


def test_pandas_to_sql_and_read_sql_keep_every_value(db, backend, table):
    import datetime as dt
    from decimal import Decimal

    from sqlalchemy.dialects import mysql

    pd = pytest.importorskip("pandas")
    name = table()
    engine = engine_for(db, backend)
    n = 2_000
    frame = pd.DataFrame(
        {
            "id": range(n),
            "label": [None if i % 7 == 0 else f"ünïcode {i} ✓" for i in range(n)],
            "amount": [None if i % 11 == 0 else i / 8 for i in range(n)],
            "at": [dt.datetime(2024, 1, 1, 12, 0, 0, i * 37 % 1_000_000) + dt.timedelta(days=i) for i in range(n)],
            "flag": [i % 3 == 0 for i in range(n)],
        }
    )
    columns = {
        "id": sqlalchemy.Integer(),
        "label": sqlalchemy.String(40),
        "amount": sqlalchemy.Float(),
        # MySQL's DATETIME keeps no fraction unless asked (fsp); PostgreSQL's keeps microseconds.
        "at": sqlalchemy.DateTime().with_variant(mysql.DATETIME(fsp=6), "mysql", "mariadb"),
        "flag": sqlalchemy.Boolean(),
    }
    written = frame.to_sql(name, engine, index=False, dtype=columns, chunksize=500)
    # pandas sums each chunk's rowcount: -1 a chunk where the driver counts only an array's last
    # parameter set (psqlODBC with the dialect's casts); the rows read back are the check.
    assert written in (n, None, -(n // 500)), written
    back = pd.read_sql(sqlalchemy.text(f"SELECT id, label, amount, at, flag FROM {name} ORDER BY id"), engine)
    def values(column):
        return [None if pd.isna(v) else v for v in column]

    assert list(back["id"]) == list(range(n))
    for column in ("label", "amount", "at"):
        assert values(back[column]) == values(frame[column]), column
    assert [bool(v) for v in back["flag"]] == list(frame["flag"])
    # A Decimal through a NUMERIC column, read back exactly.
    with engine.begin() as conn:
        conn.exec_driver_sql(f"DROP TABLE {name}")
        conn.exec_driver_sql(f"CREATE TABLE {name} (id INTEGER, price NUMERIC(18, 6))")
        conn.execute(
            sqlalchemy.text(f"INSERT INTO {name} (id, price) VALUES (:id, :price)"),
            [{"id": i, "price": Decimal(i) / 7 if i % 5 else None} for i in range(200)],
        )
    with engine.connect() as conn:
        prices = conn.execute(sqlalchemy.text(f"SELECT price FROM {name} ORDER BY id")).scalars().all()
    expected = [None if i % 5 == 0 else (Decimal(i) / 7).quantize(Decimal("0.000001")) for i in range(200)]
    assert prices == expected


@pytest.mark.parametrize("rows", [0, 1, 2_500])
@pytest.mark.parametrize("dtype_backend", ["numpy", "numpy_nullable", "pyarrow"])
def test_arrow_read_sql_reads_what_pandas_read_sql_reads(db, backend, table, rows, dtype_backend):
    import datetime as dt
    import random
    from decimal import Decimal

    from fastodbc.sqlalchemy import read_sql

    pd = pytest.importorskip("pandas")
    name = table(
        f"id INTEGER, n INTEGER, label VARCHAR(40), amount {backend.ddl('float')}, price NUMERIC(18, 6),"
        f" day DATE, at {backend.ddl('timestamp')}"
    )
    rnd = random.Random(rows)

    def maybe(v):
        return None if rnd.random() < 0.15 else v

    data = [
        (
            i,
            maybe(rnd.randint(-(2**31), 2**31 - 1)),
            maybe(rnd.choice(["", "ascii", "ünï ✓", "日本語テキスト"]) + str(i)),
            maybe(rnd.uniform(-1e9, 1e9)),
            maybe(Decimal(rnd.randint(-(10**17), 10**17)).scaleb(-6)),
            maybe(dt.date(2000, 1, 1) + dt.timedelta(days=rnd.randint(0, 20_000))),
            maybe(dt.datetime(2001, 1, 1) + dt.timedelta(seconds=rnd.randint(0, 10**9))),
        )
        for i in range(rows)
    ]
    engine = engine_for(db, backend)
    with engine.begin() as conn:
        if data:
            conn.exec_driver_sql(f"INSERT INTO {name} VALUES (?, ?, ?, ?, ?, ?, ?)", data)
    query = f"SELECT id, n, label, amount, price, day, at FROM {name} WHERE id >= ? ORDER BY id"
    ours = read_sql(query, engine, params=[0], dtype_backend=dtype_backend)
    theirs = pd.read_sql(query, engine, params=(0,), coerce_float=False)
    # The same statement through SQLAlchemy's compiler, with a bound parameter.
    selected = read_sql(
        sqlalchemy.text(f"SELECT id, n FROM {name} WHERE id >= :low ORDER BY id"),
        engine,
        params={"low": rows // 2},
        index_col="id",
        dtype_backend=dtype_backend,
    )
    assert list(selected.index) == list(range(rows // 2, rows))

    def plain(v):
        if v is None or v is pd.NaT or (not isinstance(v, str | bytes | Decimal) and pd.isna(v)):
            return None
        if isinstance(v, pd.Timestamp):
            return v.to_pydatetime()
        if hasattr(v, "item") and not isinstance(v, Decimal):
            v = v.item()  # numpy scalars
        return v

    assert list(ours.columns) == list(theirs.columns) == ["id", "n", "label", "amount", "price", "day", "at"]
    assert len(ours) == len(theirs) == rows
    for column in ours.columns:
        got = [plain(v) for v in ours[column]]
        want = [plain(v) for v in theirs[column]]
        if column == "n" and dtype_backend == "numpy":
            got = [None if v is None else int(v) for v in got]  # an integer column with NULLs is float
        if column == "day":
            got = [v.date() if isinstance(v, dt.datetime) else v for v in got]
            want = [v.date() if isinstance(v, dt.datetime) else v for v in want]
        assert got == want, column
    # And what was written, read back: the oracle is the data itself.
    assert [plain(v) for v in ours["price"]] == [r[4] for r in data]
    assert [plain(v) for v in ours["label"]] == [r[2] for r in data]
