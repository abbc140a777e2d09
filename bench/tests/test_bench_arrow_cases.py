"""The Arrow cases of bench/run.py (issue 18): which cases and peers a run measures, and how its
repetitions treat them; bench/df_equal.py, the pandas case's value check."""

from __future__ import annotations

import dataclasses
import datetime as dt
from decimal import Decimal

import pytest
from bench_modules import load

run = load("run")

#: The streaming variants of the drivers (bench/backend_profiles.py): psqlODBC's server-side
#: cursor, sqliteodbc's StepAPI.
UDF = "UseDeclareFetch=1;Fetch=10000"
STEP = "StepAPI=1, autocommit"
ARROW_LABELS = ["fastodbc arrow", "turbodbc-arrow", "arrow-odbc", "zodbc-arrow", "fastodbc fetchall"]
#: The native Arrow clients after them (issue 33), where the backend's profile names them.
ANCHORS = ["connectorx", "adbc"]


@pytest.fixture
def cases(monkeypatch: pytest.MonkeyPatch) -> list[dict]:
    monkeypatch.setenv("FASTODBC_BENCH_PG", "Driver={PostgreSQL Unicode};Server=h")
    monkeypatch.setenv("FASTODBC_BENCH_PG_DSN", "host=h")
    return run.build_cases("quick", ["sqlite", "postgresql"], floor=True)


def by_op(cases: list[dict], op: str) -> list[dict]:
    return [c for c in cases if c["op"] == op]


def test_an_arrow_case_per_backend_and_large_dataset(cases: list[dict]) -> None:
    arrow = by_op(cases, "arrow")
    assert sorted((c["backend"], c["dataset"]) for c in arrow) == sorted(
        (b, ds) for b in ("sqlite", "postgresql") for ds in run.BIG
    )
    for c in arrow:
        labels = [run.peer_label(p) for p in c["peers"]]
        assert labels[:7] == ARROW_LABELS + ANCHORS
        # The floors of the fetchall case beside it, but not its threaded close.
        fetchall = next(
            f for f in by_op(cases, "fetchall") if (f["backend"], f["dataset"]) == (c["backend"], c["dataset"])
        )
        floors = [run.peer_label(p) for p in fetchall["peers"] if p["peer"] == "floor" and not p.get("threaded")]
        # Planned for typed columns, as the Arrow reader plans (odbc-floor --typed).
        assert labels[7:] == [f"{f} typed" for f in floors] and floors
        assert all(p.get("typed") for p in c["peers"][7:]) and not any(p.get("typed") for p in fetchall["peers"])
        assert (
            c["sql"] == f"SELECT * FROM {c['table']}"
            and c["expected_rows"] == run.datasets.SCALES["quick"][c["dataset"]]
        )
        # Only fastodbc's fetchall runs another operation than the case's.
        assert [p.get("op") for p in c["peers"][:7]] == [None, None, None, None, "fetchall", None, None]


