"""Soak: writers on a fastodbc ConnectionPool through the fault proxy, which cuts links at random,
keeping a ledger; `make test-soak` (not in CI). Per server backend (tests/profiles with a
server whose connection string is set):

  8 threads (FASTODBC_SOAK_THREADS) for 10 minutes (FASTODBC_SOAK_SECONDS) write logical
  writes of 1-5 rows, each with an id of its own, into a ledger table, and retry each until it
  is committed; a write whose COMMIT lost its link (outcome unknown) is resolved by reading the
  table over a direct connection. Meanwhile the proxy cuts one link, several, or all, or stalls
  them all for a while and then cuts them, at random intervals.

At the end: every committed write's rows are there once (0 lost, 0 duplicated), no write that
failed left a row, no error but a lost connection or a pool timeout, the process did not crash
(each backend runs in a child process), and memory (RSS) is flat: start (after warm-up), end
and peak are reported. Exit status 0 only if all of that holds on every backend.

  python scripts/soak.py [backend ...]     (the servers' env exported: scripts/test.sh does)
"""

from __future__ import annotations

import faulthandler
import json
import os
import random
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

SECONDS = float(os.environ.get("FASTODBC_SOAK_SECONDS", "600"))
THREADS = int(os.environ.get("FASTODBC_SOAK_THREADS", "8"))
WARMUP_S = min(30.0, SECONDS / 10)  # RSS "start" is read after this: pools, caches filled
# RSS may grow this much from start to end (fragmentation, the ledger's client-side sets)
# before it counts as a leak.
RSS_GROWTH_LIMIT_MB = 16.0
TABLE = "fastodbc_soak_ledger"


def rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


class Ledger:
    """What the writers know: committed writes (a byte per write and writer: its rows, 0 if not
    committed; compact, so the ledger itself does not look like a leak), attempts that failed
    before COMMIT, COMMITs of unknown outcome and how each was resolved."""

    def __init__(self, writers: int) -> None:
        self.lock = threading.Lock()
        self.parts = [bytearray(1) for _ in range(writers)]  # [w][seq] (seq from 1)
        self.failed_attempts = 0
        self.unknown = 0
        self.unknown_committed = 0
        self.pool_timeouts = 0
        self.unexpected: list[str] = []

    def commit(self, w: int, seq: int, parts: int) -> None:
        row = self.parts[w]
        while len(row) <= seq:
            row.append(0)
        row[seq] = parts

    def committed(self) -> dict[int, int]:
        """write id -> rows, of every committed write."""
        return {
            write_id(w, seq): n for w, row in enumerate(self.parts) for seq, n in enumerate(row) if n
        }


def write_id(w: int, seq: int) -> int:
    return w * 10**9 + seq


