"""bench/report_bulk.py: the verdicts of issue 19's bulk load and export targets on runs made up
case by case (a peer of None failed; ``wrong``: its check found a difference), and how
bench/report.py includes the section."""

from __future__ import annotations

from bench_modules import load

report = load("report")
bulk = report.report_bulk


def peer(seconds: float | None, rows: int = 100_000, rss: float = 10.0, peak: float = 50.0, **kw: object) -> dict:
    if seconds is None:
        return {"reps": [{"error": "boom"}], "n_ok": 0, "error": "boom"}
    return {
        "median_s": seconds,
        "rows": rows,
        "rss_delta_mb": rss,
        "maxrss_mb": peak,
        "error": None,
        "n_ok": 1,
        "reps": [dict(kw)],
        **({"wrong": kw["wrong"]} if kw.get("wrong") else {}),
    }


def case(op: str, backend: str, peers: dict[str, dict], rows: int = 100_000) -> dict:
    return {
        "backend": backend,
        "dataset": "mixed",
        "op": op,
        "variant": "",
        "expected_rows": rows,
        "peers": list(peers),
        "results": peers,
    }


def ingest(backend: str, **times: float | None) -> dict:
    t = {"fastodbc ingest": 0.5, "fastodbc executemany": 1.0, "arrow-odbc insert_into_table": 4.0}
    t.update(
        {
            "sqlite": {"sqlite3 executemany": 0.8},
            "postgresql": {"psycopg COPY text": 0.7},
            "mariadb": {"pyodbc fast_executemany": 10.0, "PyMySQL executemany": 2.0},
        }[backend]
    )
    t.update({k.replace("_", " "): v for k, v in times.items()})
    return case("ingest", backend, {k: peer(v) for k, v in t.items()})


def target(results: dict, start: str) -> tuple[str, str]:
    (row,) = [(t[1], t[2]) for t in bulk.targets(results) if t[0].startswith(start)]
    return row


def test_ingest_targets_met_and_not_met() -> None:
    run = {"cases": [ingest("postgresql"), ingest("sqlite"), ingest("mariadb")]}
    assert target(run, "PostgreSQL") == (
        "200,000 rows/s, 8.00x arrow-odbc; psycopg COPY text 142,857 rows/s",
        "met",
    )
    assert target(run, "SQLite") == ("2.00x executemany, 1.60x sqlite3", "met")
    assert target(run, "MariaDB") == ("20.00x pyodbc fast_executemany (4.00x PyMySQL)", "met")
    # 0.8 s: 125K rows/s, below 150K though 5x arrow-odbc.
    slow = {"cases": [ingest("postgresql", fastodbc_ingest=0.8), ingest("sqlite", fastodbc_ingest=0.9)]}
    assert target(slow, "PostgreSQL")[1] == "not met"
    assert target(slow, "SQLite") == ("1.11x executemany, 0.89x sqlite3", "not met")


def test_a_failed_or_wrong_load_by_fastodbc_is_not_met_and_a_wrong_peer_is_named() -> None:
    failed = {"cases": [ingest("mariadb", fastodbc_ingest=None)]}
    assert target(failed, "MariaDB") == ("- pyodbc fast_executemany", "not met")
    c = ingest("mariadb")
    c["results"]["fastodbc ingest"] = peer(0.5, wrong="row 1 column ts: ...")
    c["results"]["pyodbc fast_executemany"] = peer(10.0, wrong="row 0 column ts: ...")
    figure, verdict = target({"cases": [c]}, "MariaDB")
    assert verdict == "not met"
    assert figure.endswith("; differs from its input: fastodbc ingest, pyodbc fast_executemany")
    assert "**differs**: row 0 column ts: ..." in bulk.ingest_table({"cases": [c]})


def parquet(backend: str, rows: int, rss: float | None) -> dict:
    return case(
        "ingest_parquet", backend, {"fastodbc ingest_parquet": peer(1.0 if rss else None, rows, rss or 0)}, rows
    )


def test_parquet_memory_flat_in_file_size() -> None:
    run = {"cases": [parquet("sqlite", 1_000_000, 30), parquet("sqlite", 100_000, 25)]}
    assert target(run, "`ingest_parquet`") == ("sq 25 MB at 100,000 rows, 30 MB at 1,000,000", "met")
    run = {"cases": [parquet("sqlite", 100_000, 25), parquet("sqlite", 1_000_000, 80)]}
    assert target(run, "`ingest_parquet`")[1] == "not met"
    run = {"cases": [parquet("postgresql", 100_000, 25), parquet("postgresql", 1_000_000, None)]}
    assert target(run, "`ingest_parquet`") == ("po fails", "not met")


def export(backend: str, fast: dict, other: dict) -> dict:
    return case("export", backend, {"fastodbc export": fast, "odbc2parquet": other}, 400_000)


def test_export_faster_with_no_more_memory() -> None:
    run = {"cases": [export("sqlite", peer(1.0, 400_000, peak=120), peer(1.5, 400_000, peak=150))]}
    assert target(run, "`fastodbc export`") == ("sq 1.50x, peak 120 / 150 MB", "met")
    run = {"cases": [export("postgresql", peer(1.0, 400_000, peak=160), peer(1.5, 400_000, peak=150))]}
    assert target(run, "`fastodbc export`")[1] == "not met"
    run = {"cases": [export("sqlite", peer(1.0, 400_000, wrong="column dbl"), peer(1.5, 400_000, peak=150))]}
    assert target(run, "`fastodbc export`") == ("sq 1.50x, peak 50 / 150 MB, fastodbc's file differs", "not met")
    run = {"cases": [export("sqlite", peer(1.0, 400_000), peer(None))]}
    assert target(run, "`fastodbc export`") == ("sq odbc2parquet fails: boom", "not measured")


def test_the_section_is_in_the_report_only_with_bulk_cases() -> None:
    assert bulk.section({"cases": []}) == []
    c = export("sqlite", peer(1.0, 400_000, schema="id: int32", file_bytes=2**20), peer(1.5, 400_000))
    lines = bulk.section({"cases": [c, ingest("sqlite")]})
    text = "\n".join(lines)
    assert "#### Bulk load and export (issue 19): targets" in text
    assert "- sqlite / fastodbc export: `id: int32`" in text and "| 1.0 |" in text
