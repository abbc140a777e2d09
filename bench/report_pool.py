"""The connection pool and asyncio section of the report (issue 20): pool checkout against a cold
connect, tasks on the async pool against threads on the sync pool, the event loop's lag while a
long result is fetched, and the cost of an ``await`` per call; another thread's ``SELECT 1`` while
one thread iterates a long result (issue 33's fairness); and their targets.

    python bench/report_pool.py [RESULTS.json]   # this section alone, from any run

The cases are bench/pooling.py's, measured by bench/worker_pool.py. Figures are medians over the
repetitions (each a fresh process); the lag figures are the median of each repetition's own
max / p99, with the worst repetition's max beside them.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import backend_profiles as profiles  # noqa: E402
from report_base import (  # noqa: E402
    PARITY_P,
    cases_of,
    fmt_s,
    fmt_x,
    mann_whitney_p,
    med,
    metric,
    peer_rows,
    read_results,
    rep_seconds,
    status,
    table,
    verdict_of,
)

OPS = ("pool", "aio_concurrency", "aio_lag", "aio_overhead", "fairness")
#: The background write-up's pool speedup over a cold connect (issue 20's bar).
POOL_BAR = 72.0
#: Issue 20's bar for the ticker's delay.
LAG_BAR = 0.005
#: Where the pool's and the lag's bars are judged: the servers (SQLite is shown).
POOL_JUDGED = profiles.SERVERS
#: Issue 33's bar for the async pool's throughput against the thread pool's (issue 20 asked parity).
ASYNC_POOL_BAR = 0.9
#: Issue 33's bar for an ``await``'s cost over psycopg's (``await execute`` over the sync call,
#: fastodbc's less psycopg's, on PostgreSQL where psycopg runs).
AWAIT_OVER_PSYCOPG_BAR = 10e-6
#: Issue 33's bar for another thread's ``SELECT 1`` at p99 while one thread iterates a long result.
FAIRNESS_BAR = 0.005
#: Where it is judged: issue 33 names MariaDB; the other server reads through the same GIL, and
#: SQLite (its engine in the client, on the same 2 cores as the hog) is shown.
FAIRNESS_JUDGED = profiles.SERVERS

COLD = "fastodbc connect"
POOLED = "fastodbc ConnectionPool"
POOLED_AUTOCOMMIT = "fastodbc ConnectionPool, autocommit"
OPEN = "fastodbc open connection"
OPEN_COMMIT = "fastodbc open connection, commit"
#: Each pool against the cold connect of its own client.
COLD_OF = {
    POOLED: COLD,
    POOLED_AUTOCOMMIT: COLD,
    OPEN: COLD,
    OPEN_COMMIT: COLD,
    "psycopg_pool ConnectionPool": "psycopg connect",
}
TASKS = "fastodbc AsyncConnectionPool, tasks"
THREADS = "fastodbc ConnectionPool, threads"
LAG_JUDGED = ("fastodbc await fetchall", "fastodbc async for")
#: The client the fairness bar is for, and the one beside it (what a user has today).
FAIR = "fastodbc"
FAIR_REFERENCE = "pyodbc"


def has_pool(results: dict) -> bool:
    return any(c["op"] in OPS for c in results.get("cases", []))


def ms(x: float | None) -> str:
    return "-" if x is None else f"{x * 1e3:.1f} ms"


def us(x: float | None) -> str:
    return "-" if x is None else f"{x * 1e6:.1f} µs"


def per_s(c: dict, peer: str) -> float | None:
    t = med(c, peer)
    r = c["results"].get(peer) or {}
    return r["rows"] / t if t and r.get("rows") else None


def speedup(c: dict | None, peer: str, of: str) -> float | None:
    """``of``'s time / ``peer``'s: how many times faster ``peer`` is."""
    a, b = med(c, of), med(c, peer)
    return a / b if a and b else None


# ---------------------------------------------------------------------------------------------
# Tables


def pool_table(results: dict) -> str:
    def row(c: dict, peer: str) -> list[str]:
        cold = COLD_OF.get(peer)
        return [
            peer,
            us(med(c, peer)),
            f"{1 / med(c, peer):,.0f}",
            fmt_x(speedup(c, peer, cold)) if cold else "-",
            us(metric(c, peer, "cpu_s")),
            us(metric(c, peer, "cpu_wait_s")),
        ]

    head = [
        "backend",
        "client",
        "per operation",
        "operations/s",
        "cold connect's time / this",
        "client CPU",
        "its wait for a CPU",
    ]
    return table(head, peer_rows(cases_of(results, "pool"), row, len(head)), "llrrrrr")


def concurrency_table(results: dict) -> str:
    def row(c: dict, peer: str) -> list[str]:
        q, base = per_s(c, peer), per_s(c, THREADS)
        return [
            peer,
            f"{c['results'][peer]['rows']:,}",
            fmt_s(med(c, peer)),
            f"{q:,.0f}" if q else "-",
            fmt_x(q / base) if q and base else "-",
            us(metric(c, peer, "cpu_per_query_s")),
            us(metric(c, peer, "cpu_wait_s")),
        ]

    head = [
        "backend",
        "how",
        "queries",
        "time",
        "queries/s",
        "throughput / threads'",
        "process CPU per query",
        "loop's (or the one thread's) wait for a CPU per query",
    ]
    return table(head, peer_rows(cases_of(results, "aio_concurrency"), row, len(head)), "llrrrrrr")


def lag_table(results: dict) -> str:
    def row(c: dict, peer: str) -> list[str]:
        if metric(c, peer, "ticks") is None:
            lags = ["no loop"] + ["-"] * 7
        else:
            lags = [
                ms(metric(c, peer, "lag_max_s")),
                ms(metric(c, peer, "lag_p99_s")),
                f"{metric(c, peer, 'over_bar'):g}",
                ms(metric(c, peer, "lag_max_s_worst")),
                ms(metric(c, peer, "own_lag_max_s")),
                ms(metric(c, peer, "own_lag_p99_s")),
                gc_cell(c, peer),
                ms(metric(c, peer, "idle_lag_max_s")),
            ]
        return [peer, f"{c['results'][peer]['rows']:,}", fmt_s(med(c, peer)), *lags]

    head = [
        "backend",
        "client",
        "rows",
        "fetch time",
        "max lag",
        "p99",
        "ticks ≥ 5 ms",
        "worst rep's max",
        "max, less CPU wait",
        "p99, less CPU wait",
        "longest garbage collection",
        "idle loop's max",
    ]
    return table(head, peer_rows(cases_of(results, "aio_lag"), row, len(head)), "llrrrrrrrrrr")


def gc_cell(c: dict, peer: str) -> str:
    """The longest collection during the fetch (median over the repetitions), with its
    generation and thread in the repetitions' majority."""
    longest = metric(c, peer, "gc_max_s")
    if not longest:
        return "-" if longest is None else "none"
    gen = metric(c, peer, "gc_max_generation")
    on_loop = metric(c, peer, "gc_max_on_loop_thread")
    where = "" if on_loop is None else (", loop thread" if on_loop >= 0.5 else ", worker thread")
    return f"{ms(longest)} (gen {gen:g}{where})" if gen is not None else ms(longest)


