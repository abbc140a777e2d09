"""The bulk load and export cases of issue 19, built and measured for bench/run.py.

- ``ingest`` (SQLite, PostgreSQL, MariaDB): the insert case's rows of ``mixed`` into an empty
  table, fastodbc's ``cursor.ingest`` from a pyarrow Table against fastodbc's own executemany,
  arrow-odbc and each backend's fastest client (bench/worker_bulk.py).
- ``ingest_parquet`` (every backend): ``cursor.ingest_parquet`` of a Parquet file of those rows at
  two sizes; its peak memory must be the same for both.
- ``export`` (SQLite, PostgreSQL: where the fetch datasets are): ``fastodbc export CONNECTION
  "SELECT * FROM <mixed table>" OUT.parquet`` (the installed command) against ``odbc2parquet
  query``, each a child process timed whole, its peak memory from ``wait4``.

Every measurement is checked after its clock: the loaded table read back and compared with the
input, the exported file with the generator's rows (bench/bulk_check.py). Untimed preparation
(``prepare``): the empty target tables and the Parquet files, written once to bench/data/bulk.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import backend_profiles as profiles
import datasets
import native_clients
from child import run_child

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
BULK_DIR = datasets.DATA_DIR / "bulk"
OPS = ("ingest", "ingest_parquet", "export")
#: Where bench/odbc2parquet.sh installs the export peer.
ODBC2PARQUET = datasets.DATA_DIR / "odbc2parquet" / "bin" / "odbc2parquet"
#: The bulk loads' target table (never a fetch dataset's).
INGEST_TABLE = "ing_mixed"
#: Rows of the two Parquet inputs per scale: peak memory must not grow from one to the other.
#: Both above ingest_parquet's default batch (65,536 rows), so both fill whole batches.
PARQUET_ROWS = {"full": (100_000, 1_000_000), "quick": (100_000, 200_000)}
#: Rows per row group of the Parquet inputs: fixed, as a writer of large files keeps them
#: (pyarrow's default is 1 Mi rows, one group for either file).
PARQUET_ROW_GROUP = 100_000
#: Repetitions (the ingest ratios are judged; export is seconds a peer).
REPS = {"ingest": 5, "export": 5, "ingest_parquet": 3}
#: The compression both exporters write (fastodbc export's default).
COMPRESSION = "zstd"

#: The ingest peers of every backend (worker_bulk.py's names); each backend's own follow
#: (its profile's ingest_peers).
INGEST_PEERS = [
    {"peer": "fastodbc", "how": "ingest", "label": "fastodbc ingest"},
    {"peer": "fastodbc", "how": "executemany", "label": "fastodbc executemany"},
    {"peer": "arrow-odbc", "label": "arrow-odbc insert_into_table"},
]
EXPORT_PEERS = [
    {"peer": "fastodbc-export", "label": "fastodbc export"},
    {"peer": "odbc2parquet", "label": "odbc2parquet"},
]


# ---------------------------------------------------------------------------------------------
# Connections


def ingest_base(backend: str) -> dict[str, Any]:
    """A bulk load case's connection fields: a file database's loads go to the insert file,
    never to the fetch datasets'."""
    return profiles.BY_NAME[backend].connection(datasets.SQLITE_INSERT_PATH)


def create_ingest_table(base: dict[str, Any], table: str = INGEST_TABLE) -> None:
    """(Re)creates the bulk loads' empty target with ``mixed``'s types, through the native client."""
    native_clients.create_table(base, table, datasets.DATASETS["mixed"].columns)


# ---------------------------------------------------------------------------------------------
# Data


def parquet_path(rows: int) -> Path:
    return BULK_DIR / f"ingest_mixed_{rows}_v{datasets.GENERATOR_VERSION}.parquet"


def reference_path(rows: int) -> Path:
    """The generator's rows of the ``mixed`` fetch table of ``rows`` rows, as exported."""
    return BULK_DIR / f"mixed_{rows}_v{datasets.GENERATOR_VERSION}.reference.parquet"


def write_parquet(path: Path, rows: list[tuple]) -> None:
    import pyarrow.parquet as pq

    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    pq.write_table(datasets.mixed_arrow_table(rows), tmp, row_group_size=PARQUET_ROW_GROUP)
    tmp.rename(path)


def write_files(scale: str, log: Callable[[str], None] = print) -> None:
    """The Parquet inputs of the loads and the export reference, those not written yet."""
    for n in sorted({datasets.SCALES[scale]["insert"], *PARQUET_ROWS[scale]}):
        if not parquet_path(n).exists():
            log(f"bulk: writing {parquet_path(n).name}")
            write_parquet(parquet_path(n), datasets.insert_rows(n))
    n = datasets.SCALES[scale]["mixed"]
    if not reference_path(n).exists():
        log(f"bulk: writing {reference_path(n).name}")
        write_parquet(reference_path(n), list(datasets.DATASETS["mixed"].rows(n)))


