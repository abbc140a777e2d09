"""A failing example as a short script: the schema, the rows (long values as repeated units),
how they are written and read."""

from __future__ import annotations

import inspect
import math
from typing import Any

from . import reading, schema, writing


def _pieces(s):
    """(piece, repeat) runs of ``s`` (str or bytes): units of up to 8 repeated 24+ long."""
    out, i, start, n = [], 0, 0, len(s)
    while i < n:
        best = None
        for p in range(1, 9):
            if i + 2 * p > n:
                break
            unit, k = s[i : i + p], 1
            while s.startswith(unit, i + k * p):
                k += 1
            if k * p >= 24 and (best is None or k * p > best[1] * len(best[0])):
                best = (unit, k)
        if best is None:
            i += 1
            continue
        if start < i:
            out.append((s[start:i], 1))
        out.append(best)
        i += len(best[0]) * best[1]
        start = i
    if start < n or not out:
        out.append((s[start:], 1))
    return out


def literal(x: Any) -> str:
    if isinstance(x, (str, bytes)) and len(x) > 60:
        return " + ".join(repr(p) if k == 1 else f"{p!r} * {k}" for p, k in _pieces(x))
    if isinstance(x, float) and not math.isfinite(x):
        return f"float('{x}')"
    if isinstance(x, tuple):
        inner = ", ".join(literal(y) for y in x)
        return f"({inner},)" if len(x) == 1 else f"({inner})"
    return repr(x)


HEADER = """\
import datetime, decimal, os, sqlite3
from decimal import Decimal
from uuid import UUID
import fastodbc
"""


def rows_lines(table: schema.Table, adapt=None) -> list[str]:
    def fix(row):
        if adapt is None:
            return row
        return tuple(adapt(c, x) for c, x in zip(table.columns, row, strict=False))

    lines = ["special = {"]
    lines += [f"    {i}: {literal(fix(r))}," for i, r in sorted(table.special.items())]
    lines += ["}", "filler = ["]
    lines += [f"    {literal(fix(r))}," for r in table.filler]
    lines += [
        "]",
        f"rows = [(i, *special.get(i, filler[i % len(filler)])) for i in range({table.n_rows})]",
    ]
    return lines


def oracle_lines(oracle, name: str, table: schema.Table, fill: bool) -> list[str]:
    prof = oracle.profile
    cols = ", ".join(["id"] + [c.name for c in table.columns])
    marks = ", ".join([oracle.placeholder] * (len(table.columns) + 1))
    lines = [
        oracle.script_connect(),
        "ocur = oracle.cursor()",
        f"ocur.execute('DROP TABLE IF EXISTS {name}')",
        f"ocur.execute({table.ddl(name, prof.ddl('bigint'))!r})",
    ]
    if fill:
        lines += rows_lines(table, oracle.adapt)
        lines += [
            f"ocur.executemany('INSERT INTO {name} ({cols}) VALUES ({marks})', rows)",
            "oracle.commit()",
        ]
    return lines


def fetch_script(oracle, name: str, table: schema.Table, path: reading.ReadPath) -> str:
    lines = [HEADER] + oracle_lines(oracle, name, table, True)
    args = "".join(f", {p!r}" for p in reading.params(path))
    lookup = reading.lookup_sql(name, table, path)
    option = f" + {path.option!r}" if path.option else ""
    lines += [
        f"cnxn = fastodbc.connect({oracle.profile.connstr!r}{option})",
        f"cnxn.read_ahead = {path.read_ahead}",
        f"cnxn.fetch_buffer_bytes = {path.block_bytes}",
        f"cnxn.setdecoding(fastodbc.SQL_CHAR, encoding={path.char_decoding!r})",
        f"cnxn.setdecoding(fastodbc.SQL_WCHAR, encoding={path.wchar_decoding!r})",
        "cur = cnxn.cursor()",
        f"cur.arraysize = {path.arraysize}",
        f"cur.execute({reading.select_sql(name, table, path)!r}{args})",
    ]
    for op in path.ops:
        kind = op[0]
        lines.append({
            "fetchone": "print(cur.fetchone())",
            "fetchmany": f"print(cur.fetchmany({op[-1]}))",
            "fetchmany()": "print(cur.fetchmany())",
            "next": f"print([next(cur, None) for _ in range({op[-1]})])",
            "skip": f"cur.skip({op[-1]})",
            "reexecute": f"cur.execute({reading.select_sql(name, table, path)!r}{args})",
            "lookup": f"print(cur.execute({lookup!r}, {op[-1]} % {max(table.n_rows, 1)}).fetchall())\n"
            f"cur.execute({reading.select_sql(name, table, path)!r}{args})",
            "second": f"print(cnxn.cursor().execute({lookup!r}, {op[-1]} % {max(table.n_rows, 1)}).fetchall())",
            "fetchall": "print(cur.fetchall())",
            "iterate": "print(list(cur))",
            "fetchmany-loop": f"while batch := cur.fetchmany({op[-1]}):\n    print(batch)",
            "fetchone-loop": "while (row := cur.fetchone()) is not None:\n    print(row)",
        }[kind])
    if path.arrow is not None:
        a = path.arrow
        lines += [
            "# The Arrow read of the same result",
            f"cur.execute({reading.select_sql(name, table, path)!r}{args})",
            f"print(cur.fetchmany({a.rows_first}))" if a.rows_first else "",
            f"reader = cur.fetch_record_batch(batch_rows={a.batch_rows!r}, batch_bytes={a.batch_bytes!r})",
            "print(reader.schema)",
            "for batch in reader:",
            "    print(batch.num_rows, [len(c) for c in batch.columns], batch.to_pylist())",
        ]
    return "\n".join(lines)


def write_script(oracle, name: str, table: schema.Table, path: writing.WritePath) -> str:
    lines = [HEADER] + oracle_lines(oracle, name, table, False) + rows_lines(table)
    if path.variants:
        lines.append(inspect.getsource(writing._as_int))
        fns = {"bytearray": "bytearray", "memoryview": "memoryview", "int": "_as_int"}
        for i, variant in sorted(path.variants.items()):
            j, fn = i + 1, fns[variant]
            lines.append(
                f"rows = [r[:{j}] + (r[{j}] if r[{j}] is None else {fn}(r[{j}]),) + r[{j + 1}:]"
                " for r in rows]"
            )
    if path.column_list:
        lines.append(f"rows = [tuple(r[i + 1] for i in {path.order!r}) for r in rows]")
    lines += [
        f"cnxn = fastodbc.connect({oracle.profile.connstr!r})",
        f"cnxn.setencoding(encoding={path.encoding!r})",
        "cur = cnxn.cursor()",
        f"cur.fast_executemany = {path.fast}",
        f"sql = {writing.insert_sql(name, table, path)!r}",
    ]
    if path.method == "execute":
        lines.append("for r in rows:\n    cur.execute(sql, r)")
    else:
        arg = "(r for r in part)" if path.iterator else "part"
        lines += [
            f"size = max(1, -(-len(rows) // {path.chunks}))",
            "for part in [rows[i:i + size] for i in range(0, len(rows), size)] or [[]]:",
            f"    cur.executemany(sql, {arg})",
        ]
    cols = ", ".join(["id"] + [c.name for c in table.columns])
    lines += [
        "cnxn.commit()",
        f"ocur.execute('SELECT {cols} FROM {name} ORDER BY id')",
        "for row in ocur.fetchall():",
        "    print(row)",
    ]
    return "\n".join(lines)
