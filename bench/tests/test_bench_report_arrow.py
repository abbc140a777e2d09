"""bench/report_arrow.py: the Arrow section's verdicts for the targets of issue 18, on runs made up
case by case (a peer of None failed), and how bench/report.py includes it."""

from __future__ import annotations

from bench_modules import load

report = load("report")
arrow = report.report_arrow


def peer(seconds: float | None, rss: float | None = 10.0, rows: int = 100) -> dict:
    if seconds is None:
        return {"reps": [{"error": "too large"}], "n_ok": 0, "error": "too large"}
    return {"median_s": seconds, "rows": rows, "rss_delta_mb": rss, "error": None, "n_ok": 1, "reps": [{}]}


def case(op: str, dataset: str, peers: dict[str, dict], backend: str = "sqlite", **kw: object) -> dict:
    return {
        "backend": backend,
        "dataset": dataset,
        "op": op,
        "variant": kw.pop("variant", ""),
        "expected_rows": 100,
        "peers": list(peers),
        "results": peers,
        **kw,
    }


def arrow_case(dataset: str = "int10", backend: str = "sqlite", **times: float | None) -> dict:
    t = {"fastodbc arrow": 1.0, "turbodbc-arrow": 1.5, "arrow-odbc": 1.4, "fastodbc fetchall": 1.6}
    t["floor narrow/1024"], t["floor narrow/1"] = 0.95, 1.2
    t.update(
        {k.replace("_", " ").replace("turbodbc ", "turbodbc-").replace("odbc ", "odbc-"): v for k, v in {}.items()}
    )
    t.update(times)
    return case("arrow", dataset, {k: peer(v) for k, v in t.items()}, backend)


def target(results: dict, start: str) -> tuple[str, str]:
    (row,) = [(t[1], t[2]) for t in arrow.targets(results) if t[0].startswith(start)]
    return row


PEERS = "`fetch_arrow_table` ≥ 1.3x faster"
FLOOR = "`fetch_arrow_table` ≤ 1.15x"
OWN = "`fetch_arrow_table` faster than fastodbc"
BLOB = "Arrow fetch works on `blob1`"
DF = "`cursor.fetch_df()`"
STREAM = "`fetch_record_batch`"
MEM = "`fetch_arrow_table` peak memory"


def test_met_when_faster_by_the_margins() -> None:
    run = {"cases": [arrow_case()]}
    figure, verdict = target(run, PEERS)
    assert figure == "sq int10: turbodbc-arrow 1.50x, arrow-odbc 1.40x" and verdict == "met"
    figure, verdict = target(run, FLOOR)
    assert figure == "sq int10 1.05x" and verdict == "met"  # the best floor: 1.0 / 0.95
    assert target(run, OWN) == ("sq int10 1.60x", "met")


def test_not_met_below_the_margin_and_out_of_reach_near_the_floor() -> None:
    run = {"cases": [arrow_case(**{"arrow-odbc": 1.3, "fastodbc arrow": 1.05})]}
    figure, verdict = target(run, PEERS)
    assert "arrow-odbc 1.24x" in figure and verdict == "not met"
    # arrow-odbc within 1.3x of the floor: no client could be 1.3x faster than it.
    run = {"cases": [arrow_case(**{"arrow-odbc": 1.1, "fastodbc arrow": 0.96})]}
    figure, verdict = target(run, PEERS)
    assert "arrow-odbc 1.15x (peer / floor 1.16x)" in figure
    assert verdict.startswith("met where reachable; out of reach on sq int10 vs arrow-odbc")
    run = {"cases": [arrow_case(**{"fastodbc arrow": 1.2})]}
    assert target(run, FLOOR) == ("sq int10 1.26x", "not met")


def test_failing_peers_have_no_time_to_beat_and_blob1() -> None:
    blob = arrow_case("blob1", **{"turbodbc-arrow": None, "arrow-odbc": None, "zodbc-arrow": None})
    run = {"cases": [arrow_case(), blob]}
    figure, verdict = target(run, PEERS)
    assert "sq blob1: turbodbc-arrow fails, arrow-odbc fails" in figure and verdict == "met"
    assert target(run, BLOB) == ("sq fastodbc works; turbodbc-arrow, arrow-odbc, zodbc-arrow fail", "met")
    assert "sq blob1 arrow-odbc fails" in target(run, MEM)[0]