def run_backend(name: str) -> dict:
    """The soak on one backend, in this (child) process; its report."""
    import fastodbc
    from fastodbc.pool import ConnectionPool, PoolTimeout
    from faults.proxy import FaultProxy
    from profiles import BY_NAME

    backend = BY_NAME[name].bind(Path("/nonexistent"))
    assert backend is not None and backend.is_server, f"{name}: no server connection string"
    lost_states = backend.lost_connection_states

    def direct(**kw):
        return fastodbc.connect(backend.connstr, **kw)

    admin = direct(autocommit=True)
    admin.cursor().execute(f"DROP TABLE IF EXISTS {TABLE}")
    # No primary key: a write committed twice would show as two rows.
    admin.cursor().execute(
        f"CREATE TABLE {TABLE} (id {backend.ddl('bigint')}, part INTEGER, writer INTEGER, note VARCHAR(40))"
    )
    admin.cursor().execute(f"CREATE INDEX {TABLE}_id ON {TABLE} (id)")

    proxy = FaultProxy(backend.address())
    through = backend.at(proxy.host, proxy.port)
    pool = ConnectionPool(through, min_size=THREADS, max_size=THREADS, timeout=10, name="soak")
    pool.wait(60)
    ledger = Ledger(THREADS)
    stop = threading.Event()
    cuts = {"one": 0, "some": 0, "all": 0, "stall": 0}

    def is_lost(e: BaseException) -> bool:
        return isinstance(e, fastodbc.OperationalError) and str(e.args[0] if e.args else "").startswith(
            (*lost_states, "HYT00", "HYT01")
        )

    def rows_after(session: int, wid: int) -> int:
        """The rows of write ``wid`` once the session that sent its COMMIT is gone (committed
        or rolled back for good: read earlier, a COMMIT still in the server would be missed)."""
        c = direct(autocommit=True)
        try:
            gone = backend.session_count_sql.format(id=session)
            deadline = time.monotonic() + 60
            while c.cursor().execute(gone).fetchval():
                assert time.monotonic() < deadline, f"session {session} still there after 60 s"
                time.sleep(0.05)
            return c.cursor().execute(f"SELECT COUNT(*) FROM {TABLE} WHERE id = ?", wid).fetchval()
        finally:
            c.close()

    def writer(w: int) -> None:
        rng = random.Random(w)
        seq = 0
        while not stop.is_set():
            seq += 1
            wid = write_id(w, seq)
            parts = rng.randint(1, 5)
            rows = [(wid, p, w, f"w{w} s{seq} p{p}") for p in range(parts)]
            while not stop.is_set():  # until this write is committed
                phase = "checkout"
                try:
                    conn = pool.getconn(timeout=10)
                except PoolTimeout:
                    with ledger.lock:
                        ledger.pool_timeouts += 1
                    continue
                try:
                    phase = "write"
                    session = backend.session_id(conn)
                    conn.cursor().executemany(f"INSERT INTO {TABLE} VALUES (?, ?, ?, ?)", rows)
                    phase = "commit"
                    conn.commit()
                    with ledger.lock:
                        ledger.commit(w, seq, parts)
                    break
                except fastodbc.Error as e:
                    if not is_lost(e):
                        with ledger.lock:
                            ledger.unexpected.append(f"{phase}: {e!r}"[:400])
                    if phase != "commit":
                        with ledger.lock:
                            ledger.failed_attempts += 1
                        continue
                    # The COMMIT lost its link: the server may have done it. Ask.
                    n = rows_after(session, wid)
                    with ledger.lock:
                        ledger.unknown += 1
                        if n == parts:
                            ledger.unknown_committed += 1
                            ledger.commit(w, seq, parts)
                        elif n != 0:
                            ledger.unexpected.append(f"write {wid}: {n} of {parts} rows after a lost COMMIT")
                    if n:
                        break
                finally:
                    pool.putconn(conn)

    def cutter() -> None:
        rng = random.Random("cutter")
        while not stop.wait(rng.uniform(0.2, 1.5)):
            r = rng.random()
            if r < 0.5:
                proxy.cut(count=1)
                cuts["one"] += 1
            elif r < 0.75:
                proxy.cut(count=rng.randint(2, THREADS))
                cuts["some"] += 1
            elif r < 0.9:
                proxy.cut()
                cuts["all"] += 1
            else:
                # A dead link for a while (a timeout's work, where there is one), then cut by
                # the proxy itself: this process may be frozen meanwhile (a driver call waiting
                # on the link with the GIL held), which the longest freeze reports.
                proxy.stall(cut_after=rng.uniform(0.5, 2.0))
                cuts["stall"] += 1

    started = time.monotonic()
    threads = [threading.Thread(target=writer, args=(w,), name=f"writer-{w}", daemon=True) for w in range(THREADS)]
    threads.append(threading.Thread(target=cutter, name="cutter", daemon=True))
    for th in threads:
        th.start()
    rss_start = None
    rss_peak = rss_mb()
    freeze = 0.0  # the longest time this loop's 0.1 s sleep took past 0.1 s: all threads frozen
    while time.monotonic() - started < SECONDS:
        before = time.monotonic()
        time.sleep(0.1)
        freeze = max(freeze, time.monotonic() - before - 0.1)
        rss_peak = max(rss_peak, rss_mb())
        if rss_start is None and time.monotonic() - started >= WARMUP_S:
            rss_start = rss_mb()
    stop.set()
    proxy.forward()
    for th in threads:
        th.join(120)
    hung = [th.name for th in threads if th.is_alive()]
    rss_end = rss_mb()
    pool_stats = pool.get_stats()
    pool.close(timeout=10)
    proxy.close()

    counts = {
        int(r[0]): (int(r[1]), int(r[2]))
        for r in admin.cursor()
        .execute(f"SELECT id, COUNT(*), COUNT(DISTINCT part) FROM {TABLE} GROUP BY id")
        .fetchall()
    }
    committed = ledger.committed()
    lost = [i for i, parts in committed.items() if counts.get(i, (0, 0))[0] < parts]
    duplicated = [i for i, (n, distinct) in counts.items() if n != distinct]
    phantom = [i for i in counts if i not in committed]  # rows of a write never committed
    torn = [i for i, parts in committed.items() if i in counts and counts[i][1] != parts]
    admin.cursor().execute(f"DROP TABLE {TABLE}")
    admin.close()
    rss_start = rss_start if rss_start is not None else rss_end
    report = {
        "backend": name,
        "seconds": round(time.monotonic() - started, 1),
        "threads": THREADS,
        "writes_committed": len(committed),
        "rows_committed": sum(committed.values()),
        "failed_attempts": ledger.failed_attempts,
        "unknown_commits": ledger.unknown,
        "unknown_found_committed": ledger.unknown_committed,
        "pool_timeouts": ledger.pool_timeouts,
        "cuts": cuts,
        "lost": len(lost),
        "duplicated": len(duplicated),
        "phantom": len(phantom),
        "torn": len(torn),
        "unexpected_errors": len(ledger.unexpected),
        "unexpected_sample": ledger.unexpected[:5],
        "hung_threads": hung,
        "longest_freeze_s": round(freeze, 2),
        "rss_mb": {"start": round(rss_start, 1), "end": round(rss_end, 1), "peak": round(rss_peak, 1)},
        "pool": {k: v for k, v in pool_stats.items() if k in ("connections_num", "connections_lost", "returns_bad")},
    }
    report["ok"] = (
        not lost
        and not duplicated
        and not phantom
        and not torn
        and not ledger.unexpected
        and not hung
        and len(committed) > 0
        and rss_end - rss_start <= RSS_GROWTH_LIMIT_MB
    )
    return report


