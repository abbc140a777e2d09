"""The command line says what a path does not keep (issue 30): ``export`` of doubles the driver
reads at fewer digits says so on stderr (also with --quiet); ``import --nan`` chooses what a
NaN becomes, never a silent NULL."""

from __future__ import annotations

import math

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from .invocation import run


def test_export_says_when_doubles_lose_digits(backend, cursor, table, tmp_path):
    t = table(f"id {backend.ddl('int')}, f {backend.ddl('float')}")
    cursor.execute(f"INSERT INTO {t} (id, f) VALUES (1, ?)", 1.0 / 3)
    cursor.connection.commit()
    for quiet in ([], ["--quiet"]):
        out = tmp_path / "f.parquet"
        done = run("export", backend.connstr, f"SELECT id, f FROM {t}", str(out), *quiet)
        assert done.returncode == 0, done.stderr.decode()
        stderr = done.stderr.decode()
        got = pq.read_table(out).column("f").to_pylist()
        assert got == [backend.float_roundtrip(1.0 / 3)]
        if backend.float_digits >= 17:
            assert "significant digits" not in stderr
        else:
            said = f'warning: column "f" of this result: the driver returns doubles with {backend.float_digits}'
            assert said + " significant digits" in stderr


@pytest.mark.parametrize("nan", ["keep", "null"])
def test_import_nan(backend, connect, table, tmp_path, nan):
    source = tmp_path / "nan.parquet"
    pq.write_table(pa.table({"id": pa.array([1, 2], pa.int64()), "f": pa.array([0.5, math.nan])}), source)
    t = table(f"id {backend.ddl('bigint')}, f {backend.ddl('float')}")
    done = run("import", backend.connstr, t, str(source), "--nan", nan)
    rows = dict(connect().cursor().execute(f"SELECT id, f FROM {t}").fetchall())
    if nan == "null":
        assert done.returncode == 0, done.stderr.decode()
        assert rows == {1: 0.5, 2: None}
    elif backend.nan_stored_as == "kept":
        assert done.returncode == 0, done.stderr.decode()
        assert rows[1] == 0.5 and math.isnan(rows[2])
    else:
        # Refused (fastodbc where the database would store NULL, else the server): nothing kept.
        assert done.returncode == 5, done.stderr.decode()
        assert rows == {}
        if backend.nan_stored_as == "null":
            assert b"input row 2" in done.stderr and b"--nan null" in done.stderr
