"""Random schemas and tables: 1-12 columns of the profile's kinds, NULL density 0-100%, row
counts across the block and read-ahead thresholds, large values placed at block edges."""

from __future__ import annotations

import dataclasses
from typing import Any

from hypothesis import strategies as st

from . import values as v

MAX_COLUMNS = 12
# The first block holds 16 rows and blocks grow 8-fold up to the plan's size; reading ahead
# starts after three full blocks (16 + 128 + 1,024 = 1,168 rows with the default budget).
FIRST_BLOCK = 16
GROWTH = 8
READ_AHEAD_AFTER = 3
MAX_BLOCK_ROWS = 4096
LARGE_ROWS = 10_001


@dataclasses.dataclass(frozen=True)
class Column:
    name: str
    kind: str  # a kind of the profile's ddl_map
    ddl: str
    size: int = 0  # n of VARCHAR(n) / CHAR(n), precision of NUMERIC(p,s)
    scale: int = 0


class Table:
    """``n_rows`` rows with ids 0..n-1: ``special`` rows at their positions (any size), the
    others ``filler[i % len(filler)]`` (small values). Not a dataclass: hypothesis prints a
    dataclass field by field, and values can be 1 MiB (the reproduction script has them)."""

    def __init__(self, columns: list[Column], n_rows: int, special, filler):
        self.columns = columns
        self.n_rows = n_rows
        self.special: dict[int, tuple[Any, ...]] = special
        self.filler: list[tuple[Any, ...]] = filler

    def row(self, i: int) -> tuple[Any, ...]:
        if i in self.special:
            return self.special[i]
        return self.filler[i % len(self.filler)]

    def rows(self) -> list[tuple[Any, ...]]:
        """Every row, its id first."""
        return [(i, *self.row(i)) for i in range(self.n_rows)]

    def __repr__(self) -> str:
        cols = ", ".join(c.ddl for c in self.columns)
        return f"Table({self.n_rows} rows of ({cols}), special rows at {sorted(self.special)})"

    def ddl(self, name: str, id_ddl: str) -> str:
        cols = ", ".join(f"{c.name} {c.ddl}" for c in self.columns)
        return f"CREATE TABLE {name} (id {id_ddl} NOT NULL, {cols})"


@st.composite
def columns(draw, profile, n: int | None = None) -> list[Column]:
    count = n if n is not None else draw(st.integers(1, MAX_COLUMNS))
    kinds = [k for k in profile.column_kinds if k != "uuid" or profile.supports_uuid]
    # Room left for declared text in a row (Profile.row_text_bytes), 4 bytes a character.
    room = profile.row_text_bytes // 4 - 1 if profile.row_text_bytes else 1 << 30
    out = []
    for i in range(count):
        kind = draw(st.sampled_from(kinds))
        size = scale = 0
        if kind == "numeric(p,s)":
            size = draw(st.integers(1, profile.max_numeric_precision))
            scale = draw(st.integers(0, size))
        elif kind in ("varchar(n)", "char(n)"):
            top = min(room, profile.max_varchar if kind == "varchar(n)" else profile.max_char)
            fit = [s for s in (1, 5, 10, 255, 256, 1024, 1025, 4000, 4001, 8000, 8001) if s <= top]
            if kind == "char(n)":
                fit = [s for s in fit if s in (1, 5, 255)]
            if fit:
                size = draw(st.sampled_from(fit))
                room -= size + 1
            else:
                kind = "text"
        ddl = profile.ddl(kind).format(p=size, s=scale, n=size)
        out.append(Column(f"c{i}", kind, ddl, size, scale))
    return out


def column_values(profile, col: Column, rules: v.Rules, max_size: int):
    """Values of one column, none the database refuses."""
    k = col.kind
    if k in profile.int_bits:
        return v.integers(profile.int_bits[k])
    if k in ("real", "float"):
        width = 64 if (k == "float" or profile.real_is_double) else 32
        # NaN only where the database keeps it: where it would store NULL, fastodbc refuses it.
        return v.floats(
            width, profile.nan_stored_as == "kept", profile.infinity_stored_as != "refused"
        )
    if k == "numeric(p,s)":
        # Where NUMERIC keeps doubles, 15 significant digits: past them the database rounds a
        # fraction itself, and an integer past 2^53 comes back an int (rows) or is refused
        # (Arrow) (tests/test_fidelity.py).
        return v.decimals(min(col.size, 15) if profile.numeric_is_float else col.size, col.scale)
    if k in ("varchar(n)", "char(n)"):
        limit = col.size if profile.enforces_varchar_length else max(col.size * 2, 300)
        return v.text_values(min(limit, max_size), rules)
    if k == "text":
        return v.text_values(max_size, rules)
    if k == "bytes":
        return v.byte_values(max_size)
    if k == "date":
        return v.dates(profile.min_date, profile.max_date)
    if k == "time":
        return v.times()
    if k == "timestamp":
        return v.timestamps(profile.min_date, profile.max_date)
    if k == "bool":
        return st.booleans()
    if k == "uuid":
        return v.uuids(profile)
    raise KeyError(f"no value strategy for column kind {k!r}")


