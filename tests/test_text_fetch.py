"""Text through every fetch path, in every text C type: long values across the thresholds of
the fetch path and characters of every width placed at its buffer and chunk edges (issue 16,
defect 2: MariaDB Connector/ODBC's UTF-16), characters a driver miscounts, and text holding
NUL (defect 4).

What is stored is checked first by an oracle (pyodbc reading narrow UTF-8 with SQLGetData,
and the database's own byte lengths), so a failure says whether the value was stored wrong or
read wrong.
"""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.fastodbc_only(
    reason="pyodbc's UTF-16 from MariaDB's driver is cut; these tests read it"
)

# How text is asked for: the connection's default, or forced with setdecoding.
CTYPES = ["default", "utf8", "utf16"]
FETCHES = ["fetchall", "fetchmany", "iteration", "fetchone"]

WIDTHS = {
    "ascii": "a",
    "2-byte": "é",
    "y-diaeresis": "ÿ",
    "cjk": "東",
    "misread": "付",  # U+4ED8: MariaDB's driver takes it for half a surrogate pair
    "astral": "😀",
}
# Characters around the optimistic bind of long text (1,024 characters), and past the sizes
# where the drivers change how they send a value.
LENGTHS = (1023, 1024, 1025, 2046, 2047, 2048, 2049, 2050, 4095, 4096, 8000, 8001, 65536)
# Where buffers and chunks end, in UTF-16 units and UTF-8 bytes: the optimistic bind (2,049
# units with the terminator, 4,097 bytes), SQLGetData's 64 KiB chunks (32,768 units).
EDGES = (1023, 1024, 1025, 2047, 2048, 2049, 4095, 4096, 4097, 32767, 32768, 65535, 65536)


def long_values() -> list[str]:
    values = [ch * n for ch in WIDTHS.values() for n in LENGTHS]
    for at in EDGES:
        values.append("a" * at + "😀" + "b" * 3)  # a surrogate pair across the edge
        values.append("a" * (at - 1) + "😀")  # ending one unit past it
        values.append("é" * at + "付ÿ")  # a miscounted unit, then a trailing 'ÿ'
    # As reported: 515 of 1,030 emoji, invalid UTF-16 at byte 3998, 'Ansi to Unicode'.
    values += ["😀" * 1030, "😀" * 1500, "😀" * 2000, "a" * 2046 + "😀" * 3, "x" * 4095]
    values.append("ÆØÅ ÿ" * 300)
    return values


def short_values() -> list[str]:
    return [
        "ÆØÅ ÿ",
        "ÿ",
        "aÿ",
        "付ÿ",
        "ÙÚÛ",
        "Ø",
        "ØØ",
        "Øx",
        "ř ś ј 付",
        "😀ÿ",
        "\U0001f4d8",  # its low surrogate, U+DCD8, is a miscounted unit too
        "a\U0010ffffb",
        "",
    ]


def set_ctype(db, cnxn, ctype: str) -> None:
    if ctype == "utf8":
        for sqltype in (db.SQL_CHAR, db.SQL_WCHAR):
            cnxn.setdecoding(sqltype, encoding="utf-8", ctype=db.SQL_CHAR)
    elif ctype == "utf16":
        for sqltype in (db.SQL_CHAR, db.SQL_WCHAR):
            cnxn.setdecoding(sqltype, encoding="utf-16le", ctype=db.SQL_WCHAR)


def read(cur, sql: str, fetch: str) -> list[tuple]:
    cur.execute(sql)
    if fetch == "fetchall":
        return [tuple(r) for r in cur.fetchall()]
    if fetch == "iteration":
        return [tuple(r) for r in cur]
    rows = []
    while True:
        if fetch == "fetchone":
            row = cur.fetchone()
            if row is None:
                return rows
            rows.append(tuple(row))
        else:
            block = cur.fetchmany(7)
            if not block:
                return rows
            rows.extend(tuple(r) for r in block)