def prepare(scale: str, backends: list[str], log: Callable[[str], None] = print) -> None:
    """The empty target tables, then the files (written once, kept in bench/data/bulk) by a
    process of their own: the orchestrator stays small (a million generated rows would stay in
    its heap)."""
    for backend in backends:
        create_ingest_table(ingest_base(backend))
    subprocess.run([sys.executable, __file__, "--scale", scale], check=True)


def main() -> None:
    import argparse

    ap = argparse.ArgumentParser(description="write the bulk cases' Parquet files (bench/data/bulk)")
    ap.add_argument("--scale", choices=sorted(PARQUET_ROWS), default="quick")
    write_files(ap.parse_args().scale)


# ---------------------------------------------------------------------------------------------
# Cases


def build_cases(scale: str, backends: list[str]) -> list[dict[str, Any]]:
    rows = datasets.SCALES[scale]
    cases = []

    def case(op: str, dataset: str, peers: list[dict], base: dict, **kw: Any) -> None:
        cases.append(dict(base, op=op, dataset=dataset, peers=peers, variant="", inner=1, sql="", **kw))

    for profile in profiles.named(backends):
        base = ingest_base(profile.name)
        n = rows["insert"]
        peers = [dict(p) for p in INGEST_PEERS + list(profile.ingest_peers)]
        case(
            "ingest", f"mixed_{n}", peers, base, table=INGEST_TABLE, expected_rows=n, parquet_path=str(parquet_path(n))
        )
        for n in PARQUET_ROWS[scale]:
            peer = {"peer": "fastodbc", "label": "fastodbc ingest_parquet"}
            case(
                "ingest_parquet",
                f"parquet_{n}",
                [peer],
                base,
                table=INGEST_TABLE,
                expected_rows=n,
                parquet_path=str(parquet_path(n)),
            )
    # The export reads the mixed fetch table: where the fetch datasets are.
    for profile in (p for p in profiles.named(backends) if p.fetch_cases):
        digits = {"double_tolerance": profile.double_tolerance} if profile.double_tolerance is not None else {}
        cs = profile.connection(datasets.SQLITE_PATH)["cs"]
        table = datasets.table_name("mixed", scale)
        n = rows["mixed"]
        case(
            "export",
            "mixed",
            [dict(p) for p in EXPORT_PEERS],
            {"backend": profile.name, "cs": cs},
            table=table,
            expected_rows=n,
            export_sql=f"SELECT * FROM {table}",
            reference_path=str(reference_path(n)),
            **digits,
        )
    return cases


def export_command(case: dict, p: dict, out: Path) -> list[str]:
    if p["peer"] == "fastodbc-export":
        # The installed command of the venv running the benchmark (PYTHONPATH: bench/run.py's
        # snapshot of the extension, as for every worker).
        return [str(Path(sys.executable).parent / "fastodbc"), "export", case["cs"], case["export_sql"], str(out)]
    return [
        str(ODBC2PARQUET),
        "query",
        "--connection-string",
        case["cs"],
        "--column-compression-default",
        COMPRESSION,
        str(out),
        case["export_sql"],
    ]


def run_export(case: dict, p: dict, run_worker: Callable[[dict, dict], dict], timeout: float) -> dict:
    """One export in a child process, then its file checked (a worker, untimed) and deleted:
    the first difference from the reference is the result's ``wrong``. The file goes to
    ``case["out_dir"]``, else bench/data/bulk."""
    if p["peer"] == "odbc2parquet" and not ODBC2PARQUET.exists():
        return {"error": f"not installed ({ODBC2PARQUET.relative_to(ROOT)} missing: see bench/setup.sh)"}
    out = Path(case.get("out_dir") or BULK_DIR) / f"export-{p['peer']}.parquet"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.unlink(missing_ok=True)
    try:
        child = run_child(export_command(case, p, out), timeout)
        if child.timed_out:
            return {"error": f"timeout after {timeout} s"}
        if child.returncode != 0:
            return {"error": f"exit {child.returncode}: {child.stderr[-300:]}"}
        check = run_worker(dict(case, op="export-check", path=str(out)), {"peer": p["peer"]})
        if check.get("error"):
            return {"error": f"the exported file could not be checked: {check['error']}"}
        return {
            "seconds": child.seconds,
            "rows": check["rows"],
            "rss_before": None,
            "maxrss": child.maxrss,
            "file_bytes": out.stat().st_size,
            "schema": check["schema"],
            "wrong": check["detail"],
        }
    finally:
        out.unlink(missing_ok=True)


if __name__ == "__main__":
    main()
