"""What an AsyncConnection leaves behind: its thread ends with it, closed or just dropped."""

from __future__ import annotations

import asyncio
import gc
import threading

import pytest

from fastodbc import aio

pytestmark = pytest.mark.fastodbc_only(reason="fastodbc.aio is fastodbc's")


def _threads() -> int:
    return sum(1 for t in threading.enumerate() if t.name == "fastodbc-aio" and t.is_alive())


async def _until_gone(before: int) -> int:
    for _ in range(100):
        if _threads() <= before:
            break
        await asyncio.sleep(0.02)
    return _threads() - before


@pytest.mark.parametrize("ending", ["close", "drop"])
def test_the_connection_thread_ends_with_the_connection(backend, ending):
    async def main():
        before = _threads()
        for _ in range(5):
            cnxn = await aio.connect(backend.connstr)
            cur = await cnxn.execute("SELECT 1")
            assert await cur.fetchall() == [(1,)]
            async for _row in await cnxn.execute("SELECT 1"):
                pass
            if ending == "close":
                await cnxn.close()
                assert cnxn.closed
            del cnxn, cur
        gc.collect()
        assert await _until_gone(before) == 0

    asyncio.run(main())