def oracle_rows(backend, sql: str) -> list[tuple]:
    """The rows as pyodbc reads them: narrow UTF-8 through SQLGetData, no bound buffers."""
    pyodbc = pytest.importorskip("pyodbc")  # no free-threaded (3.13t) wheel

    c = pyodbc.connect(backend.connstr, autocommit=True)
    try:
        c.setdecoding(pyodbc.SQL_CHAR, encoding="utf-8")
        c.setdecoding(pyodbc.SQL_WCHAR, encoding="utf-8", ctype=pyodbc.SQL_CHAR)
        return [tuple(r) for r in c.cursor().execute(sql).fetchall()]
    finally:
        c.close()


def store(backend, table, connect, kind: str, values: list[str]) -> tuple[str, list[tuple]]:
    """A table of (id, v): values at even ids, short text between them (so blocks mix short
    values with long ones), checked stored as given. Returns its name and rows."""
    t = table(f"id {backend.ddl('int')}, v {backend.ddl(kind)}")
    rows = []
    for i, v in enumerate(values):
        rows += [(2 * i, v), (2 * i + 1, f"s{i}")]
    c = connect()
    c.cursor().executemany(f"INSERT INTO {t} (id, v) VALUES (?, ?)", rows)
    c.commit()
    stored = oracle_rows(backend, f"SELECT id, {backend.octet_length('v')}, v FROM {t} ORDER BY id")
    want = [(i, len(v.encode()), v) for i, v in rows]
    bad = [(w[0], len(w[2]), len(s[2])) for s, w in zip(stored, want, strict=False) if s != w]
    assert len(stored) == len(want) and not bad, f"stored wrong (id, chars, stored chars): {bad[:5]}"
    return t, rows


def differences(got: list[tuple], want: list[tuple]) -> list:
    """(id, wanted length, got length or value) of the rows that differ."""
    out = [
        (w[0], len(w[1]), len(g[1]) if isinstance(g[1], str) else g[1])
        for g, w in zip(got, want, strict=False)
        if g != w
    ]
    if len(got) != len(want):
        out.append(("rows", len(want), len(got)))
    return out


@pytest.mark.parametrize("ctype", CTYPES)
def test_long_text_whole_in_every_fetch(db, backend, table, connect, ctype):
    t, rows = store(backend, table, connect, "text", long_values())
    c = connect()
    set_ctype(db, c, ctype)
    cur = c.cursor()
    for fetch in FETCHES:
        got = read(cur, f"SELECT id, v FROM {t} ORDER BY id", fetch)
        assert not differences(got, rows), (fetch, differences(got, rows)[:5])


@pytest.mark.parametrize("kind", ["varchar(50)", "text"])
@pytest.mark.parametrize("ctype", CTYPES)
def test_misread_characters_and_trailing_y(db, backend, table, connect, ctype, kind):
    # Units in U+xxD8..U+xxDB, which MariaDB's driver takes for halves of surrogate pairs,
    # and the 'ÿ' its miscount dropped from the end: in the statement's text too.
    t, rows = store(backend, table, connect, kind, short_values())
    c = connect()
    set_ctype(db, c, ctype)
    cur = c.cursor()
    for fetch in FETCHES:
        got = read(cur, f"SELECT id, v FROM {t} ORDER BY id", fetch)
        assert got == rows, (fetch, differences(got, rows))
    for v in short_values():
        if backend.astral_in_sql_text or all(ord(ch) <= 0xFFFF for ch in v):
            literal = "'" + v + "'"
            assert cur.execute(f"SELECT {literal}").fetchone()[0] == v


@pytest.mark.parametrize("how", ["execute", "executemany"])
@pytest.mark.parametrize("encoding", ["default", "utf-8", "utf-16le"])
def test_str_parameters_stored_right_in_every_encoding(db, backend, table, connect, encoding, how):
    # setencoding names how str parameters are sent; every choice must store the text as given
    # (MariaDB's driver reads UTF-16 past such units: it gets UTF-8 whatever is named).
    values = short_values() + ["付" * 3000 + "ÿ", "😀" * 2049, "Ø" * 4001]
    t = table(f"id {backend.ddl('int')}, v {backend.ddl('text')}")
    c = connect()
    if encoding != "default":
        c.setencoding(encoding=encoding)
    cur = c.cursor()
    rows = list(enumerate(values))
    if how == "execute":
        for row in rows:
            cur.execute(f"INSERT INTO {t} (id, v) VALUES (?, ?)", *row)
    else:
        cur.executemany(f"INSERT INTO {t} (id, v) VALUES (?, ?)", rows)
    c.commit()
    stored = oracle_rows(backend, f"SELECT id, {backend.octet_length('v')}, v FROM {t} ORDER BY id")
    want = [(i, len(v.encode()), v) for i, v in rows]
    assert stored == want, [(w[0], w[2][:8]) for s, w in zip(stored, want, strict=False) if s != w]


