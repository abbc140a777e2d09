"""Read paths: how a result is read (fetch methods mixed, skip, re-execute), with which
connection settings (read-ahead, block budget, text C type, connection-string options), and
the expected rows at every step."""

from __future__ import annotations

import dataclasses
from typing import Any

from hypothesis import strategies as st

from . import schema
from . import values as v
from .arrow import ArrowPath, arrow_paths
from .compare import compare_rows

# Block budgets (Connection.fetch_buffer_bytes): the default 2 MiB, and budgets so small that
# blocks are a few rows (1 byte: one row per block) and read-ahead starts after three of them.
BLOCK_BYTES = (2 * 1024 * 1024, 1, 700, 8 * 1024, 64 * 1024, 256 * 1024)


@dataclasses.dataclass
class ReadPath:
    char_decoding: str  # setdecoding(SQL_CHAR, ...)
    wchar_decoding: str  # setdecoding(SQL_WCHAR, ...)
    read_ahead: bool
    block_bytes: int
    option: str  # connection-string attributes added ("" for none)
    arraysize: int
    # SELECT ... WHERE id >= ? (0): a statement with a parameter, which some drivers run
    # another way (prepared, MariaDB's binary protocol).
    where_param: bool = False
    order: list[int] = dataclasses.field(default_factory=list)  # column indexes, -1: id
    ops: list[tuple[Any, ...]] = dataclasses.field(default_factory=list)
    # The Arrow read of the same result (arrow.py), after the rows path's.
    arrow: ArrowPath | None = None

    def wide(self) -> bool:
        return "utf-16le" in (self.char_decoding, self.wchar_decoding)


@st.composite
def connection_settings(draw, profile) -> ReadPath:
    fetch_rows = draw(st.sampled_from([1, 2, 16, 100, 1000]))
    decodings = text_types(profile)
    return ReadPath(
        char_decoding=draw(st.sampled_from(decodings)),
        wchar_decoding=draw(st.sampled_from(decodings)),
        read_ahead=draw(st.booleans()),
        block_bytes=draw(st.sampled_from(BLOCK_BYTES)),
        option=draw(st.sampled_from(profile.read_options)).format(n=fetch_rows),
        arraysize=draw(st.sampled_from([1, 7, 100])),
        where_param=draw(st.booleans()),
    )


def text_types(profile) -> list[str]:
    """The text encodings (C types) to read and write text as."""
    return list(profile.text_decodings)


def text_rules(profile, path: ReadPath) -> v.Rules:
    return v.Rules(
        max_codepoint=profile.wide_fetch_max_codepoint if path.wide() else 0x10FFFF,
        # Text with NUL only where the database keeps it and the driver reads it whole.
        nul=profile.text_keeps_nul and not profile.fetch_cuts_at_nul,
    )


def step_counts(n_rows: int) -> st.SearchStrategy[int]:
    return st.one_of(st.sampled_from([0, 1, 15, 16, 17, 128, 1024, 1169, 5000]),
                     st.integers(0, max(n_rows, 1) + 1))


@st.composite
def operations(draw, n_rows: int) -> list[tuple[Any, ...]]:
    """A few reads, then one that drains the result."""
    ops = []
    for _ in range(draw(st.integers(0, 6))):
        op = draw(st.sampled_from(["fetchone", "fetchmany", "fetchmany()", "next", "skip",
                                   "reexecute", "lookup", "second"]))
        if op in ("fetchone", "fetchmany()", "reexecute"):
            ops.append((op,))
        else:
            ops.append((op, draw(step_counts(n_rows))))
    last = draw(st.sampled_from(["fetchall", "iterate", "fetchmany-loop", "fetchone-loop"]))
    ops.append((last, draw(st.integers(1, 3000))) if last == "fetchmany-loop" else (last,))
    return ops


@st.composite
def fetch_cases(draw, profile, budget: int):
    """(table, read path): the table's values are those this path can read whole."""
    path = draw(connection_settings(profile))
    table = draw(schema.tables(profile, text_rules(profile, path), path.block_bytes, budget))
    order = list(range(len(table.columns))) + [-1]
    path.order = draw(st.permutations(order))
    path.ops = draw(operations(table.n_rows))
    path.arrow = draw(arrow_paths(table.n_rows))
    return table, path


