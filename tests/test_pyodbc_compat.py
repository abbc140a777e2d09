"""A realistic pyodbc-style script, run unchanged against the module under test
(``import fastodbc as pyodbc``)."""

import datetime

import pytest


@pytest.mark.fastodbc_only(
    where=lambda p: p.pyodbc_fast_executemany_crashes, reason="pyodbc's fast_executemany segfaults inside sqliteodbc"
)
def test_pyodbc_style_script(db, backend, table, connect):
    pyodbc = db  # i.e. `import fastodbc as pyodbc`
    t = table()
    ddl = backend.ddl

    cnxn = connect.track(pyodbc.connect(backend.connstr))
    cursor = cnxn.cursor()
    cursor.execute(
        f"CREATE TABLE {t} (id {ddl('int')} PRIMARY KEY, name {ddl('varchar(50)')}, "
        f"qty {ddl('int')}, price {ddl('float')}, added {ddl('date')})"
    )
    cnxn.commit()

    cursor.execute(
        f"INSERT INTO {t} (id, name, qty, price, added) VALUES (?, ?, ?, ?, ?)",
        1,
        "widget",
        10,
        2.5,
        datetime.date(2024, 1, 15),
    )
    cnxn.commit()

    cursor.execute(f"SELECT id, name, qty FROM {t} WHERE id = ?", 1)
    row = cursor.fetchone()
    assert row is not None
    assert row.name == "widget"
    assert row[2] == 10
    assert row.qty == 10

    cursor.fast_executemany = True
    params = [
        (i, f"item {i}", i * 3, i / 2, datetime.date(2024, 2, i % 28 + 1)) for i in range(2, 502)
    ]
    cursor.executemany(
        f"INSERT INTO {t} (id, name, qty, price, added) VALUES (?, ?, ?, ?, ?)", params
    )
    cnxn.commit()

    sql = f"SELECT id, name, price FROM {t} WHERE qty > ? ORDER BY id"
    rows = cursor.execute(sql, 1000).fetchall()
    want = [(i, f"item {i}", i / 2) for i in range(334, 502)]
    assert [(r.id, r.name, r.price) for r in rows] == want

    total = cursor.execute(f"SELECT COUNT(*) FROM {t}").fetchval()
    assert total == 501

    names = []
    for row in cursor.execute(f"SELECT name FROM {t} WHERE id <= ? ORDER BY id", 3):
        names.append(row.name)
    assert names == ["widget", "item 2", "item 3"]

    deleted = cursor.execute(f"DELETE FROM {t} WHERE id > ?", 400).rowcount
    assert deleted == 101
    cnxn.commit()

    columns = [column[0] for column in cursor.execute(f"SELECT * FROM {t}").description]
    assert columns == ["id", "name", "qty", "price", "added"]
    cursor.fetchall()

    cursor.close()
    cnxn.close()

    with connect.track(pyodbc.connect(backend.connstr)) as cnxn:
        cnxn.cursor().execute(f"UPDATE {t} SET name = ? WHERE id = ?", "renamed", 1)
    cnxn.close()

    with connect.track(pyodbc.connect(backend.connstr, autocommit=True)) as cnxn:
        cursor = cnxn.cursor()
        name, added = cursor.execute(f"SELECT name, added FROM {t} WHERE id = 1").fetchone()
        assert (name, added) == ("renamed", datetime.date(2024, 1, 15))
        assert cursor.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] == 400
    cnxn.close()


def test_pyodbc_style_error_handling(db, backend, table, connect):
    pyodbc = db
    t = table(f"id {backend.ddl('int')} PRIMARY KEY")
    cnxn = connect.track(pyodbc.connect(backend.connstr))
    try:
        cursor = cnxn.cursor()
        cursor.execute(f"INSERT INTO {t} VALUES (?)", 1)
        cnxn.commit()
        try:
            cursor.execute(f"INSERT INTO {t} VALUES (?)", 1)
        except pyodbc.Error as ex:
            sqlstate = ex.args[0]
            assert sqlstate.startswith(backend.unique_violation[0])
            cnxn.rollback()
        else:
            pytest.fail("duplicate insert did not raise")
        assert cursor.execute(f"SELECT COUNT(*) FROM {t}").fetchval() == 1
    finally:
        cnxn.close()
