"""The pool and asyncio cases of issue 20 and the fairness case of issue 33: bench/report_pool.py's
verdicts and tables on runs made up case by case, bench/run.py's summary of the measurements'
figures, the lag ticker's figures (bench/worker_pool.py), and every measurement run once at a tiny
size on SQLite (no server)."""

from __future__ import annotations

from pathlib import Path

import pytest
from bench_modules import load

report = load("report")
pool_report = report.report_pool
run = load("run")
pooling = run.pooling
worker_pool = load("worker_pool")


def peer(seconds: float | None, rows: int = 1, reps: list[float] | None = None, **metrics: float) -> dict:
    if seconds is None:
        return {"reps": [{"error": "boom"}], "n_ok": 0, "error": "boom"}
    times = reps or [seconds]
    return {
        "median_s": seconds,
        "min_s": min(times),
        "rows": rows,
        "error": None,
        "n_ok": len(times),
        "reps": [{"seconds": t, "rows": rows} for t in times],
        "metrics": metrics,
    }


def case(op: str, backend: str, peers: dict[str, dict], rows: int | None = None) -> dict:
    return {
        "backend": backend,
        "dataset": "",
        "op": op,
        "variant": "",
        "expected_rows": rows,
        "peers": list(peers),
        "results": peers,
    }


def pool_case(backend: str, cold: float, pooled: float) -> dict:
    return case(
        "pool",
        backend,
        {
            "fastodbc connect": peer(cold, cpu_s=cold / 2),
            "fastodbc ConnectionPool": peer(pooled, cpu_s=pooled / 2),
            "fastodbc open connection": peer(pooled / 2),
        },
    )


def target(results: dict, start: str) -> tuple[str, str]:
    (row,) = [(t[1], t[2]) for t in pool_report.targets(results) if t[0].startswith(start)]
    return row


def test_pool_speedup_judged_on_postgresql_and_mariadb_only() -> None:
    fast = {"cases": [pool_case("sqlite", 200e-6, 20e-6), pool_case("postgresql", 3.6e-3, 50e-6)]}
    figure, verdict = target(fast, "Pool checkout")
    assert figure == (
        "sq 10.00x: 200.0 µs / 20.0 µs (bound 20.00x, pool / floor 2.00x), shown;"
        " po 72.00x: 3600.0 µs / 50.0 µs (bound 144.00x, pool / floor 2.00x)"
    )
    assert verdict == "met"
    # MariaDB: even a pool costing nothing (the open connection's 50 µs) would be 30x.
    slow = {"cases": [pool_case("postgresql", 3.6e-3, 60e-6), pool_case("mariadb", 1.5e-3, 100e-6)]}
    figure, verdict = target(slow, "Pool checkout")
    assert figure.endswith("ma 15.00x: 1500.0 µs / 100.0 µs (bound 30.00x, pool / floor 2.00x)")
    assert verdict.startswith("not met; out of reach on ma (a cold connect costs less than 72 times the transaction")
    reachable = {"cases": [pool_case("mariadb", 1.5e-3, 100e-6)]}
    reachable["cases"][0]["results"]["fastodbc open connection"] = peer(10e-6)
    assert target(reachable, "Pool checkout")[1] == "not met"
    # The bound takes the open connection's fastest repetition: a slow median is the host's.
    reachable["cases"][0]["results"]["fastodbc open connection"] = peer(60e-6, reps=[60e-6, 70e-6, 20e-6])
    assert target(reachable, "Pool checkout") == (
        "ma 15.00x: 1500.0 µs / 100.0 µs (bound 75.00x, pool / floor 1.67x)",
        "not met",
    )
    # With autocommit off the floor is the query and its COMMIT without a pool, where measured:
    # two round trips bound the pool, not one.
    committed = {"cases": [pool_case("postgresql", 3.6e-3, 60e-6)]}
    committed["cases"][0]["results"]["fastodbc open connection, commit"] = peer(55e-6, reps=[55e-6, 52e-6])
    figure, verdict = target(committed, "Pool checkout")
    assert figure == "po 60.00x: 3600.0 µs / 60.0 µs (bound 69.23x, pool / floor 1.09x)"
    assert verdict.startswith("out of reach on po (a cold connect costs less than 72 times")
    peers = {"fastodbc connect": peer(1e-3), "fastodbc ConnectionPool": peer(None)}
    failed = {"cases": [case("pool", "mariadb", peers)]}
    assert target(failed, "Pool checkout") == ("ma -", "not met")
    text = pool_report.pool_table(slow)
    assert "| mariadb | fastodbc ConnectionPool | 100.0 µs | 10,000 | 15.00x | 50.0 µs |" in text


