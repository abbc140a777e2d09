"""The bulk load and export section of the report (issue 19): ``cursor.ingest`` against fastodbc's
own executemany, arrow-odbc and each backend's fastest client; ``ingest_parquet``'s peak memory
by file size; ``fastodbc export`` against ``odbc2parquet query``; and their targets.

    python bench/report_bulk.py [RESULTS.json]   # this section alone, from any run

The cases are bench/bulk.py's. Speedups are the peer's time / fastodbc's (above 1: fastodbc is
faster). Every measurement was checked after its clock (bench/bulk_check.py): a repetition
whose loaded table or exported file differed is an error, not a time.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import backend_profiles as profiles  # noqa: E402
import report_base  # noqa: E402
from report_base import fmt_s, fmt_x, med, peer_rows, read_results, status, table, verdict_of  # noqa: E402

INGEST = "fastodbc ingest"
EXECUTEMANY = "fastodbc executemany"
ARROW_ODBC = "arrow-odbc insert_into_table"
PARQUET = "fastodbc ingest_parquet"
EXPORT = "fastodbc export"
ODBC2PARQUET = "odbc2parquet"
#: Flat peak memory, as for fetchmany and fetch_record_batch: ≤ 1.25x + 5 MB.
FLAT_X, FLAT_MB = 1.25, 5.0
PG_ROWS_PER_S = 150_000
PG_VS_ARROW_ODBC = 5.0
SQLITE_VS_EXECUTEMANY = 1.3
MARIADB_VS_PYODBC = 10.0


def cases_of(results: dict, op: str) -> list[dict]:
    return report_base.cases_of(results, op, lambda c: (c.get("expected_rows") or 0,))


def has_bulk(results: dict) -> bool:
    return any(c["op"] in ("ingest", "ingest_parquet", "export") for c in results.get("cases", []))


def result(c: dict | None, peer: str) -> dict:
    return ((c or {}).get("results") or {}).get(peer) or {}


def rows_per_s(c: dict | None, peer: str) -> float | None:
    r = result(c, peer)
    t = med(c, peer)
    return r["rows"] / t if t and r.get("rows") else None


def speedup(c: dict | None, peer: str, of: str) -> float | None:
    """peer's time / ``of``'s."""
    a, b = med(c, of), med(c, peer)
    return b / a if a and b else None


def failed(c: dict | None, peer: str) -> bool:
    return bool(c) and peer in c["results"] and med(c, peer) is None


def mb(x: float | None) -> str:
    return "-" if x is None else f"{x:.1f}"


def peak_mb(c: dict | None, peer: str) -> float | None:
    r = result(c, peer)
    return r.get("maxrss_mb") if "median_s" in r else None


def delta_mb(c: dict | None, peer: str) -> float | None:
    r = result(c, peer)
    return r.get("rss_delta_mb") if "median_s" in r else None


def check_cell(c: dict | None, peer: str) -> str:
    """What the check after the clock found (bench/bulk_check.py)."""
    wrong = result(c, peer).get("wrong")
    return f"**differs**: {wrong}" if wrong else "same values"


def wrong(c: dict | None, peer: str) -> bool:
    return bool(result(c, peer).get("wrong"))


def first_rep(c: dict | None, peer: str, key: str) -> object:
    for r in result(c, peer).get("reps", []):
        if r.get(key) is not None:
            return r[key]
    return None


# ---------------------------------------------------------------------------------------------
# Tables


def no_time(c: dict, peer: str) -> list[str]:
    return [peer, "-", "error"]


def ingest_table(results: dict) -> str:
    def row(c: dict, peer: str) -> list[str]:
        r = result(c, peer)
        return [
            peer,
            f"{r['rows']:,}",
            fmt_s(r["median_s"]),
            f"{rows_per_s(c, peer):,.0f}",
            "-" if peer == INGEST else fmt_x(speedup(c, peer, INGEST)),
            mb(delta_mb(c, peer)),
            check_cell(c, peer),
        ]

    head = ["backend", "client", "rows", "time", "rows/s", "ingest's speedup over it", "ΔRSS MB", "table read back"]
    return table(head, peer_rows(cases_of(results, "ingest"), row, len(head), error=no_time), "llrrrrrl")


def parquet_table(results: dict) -> str:
    def row(c: dict, peer: str) -> list[str]:
        r = result(c, peer)
        return [
            f"{r['rows']:,}",
            fmt_s(r["median_s"]),
            f"{rows_per_s(c, peer):,.0f}",
            mb(delta_mb(c, peer)),
            mb(peak_mb(c, peer)),
            check_cell(c, peer),
        ]

    def no_load(c: dict, peer: str) -> list[str]:
        return [f"{c['expected_rows']:,}", "error"]

    head = ["backend", "Parquet rows", "time", "rows/s", "ΔRSS MB", "peak RSS MB (process)", "table read back"]
    loads = peer_rows(cases_of(results, "ingest_parquet"), row, len(head), peers=lambda c: (PARQUET,), error=no_load)
    return table(head, loads, "lrrrrrl")


def export_table(results: dict) -> str:
    def row(c: dict, peer: str) -> list[str]:
        r, size = result(c, peer), first_rep(c, peer, "file_bytes")
        return [
            peer,
            f"{r['rows']:,}",
            fmt_s(r["median_s"]),
            f"{rows_per_s(c, peer):,.0f}",
            mb(peak_mb(c, peer)),
            mb(size / 2**20 if isinstance(size, int) else None),
            "-" if peer == EXPORT else fmt_x(speedup(c, peer, EXPORT)),
            check_cell(c, peer),
        ]

    head = [
        "backend",
        "command",
        "rows",
        "wall time",
        "rows/s",
        "peak RSS MB",
        "file MB",
        "fastodbc's speedup",
        "file vs the generator's rows",
    ]
    return table(head, peer_rows(cases_of(results, "export"), row, len(head), error=no_time), "llrrrrrrl")


def export_types(results: dict) -> list[str]:
    """The Arrow schema each exporter wrote (first repetition), per backend."""
    out = []
    for c in cases_of(results, "export"):
        for peer in c["peers"]:
            schema = first_rep(c, peer, "schema")
            if schema:
                out.append(f"- {c['backend']} / {peer}: `{schema}`")
    return out


# ---------------------------------------------------------------------------------------------
# Targets


def ingest_case(results: dict, backend: str) -> dict | None:
    return next((c for c in cases_of(results, "ingest") if c["backend"] == backend), None)


def judged(c: dict | None, ok: bool | None, peer: str = INGEST) -> bool | None:
    """A verdict where fastodbc failed or loaded wrong values: not met (a failure is no time, a
    wrong load no result)."""
    return False if failed(c, peer) or wrong(c, peer) else ok


def wrong_note(c: dict) -> str:
    """The peers of a case whose loads differed from their input (their times still count)."""
    peers = [p for p in c["peers"] if wrong(c, p)]
    return f"; differs from its input: {', '.join(peers)}" if peers else ""


def targets(results: dict) -> list[tuple[str, str, str]]:
    """(target, measured figure, verdict) for every performance target of issue 19."""
    out = []
    c = ingest_case(results, "postgresql")
    if c:
        rps, x = rows_per_s(c, INGEST), speedup(c, ARROW_ODBC, INGEST)
        fig = f"{rps:,.0f} rows/s, {fmt_x(x)} arrow-odbc" if rps else "fastodbc ingest has no time"
        for peer in ("psycopg COPY text", "psycopg COPY binary"):
            if rows_per_s(c, peer):
                fig += f"; {peer} {rows_per_s(c, peer):,.0f} rows/s"
        ok = None if rps is None or x is None else rps >= PG_ROWS_PER_S and x >= PG_VS_ARROW_ODBC
        out.append(
            (
                f"PostgreSQL: `ingest` ≥ {PG_ROWS_PER_S // 1000}K rows/s and ≥ {PG_VS_ARROW_ODBC:.0f}x arrow-odbc",
                fig + wrong_note(c),
                verdict_of([status(judged(c, ok), True)]),
            )
        )
    c = ingest_case(results, "sqlite")
    if c:
        x, y = speedup(c, EXECUTEMANY, INGEST), speedup(c, "sqlite3 executemany", INGEST)
        ok = None if x is None or y is None else x >= SQLITE_VS_EXECUTEMANY and y > 1
        out.append(
            (
                f"SQLite: `ingest` ≥ {SQLITE_VS_EXECUTEMANY}x fastodbc's own executemany and faster than"
                " sqlite3's executemany",
                f"{fmt_x(x)} executemany, {fmt_x(y)} sqlite3" + wrong_note(c),
                verdict_of([status(judged(c, ok), True)]),
            )
        )
    c = ingest_case(results, "mariadb")
    if c:
        x = speedup(c, "pyodbc fast_executemany", INGEST)
        extra = speedup(c, "PyMySQL executemany", INGEST)
        ok = None if x is None else x >= MARIADB_VS_PYODBC
        out.append(
            (
                f"MariaDB: `ingest` ≥ {MARIADB_VS_PYODBC:.0f}x pyodbc `fast_executemany`",
                f"{fmt_x(x)} pyodbc fast_executemany" + (f" ({fmt_x(extra)} PyMySQL)" if extra else "") + wrong_note(c),
                verdict_of([status(judged(c, ok), True)]),
            )
        )
    figs, oks = [], []
    for backend in profiles.NAMES:
        pair = [c for c in cases_of(results, "ingest_parquet") if c["backend"] == backend]
        if len(pair) < 2:
            continue
        small, big = pair[0], pair[-1]
        a, b = delta_mb(small, PARQUET), delta_mb(big, PARQUET)
        if a is None or b is None:
            oks.append(False if failed(small, PARQUET) or failed(big, PARQUET) else None)
            figs.append(f"{backend[:2]} fails" if oks[-1] is False else f"{backend[:2]} -")
            continue
        figs.append(
            f"{backend[:2]} {a:.0f} MB at {small['expected_rows']:,} rows, {b:.0f} MB at {big['expected_rows']:,}"
        )
        oks.append(judged(small, judged(big, b <= a * FLAT_X + FLAT_MB, PARQUET), PARQUET))
    if oks:
        out.append(
            (
                f"`ingest_parquet` peak memory flat in file size (ΔRSS; flat = ≤ {FLAT_X}x + {FLAT_MB:.0f} MB)",
                "; ".join(figs),
                verdict_of([status(ok, True) for ok in oks]),
            )
        )
    figs, oks = [], []
    for c in cases_of(results, "export"):
        b = c["backend"][:2]
        if failed(c, EXPORT) or failed(c, ODBC2PARQUET):
            who = EXPORT if failed(c, EXPORT) else ODBC2PARQUET
            figs.append(f"{b} {who} fails: {result(c, who).get('error')}")
            oks.append(False if who == EXPORT else None)
            continue
        x = speedup(c, ODBC2PARQUET, EXPORT)
        m, n = peak_mb(c, EXPORT), peak_mb(c, ODBC2PARQUET)
        if x is None or m is None or n is None:
            oks.append(None)
            continue
        figs.append(
            f"{b} {fmt_x(x)}, peak {m:.0f} / {n:.0f} MB" + (", fastodbc's file differs" if wrong(c, EXPORT) else "")
        )
        oks.append(judged(c, x > 1 and m <= n, EXPORT))
    if figs:
        out.append(
            (
                "`fastodbc export` of `mixed` to Parquet faster than `odbc2parquet query`, with no more peak"
                " memory (whole processes), same rows and values (both files checked against the generator's rows)",
                "; ".join(figs),
                verdict_of([status(ok, True) for ok in oks]),
            )
        )
    return out


def section(results: dict) -> list[str]:
    """The section's markdown lines; none for a run without the bulk cases."""
    if not has_bulk(results):
        return []
    lines = [
        "#### Bulk load and export (issue 19): targets",
        "",
        table(["target", "measured (this run)", "verdict"], [list(t) for t in targets(results)], "lll"),
        "",
        "#### `cursor.ingest` of a pyarrow Table of `mixed` rows into an empty table, one transaction (median;"
        " the Python-row clients get their rows built before the clock; every load read back and compared)",
        "",
        ingest_table(results),
        "",
        "#### `cursor.ingest_parquet`: peak memory by Parquet file size (row groups of 100,000 rows)",
        "",
        parquet_table(results),
        "",
        "#### Export of `mixed` to Parquet (zstd), each command a child process timed whole (startup and"
        " imports included); peak RSS by GNU time",
        "",
        export_table(results),
        "",
    ]
    types = export_types(results)
    if types:
        lines += ["Arrow types written (the check casts each to the reference's type, safely):", "", *types, ""]
    return lines


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", nargs="?", type=Path, help="default: bench/results/latest.json")
    args = ap.parse_args()
    print("\n".join(section(read_results(args.results))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