def main(argv: list[str]) -> int:
    if argv[:1] == ["--child"]:
        print("SOAK-REPORT " + json.dumps(run_backend(argv[1])), flush=True)
        return 0
    from profiles import PROFILES

    names = argv or [p.name for p in PROFILES if p.is_server and os.environ.get(p.connstr_env or "")]
    if not names:
        print("soak: no server backend's connection string is set (run it through scripts/test.sh soak)")
        return 1
    ok = True
    for name in names:
        print(f"soak: {name}, {THREADS} threads, {SECONDS:.0f} s", flush=True)
        child = subprocess.run(
            [sys.executable, __file__, "--child", name], capture_output=True, text=True, timeout=SECONDS + 600
        )
        lines = [ln for ln in child.stdout.splitlines() if ln.startswith("SOAK-REPORT ")]
        if child.returncode != 0 or not lines:
            # A crash (a signal: negative status) or an exception: 1 crash.
            print(f"soak: {name}: the process ended with status {child.returncode}, no report")
            print(child.stderr[-4000:])
            ok = False
            continue
        report = json.loads(lines[-1][len("SOAK-REPORT ") :])
        print(json.dumps(report, indent=2), flush=True)
        ok = ok and report["ok"]
    print("soak: OK" if ok else "soak: FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    if os.environ.get("FASTODBC_SOAK_DUMP"):
        faulthandler.dump_traceback_later(float(os.environ["FASTODBC_SOAK_DUMP"]), exit=True)
    sys.exit(main(sys.argv[1:]))
