"""Bulk load: ``Cursor.ingest`` and its file forms. The values go to the driver in Rust
(``_native.Cursor._ingest``); this module decides the statements (ADBC's modes, the
``CREATE TABLE`` from the driver's own type names) and the transaction around them."""

from __future__ import annotations

import contextlib
import dataclasses
import warnings
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from . import _native
from .constants import (
    SQL_BIGINT,
    SQL_BIT,
    SQL_CHAR,
    SQL_DBMS_NAME,
    SQL_DBMS_VER,
    SQL_IDENTIFIER_QUOTE_CHAR,
    SQL_INTEGER,
    SQL_LONGVARBINARY,
    SQL_LONGVARCHAR,
    SQL_MAX_COLUMN_NAME_LEN,
    SQL_NUMERIC,
    SQL_SMALLINT,
    SQL_TINYINT,
    SQL_TXN_CAPABLE,
    SQL_TYPE_TIME,
    SQL_TYPE_TIMESTAMP,
    SQL_VARBINARY,
    SQL_VARCHAR,
)
from .errors import DataError, Error, PrecisionWarning, ProgrammingError

if TYPE_CHECKING:
    from .cursor import Cursor

__all__ = ["ColumnMapping", "IngestMode", "IngestNan", "IngestPlan", "ingest", "ingest_csv", "ingest_parquet", "plan"]

IngestMode = Literal["create", "append", "replace", "create_append"]
MODES: tuple[str, ...] = ("create", "append", "replace", "create_append")
#: What a NaN double becomes in a load: "keep" (NaN where the database keeps it; refused where
#: it would become NULL) or "null" (NULL on every database).
IngestNan = Literal["keep", "null"]
NANS: tuple[str, ...] = ("keep", "null")

# SQL_TXN_CAPABLE's SQL_TC_ALL: DDL runs inside the transaction, so a rollback undoes a CREATE;
# SQL_TC_DDL_COMMIT: DDL commits the open transaction (MariaDB).
_SQL_TC_ALL = 2
_SQL_TC_DDL_COMMIT = 3

# Standard names for a type the driver lists no row for in SQLGetTypeInfo.
# The standard DDL names, from the type registry (crates/fastodbc-core/src/types/registry.rs).
_STANDARD_NAMES: dict[int, str] = _native.standard_type_names()
# Types of a declared length: (n) after the name; past the driver's largest, the long type.
_SIZED = {SQL_CHAR: SQL_LONGVARCHAR, SQL_VARCHAR: SQL_LONGVARCHAR, SQL_VARBINARY: SQL_LONGVARBINARY}
# An unsigned integer where the database has no unsigned type of its width: the next wider.
_WIDER = {SQL_TINYINT: SQL_SMALLINT, SQL_SMALLINT: SQL_INTEGER, SQL_INTEGER: SQL_BIGINT}
# Long types: the driver's longest (MariaDB lists TEXT before LONGTEXT).
_LONGEST = (SQL_LONGVARCHAR, SQL_LONGVARBINARY)


@dataclass(frozen=True)
class ColumnMapping:
    """One input column and the table column it is written to."""

    source: str
    target: str
    arrow_type: str
    sql_type: str


@dataclass(frozen=True)
class IngestPlan:
    """The statements a load runs, decided before anything is written."""

    table: str
    mode: str
    drop_sql: str | None
    create_sql: str | None
    select_sql: str
    insert_sql: str
    columns: list[ColumnMapping]
    source_indices: list[int]
    #: Per target column: the catalog says NOT NULL (where a query's description may not).
    not_null: list[bool]
    #: Per target column: the catalog says its type declares no size, so the size the driver
    #: describes is no limit (PostgreSQL's ``numeric``, ``varchar``, ``interval``).
    sizeless: list[bool] = field(default_factory=list)

    def __str__(self) -> str:
        width = max((len(c.source) for c in self.columns), default=0)
        lines = [f"{self.mode} {self.table}:"]
        lines += [f"  {c.source:<{width}}  {c.arrow_type}  ->  {c.target}  {c.sql_type}" for c in self.columns]
        for sql in (self.drop_sql, self.create_sql, self.insert_sql):
            if sql:
                lines.append(sql + ";")
        return "\n".join(lines)


def _quoter(cursor: Cursor) -> Any:
    q = cursor.connection.getinfo(SQL_IDENTIFIER_QUOTE_CHAR) or ""
    q = q.strip()

    def quote(name: str) -> str:
        return f"{q}{name.replace(q, q + q)}{q}" if q else name

    return quote


