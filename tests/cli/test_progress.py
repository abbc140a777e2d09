"""The progress display: on a terminal, for work over a second, rows and rows/s appear on
stderr (with a percentage where the total is known); without a terminal, or with --quiet,
nothing but the summary line."""

from __future__ import annotations

import re
import threading

import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
import pytest

from fastodbc.cli import cancel, main, progress

from .invocation import run, run_in_terminal

#: What tqdm draws: "export: 1 rows, 19 B [00:02, 0.48 rows/s]", "import:  40%|███  | 40,000/100,000
#: rows, 1.2 MB [00:01<00:02, 31.6k rows/s]".
PROGRESS = re.compile(r"([\d,]+)(?:/[\d,]+)? rows, [\d.]+ [kMGT]?B \[\d\d:\d\d[^,]*, [\d.?]+[kMG]? rows/s\]")


def test_export_over_a_second_shows_progress_on_a_terminal_only(backend, tmp_path):
    sql = f"SELECT * FROM ({backend.sleep(2)}) AS slow"
    out = tmp_path / "slow.csv"
    code, screen = run_in_terminal("export", backend.connstr, sql, str(out))
    assert code == 0, screen
    shown = PROGRESS.findall(screen)
    assert shown, screen
    assert "export: " in screen
    assert shown[-1] == "1"  # the final count
    assert "1 rows written" in screen
    # The same run without a terminal: the summary alone.
    done = run("export", backend.connstr, sql, str(out))
    assert done.returncode == 0
    assert done.stderr.decode().strip() == f"fastodbc: 1 rows written to {out} (csv)"
    # --quiet on a terminal: nothing at all.
    code, screen = run_in_terminal("export", backend.connstr, sql, str(out), "--quiet")
    assert code == 0 and screen == ""


@pytest.mark.parametrize("fmt", ["parquet", "csv"])
def test_import_shows_a_percentage_of_the_input(backend, connect, table, tmp_path, fmt):
    # Parquet: of the rows its metadata counts; CSV: of the file's bytes (the rows' total
    # estimated from them, marked "~").
    n = 200_000  # CSV: 1.3 MB, two of the CSV reader's blocks
    source = tmp_path / f"many.{fmt}"
    ids = pa.table({"id": pa.array(range(n), pa.int64())})
    if fmt == "parquet":
        pq.write_table(ids, source, row_group_size=20_000)
    else:
        pacsv.write_csv(ids, source)
    target = table("id BIGINT PRIMARY KEY", suffix="_target")
    # Over a second however fast the load: another transaction holds the row id 0 for 2 s,
    # and the import's first INSERT waits for it.
    holder = connect()
    holder.cursor().execute(f"INSERT INTO {target} VALUES (0)")
    release = threading.Timer(2.0, holder.rollback)
    release.start()
    try:
        code, screen = run_in_terminal("import", backend.connstr, target, str(source), "--batch-rows", "20000")
    finally:
        release.join()
    assert code == 0, screen
    assert re.search(r"import: +\d+%\|", screen), screen
    if fmt == "csv":
        assert re.search(r"/~[\d,]+ rows", screen), screen
    assert "100%" in screen and "200,000/200,000 rows" in screen
    assert PROGRESS.search(screen), screen
    assert f"{n:,} rows loaded" in screen


class CountingBar:
    """Stands for tqdm's bar: the counts the display would draw, at each redraw."""

    def __init__(self):
        self.n, self.total, self.bar_format, self.drawn = 0, None, "", []

    def set_postfix_str(self, text: str, refresh: bool = True) -> None:
        pass

    def update(self, rows: int) -> None:
        self.n += rows
        self.drawn.append(self.n)

    def close(self) -> None:
        pass


def test_export_progress_moves_within_a_batch(backend, tmp_path, monkeypatch):
    # One batch of all the rows (the default Parquet batch is 131,072): the count moves as the
    # rows are read, at each redraw, not once the batch is whole. The redraws come every
    # 5 ms here (0.1 s in use), as a reader fast enough (SQLite's, 1,000,000 rows in under
    # 0.1 s) would otherwise fill the batch between two of them.
    n = 1_000_000
    bar = CountingBar()
    monkeypatch.setattr(cancel, "TICK_S", 0.005)
    monkeypatch.setattr(progress, "on_terminal", lambda: True)
    monkeypatch.setattr(progress, "_bar", lambda action: bar)
    sql = f"SELECT i, i * 2 AS j FROM ({backend.series(n)}) AS s"
    out = tmp_path / "many.parquet"
    assert main(["export", backend.connstr, sql, str(out), "--batch-rows", str(n)]) == 0
    assert bar.drawn[-1] == n
    assert any(0 < rows < n for rows in bar.drawn), bar.drawn