NUL_TEXTS = ["a\0b", "\0", "abc\0", "\0\0\0", "é\0😀", "Ø\0ÿ", "a" * 2000 + "\0" + "b" * 2000]


def nul_literal(backend, v: str) -> str:
    """SQL for text v holding NUL, built from its pieces and the database's NUL character."""
    parts = []
    for i, piece in enumerate(v.split("\0")):
        if i:
            parts.append(backend.nul_char_sql)
        if piece:
            parts.append("'" + piece + "'")
    return backend.concat(*parts) if len(parts) > 1 else parts[0]


@pytest.mark.parametrize("kind", ["varchar(4100)", "text"])
@pytest.mark.parametrize("ctype", CTYPES)
def test_text_with_nul_whole_or_data_error(db, backend, table, connect, ctype, kind):
    # Stored by a literal (where the database's text holds NUL) and by a parameter: fetched
    # whole or DataError, in every C type; cut only where the profile documents the driver
    # cutting, unseen.
    if backend.nul_char_sql is None:
        pytest.skip(f"{backend.name}'s text cannot hold NUL")
    ddl = backend.ddl("text") if kind == "text" else "VARCHAR(4100)"
    t = table(f"id {backend.ddl('int')}, v {ddl}")
    c = connect()
    cur = c.cursor()
    literals = {
        i: v
        for i, v in enumerate(NUL_TEXTS)
        if backend.astral_in_sql_text or all(ord(ch) <= 0xFFFF for ch in v)
    }
    for i, v in literals.items():
        cur.execute(f"INSERT INTO {t} (id, v) VALUES ({i}, {nul_literal(backend, v)})")
    params = 0
    for i, v in enumerate(NUL_TEXTS):
        try:
            cur.execute(f"INSERT INTO {t} (id, v) VALUES (?, ?)", 100 + i, v)
            params += 1
        except db.DataError:
            pass  # refused: the driver would cut it (sqliteodbc)
    c.commit()
    want = dict(literals)
    if params:
        want.update({100 + i: v for i, v in enumerate(NUL_TEXTS)})
    lengths = cur.execute(f"SELECT id, {backend.octet_length('v')} FROM {t} ORDER BY id")
    assert {i: n for i, n in lengths.fetchall()} == {i: len(v.encode()) for i, v in want.items()}
    set_ctype(db, c, ctype)
    for fetch in FETCHES:
        for i, v in want.items():
            try:
                got = read(cur, f"SELECT v FROM {t} WHERE id = {i}", fetch)[0][0]
            except db.DataError:
                continue
            if backend.fetch_cuts_at_nul:
                assert got in (v, v.split("\0")[0]), (fetch, i)
            else:
                assert got == v, (fetch, i, len(got), len(v))


def every_code_point() -> list[str]:
    """Every character but NUL and the surrogates, 1,024 to a value."""
    chars = [chr(cp) for cp in range(1, 0x110000) if not 0xD800 <= cp <= 0xDFFF]
    return ["".join(chars[i : i + 1024]) for i in range(0, len(chars), 1024)]


@pytest.mark.parametrize("ctype", CTYPES)
def test_every_code_point(db, backend, table, connect, ctype):
    # The narrow text of each driver is UTF-8 for every character, and each C type reads it.
    values = every_code_point()
    t = table(f"id {backend.ddl('int')}, v {backend.ddl('text')}")
    c = connect()
    c.cursor().executemany(f"INSERT INTO {t} (id, v) VALUES (?, ?)", list(enumerate(values)))
    c.commit()
    set_ctype(db, c, ctype)
    got = c.cursor().execute(f"SELECT id, v FROM {t} ORDER BY id").fetchall()
    bad = [(i, v[0], g[1][:1]) for i, (v, g) in enumerate(zip(values, got, strict=False)) if g[1] != v]
    assert len(got) == len(values) and not bad, bad[:5]