def _table_exists(cursor: Cursor, table: str, schema: str | None) -> bool:
    # The catalog, not a probing SELECT: a failed statement would abort PostgreSQL's
    # transaction. Names are patterns there ('_' matches any character): compared exactly.
    c = cursor.connection.cursor()
    try:
        rows = c.tables(table=table, schema=schema).fetchall()
    finally:
        c.close()
    return any(r[2] == table and (schema is None or r[1] == schema) for r in rows)


def _not_null_columns(cursor: Cursor, table: str, schema: str | None) -> set[str]:
    c = cursor.connection.cursor()
    try:
        rows = c.columns(table=table, schema=schema).fetchall()
    except Error:
        return set()
    finally:
        c.close()
    # SQLColumns: TABLE_NAME 3rd, COLUMN_NAME 4th, NULLABLE 11th (SQL_NO_NULLS = 0).
    return {r[3] for r in rows if r[2] == table and r[10] == 0}


def _catalog_facts(cursor: Cursor, table: str, schema: str | None) -> tuple[set[str], set[str]]:
    """The columns the server's catalog says are NOT NULL, and those whose type declares no
    size, where the driver's answers are not the whole truth (``Strategy::target_catalog_sql``:
    MariaDB's TIMESTAMP NOT NULL reported nullable, psqlODBC's made-up sizes)."""
    sql = cursor.connection._driver_traits.target_catalog_sql
    if sql is None:
        return set(), set()
    c = cursor.connection.cursor()
    try:
        rows = c.execute(sql, schema, table).fetchall()
    except Error:
        return set(), set()
    finally:
        c.close()
    return {r[0] for r in rows if r[1]}, {r[0] for r in rows if r[2]}


def _target_columns(cursor: Cursor, qualified: str) -> list[str]:
    c = cursor.connection.cursor()
    try:
        with warnings.catch_warnings():
            # No value is read: the digits doubles keep don't matter here.
            warnings.simplefilter("ignore", PrecisionWarning)
            c.execute(f"SELECT * FROM {qualified} WHERE 1 = 0")
        return [d[0] for d in c.description or ()]
    finally:
        c.close()


class _TypeNames:
    """The database's type names, from the driver's ``SQLGetTypeInfo``."""

    def __init__(self, cursor: Cursor) -> None:
        self._cursor = cursor.connection.cursor()
        self._rows: dict[int, list[Any]] = {}

    def _info(self, sql_type: int) -> list[Any]:
        if sql_type not in self._rows:
            try:
                self._rows[sql_type] = self._cursor.getTypeInfo(sql_type).fetchall()
            except Error:
                # MariaDB's driver refuses some types (SQL_REAL) instead of listing none.
                self._rows[sql_type] = []
        return self._rows[sql_type]

    def name(
        self,
        sql_type: int,
        unsigned: bool,
        precision: int,
        scale: int,
        zoned: bool = False,
        length: int = 0,
        native: str | None = None,
    ) -> str:
        if native:
            return native
        rows = self._info(sql_type)
        if unsigned:
            found = [r for r in rows if r.unsigned_attribute == 1]
            if found:
                return found[0].type_name
            if sql_type == SQL_BIGINT:
                return self.name(SQL_NUMERIC, False, 20, 0)
            return self.name(_WIDER.get(sql_type, sql_type), False, precision, scale)
        rows = [r for r in rows if r.unsigned_attribute != 1]
        if sql_type == SQL_BIT:
            # A boolean type where the driver lists one beside BIT (MariaDB: BOOL, TINYINT(1),
            # whose BIT(1) holds bits, not truth values).
            rows = [r for r in rows if r.type_name.lower().startswith("bool")] or rows
        if sql_type == SQL_TYPE_TIMESTAMP:
            # A zoned timestamp would shift naive values by the session's zone; zoned values
            # (instants) want one, and go into a plain timestamp as their UTC time where the
            # database has none (docs/driver-types.md).
            marked = [any(z in r.type_name.lower() for z in ("tz", "zone", "offset")) for r in rows]
            plain = [r for r, m in zip(rows, marked, strict=True) if not m]
            rows = [r for r, m in zip(rows, marked, strict=True) if m and zoned] or plain
        if sql_type in _LONGEST and rows:
            rows = [max(rows, key=lambda r: r.column_size or 0)]
        if sql_type in _SIZED:
            if not length:
                return self.name(_SIZED[sql_type], False, 0, 0)
            most = rows[0].column_size if rows else None
            if most and length > most:
                return self.name(_SIZED[sql_type], False, 0, 0)
            name = rows[0].type_name if rows else _STANDARD_NAMES[sql_type]
            # A type of no length parameter (PostgreSQL's bytea for VARBINARY) takes none.
            takes_length = not rows or "length" in (rows[0].create_params or "").lower()
            return f"{name}({length})" if takes_length else name
        name = rows[0].type_name if rows else _STANDARD_NAMES.get(sql_type, "TEXT")
        if sql_type == SQL_NUMERIC:
            return f"{name}({precision},{scale})"
        if sql_type in (SQL_TYPE_TIME, SQL_TYPE_TIMESTAMP):
            return f"{name}({scale})"
        return name

    def close(self) -> None:
        self._cursor.close()


