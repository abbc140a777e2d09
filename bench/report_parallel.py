"""The partitioned read section of the report: ``plan.read()``'s CPU per row (client and server)
against one connection's, its wall-time speedup, the peers with the same partitions
(ConnectorX, Dask's ``read_sql_table``, ``fastodbc.dask.read_sql``), ``fastodbc.dask.to_sql``
against one ``ingest``; and the targets.

    python bench/report_parallel.py [RESULTS.json]   # this section alone, from any run

The cases are bench/partitioning.py's, measured by bench/worker_parallel.py. Figures are medians over
the repetitions (each a fresh process); ratios are of medians of the same case.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import backend_profiles as profiles  # noqa: E402
import partitioning  # noqa: E402
import report_base  # noqa: E402
from partitioning import CONNECTORX, FASTODBC_DASK, INGEST, ONE, PARTITIONS, PEER_PARTITIONS, TO_SQL, plan_label  # noqa: E402
from report_base import error_cell, fmt_s, fmt_x, med, metric, peer_rows, read_results, status, table, verdict_of  # noqa: E402

#: A failed peer's cell in the tables.
ERROR = error_cell(100)
#: Where the issue's targets are judged: the servers (SQLite is shown: its "server" is in the client).
JUDGED = profiles.SERVERS
#: CPU per row of an N-partition read / one connection's, N = 2, 4, 8.
CPU_BAR = 1.1
CPU_JUDGED = (2, 4, 8)
#: One connection's time / the 4-partition read's (2 cores shared by client and server).
WALL_BAR = 1.4
#: Dask over SQLAlchemy + pyodbc's time / fastodbc's (MariaDB: the one pyodbc dialect here).
DASK_BAR = 3.0


def cases_of(results: dict, op: str) -> list[dict]:
    return report_base.cases_of(results, op, lambda c: (c["dataset"],))


def has_parallel(results: dict) -> bool:
    return any(c["op"] in partitioning.OPS for c in results.get("cases", []))


def over(a: float | None, b: float | None) -> float | None:
    return a / b if a is not None and b else None


def cpu_ratio(c: dict, peer: str, key: str) -> float | None:
    """``peer``'s CPU seconds (``key``) over one connection's: per row, as both read every row."""
    return over(metric(c, peer, key), metric(c, ONE, key))


def end_to_end(c: dict | None, peer: str) -> float | None:
    """plan + read for plan.read() (the plan is made before its clock), else the time."""
    return metric(c, peer, "total_s") or med(c, peer)


def dask_peer(c: dict) -> str | None:
    return next((p for p in c["peers"] if p.startswith("Dask read_sql_table")), None)


def us_per_row(c: dict, peer: str, key: str) -> str:
    v, rows = metric(c, peer, key), (c["results"].get(peer) or {}).get("rows")
    return "-" if v is None or not rows else f"{v / rows * 1e6:.2f}"


def where(c: dict) -> str:
    return f"{c['backend']} {c['dataset']}"


# ---------------------------------------------------------------------------------------------
# Tables


def efficiency_table(results: dict) -> str:
    def row(c: dict, peer: str) -> list[str]:
        parts = metric(c, peer, "partitions")
        return [
            peer,
            "1" if peer == ONE else f"{parts:g}" if parts is not None else "-",
            fmt_s(med(c, peer)),
            fmt_x(over(med(c, ONE), med(c, peer))),
            fmt_x(over(med(c, ONE), end_to_end(c, peer))),
            us_per_row(c, peer, "client_cpu_s"),
            us_per_row(c, peer, "server_cpu_s"),
            fmt_x(cpu_ratio(c, peer, "client_cpu_s")),
            fmt_x(cpu_ratio(c, peer, "server_cpu_s")),
            fmt_s(metric(c, peer, "plan_s")),
            us_per_row(c, peer, "plan_server_cpu_s"),
        ]

    def reads(c: dict) -> list[str]:
        return [p for p in [ONE] + [plan_label(n) for n in PARTITIONS] if p in c["results"]]

    head = [
        "backend, dataset",
        "read",
        "connections (with the NULL partition)",
        "time",
        "speedup (one connection / this)",
        "speedup with the plan",
        "client CPU µs/row",
        "server CPU µs/row",
        "client CPU / one connection's",
        "server CPU / one connection's",
        "plan time",
        "plan's server CPU µs/row",
    ]
    rows = peer_rows(cases_of(results, "parallel_read"), row, len(head), peers=reads, where=where, error=ERROR)
    return table(head, rows, "llrrrrrrrrrr")


def peers_table(results: dict) -> str:
    plan = plan_label(PEER_PARTITIONS)

    def row(c: dict, peer: str) -> list[str]:
        t = end_to_end(c, peer)
        return [
            peer + (" (plan + read)" if peer == plan else ""),
            fmt_s(t),
            fmt_x(over(t, end_to_end(c, plan))),
            fmt_x(over(t, med(c, FASTODBC_DASK))),
            us_per_row(c, peer, "client_cpu_s"),
            us_per_row(c, peer, "server_cpu_s"),
        ]

    def compared(c: dict) -> list[str]:
        return [p for p in (plan, FASTODBC_DASK, CONNECTORX, dask_peer(c)) if p is not None and p in c["results"]]

    head = [
        "backend, dataset",
        "client",
        "time",
        "time / fastodbc plan + read",
        "time / fastodbc.dask.read_sql",
        "client CPU µs/row",
        "server CPU µs/row",
    ]
    rows = peer_rows(cases_of(results, "parallel_read"), row, len(head), peers=compared, where=where, error=ERROR)
    return table(head, rows, "llrrrrr")


def to_sql_table(results: dict) -> str:
    def row(c: dict, peer: str) -> list[str]:
        return [
            peer,
            fmt_s(med(c, peer)),
            fmt_x(over(med(c, peer), med(c, INGEST))),
            us_per_row(c, peer, "client_cpu_s"),
            us_per_row(c, peer, "server_cpu_s"),
        ]

    head = ["backend", "load", "time", "time / ingest's", "client CPU µs/row", "server CPU µs/row"]
    loads = peer_rows(
        cases_of(results, "parallel_to_sql"), row, len(head), peers=lambda c: (TO_SQL, INGEST), error=ERROR
    )
    return table(head, loads, "llrrrr")


# ---------------------------------------------------------------------------------------------
# Targets


def short(c: dict) -> str:
    return f"{c['backend'][:2]} {c['dataset']}"


def targets(results: dict) -> list[tuple[str, str, str]]:
    out = []
    reads = cases_of(results, "parallel_read")
    figs, statuses = [], []
    for c in reads:
        judged = c["backend"] in JUDGED
        cells, ok = [], True
        for key, name in (("client_cpu_s", "client"), ("server_cpu_s", "server")):
            xs = [cpu_ratio(c, plan_label(n), key) for n in CPU_JUDGED]
            if all(x is None for x in xs):
                continue
            cells.append(f"{name} {'/'.join('-' if x is None else f'{x:.2f}' for x in xs)}")
            ok = ok and all(x is not None and x <= CPU_BAR for x in xs)
        if not cells:
            continue
        figs.append(f"{short(c)} {', '.join(cells)}{'' if judged else ' (shown)'}")
        if judged:
            statuses.append(status(ok, True))
    if figs:
        out.append(
            (
                f"CPU per row of `plan.read()` with N = {', '.join(map(str, CPU_JUDGED))} partitions within"
                f" {CPU_BAR}x of one connection's `fetch_arrow_table()`, client and server (PostgreSQL, MariaDB;"
                " figures: N = 2/4/8)",
                "; ".join(figs),
                verdict_of(statuses),
            )
        )
    figs, statuses = [], []
    for c in reads:
        peer = plan_label(PEER_PARTITIONS)
        x = over(med(c, ONE), med(c, peer))
        judged = c["backend"] in JUDGED
        if x is None:
            continue
        split = (
            f"CPU client {us_per_row(c, peer, 'client_cpu_s')} + server {us_per_row(c, peer, 'server_cpu_s')} µs/row"
        )
        with_plan = fmt_x(over(med(c, ONE), end_to_end(c, peer)))
        figs.append(f"{short(c)} {fmt_x(x)} ({with_plan} with the plan; {split}){'' if judged else ', shown'}")
        if judged:
            statuses.append(status(x >= WALL_BAR, True))
    if figs:
        out.append(
            (
                f"Wall time: {PEER_PARTITIONS}-partition `plan.read()` ≥ {WALL_BAR}x faster than one connection"
                " (2 cores shared by client and server; PostgreSQL, MariaDB)",
                "; ".join(figs),
                verdict_of(statuses),
            )
        )
    figs, statuses = [], []
    for c in reads:
        d = dask_peer(c)
        x = over(med(c, d), med(c, FASTODBC_DASK)) if d else None
        y = over(med(c, d), end_to_end(c, plan_label(PEER_PARTITIONS))) if d else None
        if x is None:
            continue
        pyodbc = "pyodbc" in (d or "")
        figs.append(f"{short(c)} {fmt_x(x)} (plan.read {fmt_x(y)}){'' if pyodbc else ', native driver: shown'}")
        if pyodbc:
            statuses.append(status(x >= DASK_BAR, True))
    if figs:
        out.append(
            (
                f"`fastodbc.dask.read_sql` ≥ {DASK_BAR:g}x faster than Dask's `read_sql_table` over SQLAlchemy +"
                f" pyodbc, {PEER_PARTITIONS} partitions, threaded scheduler (MariaDB: PostgreSQL and SQLite have no"
                " pyodbc dialect, their native one is shown)",
                "; ".join(figs),
                verdict_of(statuses),
            )
        )
    figs = [
        f"{c['backend'][:2]} {fmt_x(over(med(c, TO_SQL), med(c, INGEST)))} of ingest's time"
        for c in cases_of(results, "parallel_to_sql")
        if med(c, TO_SQL) and med(c, INGEST)
    ]
    if figs:
        out.append(
            (
                f"`fastodbc.dask.to_sql` of a {PEER_PARTITIONS}-partition frame against one `cursor.ingest` of the"
                " same rows",
                "; ".join(figs),
                "measured (no bar)",
            )
        )
    return out


def section(results: dict) -> list[str]:
    """The section's markdown lines; none for a run without the partitioned read cases."""
    if not has_parallel(results):
        return []
    lines = [
        "#### Partitioned reads (`fastodbc.partition`, `fastodbc.dask`): targets",
        "",
        table(["target", "measured (this run)", "verdict"], [list(t) for t in targets(results)], "lll"),
        "",
        "#### `plan.read()` against one connection's `fetch_arrow_table()` (connect to close, median; CPU from"
        " /proc: the client process, the server's processes; the plan is made before the clock)",
        "",
        efficiency_table(results),
        "",
        f"#### Peers with {PEER_PARTITIONS} partitions (from the call to the result: plan, extent query, read;"
        " Dask on its threaded scheduler, one thread a partition)",
        "",
        peers_table(results),
        "",
    ]
    if cases_of(results, "parallel_to_sql"):
        lines += [f"#### `fastodbc.dask.to_sql` ({PEER_PARTITIONS} partitions) against one `ingest`", ""]
        lines += [to_sql_table(results), ""]
    return lines


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", nargs="?", type=Path, help="default: bench/results/latest.json")
    print("\n".join(section(read_results(ap.parse_args().results))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
