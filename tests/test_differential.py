"""The differential matrix: random tables, every value fastodbc reads or writes compared with
the profile's oracle (an independent client) on the same data (tests/differential/); bulk
loads (Cursor.ingest) compared with their Arrow input, and refused when a value is bad.

A value that differs, a panic, or an error the oracle does not raise fails with the shrunk
example and a script that reproduces it. Depth from the environment:
  FASTODBC_DIFFERENTIAL=quick   (default) about FASTODBC_DIFFERENTIAL_SECONDS (15) per test
                                and backend: what `make test` runs
  FASTODBC_DIFFERENTIAL=deep    FASTODBC_DEEP seconds (1800) spread over the tests and
                                backends, larger values: `make test-deep`
  FASTODBC_DIFFERENTIAL_SHRINK=0  report a failing example unshrunk
Failing examples are kept in build/hypothesis and replayed first by the next run. Counts of
examples and of the combinations they covered go to build/differential/<depth>-stats.json.
"""

from __future__ import annotations

import collections
import itertools
import json
import os
import time

import pytest
from hypothesis import HealthCheck, Phase, given, note, reject, settings
from hypothesis.control import should_note
from hypothesis.database import DirectoryBasedExampleDatabase

from conftest import ROOT
from differential import arrow, compare, ingest, ingest_check, ingest_refusals, oracles, reading, repro, writing
from profiles import PROFILES

pytestmark = pytest.mark.fastodbc_only(reason="read paths and settings of fastodbc")

DEPTH = os.environ.get("FASTODBC_DIFFERENTIAL", "quick")
if DEPTH not in ("quick", "deep"):
    raise ValueError(f"FASTODBC_DIFFERENTIAL must be quick or deep, not {DEPTH!r}")
TESTS = 4
if DEPTH == "deep":
    SECONDS = float(os.environ.get("FASTODBC_DEEP", "1800")) / (TESTS * len(PROFILES))
else:
    SECONDS = float(os.environ.get("FASTODBC_DIFFERENTIAL_SECONDS", "15"))

# FASTODBC_DIFFERENTIAL_SHRINK=0 reports a failure as found: shrinking a case of thousands of
# rows can take minutes.
PHASES = list(Phase)
if os.environ.get("FASTODBC_DIFFERENTIAL_SHRINK") == "0":
    PHASES = [Phase.explicit, Phase.reuse, Phase.generate]
_COMMON = dict(
    deadline=None,  # a case's time depends on its rows and on the machine's load
    database=DirectoryBasedExampleDatabase(str(ROOT / "build" / "hypothesis")),
    suppress_health_check=list(HealthCheck),
    print_blob=True,
    phases=PHASES,
)
# A run is a batch of examples; runs repeat until the time is spent (run_for).
settings.register_profile("differential-quick", max_examples=10, **_COMMON)
settings.register_profile("differential-deep", max_examples=100, **_COMMON)
SETTINGS = settings.get_profile(f"differential-{DEPTH}")
# Bytes of large values per table (the rest are small): 1 MiB values, a few of them.
BUDGET = 3 << 20 if DEPTH == "quick" else 8 << 20

# Hypothesis gives up shrinking a failure after five minutes; then the minimal case runs again.
TIMEOUT = SECONDS + 420

STATS: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)


@pytest.fixture(scope="module", autouse=True)
def _write_stats():
    yield
    out = ROOT / "build" / "differential"
    out.mkdir(parents=True, exist_ok=True)
    report = {key: dict(sorted(c.items())) for key, c in sorted(STATS.items())}
    (out / f"{DEPTH}-stats.json").write_text(json.dumps(report, indent=1) + "\n")


def run_for(run, seconds: float) -> None:
    """Runs the hypothesis test ``run`` (batches of examples) until ``seconds`` have passed."""
    deadline = time.monotonic() + seconds
    while True:
        run()
        if time.monotonic() >= deadline:
            return


def row_class(n: int) -> str:
    for limit in (0, 1, 16, 144, 1168, 5000):
        if n <= limit:
            return f"rows:<={limit}"
    return "rows:>5000"


def count_table(stats: collections.Counter, table, seconds: float) -> None:
    stats["examples"] += 1
    stats["seconds"] += round(seconds, 3)
    stats[row_class(table.n_rows)] += 1
    stats[f"columns:{len(table.columns)}"] += 1
    for c in table.columns:
        stats[f"kind:{c.kind}"] += 1
    longest = max((len(x) for r in [*table.special.values(), *table.filler] for x in r
                   if isinstance(x, (str, bytes))), default=0)
    stats[f"longest:>={next(s for s in (1 << 20, 65536, 8001, 4001, 1025, 256, 1, 0) if longest >= s)}"] += 1


