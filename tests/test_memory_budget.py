"""One memory budget: ``fetch_buffer_bytes`` is the one setting, and every buffer a cursor
fills takes its share of it (``Connection.memory_budget``): fetched blocks, Arrow batches,
executemany's parameter chunks. Values never change with the budget, only how they are cut."""

from __future__ import annotations

import pyarrow as pa
import pytest

pytestmark = pytest.mark.fastodbc_only(reason="the memory budget is fastodbc's")

MIB = 1 << 20


def test_the_shares_follow_the_one_setting(cnxn):
    budget = cnxn.memory_budget
    assert cnxn.fetch_buffer_bytes == budget.block_bytes == 2 * MIB
    assert (budget.streamed_bytes, budget.arrow_batch_bytes) == (2 * MIB, 64 * MIB)
    assert (budget.export_batch_bytes, budget.param_chunk_bytes) == (32 * MIB, 16 * MIB)
    cnxn.fetch_buffer_bytes = 100_000
    budget = cnxn.memory_budget
    assert budget.block_bytes == budget.streamed_bytes == 100_000
    assert budget.arrow_batch_bytes == 3_200_000
    assert budget.export_batch_bytes == 1_600_000
    assert budget.param_chunk_bytes == 800_000
    assert "arrow_batch_bytes=3200000" in repr(budget)
    cnxn.fetch_buffer_bytes = 0  # never a budget of nothing
    assert cnxn.memory_budget.block_bytes == 1


def test_arrow_batches_end_at_the_budgets_share(backend, table, cnxn):
    """Rows of 1,000 characters with a 16 KiB block: batches of the default reader end at the
    Arrow share (512 KiB) plus one block at most, and together hold the rows path's rows."""
    t = table(f"id {backend.ddl('int')}, v {backend.ddl('text')}")
    cur = cnxn.cursor()
    cur.executemany(f"INSERT INTO {t} VALUES (?, ?)", [(i, f"{i:04d}" * 250) for i in range(3_000)])
    cnxn.commit()
    cnxn.fetch_buffer_bytes = 16 * 1024
    share = cnxn.memory_budget.arrow_batch_bytes
    assert share == 512 * 1024
    sql = f"SELECT id, v FROM {t} ORDER BY id"
    want = [tuple(r) for r in cur.execute(sql).fetchall()]
    batches = list(cur.execute(sql).fetch_record_batch())
    assert len(batches) > 1, "3 MB of text in more than one batch"
    for b in batches[:-1]:
        assert b.nbytes >= share, "a batch ends only once it passed its share"
        assert b.nbytes <= share + 64 * 1024, "by about one block at most"
    got = pa.Table.from_batches(batches).to_pylist()
    assert [(r["id"], r["v"]) for r in got] == want
    # The default C stream (pyarrow.table) cuts the same way.
    assert pa.table(cur.execute(sql)).num_rows == 3_000


@pytest.mark.parametrize("fast", [False, True], ids=["rowwise", "fast"])
def test_executemany_under_a_small_budget_stores_every_row(backend, table, cnxn, fast):
    """A 4 KiB block leaves 32 KiB of converted parameters a chunk: 3,000 rows of 100
    characters go in many chunks, every row stored once with its value."""
    t = table(f"id {backend.ddl('int')}, v {backend.ddl('text')}")
    cnxn.fetch_buffer_bytes = 4 * 1024
    assert cnxn.memory_budget.param_chunk_bytes == 32 * 1024
    cur = cnxn.cursor()
    cur.fast_executemany = fast
    rows = [(i, chr(65 + i % 26) * 100) for i in range(3_000)]
    cur.executemany(f"INSERT INTO {t} VALUES (?, ?)", rows)
    cnxn.commit()
    assert [tuple(r) for r in cur.execute(f"SELECT id, v FROM {t} ORDER BY id").fetchall()] == rows


def test_a_load_under_a_small_budget_stores_every_row(backend, table, cnxn):
    """ingest's chunks take the budget's share too: 3,000 rows through 32 KiB chunks."""
    t = table(f"id {backend.ddl('int')}, v {backend.ddl('text')}")
    cnxn.fetch_buffer_bytes = 4 * 1024
    rows = pa.table({"id": pa.array(range(3_000), pa.int32()), "v": [chr(65 + i % 26) * 100 for i in range(3_000)]})
    cur = cnxn.cursor()
    assert cur.ingest(t, rows, mode="append", commit=True) == 3_000
    got = [tuple(r) for r in cur.execute(f"SELECT id, v FROM {t} ORDER BY id").fetchall()]
    assert got == list(zip(range(3_000), rows.column("v").to_pylist(), strict=True))