def test_fastodbc_failing_is_not_met() -> None:
    blob = arrow_case("blob1", **{"fastodbc arrow": None, "turbodbc-arrow": None, "arrow-odbc": None})
    run = {"cases": [arrow_case(), blob]}
    assert target(run, BLOB) == ("sq fastodbc fails; turbodbc-arrow, arrow-odbc fail", "not met")
    assert target(run, FLOOR)[1] == "not met"
    assert target(run, OWN)[1] == "not met"
    run = {"cases": [arrow_case(**{"fastodbc arrow": None})]}
    assert target(run, PEERS)[1] == "not met"
    assert target(run, MEM)[1] == "not met"


def test_memory_against_arrow_odbc() -> None:
    c = arrow_case()
    c["results"]["fastodbc arrow"]["rss_delta_mb"] = 50.0
    c["results"]["arrow-odbc"]["rss_delta_mb"] = 50.5
    assert target({"cases": [c]}, MEM) == ("sq int10 50/50 MB", "met")
    c["results"]["fastodbc arrow"]["rss_delta_mb"] = 60.0
    assert target({"cases": [c]}, MEM)[1] == "not met"


def df_case(fast: float | None, read_sql: float, check: dict | None, backend: str = "sqlite") -> dict:
    peers = {"fastodbc fetch_df": peer(fast), "pandas read_sql": peer(read_sql)}
    return case("df", "mixed", peers, backend, df_check=check)


def test_fetch_df_needs_the_speedup_and_equal_values() -> None:
    equal = {"equal": True, "detail": None, "rows": 100}
    assert target({"cases": [df_case(1.0, 2.5, equal)]}, DF) == ("sq 2.50x, values equal", "met")
    assert target({"cases": [df_case(1.0, 1.5, equal)]}, DF)[1] == "not met"
    differ = {"equal": False, "detail": "column s row 2: 'é' vs 'e'", "rows": 100}
    figure, verdict = target({"cases": [df_case(1.0, 2.5, differ)]}, DF)
    assert figure == "sq 2.50x, values differ: column s row 2: 'é' vs 'e'" and verdict == "not met"
    assert target({"cases": [df_case(1.0, 2.5, None)]}, DF)[1] == "not met"  # unchecked is not equal
    assert target({"cases": [df_case(None, 2.5, {"error": "ImportError: pandas"})]}, DF)[1] == "not met"


def stream_case(dataset: str, rss: float | None, backend: str = "postgresql") -> dict:
    peers = {"fastodbc record_batch": peer(0.5, rss), "arrow-odbc batches": peer(0.6, 30.0)}
    return case("record_batch", dataset, peers, backend, variant=arrow.streaming(backend), batch_rows=10_000)


def test_record_batch_memory_flat() -> None:
    run = {"cases": [stream_case("mixed_mid", 20.0), stream_case("mixed", 29.0)]}
    assert target(run, STREAM) == ("po UseDeclareFetch=1: 20 MB at 100 rows, 29 MB at 100 rows", "met")
    run = {"cases": [stream_case("mixed_mid", 20.0), stream_case("mixed", 31.0)]}
    assert target(run, STREAM)[1] == "not met"
    run = {"cases": [stream_case("mixed_mid", 20.0), stream_case("mixed", None)]}
    run["cases"][1]["results"]["fastodbc record_batch"] = peer(None)
    assert target(run, STREAM)[1] == "not met"


def test_tables_and_section() -> None:
    run = {
        "cases": [
            arrow_case(),
            arrow_case("blob1", "postgresql", **{"arrow-odbc": None}),
            stream_case("mixed_mid", 20.0),
            stream_case("mixed", 22.0),
            df_case(1.0, 2.5, {"equal": True}, "postgresql"),
        ]
    }
    text = "\n".join(arrow.section(run))
    assert text.startswith("#### Arrow fetch (issue 18): targets")
    assert "| sqlite | int10 | 100 | 1.00 s | 1.50 s | 1.40 s | n/a | 1.60 s | 950.0 ms (narrow/1024) | 1.50x |" in text
    assert "| postgresql | blob1 | 100 | 1.00 s | 1.50 s | error |" in text
    assert "| postgresql | UseDeclareFetch=1 | mixed | 100 | 10,000 | 500.0 ms | 22.0 |" in text
    assert "| postgresql | 100 | 1.00 s | 2.50 s | 2.50x | 10.0 | 10.0 | equal |" in text
    # A run from before issue 18: no section; issue 3's Arrow row keeps its bar.
    old = {"cases": [case("fetchall", "int10", {"fastodbc": peer(1.0), "pyodbc": peer(2.0)})]}
    assert arrow.section(old) == []
    row = [t for t in report.targets(old) if t[0].startswith("Arrow fetch faster")][0]
    assert row[2] == "not applicable yet" and "turbodbc arrow 0.75 (reported)" in row[1]