def oracle_of(profile):
    """The profile's oracle client: a database without one is not compared."""
    if not profile.oracle:
        pytest.skip(f"{profile.name} names no oracle client (Profile.oracle)")
    return oracles.oracle_for(profile)


def connstr(profile, option: str) -> str:
    if not option:
        return profile.connstr
    return profile.connstr.rstrip(";") + ";" + option


class Refusals:
    """Tables the oracle could not store: a strategy bug (values the database refuses must
    not be drawn). Not shrunk (each try is a table); the test fails after its runs."""

    def __init__(self):
        self.seen: list[str] = []

    def store(self, oracle, name: str, table) -> None:
        try:
            oracle.drop(name)
            oracle.create(name, table)
            oracle.insert(name, table)
        except Exception as e:
            self.seen.append(f"{type(e).__name__}: {e}\n{table!r}")
            oracle.drop(name)
            reject()

    def check(self) -> None:
        if self.seen:
            pytest.fail(f"the oracle refused {len(self.seen)} tables; first: {self.seen[0]}")


def noted(script_of, body) -> None:
    """Runs ``body``; on failure the minimal example's reproduction script is noted."""
    try:
        body()
    except BaseException:
        if should_note():
            note("Reproduction:\n" + script_of())
        raise


@pytest.mark.timeout(TIMEOUT)
def test_fetch_matches_oracle(db, backend):
    """Rows the oracle wrote, read by fastodbc along a random read path and through Arrow
    (fetch_record_batch), equal the oracle's."""
    oracle = oracle_of(backend)
    names = itertools.count()
    stats = STATS[f"fetch/{backend.name}"]
    refusals = Refusals()

    @SETTINGS
    @given(case=reading.fetch_cases(backend, BUDGET))
    def run(case):
        table, path = case
        started = time.monotonic()
        name = f"t_diff_fetch_{os.getpid()}_{next(names)}"
        refusals.store(oracle, name, table)
        cols = reading.selected_columns(table, path)
        want = [tuple(compare.expected_fetch(backend, c, x) for c, x in zip(cols, r, strict=False))
                for r in oracle.select(name, cols, fetched=True)]

        def body():
            cnxn = db.connect(connstr(backend, path.option))
            try:
                reading.apply_settings(db, cnxn, path)
                reading.read_and_compare(
                    cnxn.cursor(),
                    reading.select_sql(name, table, path),
                    reading.lookup_sql(name, table, path),
                    path,
                    want,
                    cols,
                )
                # Arrow values equal the oracle's, which the rows path's equal.
                arrow.read_and_compare(
                    cnxn.cursor(), reading.select_sql(name, table, path), reading.params(path), path.arrow,
                    want, cols, backend,
                )
            finally:
                cnxn.close()

        try:
            noted(lambda: repro.fetch_script(oracle, name, table, path), body)
        finally:
            oracle.drop(name)
        count_table(stats, table, time.monotonic() - started)
        stats[f"read_ahead:{path.read_ahead}"] += 1
        stats[f"block_bytes:{path.block_bytes}"] += 1
        stats[f"decoding:{path.char_decoding}/{path.wchar_decoding}"] += 1
        stats[f"option:{path.option.split(';')[0] or 'none'}"] += 1
        stats[f"where_param:{path.where_param}"] += 1
        stats[f"arrow_batch_rows:{path.arrow.batch_rows}"] += 1
        stats[f"arrow_batch_bytes:{path.arrow.batch_bytes}"] += 1
        stats[f"arrow_rows_first:{min(path.arrow.rows_first, 2)}"] += 1
        for op in path.ops:
            stats[f"op:{op[0]}"] += 1

    try:
        run_for(run, SECONDS)
    finally:
        oracle.close()
    refusals.check()


@pytest.mark.timeout(TIMEOUT)
def test_params_match_oracle(db, backend):
    """Rows fastodbc wrote along a random insert path, read by the oracle, equal the same rows
    written by the oracle."""
    oracle = oracle_of(backend)
    names = itertools.count()
    stats = STATS[f"params/{backend.name}"]
    refusals = Refusals()

    @SETTINGS
    @given(case=writing.write_cases(backend, BUDGET))
    def run(case):
        table, path = case
        started = time.monotonic()
        n = f"{os.getpid()}_{next(names)}"
        ref, name = f"t_diff_ref_{n}", f"t_diff_params_{n}"
        cols = [None, *table.columns]
        refused = backend.param_nul_refused and writing.has_nul(table)

        refusals.store(oracle, ref, table)

        def body():
            oracle.drop(name)
            oracle.create(name, table)
            cnxn = db.connect(backend.connstr)
            try:
                if refused:
                    # The driver would cut the text at the NUL: fastodbc refuses it.
                    with pytest.raises(db.DataError):
                        writing.write(cnxn, name, table, path)
                    cnxn.rollback()
                    assert cnxn.cursor().execute("SELECT 1").fetchval() == 1
                    return
                writing.write(cnxn, name, table, path)
            finally:
                cnxn.close()
            compare.compare_rows(oracle.select(name, cols), oracle.select(ref, cols), cols,
                                 f"{path.method} (fast={path.fast})")

        try:
            noted(lambda: repro.write_script(oracle, name, table, path), body)
        finally:
            for t in (ref, name):
                oracle.drop(t)
        count_table(stats, table, time.monotonic() - started)
        stats[f"write:{path.method}"] += 1
        if path.method == "executemany":
            stats[f"fast_executemany:{path.fast}"] += 1
            stats[f"iterator:{path.iterator}"] += 1
            stats[f"many>=64:{table.n_rows >= 64}"] += 1
        stats[f"encoding:{path.encoding}"] += 1
        stats[f"column_list:{path.column_list}"] += 1
        stats[f"nul_refused:{refused}"] += 1
        for variant in path.variants.values():
            stats[f"variant:{variant}"] += 1

    try:
        run_for(run, SECONDS)
    finally:
        oracle.close()
    refusals.check()


