"""Unsigned integer columns (where the database has them): every value whole through rows and
through Arrow, the largest unsigned BIGINT included, which a signed fetch would wrap to -1."""

from __future__ import annotations

import pytest

UNSIGNED = {
    "tinyint unsigned": (255, "uint8"),
    "int unsigned": (4_294_967_295, "uint32"),
    "bigint unsigned": (18_446_744_073_709_551_615, "uint64"),
}


@pytest.mark.parametrize("kind", sorted(UNSIGNED))
def test_unsigned_columns_keep_their_largest_values(backend, cursor, table, kind):
    if kind not in backend.ddl_map:
        pytest.skip(f"{backend.name} has no {kind}")
    top, arrow_type = UNSIGNED[kind]
    values = [top, top // 2 + 1, 0, None]
    name = table(f"id INTEGER, v {backend.ddl(kind)}")
    # Literals: a parameter this large is an overflow of its own for some drivers.
    for i, v in enumerate(values):
        cursor.execute(f"INSERT INTO {name} VALUES ({i}, {'NULL' if v is None else v})")
    cursor.connection.commit()
    rows = cursor.execute(f"SELECT v FROM {name} ORDER BY id").fetchall()
    assert [r[0] for r in rows] == values
    pa = pytest.importorskip("pyarrow")
    got = cursor.execute(f"SELECT v FROM {name} ORDER BY id").fetch_arrow_table()
    assert got.schema.field("v").type == getattr(pa, arrow_type)()
    assert got.column("v").to_pylist() == values
