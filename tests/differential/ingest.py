"""The bulk load (``Cursor.ingest``): random Arrow tables, every input type a column kind takes
(integers of every width, unsigned too, float32/64, decimal128 within the column's precision,
text and binary in every layout, dates, times and timestamps of every unit, booleans, NULLs
anywhere), chunked at random, loaded in random batch budgets into a table the profile's DDL
made (append) or that ingest creates (create). The oracle and fetch_arrow_table read it back;
every value must equal the input's (ingest_check.py compares them; ingest_values.py draws the
input columns)."""

from __future__ import annotations

import dataclasses
import datetime
from typing import Any

import pyarrow as pa
from hypothesis import strategies as st

from . import schema
from . import values as v
from .ingest_values import Spec, specs, value_strategy

# Rows per execution (ingest's batch_rows / batch_bytes): None is the driver strategy's chunk.
BATCH_ROWS = (None, None, 1, 2, 7, 999, 1000, 1001, 4096)
BATCH_BYTES = (None, None, 1, 1000, 64 * 1024)
# A load of more rows than this many executions takes seconds: a batch of 1 row is kept small.
MAX_EXECUTIONS = 2000
# Row counts around the edges of a chunk: the batch budgets', PostgreSQL's column arrays
# (10,000 rows), the default budget's 65,536 rows (deep only).
QUICK_COUNTS = (0, 1, 2, 999, 1000, 1001, 4095, 4097, 10_000, 10_001)
DEEP_COUNTS = (*QUICK_COUNTS, 65_535, 65_536, 65_537, 100_001)
FORMS = ("table", "batches", "reader")  # the input as pa.Table, a list of batches, a reader


@dataclasses.dataclass
class Case:
    mode: str  # "append" (into the profile's DDL) or "create"
    specs: list[Spec]
    table: schema.Table
    form: str
    cuts: list[list[int]]  # per column (the id first), where its chunks end
    batch_rows: int | None
    batch_bytes: int | None

    def __repr__(self) -> str:
        types = ", ".join(f"{s.col.ddl} <- {s.arrow}" for s in self.specs)
        return (f"Case({self.mode} {self.table!r} from ({types}) as {self.form} cut at {self.cuts}, "
                f"batch_rows={self.batch_rows}, batch_bytes={self.batch_bytes})")


@st.composite
def row_of(draw, profile, specs_: list[Spec], rules, densities, budget: int, max_size: int):
    row, spent = [], 0
    for spec, density in zip(specs_, densities, strict=True):
        if density and draw(st.integers(1, 100)) <= density:
            row.append(None)
            continue
        x = draw(value_strategy(profile, spec, rules, max(0, min(max_size, budget - spent))))
        spent += schema.value_bytes(x)
        row.append(x)
    return tuple(row), spent


@st.composite
def rows_table(draw, profile, specs_: list[Spec], n_rows: int, spots: list[int], budget: int,
               densities=None) -> schema.Table:
    """``n_rows`` rows: small filler rows and a few special ones (large values, ``budget``
    bytes in all) at the ``spots`` (chunk edges) or anywhere."""
    rules = v.Rules(nul=profile.text_keeps_nul and not profile.param_nul_refused)
    if densities is None:
        densities = [draw(st.sampled_from([0, 0, 10, 50, 90, 100])) for _ in specs_]
    filler_size = 300 if n_rows <= 1200 else 24
    filler = [draw(row_of(profile, specs_, rules, densities, 1 << 20, filler_size))[0]
              for _ in range(draw(st.integers(1, 4)))]
    special: dict[int, tuple[Any, ...]] = {}
    if n_rows:
        spots = sorted({s for s in (0, n_rows - 1, *spots) if 0 <= s < n_rows})
        for _ in range(draw(st.integers(0, 6))):
            at = draw(st.one_of(st.sampled_from(spots), st.integers(0, n_rows - 1)))
            row, spent = draw(row_of(profile, specs_, rules, densities, budget, 1 << 20))
            budget -= spent
            special[at] = row
    return schema.Table([s.col for s in specs_], n_rows, special, filler)


def row_counts(n_columns: int, deep: bool) -> st.SearchStrategy[int]:
    per_statement = 7_000 // (n_columns + 1)  # multi-row VALUES: 7,000 parameters a statement
    edges = {*(DEEP_COUNTS if deep else QUICK_COUNTS), per_statement - 1, per_statement + 1}
    return st.one_of(st.sampled_from(sorted(edges)), st.integers(0, 40))