def match_columns(
    names: list[str], targets: list[str], columns: Mapping[str, str | None] | None
) -> tuple[list[tuple[int, str]], list[str]]:
    """(input index, target column) for each input column written: renamed by ``columns``
    (None: skipped), else the target of the same name, else the one of the same name in
    another case when only one is; and the target names wanted that the table lacks."""
    columns = columns or {}
    by_folded: dict[str, list[str]] = {}
    for t in targets:
        by_folded.setdefault(t.casefold(), []).append(t)
    pairs: list[tuple[int, str]] = []
    missing: list[str] = []
    for i, name in enumerate(names):
        want = columns.get(name, name)
        if want is None:
            continue
        if want in targets:
            pairs.append((i, want))
        elif len(by_folded.get(want.casefold(), [])) == 1:
            pairs.append((i, by_folded[want.casefold()][0]))
        else:
            missing.append(want)
    return pairs, missing


def _match(names: list[str], targets: list[str], columns: Mapping[str, str | None] | None) -> list[tuple[int, str]]:
    """``match_columns``, refusing a mapping of input columns the input lacks, an input
    column the table has no column for, and no column at all."""
    unknown = set(columns or {}) - set(names)
    if unknown:
        raise ProgrammingError("HY000", f"columns names input columns the input lacks: {sorted(unknown)}")
    pairs, missing = match_columns(names, targets, columns)
    if missing:
        raise ProgrammingError(
            "42S22",
            f"the table has no column for input columns {missing} (its columns: {targets}); "
            "map them with columns={'input name': 'table column'} or None to skip one",
        )
    if not pairs:
        raise ProgrammingError("HY000", "no input column to write")
    return pairs


