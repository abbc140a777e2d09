"""A real client: SQLAlchemy 2.0's pyodbc dialects driving fastodbc where they would drive
pyodbc (``module=fastodbc``). What SQLAlchemy reads from the driver is tested here: the native
error code in a message (its MariaDB dialect parses ``(1146)``) and transactions the ORM and
pandas run through it. SQLAlchemy's pyodbc connector recognises no lost connection by its code
(``is_disconnect`` is False for MariaDB's 2006 / 2013, with pyodbc as with fastodbc), so even
``pool_pre_ping`` raises after a killed session: a dialect of fastodbc's own is issue 34's.
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
    connstr = connstr or backend.connstr
    return sqlalchemy.create_engine(
        f"{backend.sqlalchemy_dialect}://",
        module=db,
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