@st.composite
def cut_points(draw, n_rows: int, batch_rows: int | None) -> list[int]:
    """Where an input's chunks end: random rows, the batches' edges, empty chunks."""
    near = [e + d for e in (batch_rows or 0, 1000, 4096) for d in (-1, 0, 1) if 0 < e + d < n_rows]
    cuts = draw(st.lists(st.one_of(st.integers(0, n_rows), *([st.sampled_from(near)] if near else [])),
                         max_size=5))
    return sorted(cuts)


@st.composite
def ingest_cases(draw, profile, budget: int, deep: bool) -> Case:
    mode = draw(st.sampled_from(["append", "append", "create"]))
    specs_ = draw(specs(profile, mode))
    n_rows = draw(row_counts(len(specs_), deep))
    few = n_rows <= MAX_EXECUTIONS
    batch_rows = draw(st.sampled_from([b for b in BATCH_ROWS if b is None or few or b * MAX_EXECUTIONS >= n_rows]))
    batch_bytes = draw(st.sampled_from([b for b in BATCH_BYTES if b is None or few or b >= 1000]))
    form = draw(st.sampled_from(FORMS))
    shared = draw(cut_points(n_rows, batch_rows))
    if form == "table":  # each column chunked its own way
        cuts = [draw(st.one_of(st.just(shared), cut_points(n_rows, batch_rows))) for _ in range(len(specs_) + 1)]
    else:
        cuts = [shared] * (len(specs_) + 1)
    spots = [e + d for e in [*shared, *([batch_rows] if batch_rows else [])] for d in (-1, 0)]
    table = draw(rows_table(profile, specs_, n_rows, spots, budget))
    return Case(mode, specs_, table, form, cuts, batch_rows, batch_bytes)


EPOCH = datetime.datetime(1970, 1, 1)


def arrow_array(values: list[Any], t: pa.DataType) -> pa.Array:
    if pa.types.is_timestamp(t) and t.unit == "ns" and any(type(x) is int for x in values):
        # A planted value of nanoseconds (a datetime holds microseconds): all as integers.
        values = [(x - EPOCH) // datetime.timedelta(microseconds=1) * 1000
                  if isinstance(x, datetime.datetime) else x for x in values]
    if pa.types.is_dictionary(t):
        return pa.array(values, type=t.value_type).dictionary_encode()
    return pa.array(values, type=t)


def chunked(values: list[Any], t: pa.DataType, cuts: list[int]) -> pa.ChunkedArray:
    edges = [0, *cuts, len(values)]
    chunks = [arrow_array(values[a:b], t) for a, b in zip(edges, edges[1:], strict=False)]
    return pa.chunked_array(chunks, type=chunks[0].type)


def arrow_input(case: Case, bad: tuple[int, int, Any] | None = None):
    """The case's rows as its input form, and as a pa.Table; ``bad``: (row, column, value)
    planted (column -1: the id)."""
    t = case.table
    rows = t.rows()
    if bad is not None:
        r, c, x = bad
        rows[r] = (*rows[r][: c + 1], x, *rows[r][c + 2 :])
    fields = [pa.field("id", pa.int64(), nullable=False)]
    fields += [pa.field(s.col.name, s.arrow) for s in case.specs]
    columns = [chunked([r[j] for r in rows], f.type, cuts)
               for j, (f, cuts) in enumerate(zip(fields, case.cuts, strict=True))]
    # A dictionary column's field names its type as built (int32 indices, the value type).
    sch = pa.schema([f.with_type(c.type) for f, c in zip(fields, columns, strict=True)])
    table = pa.Table.from_arrays(columns, schema=sch)
    if case.form == "table":
        return table, table
    edges = [0, *case.cuts[0], t.n_rows]

    def batch(a: int, b: int) -> pa.RecordBatch:
        part = table.slice(a, b - a)
        return pa.RecordBatch.from_arrays([c.combine_chunks() for c in part.columns], schema=sch)

    batches = [batch(a, b) for a, b in zip(edges, edges[1:], strict=False)]
    if case.form == "batches":
        return batches, table
    return pa.RecordBatchReader.from_batches(sch, batches), table