def test_issue3_arrow_row_is_judged_from_the_arrow_cases() -> None:
    run = {"cases": [arrow_case(), arrow_case("blob1", **{"turbodbc-arrow": None, "arrow-odbc": None})]}
    (row,) = [t for t in report.targets(run) if t[0].startswith("Arrow fetch faster")]
    assert row[1] == "sq int10 vs turbodbc-arrow 1.50x, sq int10 vs arrow-odbc 1.40x" and row[2] == "met"
    run = {"cases": [arrow_case(**{"turbodbc-arrow": 0.9})]}
    (row,) = [t for t in report.targets(run) if t[0].startswith("Arrow fetch faster")]
    assert row[2] == "not met"


def anchors_run() -> dict:
    """SQLite with both native anchors (ConnectorX faster than the floor, ADBC just above it);
    PostgreSQL with ConnectorX only, whose every repetition failed."""
    sq = arrow_case(connectorx=0.5, adbc=0.98)
    sq["results"]["fastodbc arrow"]["arrow_types"] = ["id: int64", "d: date32[day]", "flag: bool"]
    sq["results"]["adbc"]["arrow_types"] = ["id: int64", "d: string", "flag: int64"]
    sq["results"]["connectorx"]["arrow_types"] = ["id: int64", "d: date32[day]", "flag: bool"]
    return {"cases": [sq, arrow_case("int10", "postgresql", connectorx=None)]}


def peer_rows(results: dict) -> dict[tuple[str, str], list[str]]:
    """The per-peer table's rows by (backend, client), their cells after those two."""
    lines = arrow.peers_table(results).splitlines()[2:]
    cells = [[x.strip() for x in line.strip("|").split("|")] for line in lines]
    return {(r[0], r[2]): r[3:] for r in cells}


def test_native_anchors_rows_show_the_floors_share_of_their_time() -> None:
    rows = peer_rows(anchors_run())
    cx, adbc = arrow.ANCHORS["connectorx"], arrow.ANCHORS["adbc"]
    # Best floor 0.95 s: 190% of ConnectorX's 0.5 s (no ODBC client reaches it), 97% of ADBC's
    # 0.98 s (within reach), 68% of arrow-odbc's 1.4 s (fastodbc at 1.0 s is faster).
    assert rows[("sqlite", cx)] == [
        "native, anchor",
        "500.0 ms",
        "0.50x",
        "190%",
        "behind, driver-bound (floor ≥ its time)",
        "same",
    ]
    assert rows[("sqlite", adbc)] == [
        "native, anchor",
        "980.0 ms",
        "0.98x",
        "97%",
        "behind, within reach (floor below its time)",
        "d string, flag int64",
    ]
    assert rows[("sqlite", "arrow-odbc → Table")] == ["ODBC, target", "1.40 s", "1.40x", "68%", "fastodbc faster", "-"]
    assert rows[("sqlite", "fastodbc `fetch_arrow_table`")][:4] == ["ODBC", "1.00 s", "-", "95%"]
    # PostgreSQL: its profile's anchors only, and a failed one has no time nor share.
    assert ("postgresql", adbc) not in rows
    assert rows[("postgresql", cx)] == ["native, anchor", "error", "-", "-", "-", "-"]
    # A peer the case did not run has no row (no zodbc-arrow in these cases).
    assert not [k for k in rows if k[1] == "zodbc arrow"]


def test_native_anchors_are_shown_not_judged() -> None:
    # ConnectorX twice as fast as fastodbc changes no verdict: the targets are vs turbodbc and
    # arrow-odbc (issue 18's), the blob1 row names the ODBC peers' failures only.
    results = anchors_run()
    assert target(results, PEERS) == (
        "sq int10: turbodbc-arrow 1.50x, arrow-odbc 1.40x; po int10: turbodbc-arrow 1.50x, arrow-odbc 1.40x",
        "met",
    )
    (row,) = [t for t in report.targets(results) if t[0].startswith("Arrow fetch faster")]
    assert "connectorx" not in row[1] and "adbc" not in row[1] and row[2] == "met"
    blob = arrow_case("blob1", **{"turbodbc-arrow": None, "arrow-odbc": None, "connectorx": None})
    assert target({"cases": [blob]}, BLOB) == ("sq fastodbc works; turbodbc-arrow, arrow-odbc fail", "met")
    text = "\n".join(arrow.section(results))
    assert "#### Arrow fetch per peer (issue 33)" in text and "| sqlite | int10 | ConnectorX `read_sql`" in text