def plan(
    cursor: Cursor,
    table: str,
    source: _native.IngestSource,
    *,
    mode: str = "append",
    columns: Mapping[str, str | None] | None = None,
    column_types: Mapping[str, str] | None = None,
    schema: str | None = None,
) -> IngestPlan:
    """The statements ``ingest`` would run for ``source`` (see ``Cursor.ingest_plan``)."""
    if mode not in MODES:
        raise ProgrammingError("HY000", f"mode must be one of {MODES}, not {mode!r}")
    if column_types and mode == "append":
        raise ProgrammingError(
            "HY000", "column_types gives the types of the columns a load creates; mode='append' creates none"
        )
    quote = _quoter(cursor)
    qualified = f"{quote(schema)}.{quote(table)}" if schema else quote(table)
    conn = cursor.connection
    dbms = (str(conn.getinfo(SQL_DBMS_NAME) or ""), str(conn.getinfo(SQL_DBMS_VER) or ""))
    fields = source.fields(*dbms)
    names = [f.name for f in fields]
    unknown = sorted(set(column_types or {}) - set(names))
    if unknown:
        raise ProgrammingError(
            "HY000", f"column_types names input columns the input lacks: {unknown} (its columns: {names})"
        )
    exists = _table_exists(cursor, table, schema)
    if mode == "append" and not exists:
        raise ProgrammingError("42S02", f"table {qualified} does not exist (mode='append'); use mode='create'")
    if mode == "create" and exists:
        raise ProgrammingError("42S01", f"table {qualified} exists already (mode='create')")
    create = mode in ("create", "replace") or (mode == "create_append" and not exists)
    drop_sql = f"DROP TABLE {qualified}" if mode == "replace" and exists else None
    create_sql = None
    not_null: set[str] = set()
    sizeless: set[str] = set()
    if create:
        pairs = _match(names, [columns.get(n, n) or n for n in names] if columns else names, columns)
        _check_names(conn, [t for _, t in pairs], dbms)
        typenames = _TypeNames(cursor)
        try:
            defs = []
            sql_types = []
            for i, target in pairs:
                f = fields[i]
                name = f.name
                given = (column_types or {}).get(name)
                if given is not None:
                    # The user's definition, as written: NOT NULL too if wanted.
                    sql_types.append(given)
                    defs.append(f"{quote(target)} {given}")
                    continue
                c = f.create
                if c is None:
                    raise DataError(
                        "22000",
                        f"input column {name!r} ({f.arrow_type}) cannot be created: {f.create_error}; "
                        "give its type with column_types",
                    )
                sql_type = typenames.name(c.sql_type, c.unsigned, c.precision, c.scale, c.zoned, c.length, c.native)
                sql_types.append(sql_type)
                defs.append(f"{quote(target)} {sql_type}{'' if f.nullable else ' NOT NULL'}")
        finally:
            typenames.close()
        create_sql = f"CREATE TABLE {qualified} ({', '.join(defs)})"
        given_types = column_types or {}
        not_null = {t for i, t in pairs if not fields[i].nullable and fields[i].name not in given_types}
        # A type created with no size (interval, json, text) has none, whatever size the driver
        # describes it with (psqlODBC: interval as VARCHAR(32), `Quirks::made_up_sizes`).
        sizeless = {target for (_, target), t in zip(pairs, sql_types, strict=True) if "(" not in t}
    else:
        pairs = _match(names, _target_columns(cursor, qualified), columns)
        sql_types = ["" for _ in pairs]
        not_null = _not_null_columns(cursor, table, schema)
        catalog_not_null, sizeless = _catalog_facts(cursor, table, schema)
        not_null |= catalog_not_null
    targets = ", ".join(quote(t) for _, t in pairs)
    markers = ", ".join("?" for _ in pairs)
    return IngestPlan(
        table=qualified,
        mode=mode,
        drop_sql=drop_sql,
        create_sql=create_sql,
        select_sql=f"SELECT {targets} FROM {qualified} WHERE 1 = 0",
        insert_sql=f"INSERT INTO {qualified} ({targets}) VALUES ({markers})",
        columns=[
            ColumnMapping(fields[i].name, t, fields[i].arrow_type, s)
            for (i, t), s in zip(pairs, sql_types, strict=True)
        ],
        source_indices=[i for i, _ in pairs],
        not_null=[t in not_null for _, t in pairs],
        sizeless=[t in sizeless for _, t in pairs],
    )


def _check_names(conn: Any, names: list[str], dbms: tuple[str, str]) -> None:
    """Refuses a column name longer than the database keeps (PostgreSQL would cut it at 63
    bytes with only a NOTICE, and two names alike up to there then fail as duplicates)."""
    try:
        reported = int(conn.getinfo(SQL_MAX_COLUMN_NAME_LEN) or 0)
    except (Error, TypeError, ValueError):
        reported = 0
    limit = _native.column_name_limit(*dbms, reported)
    if limit is None:
        return
    most, unit = limit.most, limit.unit
    for name in names:
        length = limit.length_of(name)
        if length > most:
            raise ProgrammingError(
                "42000",
                f"column name {name!r} is {length} {unit} long: the database keeps at most {most} "
                f"{unit} of a column name; name it otherwise with columns={{...}} (or --column)",
            )


def source_of(data: Any) -> _native.IngestSource:
    """``data`` as a load's input; a bare schema (``__arrow_c_schema__`` only) as an input of
    no rows, for ``ingest_plan``."""
    if isinstance(data, _native.IngestSource):
        return data
    if not (hasattr(data, "__arrow_c_stream__") or hasattr(data, "__arrow_c_array__")) and hasattr(
        data, "__arrow_c_schema__"
    ):
        import pyarrow as pa

        return _native.IngestSource(pa.RecordBatchReader.from_batches(pa.schema(data), []))
    return _native.IngestSource(data)


@dataclass(frozen=True)
class _Load:
    """What a load was asked for, apart from its input."""

    mode: str
    columns: Mapping[str, str | None] | None
    column_types: Mapping[str, str] | None
    schema: str | None
    batch_rows: int | None
    batch_bytes: int | None
    commit_every: int | None
    nan: str = "keep"


