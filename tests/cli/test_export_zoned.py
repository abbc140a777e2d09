"""``fastodbc export`` of zoned timestamps (PostgreSQL's timestamptz): the Parquet file holds
``timestamp[us, tz=UTC]`` instants, the same whatever the session's time zone (set for the
command's connection with libpq's ``PGTZ``), NULLs kept (issue 29)."""

from __future__ import annotations

import datetime
import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from profiles import backends_where

from .invocation import run

UTC = datetime.timezone.utc
ZONED = backends_where(lambda p: "timestamptz" in p.ddl_map and p.set_time_zone_sql is not None)
INSTANTS = [
    datetime.datetime(2024, 3, 10, 6, 59, 59, 999999, tzinfo=UTC),
    datetime.datetime(2024, 3, 10, 7, 0, 0, tzinfo=UTC),
    datetime.datetime(2024, 11, 3, 7, 0, 0, tzinfo=UTC),
    datetime.datetime(2024, 3, 1, 12, 0, 0, 250000, tzinfo=UTC),
    None,
]


@pytest.mark.parametrize("backend", ZONED, indirect=True)
@pytest.mark.parametrize("zone", ["America/New_York", "Asia/Kolkata", "UTC"])
def test_parquet_export_holds_instants(backend, cnxn, table, tmp_path, zone):
    t = table(f"id {backend.ddl('int')} NOT NULL, z {backend.ddl('timestamptz')}")
    cur = cnxn.cursor()
    for i, v in enumerate(INSTANTS):
        cur.execute(f"INSERT INTO {t} VALUES ({i}, {'NULL' if v is None else repr(v.isoformat())})")
    cnxn.commit()
    out = tmp_path / "zoned.parquet"
    done = run("export", backend.connstr, f"SELECT id, z FROM {t} ORDER BY id", str(out), env={"PGTZ": zone})
    assert done.returncode == 0, done.stderr.decode()
    got = pq.read_table(out)
    assert got.schema.field("z").type == pa.timestamp("us", tz="UTC")
    assert got.column("z").to_pylist() == INSTANTS


# New York's repeated hour: 2024-11-03 05:30 and 06:30 UTC are both 01:30 on its clocks.
FOLD = [
    datetime.datetime(2024, 11, 3, 5, 30, tzinfo=UTC),
    datetime.datetime(2024, 11, 3, 6, 30, tzinfo=UTC),
]


@pytest.mark.parametrize("backend", ZONED, indirect=True)
@pytest.mark.parametrize("zone", ["America/New_York", "Asia/Kolkata", "UTC"])
def test_every_format_holds_the_instants_of_a_repeated_hour(backend, cnxn, table, tmp_path, zone):
    """The command's session runs in UTC whatever PGTZ says: the two instants New York shows
    as the same 01:30 stay two (Parquet: isAdjustedToUTC; CSV: text with its offset; Arrow
    IPC: tz=UTC), and an import of each file into a zoned column under the same PGTZ keeps
    them (issue 30)."""
    t = table(f"id {backend.ddl('int')} NOT NULL, z {backend.ddl('timestamptz')}")
    cur = cnxn.cursor()
    for i, v in enumerate([*FOLD, None]):
        cur.execute(f"INSERT INTO {t} VALUES ({i}, {'NULL' if v is None else repr(v.isoformat())})")
    cnxn.commit()
    sql = f"SELECT id, z FROM {t} ORDER BY id"
    for ext in ("parquet", "csv", "arrow"):
        out = tmp_path / f"fold.{ext}"
        done = run("export", backend.connstr, sql, str(out), env={"PGTZ": zone})
        assert done.returncode == 0, done.stderr.decode()
        if ext == "parquet":
            logical = json.loads(pq.ParquetFile(out).schema.column(1).logical_type.to_json())
            assert logical["isAdjustedToUTC"] is True, logical
            assert pq.read_table(out).column("z").to_pylist() == [*FOLD, None]
        elif ext == "csv":
            lines = out.read_text().splitlines()
            assert lines[1].endswith("2024-11-03 05:30:00.000000Z"), lines
            assert lines[2].endswith("2024-11-03 06:30:00.000000Z"), lines
        else:
            got = pa.ipc.open_file(out).read_all()
            assert got.schema.field("z").type == pa.timestamp("us", tz="UTC")
            assert got.column("z").to_pylist() == [*FOLD, None]
        back = table(f"id {backend.ddl('int')} NOT NULL, z {backend.ddl('timestamptz')}")
        done = run("import", backend.connstr, back, str(out), env={"PGTZ": zone})
        assert done.returncode == 0, done.stderr.decode()
        cur.execute("SET TIME ZONE 'UTC'")
        got = [r[0] for r in cur.execute(f"SELECT z FROM {back} ORDER BY id").fetchall()]
        cnxn.rollback()
        assert got == [v if v is None else v.replace(tzinfo=None) for v in [*FOLD, None]], ext