def overhead_table(results: dict) -> str:
    def row(c: dict, peer: str) -> list[str]:
        ae, se = metric(c, peer, "async_exec_s"), metric(c, peer, "sync_exec_s")
        ab, sb = metric(c, peer, "async_both_s"), metric(c, peer, "sync_both_s")
        return [
            peer,
            us(ae),
            us(se),
            us(ae - se) if ae is not None and se is not None else "-",
            us(ab),
            us(sb),
            us(ab - sb) if ab is not None and sb is not None else "-",
            us(metric(c, peer, "cpu_wait_s")),
        ]

    head = [
        "backend",
        "client",
        "`await execute`",
        "sync `execute`",
        "overhead",
        "`await` execute + fetchone",
        "sync execute + fetchone",
        "overhead",
        "loop thread's wait for a CPU per call",
    ]
    return table(head, peer_rows(cases_of(results, "aio_overhead"), row, len(head)), "llrrrrrrr")


def fairness_table(results: dict) -> str:
    def row(c: dict, peer: str) -> list[str]:
        hogged, alone = metric(c, peer, "hog_rows_per_s"), metric(c, peer, "hog_alone_rows_per_s")
        return [
            peer,
            fmt_s(metric(c, peer, "latency_p50_s")),
            fmt_s(metric(c, peer, "latency_p99_s")),
            fmt_s(metric(c, peer, "latency_max_s")),
            fmt_s(metric(c, peer, "latency_max_s_worst")),
            fmt_s(metric(c, peer, "own_latency_p99_s")),
            f"{metric(c, peer, 'samples'):,.0f}",
            fmt_s(metric(c, peer, "idle_latency_p50_s")),
            fmt_s(metric(c, peer, "idle_latency_p99_s")),
            f"{hogged:,.0f}" if hogged else "-",
            f"{alone:,.0f}" if alone else "-",
        ]

    head = [
        "backend",
        "client",
        "p50 with the hog",
        "p99",
        "max",
        "worst rep's max",
        "p99, less CPU wait",
        "calls",
        "p50 without",
        "p99 without",
        "hog's rows/s",
        "hog's rows/s alone",
    ]
    return table(head, peer_rows(cases_of(results, "fairness"), row, len(head)), "llrrrrrrrrrr")