#: The savepoint a load inside the caller's transaction rolls back to on an error.
SAVEPOINT = "fastodbc_ingest"


def ingest(
    cursor: Cursor,
    table: str,
    data: Any,
    *,
    mode: str = "append",
    columns: Mapping[str, str | None] | None = None,
    column_types: Mapping[str, str] | None = None,
    schema: str | None = None,
    batch_rows: int | None = None,
    batch_bytes: int | None = None,
    commit: bool = False,
    commit_every: int | None = None,
    nan: str = "keep",
) -> int:
    """See ``Cursor.ingest``."""
    if nan not in NANS:
        raise ProgrammingError("HY000", f"nan must be one of {NANS}, not {nan!r}")
    if commit_every is not None and commit_every < 1:
        raise ProgrammingError("HY000", "commit_every needs a row count of at least 1")
    conn = cursor.connection
    if commit_every is not None and not commit and not conn.autocommit:
        raise ProgrammingError(
            "HY000",
            "commit_every commits as the load goes, and autocommit is off: that would commit "
            "the connection's open transaction too. Pass commit=True to commit it with the "
            "load, or load with autocommit on (the load is then a transaction of its own)",
        )
    source = source_of(data)
    load = _Load(
        mode=mode,
        columns=columns,
        column_types=column_types,
        schema=schema,
        batch_rows=batch_rows,
        batch_bytes=batch_bytes,
        commit_every=commit_every,
        nan=nan,
    )
    if not conn.autocommit:
        return _load(cursor, table, source, load, commit=commit, own=False)
    # Autocommit: the load is a transaction of its own, committed at its end.
    conn.autocommit = False
    try:
        rows = _load(cursor, table, source, load, commit=True, own=True)
    except BaseException:
        # On a connection the load lost, the load's own error is the one raised.
        if not conn.closed:
            with contextlib.suppress(Error):
                conn.autocommit = True
        raise
    conn.autocommit = True
    return rows


def _ddl_commits(conn: Any) -> bool:
    """DDL commits the open transaction (``SQL_TXN_CAPABLE``: SQL_TC_DDL_COMMIT, MariaDB)."""
    return conn.getinfo(SQL_TXN_CAPABLE) == _SQL_TC_DDL_COMMIT


def _ddl_transactional(conn: Any) -> bool:
    """DDL runs inside the transaction: a rollback undoes a CREATE (SQL_TC_ALL)."""
    return conn.getinfo(SQL_TXN_CAPABLE) == _SQL_TC_ALL


def _load(cursor: Cursor, table: str, source: _native.IngestSource, load: _Load, *, commit: bool, own: bool) -> int:
    """The load, autocommit off. ``own``: it is a transaction of its own (autocommit was on).
    Where no statement ran in the open transaction yet, the load's work is all it holds, and
    an error rolls it back whole (its locks go with it); otherwise the caller's work is there
    too, and only the load is rolled back, to a savepoint (where the database has them)."""
    conn = cursor.connection
    whole = own or not conn._in_transaction
    savepoint = "" if whole else conn._driver_traits.load_savepoint
    if savepoint:
        _savepoint_command(cursor, savepoint, f"SAVEPOINT {SAVEPOINT}")
    p: IngestPlan | None = None
    created = wrote = False
    try:
        p = plan(
            cursor, table, source, mode=load.mode, columns=load.columns, column_types=load.column_types,
            schema=load.schema,
        )
        ddl_commits = bool(p.drop_sql or p.create_sql) and _ddl_commits(conn)
        if not whole and ddl_commits:
            if not commit:
                raise ProgrammingError(
                    "25000",
                    f"mode={load.mode!r} runs {'DROP' if p.drop_sql else 'CREATE'} TABLE, which this "
                    "database commits by itself (SQL_TXN_CAPABLE: DDL commits the transaction), and "
                    "the connection's open transaction holds earlier work that ingest does not "
                    "commit unasked. Nothing was written. Commit or roll back first, pass "
                    "commit=True to commit that work with the load, or load with autocommit on",
                )
        if not whole and commit and (load.commit_every is not None or ddl_commits):
            # commit=True asks for the open transaction to be committed: done before the load,
            # whose commits (every N rows, or the DDL's own) would do it anyway.
            conn.commit()
            whole, savepoint = True, ""
        wrote = True
        if p.drop_sql and not _ddl_transactional(conn):
            rows = _replace_by_rename(cursor, table, source, p, load)
        else:
            if p.drop_sql:
                cursor.execute(p.drop_sql)
            if p.create_sql:
                cursor.execute(p.create_sql)
                created = True
            rows = cursor._ingest(
                _native.IngestRequest(
                    source=source,
                    select_sql=p.select_sql,
                    insert_sql=p.insert_sql,
                    source_indices=p.source_indices,
                    not_null=p.not_null,
                    sizeless=p.sizeless,
                    batch_rows=load.batch_rows,
                    batch_bytes=load.batch_bytes,
                    commit_every=load.commit_every,
                    nan_as_null=load.nan == "null",
                )
            )
        if savepoint:
            _savepoint_command(cursor, savepoint, f"RELEASE SAVEPOINT {SAVEPOINT}")
        if commit:
            conn.commit()
        return rows
    except BaseException as e:
        if whole:
            _undo(cursor, p.table if p is not None and created else None, committed=load.commit_every is not None)
        elif savepoint:
            _undo_to_savepoint(cursor, savepoint, e if wrote else None)
        elif wrote:
            e.add_note(
                "fastodbc: this database has no savepoint fastodbc knows of: the rows the load "
                "sent before the error are still in the connection's open transaction, with its "
                "earlier work; rollback() discards both"
            )
        raise


