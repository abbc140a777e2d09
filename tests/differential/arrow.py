"""The Arrow read path: the same result read through fetch_record_batch (after a few rows
fetched as rows, in batches of a random budget), every batch whole, every column of its
Arrow type, every value equal to the oracle's (which the rows path was compared with)."""

from __future__ import annotations

import dataclasses
from typing import Any

import pyarrow as pa
from hypothesis import strategies as st

from arrowcheck import arrow_type, assert_matches_rows, check_batch

from .compare import compare_rows
from .schema import Column

# Batch budgets: None is the default (65,536 rows, 64 MiB); small ones split a result into
# many batches, 1 byte ends a batch after every fetched block.
BATCH_ROWS = (None, 1, 7, 100, 4096)
BATCH_BYTES = (None, 1, 1000, 64 * 1024)


@dataclasses.dataclass
class ArrowPath:
    rows_first: int  # rows fetched with fetchmany before the reader takes the rest
    batch_rows: int | None
    batch_bytes: int | None


@st.composite
def arrow_paths(draw, n_rows: int) -> ArrowPath:
    return ArrowPath(
        rows_first=draw(st.one_of(st.just(0), st.just(0), st.integers(0, max(n_rows, 1) + 1))),
        batch_rows=draw(st.sampled_from(BATCH_ROWS)),
        batch_bytes=draw(st.sampled_from(BATCH_BYTES)),
    )


def column_type(profile, col: Column | None) -> pa.DataType:
    """The Arrow type of a column of the differential schema (None: the id, a BIGINT)."""
    if col is None:
        return arrow_type(profile.arrow_types["bigint"])
    if col.kind == "numeric(p,s)":
        numeric = profile.arrow_types["numeric(18,4)"]
        if not numeric.startswith("decimal128"):
            return arrow_type(numeric)  # a database whose NUMERIC is a double
        wide = col.size > 38 or col.size == profile.numeric_text_precision
        return pa.string() if wide else pa.decimal128(col.size, col.scale)
    if col.kind in ("varchar(n)", "char(n)"):
        return arrow_type(profile.arrow_types["varchar(50)"])
    return arrow_type(profile.arrow_types[col.kind])


def read_and_compare(cursor, sql: str, params: tuple[Any, ...], path: ArrowPath, want, cols, profile) -> None:
    """Reads ``sql`` along ``path``, comparing the rows and batches served with ``want``."""
    cursor.execute(sql, *params)
    first = cursor.fetchmany(path.rows_first) if path.rows_first else []
    compare_rows(first, want[: path.rows_first], cols, f"fetchmany({path.rows_first}) before Arrow")
    k = len(first)
    reader = cursor.fetch_record_batch(batch_rows=path.batch_rows, batch_bytes=path.batch_bytes)
    schema = reader.schema
    types = [column_type(profile, c) for c in cols]
    got_types = [f.type for f in schema]
    assert got_types == types, f"Arrow types {got_types}, want {types} for {[c and c.ddl for c in cols]}"
    batches = []
    for batch in reader:
        check_batch(batch, path.batch_rows or 65_536)
        assert batch.schema == schema, (batch.schema, schema)
        batches.append(batch)
    table = pa.Table.from_batches(batches, schema=schema)
    assert_matches_rows(table, want[k:], f"Arrow after {k} rows ({path})")
    assert cursor.fetchone() is None, "a row after the Arrow batches"