def load_line(results: dict, op: str) -> list[str]:
    """The host's load average (1 min) at the start and the end of each case of ``op``."""
    cells = [
        f"{c['backend']} {c['loadavg'][0]:.1f} → {c['loadavg'][1]:.1f}"
        for c in cases_of(results, op)
        if c.get("loadavg")
    ]
    return ["", "Load average (1 min) at the start → end of each case: " + ", ".join(cells) + "."] if cells else []


# ---------------------------------------------------------------------------------------------
# Targets


def targets(results: dict) -> list[tuple[str, str, str]]:
    """(target, measured figure, verdict) for issue 20's measured targets."""
    out = []
    figs, statuses, labels = [], [], []
    for c in cases_of(results, "pool"):
        x = speedup(c, POOLED, COLD)
        b = c["backend"][:2]
        judged = c["backend"] in POOL_JUDGED
        if x is None:
            figs.append(f"{b} -")
            if judged:
                statuses.append(status(False if med(c, POOLED) is None else None, True))
                labels.append(b)
            continue
        extra = [
            f"{fmt_x(y)} {name}"
            for name, y in (
                ("in autocommit", speedup(c, POOLED_AUTOCOMMIT, COLD)),
                ("psycopg_pool", speedup(c, "psycopg_pool ConnectionPool", "psycopg connect")),
            )
            if y
        ]
        # A pool costing nothing: the same transaction (SELECT 1, then COMMIT) on a connection
        # kept open, at its fastest repetition (the most generous bound: "out of reach" only
        # where even that is below the bar; a median moved with the host's state within one
        # case). Runs before that peer existed: SELECT 1 alone.
        floor = OPEN_COMMIT if med(c, OPEN_COMMIT) else OPEN
        fastest = (c["results"].get(floor) or {}).get("min_s")
        bound = med(c, COLD) / fastest if fastest and med(c, COLD) else None
        if bound:
            extra.append(f"bound {fmt_x(bound)}")
        if med(c, floor):
            extra.append(f"pool / floor {fmt_x(med(c, POOLED) / med(c, floor))}")
        more = f" ({', '.join(extra)})" if extra else ""
        figs.append(f"{b} {fmt_x(x)}: {us(med(c, COLD))} / {us(med(c, POOLED))}{more}{'' if judged else ', shown'}")
        if judged:
            statuses.append(status(x >= POOL_BAR, bound is None or bound >= POOL_BAR))
            labels.append(b)
    if figs:
        out.append(
            (
                f"Pool checkout + `SELECT 1` + return ≥ {POOL_BAR:.0f}x faster than a cold connect + `SELECT 1` +"
                " close (PostgreSQL, MariaDB; the background write-up's pool speedup; autocommit off, the"
                " default; bound: cold connect / `SELECT 1` + COMMIT on a connection kept open at its fastest"
                " repetition, a pool costing nothing; its floor: that transaction's median)",
                "; ".join(figs),
                verdict_of(statuses, labels, "a cold connect costs less than 72 times the transaction without a pool"),
            )
        )
    figs, oks = [], []
    for c in cases_of(results, "aio_concurrency"):
        a, t = per_s(c, TASKS), per_s(c, THREADS)
        b = c["backend"][:2]
        if a is None or t is None:
            figs.append(f"{b} -")
            oks.append(False if med(c, TASKS) is None else None)
            continue
        p = mann_whitney_p(rep_seconds(c, TASKS), rep_seconds(c, THREADS))
        ok = a >= ASYNC_POOL_BAR * t or (p is not None and p >= PARITY_P)
        par = f", parity p = {p:.2f}" if a < ASYNC_POOL_BAR * t and ok else ""
        figs.append(f"{b} {a:,.0f} vs {t:,.0f} queries/s = {fmt_x(a / t)}{par}")
        oks.append(ok)
    if figs:
        out.append(
            (
                f"100 tasks x `SELECT 1` on an `AsyncConnectionPool` of 8: throughput ≥ {ASYNC_POOL_BAR}x 100 threads"
                " on a `ConnectionPool` of 8 (issue 33; issue 20 asked parity; a lower median the repetitions cannot"
                " tell apart from the threads', Mann-Whitney p ≥ 0.05, is parity)",
                "; ".join(figs),
                verdict_of([status(ok, True) for ok in oks]),
            )
        )
    rows = [c.get("expected_rows") or 0 for c in cases_of(results, "aio_lag")]
    long = f"{max(rows):,}-row" if rows and max(rows) else "long"
    for key, target in (
        (
            "lag_max_s",
            f"Event loop lag < {LAG_BAR * 1e3:.0f} ms (max delay of a 1 ms ticker) while a {long} result is fetched"
            " (`await fetchall`, `async for`; median of the repetitions' maxima)",
        ),
        (
            "own_lag_max_s",
            "... each delay less the loop thread's wait for a CPU (schedstat run_delay: the shared 2-core host's"
            " share); what remains is the process holding the loop (the GIL, a garbage collection)",
        ),
    ):
        figs, oks = [], []
        for c in cases_of(results, "aio_lag"):
            for peer in LAG_JUDGED:
                v = metric(c, peer, key)
                short = peer.removeprefix("fastodbc ")
                if v is None:
                    figs.append(f"{c['backend'][:2]} {short} -")
                    oks.append(False if med(c, peer) is None else None)
                    continue
                figs.append(f"{c['backend'][:2]} {short} {ms(v)}")
                oks.append(v < LAG_BAR)
        if figs:
            out.append((target, "; ".join(figs), verdict_of([status(ok, True) for ok in oks])))
    figs, statuses = [], []
    for c in cases_of(results, "fairness"):
        b, judged = c["backend"][:2], c["backend"] in FAIRNESS_JUDGED
        p99 = metric(c, FAIR, "latency_p99_s")
        if p99 is None:
            figs.append(f"{b} -")
            if judged:
                statuses.append(status(False if med(c, FAIR) is None else None, True))
            continue
        beside = [
            f"{name} {fmt_s(v)}"
            for name, v in (
                ("no hog", metric(c, FAIR, "idle_latency_p99_s")),
                (FAIR_REFERENCE, metric(c, FAIR_REFERENCE, "latency_p99_s")),
            )
            if v is not None
        ]
        more = f" ({', '.join(beside)})" if beside else ""
        figs.append(f"{b} {fmt_s(p99)}{more}{'' if judged else ', shown'}")
        if judged:
            statuses.append(status(p99 < FAIRNESS_BAR, True))
    if figs:
        rows = [c.get("expected_rows") or 0 for c in cases_of(results, "fairness")]
        long = f"{max(rows):,}-row" if rows and max(rows) else "long"
        out.append(
            (
                f"Fairness (issue 33): while one thread iterates a {long} result (`for row in cur`), another"
                f" thread's `SELECT 1` + `fetchone` < {FAIRNESS_BAR * 1e3:.0f} ms at p99 (fastodbc, median of the"
                " repetitions' p99; judged on MariaDB and PostgreSQL, SQLite shown; beside it the p99 with no"
                " hog and pyodbc's with the hog)",
                "; ".join(figs),
                verdict_of(statuses),
            )
        )
    figs = []
    for c in cases_of(results, "aio_overhead"):
        for peer in c["peers"]:
            ab, sb = metric(c, peer, "async_both_s"), metric(c, peer, "sync_both_s")
            if ab is not None and sb is not None:
                figs.append(f"{c['backend'][:2]} {peer} +{us(ab - sb)} ({us(ab)} vs {us(sb)})")
    if figs:
        out.append(
            (
                'Overhead of `await cur.execute("SELECT 1")` + `await cur.fetchone()` over the sync calls on the'
                " same connection",
                "; ".join(figs),
                "measured (issue 20 sets no bar)",
            )
        )
    figs, oks = [], []
    for c in cases_of(results, "aio_overhead"):
        ours, theirs = await_cost(c, "fastodbc"), await_cost(c, "psycopg")
        if theirs is None:
            continue  # a backend without psycopg: nothing to judge against
        b = c["backend"][:2]
        if ours is None:
            figs.append(f"{b} -")
            oks.append(False)
            continue
        more = f"{'+' if ours >= theirs else '-'}{us(abs(ours - theirs))}"
        figs.append(f"{b} fastodbc +{us(ours)}, psycopg +{us(theirs)}: {more}")
        oks.append(ours - theirs <= AWAIT_OVER_PSYCOPG_BAR)
    if figs:
        out.append(
            (
                f'`await cur.execute("SELECT 1")` costs at most {AWAIT_OVER_PSYCOPG_BAR * 1e6:.0f} µs more over'
                " the sync call than psycopg's `AsyncConnection` over its own (issue 33; on an open connection,"
                " the pool's part being the pool case's)",
                "; ".join(figs),
                verdict_of([status(ok, True) for ok in oks]),
            )
        )
    return out


