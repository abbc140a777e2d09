"""Loads the differential ingest matrix (tests/differential/ingest.py) found failing, kept as
plain examples: an Arrow IPC file's buffers (8-byte aligned, where decimal128 and string_view
values want 16), and a boolean column created by ingest read back after a NULL next to a long
text column."""

from __future__ import annotations

import decimal

import pytest

pa = pytest.importorskip("pyarrow")

pytestmark = pytest.mark.fastodbc_only(reason="Cursor.ingest is fastodbc's")


def ipc_round_trip(table):
    """``table`` as read from an Arrow IPC file: its buffers where the file's layout puts them."""
    sink = pa.BufferOutputStream()
    with pa.ipc.new_file(sink, table.schema) as w:
        w.write_table(table)
    return pa.ipc.open_file(pa.BufferReader(sink.getvalue())).read_all()


@pytest.mark.parametrize(
    "column",
    [
        pa.array([decimal.Decimal("1.5"), None, decimal.Decimal("-2.25")], pa.decimal128(10, 2)),
        pa.array(["a", "bb" * 20, None], pa.string_view()),
    ],
    ids=["decimal128", "string_view"],
)
def test_ingest_reads_an_ipc_files_buffers(cursor, table, column):
    # An int8 column with a NULL first: its validity and values buffers (8 bytes each in the
    # file) leave the next column's buffers 8-byte aligned, not 16.
    given = pa.table({"x": pa.array([1, None, 3], pa.int8()), "c": column})
    data = ipc_round_trip(given)
    assert any(b is not None and b.address % 16 for ch in data.column("c").chunks for b in ch.buffers())
    name = table()
    assert cursor.ingest(name, data, mode="create") == 3

    def key(r):
        return (r[0] is None, r[0] or 0)

    got = sorted((tuple(r) for r in cursor.execute(f"SELECT x, c FROM {name}").fetchall()), key=key)
    want = sorted(zip(given.column("x").to_pylist(), given.column("c").to_pylist(), strict=True), key=key)

    # NUMERIC is a double on SQLite: compare in the type read back.
    def same(g, w):
        return g == (w if g is None or w is None else type(g)(w))

    assert all(same(g[1], w[1]) for g, w in zip(got, want, strict=True)), (got, want)
    assert [r[0] for r in got] == [w[0] for w in want]


def test_created_boolean_reads_back_after_a_null(cursor, table):
    # A boolean column ingest created (MariaDB: BIT) beside a long text column: every value
    # after the NULL read back as NULL, by fetchall and by fetch_arrow_table.
    bools = [True, None, True, False, True]
    data = pa.table(
        {
            "id": pa.array(range(5), pa.int64()),
            "b": pa.array(bools),
            "t": pa.array([None] * 4 + ["x"], pa.large_string()),
        }
    )
    name = table()
    assert cursor.ingest(name, data, mode="create") == 5
    sql = f"SELECT b, t FROM {name} ORDER BY id"
    rows = [None if r[0] is None else bool(r[0]) for r in cursor.execute(sql).fetchall()]
    assert rows == bools
    arrow = [None if x is None else bool(x) for x in cursor.execute(sql).fetch_arrow_table().column(0).to_pylist()]
    assert arrow == bools


def test_created_boolean_reads_back_after_nulls_in_an_earlier_block(cursor, table):
    # The same across blocks: NULLs in the first rows of one rowset, values in the next.
    n = 20_000
    bools = [None if i < n // 2 else i % 3 == 0 for i in range(n)]
    name = table()
    assert (
        cursor.ingest(name, pa.table({"id": pa.array(range(n), pa.int64()), "b": pa.array(bools)}), mode="create") == n
    )
    got = [None if r[0] is None else bool(r[0]) for r in cursor.execute(f"SELECT b FROM {name} ORDER BY id").fetchall()]
    assert got == bools
