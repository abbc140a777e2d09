"""Values longer than their bound buffer, re-read whole on their own row: long text columns are
bound with room for 1,024 characters (4,104 bytes of UTF-8), and the longer values of a block
are read again with SQLGetData. Found by the differential matrix (tests/test_differential.py)."""

import pytest

# Short and long values mixed in one block: a long value after short ones, two long ones in a
# row, a long one last but one. 'é' * 3000 is 6,000 bytes of UTF-8, past the bound.
VALUES = ["a" * 10, "b" * 10, "é" * 3000, "c" * 10, "ü" * 3001, "d" * 5000, "e", "😀" * 1100, ""]


@pytest.mark.parametrize("read_ahead", [True, False])
@pytest.mark.parametrize("decoding", ["utf-8", "utf-16le"])
def test_long_text_in_a_block_is_its_own_row(db, backend, cnxn, table, read_ahead, decoding):
    # MariaDB Connector/ODBC ignored the row SQLSetPos positioned on: the first long value of
    # the block came back as the block's first row, the others empty.
    t = table(f"id {backend.ddl('int')}, v {backend.ddl('text')}, w {backend.ddl('text')}")
    cur = cnxn.cursor()
    rows = [(i, v, v[::-1] + "x") for i, v in enumerate(VALUES)]
    for r in rows:
        cur.execute(f"INSERT INTO {t} (id, v, w) VALUES (?, ?, ?)", *r)
    cnxn.commit()
    cnxn.read_ahead = read_ahead
    cnxn.setdecoding(db.SQL_CHAR, encoding=decoding)
    cnxn.setdecoding(db.SQL_WCHAR, encoding=decoding)
    sql = f"SELECT id, v, w FROM {t} ORDER BY id"
    assert [tuple(r) for r in cur.execute(sql).fetchall()] == rows
    assert [tuple(r) for r in cur.execute(sql)] == rows
    cur.execute(sql)
    assert [tuple(cur.fetchone()) for _ in rows] == rows