def await_cost(c: dict, peer: str) -> float | None:
    """``await execute`` less the sync ``execute``, per call, for ``peer`` in an aio_overhead case."""
    a, s = metric(c, peer, "async_exec_s"), metric(c, peer, "sync_exec_s")
    return None if a is None or s is None else a - s


def section(results: dict) -> list[str]:
    """The section's markdown lines; none for a run without the pool and asyncio cases."""
    if not has_pool(results):
        return []
    return [
        "#### Connection pool and asyncio (issue 20): targets",
        "",
        table(["target", "measured (this run)", "verdict"], [list(t) for t in targets(results)], "lll"),
        "",
        "#### Pool checkout + `SELECT 1` + return against a cold connect + `SELECT 1` + close (per operation,"
        " median; autocommit off: the pools end the transaction, the close drops it)",
        "",
        pool_table(results),
        *load_line(results, "pool"),
        "",
        "#### 100 concurrent tasks on an `AsyncConnectionPool` of 8 against 100 threads on a `ConnectionPool` of"
        " 8, and sequentially (each query a checkout, `SELECT 1`, `fetchone`, return)",
        "",
        concurrency_table(results),
        *load_line(results, "aio_concurrency"),
        "",
        "#### Event loop lag while a long result is fetched (a 1 ms ticker task; medians of each repetition's"
        ' figures; "less CPU wait": each delay less the loop thread\'s run-queue wait in it)',
        "",
        lag_table(results),
        *load_line(results, "aio_lag"),
        "",
        '#### Cost of an `await` per call: `await cur.execute("SELECT 1")` (+ `fetchone`) against the same sync'
        " calls on the same connection, interleaved in blocks of 50 (per call, median)",
        "",
        overhead_table(results),
        *load_line(results, "aio_overhead"),
        "",
        "#### Fairness: another thread's `SELECT 1` + `fetchone` (a new cursor a call, on a connection of its"
        " own) while one thread iterates a long result with `for row in cur` (the hog), and with no hog (latency"
        " per call; medians of each repetition's figures; \"less CPU wait\": each call less the calling thread's"
        " run-queue wait in it)",
        "",
        fairness_table(results),
        *load_line(results, "fairness"),
        "",
    ]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", nargs="?", type=Path, help="default: bench/results/latest.json")
    args = ap.parse_args()
    print("\n".join(section(read_results(args.results))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