def test_arrow_cases_without_the_floor(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FASTODBC_BENCH_PG", "x")
    monkeypatch.setenv("FASTODBC_BENCH_PG_DSN", "x")
    for c in by_op(run.build_cases("quick", ["postgresql"], floor=False), "arrow"):
        assert [run.peer_label(p) for p in c["peers"]] == ARROW_LABELS + ANCHORS


def test_native_anchors_only_where_the_profile_names_them(monkeypatch: pytest.MonkeyPatch) -> None:
    # A PostgreSQL with ConnectorX only, a SQLite with none: the cases follow the profiles, not
    # the backends' names.
    pg, sq = run.profiles.BY_NAME["postgresql"], run.profiles.BY_NAME["sqlite"]
    monkeypatch.setitem(run.profiles.BY_NAME, "postgresql", dataclasses.replace(pg, arrow_anchors=("connectorx",)))
    monkeypatch.setitem(run.profiles.BY_NAME, "sqlite", dataclasses.replace(sq, arrow_anchors=()))
    monkeypatch.setenv("FASTODBC_BENCH_PG", "x")
    monkeypatch.setenv("FASTODBC_BENCH_PG_DSN", "x")
    arrow = by_op(run.build_cases("quick", ["sqlite", "postgresql"], floor=False), "arrow")
    assert arrow
    for c in arrow:
        expected = ARROW_LABELS + (["connectorx"] if c["backend"] == "postgresql" else [])
        assert [run.peer_label(p) for p in c["peers"]] == expected
    # Of the fetch cases, the anchors are the Arrow case's peers only (ConnectorX's partitioned
    # reads are bench/partitioning.py's).
    fetch = [c for c in run.build_cases("quick", ["sqlite", "postgresql"], floor=False) if c["op"] in run.FETCH_OPS]
    fetch = [c for c in fetch if c["op"] not in run.partitioning.OPS]
    assert {c["op"] for c in fetch if any(p["peer"] in ANCHORS for p in c["peers"])} == {"arrow"}


def test_anchor_profiles_name_what_their_peers_connect_with() -> None:
    profiles = run.profiles
    # Every anchor a profile may name has its name in the report's per-peer table.
    assert list(profiles.ARROW_ANCHORS) == ANCHORS == list(run.report.report_arrow.ANCHORS)
    fetch = [b for b in profiles.BACKENDS if b.fetch_cases]
    # SQLite and PostgreSQL have both (MariaDB has no Arrow case: no fetch cases).
    assert {b.name: b.arrow_anchors for b in fetch} == {"sqlite": tuple(ANCHORS), "postgresql": tuple(ANCHORS)}
    assert not profiles.MARIADB.fetch_cases and profiles.MARIADB.arrow_anchors == ()
    for b in profiles.BACKENDS:
        assert set(b.arrow_anchors) <= set(profiles.ARROW_ANCHORS)
        if "connectorx" in b.arrow_anchors:
            assert b.connectorx_uri
        if "adbc" in b.arrow_anchors:
            assert b.adbc_driver.startswith("adbc_driver_") and b.adbc_uri
    spec = {"backend": "postgresql", "cs": "x", "pg_dsn": "host=h port=5 dbname=d user=u password=p@w"}
    assert profiles.POSTGRESQL.adbc_uri.format(**profiles.connection_parts(spec)) == "postgresql://u:p%40w@h:5/d"
    sqlite = profiles.connection_parts({"backend": "sqlite", "sqlite_path": "/a.db"})
    assert profiles.SQLITE.adbc_uri.format(**sqlite) == "/a.db"


def test_record_batch_memory_cases_stream(cases: list[dict]) -> None:
    rb = {(c["backend"], c["dataset"]): c for c in by_op(cases, "record_batch")}
    assert sorted(rb) == sorted((b, ds) for b in ("sqlite", "postgresql") for ds in ("mixed_mid", "mixed"))
    for (backend, _), c in rb.items():
        assert [run.peer_label(p) for p in c["peers"]] == ["fastodbc record_batch", "arrow-odbc batches"]
        assert c["batch_rows"] == run.RECORD_BATCH_ROWS
        if backend == "postgresql":
            assert c["variant"] == UDF and c["cs"].endswith(";" + UDF)
        else:
            assert c["variant"] == STEP and c["cs"].endswith("StepAPI=1;") and c["autocommit"] is True
    # Both sets span whole batches, so a flat peak is the batch's, not the set's.
    rows = run.datasets.SCALES
    for scale in ("quick", "full"):
        assert rows[scale]["mixed_mid"] >= run.RECORD_BATCH_ROWS


def test_pandas_case_on_mixed(cases: list[dict]) -> None:
    df = by_op(cases, "df")
    assert sorted(c["backend"] for c in df) == ["postgresql", "sqlite"]
    for c in df:
        assert c["dataset"] == "mixed" and c["variant"] == ""
        assert [run.peer_label(p) for p in c["peers"]] == ["fastodbc fetch_df", "pandas read_sql"]
        assert [p["peer"] for p in c["peers"]] == ["fastodbc", "pyodbc"]


def test_arrow_and_pandas_repetitions(cases: list[dict]) -> None:
    (arrow,) = [c for c in by_op(cases, "arrow") if c["backend"] == "sqlite" and c["dataset"] == "mixed"]
    assert run.case_reps(arrow, 3) == run.ARROW_REPS >= 5
    assert run.case_reps(by_op(cases, "df")[0], 3) == run.ARROW_REPS
    # zodbc-arrow and the native anchors are shown, not judged: the first repetitions only; the
    # judged peers run all.
    other = [run.peer_label(p) for p in arrow["peers"] if run.other_peer(arrow, p)]
    assert other == ["zodbc-arrow", *ANCHORS]
    (fetchall,) = [c for c in by_op(cases, "fetchall") if c["backend"] == "sqlite" and c["dataset"] == "mixed"]
    assert {run.peer_label(p) for p in fetchall["peers"] if run.other_peer(fetchall, p)} == set(run.OTHER_PEERS) - {
        "psycopg"
    }


def test_row_counts_of_the_arrow_operations_are_checked() -> None:
    reps = [{"seconds": 1.0, "rows": 9, "rss_before": 0, "maxrss": 2**20, "error": None}]
    for op in ("arrow", "record_batch", "df"):
        s = run.summarise({"op": op, "expected_rows": 10}, "fastodbc arrow", reps)
        assert s["error"] == "fetched 9 rows, expected 10"
    # A failing peer is a result with its error, not a crash.
    s = run.summarise({"op": "arrow", "expected_rows": 10}, "arrow-odbc", [{"error": "too large"}])
    assert s["n_ok"] == 0 and s["error"] == "too large" and "median_s" not in s


# ---------------------------------------------------------------------------------------------
# bench/df_equal.py

df_equal = load("df_equal")


def test_normalise_and_same() -> None:
    pd = pytest.importorskip("pandas")
    np = pytest.importorskip("numpy")
    n = df_equal.normalise
    assert n(None) is n(float("nan")) is n(pd.NA) is n(pd.NaT) is n(np.float64("nan")) is df_equal.MISSING
    assert n(np.int32(5)) == 5 and type(n(np.int32(5))) is int
    assert n(pd.Timestamp("2024-01-02 03:04:05.123")) == dt.datetime(2024, 1, 2, 3, 4, 5, 123000)
    assert n(np.datetime64("2024-01-02T03:04:05.000001")) == dt.datetime(2024, 1, 2, 3, 4, 5, 1)
    same = df_equal.same
    assert same(Decimal("0.1"), 0.1) and same(0.1, Decimal("0.1"))  # read_sql's coerce_float
    assert not same(Decimal("0.1000001"), 0.1)
    assert same(2**62 + 1, float(2**62 + 1)) and not same(3, 3.5)
    assert not same(dt.date(2024, 1, 2), dt.datetime(2024, 1, 2))
    assert not same(True, 1) and not same(1.0, True)
    assert same(df_equal.MISSING, df_equal.MISSING) and not same(df_equal.MISSING, 0)


def test_first_difference() -> None:
    pd = pytest.importorskip("pandas")
    ours = pd.DataFrame(
        {
            "id": pd.Series([1, 2, 3], dtype="int32"),
            "num": [Decimal("1.5000"), None, Decimal("-2.2500")],
            "s": pd.Series(["a", None, "é"], dtype="string"),
            "ts": pd.to_datetime(["2024-01-01 00:00:00.001", None, "2024-01-03 00:00:00.000"]),
        }
    )
    theirs = pd.DataFrame(
        {
            "id": [1, 2, 3],
            "num": [1.5, float("nan"), -2.25],
            "s": ["a", None, "é"],
            "ts": [dt.datetime(2024, 1, 1, 0, 0, 0, 1000), None, dt.datetime(2024, 1, 3)],
        }
    )
    assert df_equal.first_difference(ours, theirs) is None
    changed = theirs.copy()
    changed.loc[2, "s"] = "e"
    assert df_equal.first_difference(ours, changed).startswith("column s row 2: 'é'")
    assert df_equal.first_difference(ours, theirs.iloc[:2]) == "3 rows vs 2"
    assert df_equal.first_difference(ours, theirs.rename(columns={"s": "t"})).startswith("columns ")