def _replace_by_rename(cursor: Cursor, table: str, source: _native.IngestSource, p: IngestPlan, load: _Load) -> int:
    """``replace`` where DDL commits by itself (MariaDB): the rows go into a new table first,
    and the old one is dropped and the new one renamed only once the load succeeded, so a
    failed load leaves the old table as it was. The DROP and RENAME commit the load."""
    staging = f"{table}__fastodbc_load"
    quote = _quoter(cursor)
    schema = load.schema
    staged = f"{quote(schema) + '.' if schema else ''}{quote(staging)}"
    if _table_exists(cursor, staging, schema):
        cursor.execute(f"DROP TABLE {staged}")
    staging_load = dataclasses.replace(load, mode="create")
    rows = _load(cursor, staging, source, staging_load, commit=True, own=True)
    cursor.execute(p.drop_sql or "")
    # ALTER TABLE ... RENAME TO: the same words on MariaDB, PostgreSQL and SQLite.
    cursor.execute(f"ALTER TABLE {staged} RENAME TO {quote(table)}")
    cursor.connection.commit()
    return rows


def _savepoint_command(cursor: Cursor, how: str, sql: str) -> None:
    """Runs a savepoint command as ``DriverTraits.load_savepoint`` says: alone, or in a text
    of two statements, which psqlODBC does not wrap in a savepoint of its own (there a lone
    one breaks the driver's statement-level rollback: docs/driver-quirks.md)."""
    cursor.execute(f"{sql}; SELECT 1" if how == "one_text" else sql)


def _undo_to_savepoint(cursor: Cursor, how: str, error: BaseException | None) -> None:
    """Rolls back the load alone, to its savepoint; the caller's transaction stays open.
    ``error``: the load's error, told so (None: refused before writing anything)."""
    back, release = f"ROLLBACK TO SAVEPOINT {SAVEPOINT}", f"RELEASE SAVEPOINT {SAVEPOINT}"
    try:
        if how == "one_text":
            cursor.execute(f"{back}; {release}")
        else:
            cursor.execute(back)
            cursor.execute(release)
    except Error as e:
        if error is not None:
            error.add_note(f"fastodbc: rolling the load back to its savepoint failed too: {e}")
        return
    if error is None:
        return
    error.add_note(
        "fastodbc: the load was rolled back (to a savepoint); the connection's transaction, "
        "with its earlier work, stays open: commit() or rollback() ends it"
    )


def _undo(cursor: Cursor, created: str | None, committed: bool) -> None:
    """Rolls back a failed load that had the transaction to itself; drops the table it
    created (``created``) where the database commits DDL by itself (MariaDB), unless rows of
    it were committed (``commit_every``): over a new connection when this one is lost."""
    conn = cursor.connection
    if conn.closed:
        return
    try:
        conn.rollback()
    except Error:
        pass  # the load's own error says what went wrong; the connection may be lost
    if created is None or committed:
        return
    try:
        if _ddl_transactional(conn):
            return
        conn.cursor().execute(f"DROP TABLE {created}")
        conn.commit()
        return
    except Error:
        pass
    _drop_over_new_connection(conn, created)