def select_sql(name: str, table: schema.Table, path: ReadPath) -> str:
    names = ", ".join("id" if i < 0 else table.columns[i].name for i in path.order)
    where = " WHERE id >= ?" if path.where_param else ""
    return f"SELECT {names} FROM {name}{where} ORDER BY id"


def lookup_sql(name: str, table: schema.Table, path: ReadPath) -> str:
    """The same columns, one row by id: a short result of the same layout."""
    names = ", ".join("id" if i < 0 else table.columns[i].name for i in path.order)
    return f"SELECT {names} FROM {name} WHERE id = ?"


def params(path: ReadPath) -> tuple[int, ...]:
    return (0,) if path.where_param else ()


def selected_columns(table: schema.Table, path: ReadPath) -> list[schema.Column | None]:
    return [None if i < 0 else table.columns[i] for i in path.order]


def apply_settings(db, cnxn, path: ReadPath) -> None:
    cnxn.read_ahead = path.read_ahead
    cnxn.fetch_buffer_bytes = path.block_bytes
    cnxn.setdecoding(db.SQL_CHAR, encoding=path.char_decoding)
    cnxn.setdecoding(db.SQL_WCHAR, encoding=path.wchar_decoding)


def read_and_compare(
    cursor, sql: str, lookup: str, path: ReadPath, want: list[tuple[Any, ...]], cols
) -> None:
    """Runs the path's operations on ``cursor``, comparing every row served with ``want``
    (``lookup``: the query of one row by id)."""
    cursor.arraysize = path.arraysize
    cursor.execute(sql, *params(path))
    pos, n = 0, len(want)

    def check(got, count, what):
        nonlocal pos
        compare_rows(got, want[pos : pos + count], cols, f"{what} at row {pos}")
        pos += len(got)

    for op in path.ops:
        kind = op[0]
        if kind == "fetchone":
            row = cursor.fetchone()
            if pos >= n:
                assert row is None, f"fetchone after the last row returned {row!r}"
            else:
                assert row is not None, f"fetchone returned None at row {pos} of {n}"
                check([row], 1, "fetchone")
        elif kind == "fetchmany":
            check(cursor.fetchmany(op[1]), op[1], f"fetchmany({op[1]})")
        elif kind == "fetchmany()":
            check(cursor.fetchmany(), path.arraysize, "fetchmany()")
        elif kind == "next":
            got = []
            for _ in range(op[1]):
                try:
                    got.append(next(cursor))
                except StopIteration:
                    break
            check(got, op[1], f"next x {op[1]}")
        elif kind == "skip":
            cursor.skip(op[1])
            pos = min(n, pos + op[1])
        elif kind == "reexecute":
            cursor.execute(sql, *params(path))
            pos = 0
        elif kind == "lookup":
            # Another result on this cursor (buffers kept from a short result are reused by
            # the next of the same layout), then the whole query again.
            k = op[1] % max(n, 1)
            compare_rows(cursor.execute(lookup, k).fetchall(), want[k : k + 1], cols, "lookup")
            cursor.execute(sql, *params(path))
            pos = 0
        elif kind == "second":
            # A second cursor of the connection reads while this one's result is open (and
            # its next block may be read ahead).
            k = op[1] % max(n, 1)
            other = cursor.connection.cursor()
            compare_rows(other.execute(lookup, k).fetchall(), want[k : k + 1], cols, "second")
            other.close()
        elif kind == "fetchall":
            check(cursor.fetchall(), n, "fetchall")
        elif kind == "iterate":
            check(list(cursor), n, "iteration")
        elif kind == "fetchmany-loop":
            while batch := cursor.fetchmany(op[1]):
                check(batch, op[1], f"fetchmany({op[1]}) loop")
        elif kind == "fetchone-loop":
            while (row := cursor.fetchone()) is not None:
                check([row], 1, "fetchone loop")
        else:
            raise ValueError(f"unknown read operation {op!r}")
    assert pos == n, f"read {pos} rows of {n}"
    assert cursor.fetchone() is None, "a row after the end"
    assert cursor.fetchall() == [], "rows after the end"