def concurrency(backend: str, tasks: list[float], threads: list[float]) -> dict:
    med = sorted(tasks)[len(tasks) // 2], sorted(threads)[len(threads) // 2]
    return case(
        "aio_concurrency",
        backend,
        {
            "fastodbc AsyncConnectionPool, tasks": peer(med[0], 3000, tasks, cpu_per_query_s=1e-4),
            "fastodbc ConnectionPool, threads": peer(med[1], 3000, threads, cpu_per_query_s=5e-5),
        },
        3000,
    )


def test_async_throughput_against_threads_with_parity() -> None:
    slower = {"cases": [concurrency("postgresql", [2.0, 2.1, 2.2, 2.3, 2.4], [1.0, 1.1, 1.2, 1.3, 1.4])]}
    figure, verdict = target(slower, "100 tasks")
    assert figure == "po 1,364 vs 2,500 queries/s = 0.55x" and verdict == "not met"
    # 0.9x the threads' throughput is issue 33's bar.
    close = {"cases": [concurrency("sqlite", [1.1, 1.3, 1.42, 1.5, 1.6], [1.0, 1.2, 1.35, 1.4, 1.7])]}
    assert target(close, "100 tasks") == ("sq 2,113 vs 2,222 queries/s = 0.95x", "met")
    # Below it, a median the repetitions cannot tell apart from the threads' is parity.
    mixed = {"cases": [concurrency("sqlite", [1.1, 1.25, 1.6, 1.7, 1.9], [1.0, 1.2, 1.35, 1.4, 1.95])]}
    assert target(mixed, "100 tasks") == ("sq 1,875 vs 2,222 queries/s = 0.84x, parity p = 0.69", "met")
    text = pool_report.concurrency_table(slower)
    assert "| postgresql | fastodbc AsyncConnectionPool, tasks | 3,000 | 2.20 s | 1,364 | 0.55x | 100.0 µs |" in text


def lag(backend: str, fetchall_max: float, own_max: float) -> dict:
    looped = {"lag_p99_s": 0.001, "over_bar": 1, "own_lag_p99_s": 0.0005, "idle_lag_max_s": 0.0004, "ticks": 900}
    return case(
        "aio_lag",
        backend,
        {
            "fastodbc await fetchall": peer(
                1.0,
                1_000_000,
                lag_max_s=fetchall_max,
                lag_max_s_worst=0.03,
                own_lag_max_s=own_max,
                gc_max_s=0.02,
                gc_max_generation=0,
                gc_max_on_loop_thread=1,
                **looped,
            ),
            "fastodbc async for": peer(1.2, 1_000_000, lag_max_s=0.002, own_lag_max_s=0.001, **looped),
            "fastodbc fetchall, no loop": peer(0.8, 1_000_000, cpu_s=0.9),
        },
        1_000_000,
    )


def test_lag_bar_on_the_raw_and_the_process_own_delay() -> None:
    run_ = {"cases": [lag("postgresql", 0.012, 0.004)]}
    assert target(run_, "Event loop lag") == ("po await fetchall 12.0 ms; po async for 2.0 ms", "not met")
    assert target(run_, "... each delay less") == ("po await fetchall 4.0 ms; po async for 1.0 ms", "met")
    assert "1,000,000-row result" in next(t[0] for t in pool_report.targets(run_) if t[0].startswith("Event"))
    text = pool_report.lag_table(run_)
    assert "| postgresql | fastodbc await fetchall | 1,000,000 | 1.00 s | 12.0 ms | 1.0 ms | 1 | 30.0 ms |" in text
    assert "| postgresql | fastodbc fetchall, no loop | 1,000,000 | 800.0 ms | no loop |" in text
    assert "| 0.5 ms | 20.0 ms (gen 0, loop thread) | 0.4 ms |" in text


def test_overhead_is_shown_without_a_bar_and_the_section_only_with_these_cases() -> None:
    c = case(
        "aio_overhead",
        "sqlite",
        {"fastodbc": peer(120e-6, 4000, async_exec_s=60e-6, sync_exec_s=4e-6, async_both_s=120e-6, sync_both_s=5e-6)},
    )
    assert target({"cases": [c]}, "Overhead") == (
        "sq fastodbc +115.0 µs (120.0 µs vs 5.0 µs)",
        "measured (issue 20 sets no bar)",
    )
    assert "| sqlite | fastodbc | 60.0 µs | 4.0 µs | 56.0 µs | 120.0 µs | 5.0 µs | 115.0 µs |" in (
        pool_report.overhead_table({"cases": [c]})
    )
    c["loadavg"] = [1.5, 2.04]
    assert pool_report.section({"cases": []}) == []
    text = "\n".join(pool_report.section({"cases": [c, pool_case("postgresql", 3e-3, 60e-6)]}))
    assert "#### Connection pool and asyncio (issue 20): targets" in text
    assert "Load average (1 min) at the start → end of each case: sqlite 1.5 → 2.0." in text
    assert "error" not in text


def fairness(backend: str, p99: float, pyodbc_p99: float) -> dict:
    def figures(p99: float) -> dict:
        return {
            "latency_p50_s": 50e-6,
            "latency_p99_s": p99,
            "latency_max_s": 2 * p99,
            "latency_max_s_worst": 3 * p99,
            "own_latency_p99_s": p99 / 2,
            "samples": 1500,
            "idle_latency_p50_s": 40e-6,
            "idle_latency_p99_s": 90e-6,
            "hog_rows_per_s": 800_000,
            "hog_alone_rows_per_s": 1_000_000,
        }

    return case(
        "fairness",
        backend,
        {"fastodbc": peer(p99, 1500, **figures(p99)), "pyodbc": peer(pyodbc_p99, 1500, **figures(pyodbc_p99))},
        200_000,
    )


def test_fairness_bar_on_the_servers_with_sqlite_shown() -> None:
    run_ = {"cases": [fairness("sqlite", 0.012, 0.001), fairness("mariadb", 0.002, 0.0003)]}
    figure, verdict = target(run_, "Fairness")
    assert figure == "sq 12.0 ms (no hog 90.0 µs, pyodbc 1.0 ms), shown; ma 2.0 ms (no hog 90.0 µs, pyodbc 300.0 µs)"
    assert verdict == "met"
    assert "200,000-row result" in next(t[0] for t in pool_report.targets(run_) if t[0].startswith("Fairness"))
    slow = {"cases": [fairness("mariadb", 0.006, 0.0003)]}
    assert target(slow, "Fairness") == ("ma 6.0 ms (no hog 90.0 µs, pyodbc 300.0 µs)", "not met")
    failed = {"cases": [case("fairness", "mariadb", {"fastodbc": peer(None), "pyodbc": peer(3e-4)})]}
    assert target(failed, "Fairness") == ("ma -", "not met")
    text = pool_report.fairness_table(run_)
    assert (
        "| mariadb | fastodbc | 50.0 µs | 2.0 ms | 4.0 ms | 6.0 ms | 1.0 ms | 1,500 | 40.0 µs | 90.0 µs | 800,000"
        " | 1,000,000 |"
    ) in text
    assert "#### Fairness: another thread's `SELECT 1`" in "\n".join(pool_report.section(run_))


def test_run_summarises_the_figures_beside_the_time() -> None:
    reps = [
        {"seconds": 1.0, "rows": 10, "metrics": {"lag_max_s": 0.004, "over_bar": 0, "worst": [[1.0, 4.0, 0.1]]}},
        {"seconds": 2.0, "rows": 10, "metrics": {"lag_max_s": 0.020, "over_bar": 2, "worst": []}},
        {"seconds": 3.0, "rows": 10, "metrics": {"lag_max_s": 0.006, "over_bar": 1, "worst": []}},
        {"error": "boom"},
    ]
    for r in reps[:3]:
        r.update(rss_before=1, maxrss=2)
    s = run.summarise({"op": "aio_lag", "expected_rows": 10}, "fastodbc await fetchall", reps)
    assert s["median_s"] == 2.0 and s["error"] == "boom"
    assert s["metrics"] == {"lag_max_s": 0.006, "lag_max_s_worst": 0.020, "over_bar": 1}
    bad = run.summarise({"op": "aio_lag", "expected_rows": 11}, "x", reps[:1])
    assert bad["error"] == "fetched 10 rows, expected 11"
    # The fairness case's largest latency too; its rows are the SELECT 1 calls, not the result's.
    calls = [
        {"seconds": 1e-3, "rows": 900, "rss_before": 1, "maxrss": 2, "metrics": {"latency_max_s": m}}
        for m in (0.004, 0.009, 0.005)
    ]
    s = run.summarise({"op": "fairness", "expected_rows": 200_000}, "fastodbc", calls)
    assert s["metrics"] == {"latency_max_s": 0.005, "latency_max_s_worst": 0.009} and s["error"] is None


def test_lag_figures_split_the_cpu_wait_off() -> None:
    samples = [(0.0001, 0.0)] * 98 + [(0.009, 0.008), (0.006, 0.0)]
    f = worker_pool.lag_figures(samples)
    assert f["ticks"] == 100 and f["over_bar"] == 2
    assert f["lag_max_s"] == 0.009 and f["own_lag_max_s"] == 0.006
    assert f["own_over_bar"] == 1
    assert worker_pool.lag_figures([], "idle_") == {"idle_ticks": 0}


def test_cases_and_selection() -> None:
    cases = pooling.build_cases("quick", ["sqlite"])
    assert [c["op"] for c in cases] == list(pooling.OPS)
    names = [f"{c['backend']} {c['dataset']} {c['op']}" for c in cases]
    # --only pool --only aio --only fairness selects the family and nothing else.
    assert all(any(o in n for o in ("pool", "aio", "fairness")) for n in names)
    assert run.case_reps(cases[0], 3) == pooling.REPS["pool"]
    (fair,) = [c for c in cases if c["op"] == "fairness"]
    assert fair["sql"] == pooling.lag_sql("sqlite", pooling.LAG_ROWS["quick"])
    assert [p["peer"] for p in fair["peers"]] == ["fastodbc", "pyodbc"]
    assert run.case_reps(fair, 3) == pooling.REPS["fairness"]


@pytest.fixture
def sqlite_lag(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict:
    monkeypatch.setattr(pooling, "SQLITE_PATH", tmp_path / "pool.sqlite")
    monkeypatch.setitem(pooling.LAG_ROWS, "quick", 3000)
    pooling.prepare("quick", ["sqlite"], log=lambda _: None)
    return {c["op"]: c for c in pooling.build_cases("quick", ["sqlite"])}


def test_every_measurement_runs_on_sqlite(sqlite_lag: dict) -> None:
    """Each peer once, tiny (the worker's own code, in this process)."""
    small = {"pool": {"inner": 20}, "aio_concurrency": {"tasks": 6, "per_task": 2, "pool_size": 2}}
    small["aio_overhead"] = {"calls": 100}
    for op, c in sqlite_lag.items():
        if op == "fairness":  # a longer result: test_fairness_runs_on_sqlite
            continue
        for p in c["peers"]:
            spec = {k: v for k, v in c.items() if k != "peers"}
            spec.update(p, **small.get(op, {}))
            r = worker_pool.measure(spec)
            assert r["seconds"] > 0, (op, p)
            if op == "aio_lag":
                assert r["rows"] == 3000
                assert ("ticks" in r["metrics"]) == (p["how"] != "sync")
            if op == "aio_concurrency":
                assert r["rows"] == 12
            if op == "aio_overhead":
                assert {"async_both_s", "sync_both_s", "async_exec_s", "sync_exec_s"} <= set(r["metrics"])


#: Rows enough for the hog to outlast a few SELECT 1 calls when each waits 5 ms for the GIL
#: several times (~0.1 s of fastodbc's iteration on a loaded 2-core host).
FAIRNESS_ROWS = 100_000


def test_fairness_runs_on_sqlite(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each peer once, on a short reference loop: the figures are there and consistent (no
    timing target: the host's load decides the latencies)."""
    monkeypatch.setattr(pooling, "SQLITE_PATH", tmp_path / "pool.sqlite")
    monkeypatch.setitem(pooling.LAG_ROWS, "quick", FAIRNESS_ROWS)
    pooling.prepare("quick", ["sqlite"], log=lambda _: None)
    (c,) = [c for c in pooling.build_cases("quick", ["sqlite"]) if c["op"] == "fairness"]
    for p in c["peers"]:
        spec = {k: v for k, v in c.items() if k != "peers"}
        spec.update(p, reference_s=0.05, skip=1)
        r = worker_pool.measure(spec)
        m = r["metrics"]
        assert r["rows"] == m["samples"] > 0 and m["idle_samples"] > 0, p
        for prefix in ("", "idle_"):
            p50, p99, top = (m[f"{prefix}latency_{k}_s"] for k in ("p50", "p99", "max"))
            assert 0 < p50 <= p99 <= top, (p, prefix)
            assert 0 <= m[f"{prefix}own_latency_p99_s"] <= p99
        assert r["seconds"] == m["latency_p99_s"]
        assert m["hog_rows"] == FAIRNESS_ROWS and m["hog_s"] > 0
        assert m["hog_rows_per_s"] > 0 and m["hog_alone_rows_per_s"] > 0


def test_await_cost_is_judged_against_psycopgs_where_psycopg_runs() -> None:
    def overhead(backend: str, ours: float, theirs: float | None) -> dict:
        peers = {"fastodbc": peer(2e-4, 4000, async_exec_s=1e-4 + ours, sync_exec_s=1e-4)}
        if theirs is not None:
            peers["psycopg"] = peer(2e-4, 4000, async_exec_s=9e-5 + theirs, sync_exec_s=9e-5)
        return case("aio_overhead", backend, peers)

    near = {"cases": [overhead("postgresql", 48e-6, 41e-6), overhead("sqlite", 30e-6, None)]}
    assert target(near, "`await cur") == ("po fastodbc +48.0 µs, psycopg +41.0 µs: +7.0 µs", "met")
    far = {"cases": [overhead("postgresql", 160e-6, 51e-6)]}
    assert target(far, "`await cur") == ("po fastodbc +160.0 µs, psycopg +51.0 µs: +109.0 µs", "not met")
    # Without psycopg in the run there is nothing to judge: no row.
    assert not [t for t in pool_report.targets({"cases": [overhead("sqlite", 30e-6, None)]}) if "psycopg" in t[0]]