def ingest_script(profile, name: str, mode: str, data, options: dict) -> str:
    """A failing load as a script: its input kept as an Arrow IPC file in build/differential."""
    import pyarrow as pa

    out = ROOT / "build" / "differential" / f"{name}.arrow"
    out.parent.mkdir(parents=True, exist_ok=True)
    try:
        # An IPC file holds one dictionary per column: the chunks' dictionaries unified.
        with pa.OSFile(str(out), "wb") as f, pa.ipc.new_file(f, data.schema) as w:
            w.write_table(data.unify_dictionaries())
    except pa.ArrowException as e:
        return f"(the input could not be written to {out}: {e})"
    return "\n".join([
        "import pyarrow as pa, fastodbc",
        f"data = pa.ipc.open_file({str(out)!r}).read_all()",
        f"cnxn = fastodbc.connect({profile.connstr!r})",
        f"print(cnxn.cursor().ingest({name!r}, data, mode={mode!r}, **{options!r}))",
    ])


@pytest.mark.timeout(TIMEOUT)
def test_ingest_matches_input(db, backend):
    """Random Arrow tables loaded by Cursor.ingest (append into the profile's DDL, or create),
    in random layouts, chunks and batch budgets, read back by the oracle and through
    fetch_arrow_table: every value equals the input's."""
    oracle = oracle_of(backend)
    names = itertools.count()
    stats = STATS[f"ingest/{backend.name}"]

    @SETTINGS
    @given(case=ingest.ingest_cases(backend, BUDGET, DEPTH == "deep"))
    def run(case):
        started = time.monotonic()
        name = f"t_diff_ingest_{os.getpid()}_{next(names)}"
        options = dict(batch_rows=case.batch_rows, batch_bytes=case.batch_bytes, nan=ingest_check.nan_option(backend))
        try:
            noted(lambda: ingest_script(backend, name, case.mode, ingest.arrow_input(case)[1], options),
                  lambda: ingest_check.load_and_compare(db, backend, oracle, name, case))
        finally:
            oracle.drop(name)
        count_table(stats, case.table, time.monotonic() - started)
        stats[f"mode:{case.mode}"] += 1
        stats[f"form:{case.form}"] += 1
        stats[f"chunks:{min(len(case.cuts[0]), 3)}"] += 1
        stats[f"batch_rows:{case.batch_rows}"] += 1
        stats[f"batch_bytes:{case.batch_bytes}"] += 1
        for s in case.specs:
            stats[f"input:{s.col.kind}<-{str(s.arrow).split('(')[0]}"] += 1  # decimals of any (p, s) as one

    try:
        run_for(run, SECONDS)
    finally:
        oracle.close()


@pytest.mark.timeout(TIMEOUT)
def test_ingest_refuses_bad_values(db, backend):
    """One bad value planted at a random input row of a valid load: the right DB-API class,
    naming the column and the row; the table unchanged, the connection usable."""
    oracle = oracle_of(backend)
    names = itertools.count()
    stats = STATS[f"ingest-refusals/{backend.name}"]
    if not ingest_refusals.plants(backend):
        pytest.skip(f"{backend.name} refuses no planted value")

    @SETTINGS
    @given(bad=ingest_refusals.bad_cases(backend, BUDGET))
    def run(bad):
        started = time.monotonic()
        name = f"t_diff_refused_{os.getpid()}_{next(names)}"
        try:
            ingest_refusals.load_refused(db, backend, oracle, name, bad)
        finally:
            oracle.drop(name)
        count_table(stats, bad.case.table, time.monotonic() - started)
        stats[f"plant:{bad.plant}/{bad.case.mode}"] += 1
        stats[f"batch_rows:{bad.case.batch_rows}"] += 1

    try:
        run_for(run, SECONDS)
    finally:
        oracle.close()