def _drop_over_new_connection(conn: Any, table: str) -> None:
    """Drops ``table`` over a new connection to the same database (the load's own was lost
    with the table it created in it)."""
    reopen = getattr(conn, "_reopen", None)
    if reopen is None:
        return
    try:
        other = reopen()
    except Error:
        return
    try:
        other.cursor().execute(f"DROP TABLE IF EXISTS {table}")
    except Error:
        pass
    finally:
        other.close()


#: Rows per batch read from a Parquet file when the caller does not say (pyarrow's default).
PARQUET_BATCH_ROWS = 65_536

#: The read buffer of each column chunk of a Parquet file (``ParquetFile``'s ``buffer_size``).
PARQUET_READ_BUFFER = 1 << 20


def open_parquet(source: Any) -> Any:
    """``source`` (a path or a binary file) as a ``pyarrow.parquet.ParquetFile`` read a page at a
    time: a buffered stream per column chunk, not the whole chunk (``pre_buffer``, pyarrow's
    default, holds a row group's chunks, read ahead on pyarrow's I/O threads)."""
    import pyarrow.parquet as pq

    return pq.ParquetFile(source, pre_buffer=False, buffer_size=PARQUET_READ_BUFFER)


def parquet_batches(path: Any, batch_rows: int | None) -> tuple[Any, Iterator[Any]]:
    """The schema and record batches of a Parquet file, read a batch at a time."""
    f = open_parquet(path)
    return f.schema_arrow, parquet_row_groups(f, batch_rows)


def parquet_row_groups(f: Any, batch_rows: int | None) -> Iterator[Any]:
    """The batches of an open ``pyarrow.parquet.ParquetFile``, read one row group at a time:
    ``iter_batches`` over the whole file holds about twice the memory (pre-buffered reads across
    row groups), so memory would follow the file, not its row groups.

    Memory is flat in the file's size only if what a batch freed goes back to the OS before
    the next is read: pyarrow's default pool (mimalloc 3) keeps freed pages for a second
    (``purge_delay``), several batches' worth. So batches are decoded on this thread (a
    release collects only the calling thread's pages, not pyarrow's workers') and the pool's
    unused memory is released once the consumer has dropped each batch. Measured (issue 19's
    note): ΔRSS 100K -> 1M rows 91 -> 139 MB before, 83 -> 85 after; the cost, pages faulted
    in again, ~7 ms per 100,000 rows, within the loads' noise."""
    import pyarrow as pa

    pool = pa.default_memory_pool()
    for group in range(f.num_row_groups):
        for batch in f.iter_batches(
            batch_size=batch_rows or PARQUET_BATCH_ROWS, row_groups=[group], use_threads=False
        ):
            yield batch
            del batch
            pool.release_unused()


def ingest_parquet(cursor: Cursor, table: str, path: Any, **options: Any) -> int:
    """See ``Cursor.ingest_parquet``."""
    import pyarrow as pa

    schema, batches = parquet_batches(path, options.get("batch_rows"))
    return ingest(cursor, table, pa.RecordBatchReader.from_batches(schema, batches), **options)


def ingest_csv(
    cursor: Cursor,
    table: str,
    path: Any,
    *,
    read_options: Any = None,
    parse_options: Any = None,
    convert_options: Any = None,
    null_values: Sequence[str] | None = None,
    **options: Any,
) -> int:
    """See ``Cursor.ingest_csv``."""
    import pyarrow as pa
    import pyarrow.csv as pacsv

    from . import csvfile

    if read_options is None and options.get("batch_bytes"):
        read_options = pacsv.ReadOptions(block_size=int(options["batch_bytes"]))
    if convert_options is not None:
        if null_values is not None:
            raise ProgrammingError(
                "HY000", "null_values is for fastodbc's CSV rules: give the tokens in convert_options instead"
            )
        reader = pacsv.open_csv(
            path, read_options=read_options, parse_options=parse_options, convert_options=convert_options
        )
        return ingest(cursor, table, reader, **options)
    opened = None if hasattr(path, "read") else open(path, "rb")  # noqa: SIM115 - closed below
    try:
        schema, batches = csvfile.open_csv(
            csvfile.Replayable(opened or path), None, null_values or (), read_options, parse_options
        )
        return ingest(cursor, table, pa.RecordBatchReader.from_batches(schema, batches), **options)
    finally:
        if opened is not None:
            opened.close()
