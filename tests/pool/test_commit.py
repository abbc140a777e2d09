"""A `connection()` block that ends normally is committed with the return, in one step (one
hop to the connection's thread under asyncio): a COMMIT that fails is raised from the block's
end, after the connection went back, and nothing of the block is kept."""

from __future__ import annotations

import asyncio

import pytest

from fastodbc import aio
from profiles import backends_where

pytestmark = pytest.mark.fastodbc_only(reason="fastodbc.pool is fastodbc's own")


@pytest.mark.parametrize("backend", backends_where(lambda p: p.deferred_unique_type), indirect=True)
@pytest.mark.parametrize("front", ["threads", "asyncio"])
def test_a_commit_failing_at_the_end_of_the_block_is_raised(db, backend, make_pool, table, admin, front):
    t = table(f"id {backend.deferred_unique_type}")
    insert = f"INSERT INTO {t} VALUES (1)"

    def rows() -> int:
        return admin.cursor().execute(f"SELECT COUNT(*) FROM {t}").fetchval()

    if front == "threads":
        pool = make_pool(min_size=1, max_size=1)
        for attempt in range(3):
            with pytest.raises(db.IntegrityError):
                with pool.connection() as cnxn:
                    cnxn.cursor().execute(insert)
                    cnxn.cursor().execute(insert)  # accepted now, refused at COMMIT
            assert rows() == 0, f"attempt {attempt}"
            with pool.connection() as cnxn:  # the same connection, usable, outside a transaction
                cnxn.cursor().execute(insert)
            assert rows() == 1
            admin.cursor().execute(f"DELETE FROM {t}")
        assert pool.get_stats()["connections_lost"] == 0
        return

    async def main() -> None:
        async with aio.AsyncConnectionPool(backend.connstr, min_size=1, max_size=1, timeout=10) as pool:
            for attempt in range(3):
                with pytest.raises(db.IntegrityError):
                    async with pool.connection() as cnxn:
                        await cnxn.execute(insert)
                        await cnxn.execute(insert)
                assert rows() == 0, f"attempt {attempt}"
                async with pool.connection() as cnxn:
                    await cnxn.execute(insert)
                assert rows() == 1
                admin.cursor().execute(f"DELETE FROM {t}")
            assert pool.get_stats()["connections_lost"] == 0

    asyncio.run(main())