def value_bytes(value: Any) -> int:
    if isinstance(value, str):
        return len(value) * 2
    if isinstance(value, bytes):
        return len(value)
    return 8


@st.composite
def rows_of(draw, profile, cols: list[Column], rules, densities, budget: int, max_size: int):
    """One row; large values until ``budget`` bytes are spent (returns the row, bytes)."""
    row, spent = [], 0
    for col, density in zip(cols, densities, strict=False):
        if density and draw(st.integers(1, 100)) <= density:
            row.append(None)
            continue
        value = draw(column_values(profile, col, rules, max(0, min(max_size, budget - spent))))
        spent += value_bytes(value)
        row.append(value)
    return tuple(row), spent


def block_edges(block_rows: int, limit: int) -> list[int]:
    """Row counts at which a block ends, for a plan of ``block_rows`` rows per block."""
    edges, total, rows = [], 0, min(FIRST_BLOCK, block_rows)
    while total <= limit and len(edges) < 8:
        total += rows
        edges.append(total)
        rows = min(rows * GROWTH, block_rows)
    return edges


def estimated_block_rows(profile, cols: list[Column], budget_bytes: int) -> int:
    """The plan's rows per block, roughly (crates/fastodbc-core/src/plan.rs sizes them)."""
    row = 0
    for c in cols:
        if c.kind in ("varchar(n)", "char(n)"):
            n = c.size if profile.enforces_varchar_length else max(c.size, 255)
            row += 264 if n * 4 > 32 * 1024 else n * 4 + 16
        elif c.kind == "text":
            row += 4112
        elif c.kind == "bytes":
            row += 256
        elif c.kind == "numeric(p,s)":
            row += max(c.size + 4, 48) + 8
        else:
            row += 32
    return max(1, min(MAX_BLOCK_ROWS, budget_bytes // max(row + 8, 1)))


@st.composite
def table_rows(draw, profile, cols, rules, n_rows: int, edges: list[int], budget: int) -> Table:
    """``n_rows`` rows of ``cols``: a few special rows (large values, ``budget`` bytes in all)
    at block edges or anywhere, small filler rows elsewhere."""
    densities = [draw(st.sampled_from([0, 0, 10, 50, 90, 100])) for _ in cols]
    # Many rows: small filler values, so a case stays a few MiB.
    filler_size = 300 if n_rows <= 1200 else 24
    filler = [
        draw(rows_of(profile, cols, rules, densities, 1 << 20, filler_size))[0]
        for _ in range(draw(st.integers(1, 4)))
    ]
    special: dict[int, tuple[Any, ...]] = {}
    if n_rows:
        spots = sorted({0, 1, n_rows - 1, *(e + d for e in edges for d in (-1, 0, 1))})
        spots = [s for s in spots if 0 <= s < n_rows]
        for _ in range(draw(st.integers(0, 6))):
            at = draw(st.one_of(st.sampled_from(spots), st.integers(0, n_rows - 1)))
            row, spent = draw(rows_of(profile, cols, rules, densities, budget, 1 << 20))
            budget -= spent
            special[at] = row
    return Table(cols, n_rows, special, filler)


@st.composite
def tables(draw, profile, rules: v.Rules, block_bytes: int, budget: int) -> Table:
    """A table whose row count crosses the block edges of a ``block_bytes`` budget."""
    cols = draw(columns(profile))
    edges = block_edges(estimated_block_rows(profile, cols, block_bytes), LARGE_ROWS)
    counts = sorted({1, 2, LARGE_ROWS, *(e + d for e in edges for d in (-1, 0, 1))})
    # Two in three at an edge (the counts hypothesis would rarely reach by itself).
    edge = st.sampled_from(counts)
    n_rows = draw(st.one_of(edge, edge, st.integers(0, 40)))
    return draw(table_rows(profile, cols, rules, n_rows, edges, budget))
