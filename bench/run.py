"""End-to-end benchmark of fastodbc against its peers: ``make bench`` / ``make bench-quick``.

    python bench/run.py --scale full|quick [--reps N] [--backend sqlite|postgresql]...
                        [--only SUBSTRING]... [--no-codec] [--no-instructions] [--md auto|yes|no]

For every backend x dataset x operation ("case") the peers run interleaved, repetition by
repetition (rep 1: every peer once, rep 2: every peer again, ...; the order rotates by one peer
each repetition so no peer is always first). Every single measurement runs in a fresh process
(bench/worker.py), so its RSS high-water mark belongs to that operation alone. Reported figures
are medians over the repetitions; ratios are to pyodbc measured in the same case of the same run
(the Arrow cases of issue 18: to the Arrow peers, fastodbc's fetchall and the floors measured in
the same case, bench/report_arrow.py).

Case families beyond the fetch cases of issue 3 are selected the same way, by ``--only``: the
Arrow cases of issue 18 (``--only arrow --only record_batch --only " df"``), the bulk loads and
exports of issue 19 (``--only ingest --only export``: bench/bulk.py), the pool and asyncio cases
of issue 20 with issue 33's fairness (``--only pool --only aio --only fairness``:
bench/pooling.py), the partitioned reads of ``fastodbc.partition`` and ``fastodbc.dask``
(``--only parallel``: bench/partitioning.py). A run loads only the datasets its cases read.

PostgreSQL: the benchmark's own persistent cluster (bench/pg.sh), started and stopped here unless
FASTODBC_BENCH_PG / FASTODBC_BENCH_PG_DSN already point at a server. Datasets are generated and
loaded once (bench/datasets.py) and reused while their row counts and generator version match.

Results: bench/results/<UTC timestamp>-<scale>.json and .md, copied to latest.json / latest.md;
every run appends its line to bench/history.md (bench/history.py). A complete full-scale run (no
--only, no --backend, not interrupted) is also kept as bench/results/latest-full.json / .md and
rewrites the generated section of BENCHMARKS.md (bench/report.py renders all markdown; `python
bench/report.py FILE.json --benchmarks-md` redoes it from any run). Nothing in bench/results is
tracked by git: a run's raw data stays on the machine that made it; BENCHMARKS.md and
bench/history.md are what is committed.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import json
import os
import platform
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
sys.path.insert(0, str(BENCH))

import ab  # noqa: E402
import backend_profiles as profiles  # noqa: E402
import bulk  # noqa: E402
import datasets  # noqa: E402
import history  # noqa: E402
import native_clients  # noqa: E402
import partitioning  # noqa: E402
import pooling  # noqa: E402
import report  # noqa: E402
from child import run_child  # noqa: E402

PYTHON = sys.executable
#: ``--baseline``: the copy of the other build its twin peers import (bench/ab.py).
BASE_ROOT: Path | None = None
#: Peers that run under an interpreter of their own: turbodbc builds against another pyarrow
#: than .venv's (bench/turbodbc.sh), zodbc has wheels for Python 3.12+ only (bench/zodbc.sh).
PEER_VENVS = {
    "turbodbc": BENCH / "data" / "turbodbc-venv",
    "turbodbc-arrow": BENCH / "data" / "turbodbc-venv",
    "zodbc": BENCH / "data" / "zodbc-venv",
    "zodbc-arrow": BENCH / "data" / "zodbc-venv",
}
FLOOR = ROOT / "target" / "release" / "odbc-floor"
RESULTS = BENCH / "results"
#: The latest complete full run (bench/results/latest-full.json / .md, git-ignored like every
#: result): what BENCHMARKS.md's generated section was made from, kept apart from quick runs.
LATEST_FULL = "latest-full"
WORKER_TIMEOUT = 900

#: Settings per scale (the backends' own, inner loops and insert caps, are in bench/backend_profiles.py).
CONFIG: dict[str, dict[str, Any]] = {
    "full": {
        "reps": 3,
        # 1: one row per SQLFetch. On SQLite every variant fetches row by row (fastodbc's plans
        # there must be able to re-read any value) and the number sets the block the rows are
        # assembled into: the smallest block is the fastest, so it must be among the variants.
        "floor_rowsets": (1, 64, 1024, 10_000),
    },
    "quick": {
        "reps": 3,
        "floor_rowsets": (1, 1024),
    },
}


def recorded_config(scale: str) -> dict[str, Any]:
    """The run's settings as its results record them (``inner`` and ``insert_cap`` by backend,
    as before they moved to bench/backend_profiles.py)."""
    fetch = [b for b in profiles.BACKENDS if b.fetch_cases]
    return {
        **CONFIG[scale],
        "inner": {b.name: b.inner[scale] for b in fetch},
        "insert_cap": str({(b.name, p): n for b in fetch for p, n in b.insert_caps.get(scale, {}).items()}),
    }


BIG = ("int10", "varchar5", "unicode3", "mixed", "blob1")
TEXT_DATASETS = ("varchar5", "unicode3", "mixed")


def log(msg: str) -> None:
    print(msg, flush=True)


# ---------------------------------------------------------------------------------------------
# PostgreSQL cluster


def read_env_file(path: Path) -> dict[str, str]:
    env = {}
    for line in path.read_text().splitlines():
        if line.startswith("export "):
            k, _, v = line[7:].partition("=")
            env[k] = v.strip("'")
    return env


class Server:
    """The benchmark's own server of a backend (its server_script) for the run, unless the
    environment names one already; nothing for a file database."""

    def __init__(self, backend: profiles.Backend) -> None:
        self.backend = backend
        self.exported: list[str] = []

    def __enter__(self) -> Server:
        b = self.backend
        if b.server_script and not all(os.environ.get(v) for v in (b.connstr_env, b.dsn_env) if v):
            subprocess.run(["bash", str(BENCH / b.server_script), "start"], check=True)
            env = read_env_file(datasets.DATA_DIR / b.server_env_file)
            if b.server_env_names:
                env = {ours: env[theirs] for theirs, ours in b.server_env_names.items()}
            os.environ.update(env)
            self.exported = list(env)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.exported:
            subprocess.run(["bash", str(BENCH / str(self.backend.server_script)), "stop"], check=False)
            for name in self.exported:
                os.environ.pop(name, None)


# ---------------------------------------------------------------------------------------------
# Cases


def build_cases(scale: str, backends: list[str], floor: bool) -> list[dict[str, Any]]:
    cfg = CONFIG[scale]
    rows = datasets.SCALES[scale]
    cases = []
    # The backends without fetch cases (MariaDB) host the bulk, pool and partitioned read ones only.
    for profile in (p for p in profiles.named(backends) if p.fetch_cases):
        backend, native = profile.name, profile.native
        base = profile.connection(datasets.SQLITE_PATH)
        inner = profile.inner[scale]

        def case(op: str, key: str, peers: list[dict], base: dict = base, **kw: Any) -> None:
            table = datasets.table_name(key, scale) if key else ""
            c = dict(base, op=op, dataset=key, table=table, peers=peers, variant="", inner=1)
            c["sql"] = f"SELECT * FROM {table}" if table else ""
            c["expected_rows"] = rows.get(key)
            c.update(kw)
            cases.append(c)

        def peers(*names: str) -> list[dict]:
            return [{"peer": n} for n in names]

        for key in BIG:
            floor_peers = []
            if floor:
                texts = ("narrow", "wide") if key in TEXT_DATASETS else ("narrow",)
                rowsets = (
                    cfg["floor_rowsets"] if key != "blob1" else tuple(r for r in cfg["floor_rowsets"] if r <= 1024)
                )
                floor_peers = [{"peer": "floor", "text": t, "rowset": r} for t in texts for r in rowsets]
                # Its close in a multi-threaded process: what a client reading ahead pays there
                # (the overlapped ceiling, bench/report.py). Not a floor of its own.
                floor_peers.append({"peer": "floor", "text": "narrow", "rowset": 1024, "threaded": True})
            # CPython's own cost of the rows (the Python object floor, bench/worker.py): with the
            # ODBC floor, the least any row-returning client's fetchall can take.
            objects = peers("objects") if floor else []
            case(
                "fetchall",
                key,
                peers("fastodbc", "pyodbc", "arrow-odbc", *PEER_VENVS, native) + floor_peers + objects,
            )
            # iter and fetchmany serve fastodbc's own targets (vs its fetchall, vs pyodbc): the
            # reference clients, arrow-odbc, turbodbc and zodbc are compared on fetchall only, to fit the
            # time budget.
            # Iteration is judged against a fetchall interleaved with it, repetition by
            # repetition: the fetchall case runs minutes apart, and PostgreSQL's times move
            # between two levels from run to run (where two client threads and the server land).
            case("iter", key, peers("fastodbc", "pyodbc") + [ITER_BASELINE])
            case("fetchmany", key, peers("fastodbc", "pyodbc"))
            # Issue 18: to a pyarrow.Table, against the Arrow peers, fastodbc's own fetchall and
            # the floors, interleaved (the floors' close after a thread serves the rows'
            # overlapped bound only: not here). Issue 33: the backend's native Arrow clients
            # beside them: anchors, what a client without ODBC takes (bench/report_arrow.py).
            anchors = [{"peer": n} for n in profile.arrow_anchors]
            # The floors plan for typed columns, as the Arrow reader does (odbc-floor --typed).
            floors = [dict(p, typed=True) for p in floor_peers if not p.get("threaded")]
            case("arrow", key, [dict(p) for p in ARROW_PEERS] + anchors + floors)
        small = inner["small"]
        case("fetchall", "mixed_small", peers("fastodbc", "pyodbc", native), inner=small)
        case("iter", "mixed_small", peers("fastodbc", "pyodbc", native), inner=small)
        case("fetchone", "mixed_small", peers("fastodbc", "pyodbc", native), inner=small)
        # fetchmany memory must stay flat as the result grows: mid set vs the big mixed set.
        case("fetchmany", "mixed_mid", peers("fastodbc", "pyodbc"))
        # The drivers buffer a whole result unless told to stream it (the profile's streaming).
        assert profile.streaming is not None, f"{backend}: its fetch cases need a streaming option"
        stream = {"variant": profile.streaming.variant, "cs": base["cs"] + profile.streaming.attributes}
        stream.update({"autocommit": True} if profile.streaming.autocommit else {})
        for key in ("mixed_mid", "mixed"):
            case("fetchmany", key, peers("fastodbc", "pyodbc"), **stream)
        # fetch_record_batch's memory must stay flat as the result grows, as fetchmany's (with
        # the streaming options; batches of fetchmany's size, so both sets span whole batches).
        for key in ("mixed_mid", "mixed"):
            case("record_batch", key, [dict(p) for p in RECORD_BATCH_PEERS], batch_rows=RECORD_BATCH_ROWS, **stream)
        # pandas: fetch_df against read_sql over pyodbc; their values are compared once, untimed.
        case("df", "mixed", [dict(p) for p in DF_PEERS])
        ins = ["fastodbc", "pyodbc-fem", "pyodbc", "arrow-odbc", "turbodbc", "zodbc", native]
        ins += profile.more_insert_peers
        caps = profile.insert_caps.get(scale, {})
        ins_peers = [{"peer": p, "rows": min(rows["insert"], caps.get(p, rows["insert"]))} for p in ins]
        # Inserts go to a file of their own where the database is a file (never the datasets').
        ins_base = profile.connection(datasets.SQLITE_INSERT_PATH)
        insert_path = str(datasets.SQLITE_INSERT_PATH)
        case("insert", "", ins_peers, base=ins_base, expected_rows=None, sqlite_insert_path=insert_path)
        case("select1", "", peers("fastodbc", "pyodbc", native), inner=inner["select1"])
        case("connect", "", peers("fastodbc", "pyodbc", native), inner=inner["connect"])
        int10 = datasets.table_name("int10", scale)
        case(
            "describe",
            "",
            peers("fastodbc", "pyodbc", native),
            inner=inner["describe"],
            sql=f"SELECT * FROM {int10} WHERE 1 = 0",
        )
    cases += bulk.build_cases(scale, backends)
    cases += pooling.build_cases(scale, backends)
    cases += partitioning.build_cases(scale, backends)
    for i, c in enumerate(cases):
        c["id"] = i
    return cases


#: fastodbc's fetchall, run inside the iteration case (its worker runs this op, not the case's).
ITER_BASELINE = {"peer": "fastodbc", "op": "fetchall", "label": "fastodbc fetchall"}
#: The Arrow case's peers (bench/report_arrow.py names them by these labels): fastodbc's
#: fetch_arrow_table, the Arrow peers to a pyarrow.Table, and fastodbc's own fetchall; then the
#: backend's native Arrow clients (its arrow_anchors: "connectorx", "adbc").
ARROW_PEERS = (
    {"peer": "fastodbc", "label": "fastodbc arrow"},
    {"peer": "turbodbc-arrow"},
    {"peer": "arrow-odbc"},
    {"peer": "zodbc-arrow"},
    ITER_BASELINE,
)
#: fetch_record_batch iterated (bench/worker.py) and arrow-odbc's batches of the same size.
RECORD_BATCH_PEERS = (
    {"peer": "fastodbc", "label": "fastodbc record_batch"},
    {"peer": "arrow-odbc", "label": "arrow-odbc batches"},
)
RECORD_BATCH_ROWS = 10_000
DF_PEERS = (
    {"peer": "fastodbc", "label": "fastodbc fetch_df"},
    {"peer": "pyodbc", "label": "pandas read_sql"},
)


def peer_label(p: dict) -> str:
    if "label" in p:
        return p["label"]
    if p["peer"] == "floor":
        typed = " typed" if p.get("typed") else ""
        return f"{'threaded ' if p.get('threaded') else ''}floor {p['text']}/{p['rowset']}{typed}"
    return p["peer"]


# ---------------------------------------------------------------------------------------------
# Measurements


def run_worker(case: dict, p: dict) -> dict:
    spec = {k: v for k, v in case.items() if k not in ("peers",)}
    spec.update(p)
    python = PYTHON
    venv = PEER_VENVS.get(p["peer"])
    if venv is not None:
        python = str(venv / "bin" / "python")
        if not Path(python).exists():
            return {"error": f"not installed ({venv.relative_to(ROOT)} missing: see bench/setup.sh)"}
    try:
        proc = subprocess.run(
            [python, str(BENCH / "worker.py"), json.dumps(spec)],
            env=ab.worker_env(p, BASE_ROOT),
            capture_output=True,
            text=True,
            timeout=WORKER_TIMEOUT,
        )
    except subprocess.TimeoutExpired:
        return {"error": f"timeout after {WORKER_TIMEOUT} s"}
    lines = proc.stdout.strip().splitlines()
    try:
        return json.loads(lines[-1])
    except (IndexError, json.JSONDecodeError):
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
        return {"error": f"worker exit {proc.returncode}: " + " | ".join(tail)}


def run_floor(case: dict, p: dict) -> dict:
    """odbc-floor in its own process; its RSS peak comes from wait4 (the whole process)."""
    if not FLOOR.exists():
        return {"error": "odbc-floor not built (make bench builds it: bench/Cargo.toml, into target/)"}
    cmd = [str(FLOOR), "--connect", case["cs"], "--sql", case["sql"], "--text", p["text"]]
    cmd += ["--rowset-rows", str(p["rowset"]), "--repeat", "1"] + (["--threaded"] if p.get("threaded") else [])
    cmd += ["--typed"] if p.get("typed") else []
    proc = run_child(cmd, WORKER_TIMEOUT)
    out = proc.stdout
    if proc.returncode != 0:
        return {"error": f"odbc-floor exit {proc.returncode}: {proc.stderr[-300:]}"}
    try:
        doc = json.loads(out.strip().splitlines()[-1])
    except (IndexError, json.JSONDecodeError):
        return {"error": f"odbc-floor printed no JSON: {out[-200:]}"}
    first = doc.get("first_seconds") or [None]
    close = doc.get("close_seconds") or [None]
    return {
        "seconds": doc["seconds"][0],
        "first_seconds": first[0],
        "close_seconds": close[0],
        "rows": doc["rows"],
        "rss_before": None,
        "maxrss": proc.maxrss,
    }


#: The operations that return every row of the case's table (their row count is checked).
FETCH_OPS = ("fetchall", "iter", "fetchmany", "fetchone", "arrow", "record_batch", "df", "aio_lag", *partitioning.OPS)


def summarise(case: dict, label: str, reps: list[dict]) -> dict:
    ok = [r for r in reps if r.get("error") is None and r.get("seconds") is not None]
    errors = [r["error"] for r in reps if r.get("error")]
    s: dict[str, Any] = {"reps": reps, "n_ok": len(ok), "error": errors[0] if errors else None}
    # The bulk cases' checks (bench/bulk.py): a load or export that differed from its input.
    wrong = [r["wrong"] for r in ok if r.get("wrong")]
    if wrong:
        s["wrong"] = f"{len(wrong)} of {len(ok)} reps: {wrong[0]}"
    if ok:
        s["median_s"] = statistics.median(r["seconds"] for r in ok)
        s["min_s"] = min(r["seconds"] for r in ok)
        s["max_s"] = max(r["seconds"] for r in ok)
        firsts = [r["first_seconds"] for r in ok if r.get("first_seconds") is not None]
        if firsts:
            # odbc-floor: until its first block was in (see bench/floor).
            s["first_median_s"] = statistics.median(firsts)
        closes = [r["close_seconds"] for r in ok if r.get("close_seconds") is not None]
        if closes:
            # odbc-floor: closing the statement after the last fetch.
            s["close_median_s"] = statistics.median(closes)
        s["rows"] = ok[0]["rows"]
        s["maxrss_mb"] = statistics.median(r["maxrss"] for r in ok) / 2**20
        deltas = [r["maxrss"] - r["rss_before"] for r in ok if r.get("rss_before") is not None]
        s["rss_delta_mb"] = statistics.median(deltas) / 2**20 if deltas else None
        exp = case.get("expected_rows")
        if exp is not None and case["op"] in FETCH_OPS and s["rows"] != exp:
            s["error"] = f"fetched {s['rows']} rows, expected {exp}"
        metrics = summarise_metrics([r["metrics"] for r in ok if r.get("metrics")])
        if metrics:
            s["metrics"] = metrics
        # The Arrow case: the types of the table the peer returned (bench/worker.py, untimed).
        types = next((r["arrow_types"] for r in ok if r.get("arrow_types")), None)
        if types:
            s["arrow_types"] = types
    return s


def summarise_metrics(reps: list[dict]) -> dict[str, Any]:
    """The pool and asyncio cases' figures beside the time (bench/worker_pool.py): the median of
    each number over the repetitions, and ``<name>_worst`` for the maximal delays and latencies
    (the worst repetition's)."""
    out: dict[str, Any] = {}
    for key in sorted({k for r in reps for k in r}):
        values = [r[key] for r in reps if isinstance(r.get(key), (int, float)) and not isinstance(r.get(key), bool)]
        if not values:
            continue
        out[key] = statistics.median(values)
        if key.endswith(("lag_max_s", "latency_max_s")):
            out[f"{key}_worst"] = max(values)
    return out


#: Operations that take milliseconds per measurement: their ratios move most with load bursts
#: on a 2-core machine, and more repetitions cost little.
SHORT_OPS = ("select1", "connect", "describe")
SHORT_DATASETS = ("mixed_small",)
SHORT_REPS = 7
#: fetchall is where the fetch targets are judged; on int10, single repetitions of the same code
#: moved by 30% in full runs (page faults paid unevenly), and in some runs 2 of 5 fastodbc
#: repetitions ran at half speed, so its median takes seven.
FETCHALL_REPS = 7


#: The peers fetchall compares fastodbc with beyond pyodbc (its targets against them are by wide
#: margins, or only a bar for later work) run the first repetitions only, to keep `make bench`
#: near its time budget; fastodbc, pyodbc, the floors and the objects run all of them.
OTHER_PEER_REPS = 3
OTHER_PEERS = ("arrow-odbc", "turbodbc", "turbodbc-arrow", "zodbc", "zodbc-arrow", "sqlite3", "psycopg")


#: Iteration is judged against fetchall, measured in another case: with three repetitions each,
#: the ratio moved by 10% between runs of the same code.
ITER_REPS = 5
#: The Arrow and pandas cases judge ratios to peers in the same case (1.3x, 1.15x, 2x): five
#: repetitions, every judged peer all of them.
ARROW_REPS = 5


def case_reps(case: dict, reps: int) -> int:
    if case["op"] == "fetchall":
        reps = max(reps, FETCHALL_REPS)
    elif case["op"] == "iter":
        reps = max(reps, ITER_REPS)
    elif case["op"] in ("arrow", "df"):
        reps = max(reps, ARROW_REPS)
    elif case["op"] in bulk.OPS:
        return max(reps, bulk.REPS[case["op"]])
    elif case["op"] in pooling.OPS:
        return max(reps, pooling.REPS[case["op"]])
    elif case["op"] in partitioning.OPS:
        return max(reps, partitioning.REPS[case["op"]])
    short = case["op"] in SHORT_OPS or case["dataset"] in SHORT_DATASETS
    # SQLite's insert takes ~1 s a peer and its ratio sits near the 2x target, where 3-rep
    # medians moved by 20% between runs; PostgreSQL's (pyodbc's ~20 s a rep) keeps the default
    # (insert_short_reps).
    short = short or (case["op"] == "insert" and profiles.of(case).insert_short_reps)
    return max(reps, SHORT_REPS) if short else reps


def other_peer(case: dict, p: dict) -> bool:
    """A peer that runs the first OTHER_PEER_REPS repetitions only: fetchall's peers beyond
    pyodbc, and in the Arrow case zodbc-arrow and the native anchors (shown, not judged:
    bench/report_arrow.py)."""
    if case["op"] == "fetchall":
        return p["peer"] in OTHER_PEERS
    return case["op"] == "arrow" and p["peer"] in ("zodbc-arrow", *profiles.ARROW_ANCHORS)


def check_df(case: dict) -> dict:
    """Has a worker compare fetch_df's DataFrame with read_sql's (untimed, its own process):
    {"equal": bool, "detail": first difference or None, "rows": n} or {"error": ...}."""
    r = run_worker(dict(case, op="df-check"), {"peer": "fastodbc"})
    return {k: r[k] for k in ("equal", "detail", "rows", "error") if k in r}


def run_json_script(script: str) -> dict:
    """Runs ``bench/<script> --json FILE`` and returns what it wrote (or its error output)."""
    with tempfile.NamedTemporaryFile(suffix=".json") as f:
        proc = subprocess.run([PYTHON, str(BENCH / script), "--json", f.name], capture_output=True, text=True)
        try:
            return json.loads(Path(f.name).read_text())
        except ValueError:
            return {"error": (proc.stderr or proc.stdout)[-500:]}


def dump_objects(case: dict) -> dict | None:
    """Has a worker write the rows fastodbc returns for the case (untimed) for the "objects"
    peer (bench/worker.py: the Python object floor); returns an error result if it failed."""
    path = datasets.DATA_DIR / "objects.bin"
    case["objects_path"] = str(path)
    r = run_worker(dict(case, op="dump-objects"), {"peer": "objects"})
    # The dump (up to a few hundred MB) is written back to disk by the kernel's flusher ~30 s
    # later, on whichever core is free: in the middle of a later case's repetitions, where it
    # slows a client using both cores (fastodbc's read-ahead) more than one using one. Written
    # back now, before anything is timed.
    os.sync()
    if r.get("error") or r.get("rows") != case.get("expected_rows"):
        return {"error": r.get("error") or f"dumped {r.get('rows')} rows"}
    return None


def run_cases(cases: list[dict], reps: int, results: dict) -> None:
    for case in cases:
        labels = [peer_label(p) for p in case["peers"]]
        raw: dict[str, list[dict]] = {lb: [] for lb in labels}
        t0 = time.perf_counter()
        load0 = os.getloadavg()[0]
        dump_error = dump_objects(case) if "objects" in labels else None
        if case["op"] == "df":
            case["df_check"] = check_df(case)
        for rep in range(case_reps(case, reps)):
            order = case["peers"][rep % len(case["peers"]) :] + case["peers"][: rep % len(case["peers"])]
            for p in order:
                label = peer_label(p)
                if rep >= OTHER_PEER_REPS and other_peer(case, p):
                    continue
                if p["peer"] in PEER_VENVS and raw[label] and raw[label][0].get("error"):
                    # A peer of its own venv that failed once fails again (it aborts on the
                    # driver's types, or is not installed): its error is recorded once.
                    continue
                if p["peer"] == "floor":
                    r = run_floor(case, p)
                elif case["op"] == "export":
                    r = bulk.run_export(case, p, run_worker, WORKER_TIMEOUT)
                elif p["peer"] == "objects" and dump_error:
                    r = dump_error
                else:
                    r = run_worker(case, p)
                raw[label].append(r)
        if "objects_path" in case:
            Path(case.pop("objects_path")).unlink(missing_ok=True)
        summary = {lb: summarise(case, lb, raw[lb]) for lb in labels}
        entry = {k: v for k, v in case.items() if k not in ("cs", "pg_dsn", "peers")}
        entry["peers"] = labels
        entry["results"] = summary
        entry["wall_s"] = time.perf_counter() - t0
        # The host's load over the case (a shared machine: what the other users ran meanwhile).
        entry["loadavg"] = [load0, os.getloadavg()[0]]
        results["cases"].append(entry)
        log(report.case_line(entry))


# ---------------------------------------------------------------------------------------------
# Machine and versions


def snapshot_fastodbc() -> dict[str, Any]:
    """Copies python/fastodbc (with the built extension) and the installed fastodbc_bench (the
    instruments, bench/pyext) to bench/data/snapshot and points every worker at the copies
    (PYTHONPATH comes before the venv's site-packages): the whole run measures one build even if
    `make build` or `make bench-ext` replaces an extension meanwhile. The copies are compiled
    to bytecode, as pip compiles a wheel it installs: a timed child process (``fastodbc
    export``) would otherwise compile the package's sources at every start (~10 ms), since
    PYTHONDONTWRITEBYTECODE, set on these machines, keeps Python from caching them."""
    import compileall
    import hashlib
    import importlib.util

    src = ROOT / "python" / "fastodbc"
    dst_root = datasets.DATA_DIR / "snapshot"
    shutil.rmtree(dst_root, ignore_errors=True)
    shutil.copytree(src, dst_root / "fastodbc", ignore=shutil.ignore_patterns("__pycache__"))
    instruments = importlib.util.find_spec("fastodbc_bench")
    if instruments is None or not instruments.submodule_search_locations:
        raise SystemExit("bench: the benchmark's instruments are not installed (make bench-ext)")
    shutil.copytree(
        instruments.submodule_search_locations[0],
        dst_root / "fastodbc_bench",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    if not compileall.compile_dir(dst_root, quiet=1):
        raise SystemExit("bench: the snapshot of fastodbc could not be compiled to bytecode")
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(dst_root), os.environ.get("PYTHONPATH")]))
    so = sorted((dst_root / "fastodbc").glob("_native*.so"))
    if not so:
        raise SystemExit("bench: fastodbc's extension is not built (make build)")
    return {
        "fastodbc_so_sha256": hashlib.sha256(so[0].read_bytes()).hexdigest()[:16],
        "fastodbc_so_mtime": dt.datetime.fromtimestamp(so[0].stat().st_mtime, dt.timezone.utc).isoformat(
            timespec="seconds"
        ),
    }


def sh(cmd: list[str]) -> str:
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=30).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


class HostLoad:
    """What else the host did during the run: the load average when it started (other work on
    the machine) and the share of CPU time the hypervisor gave to others (steal, /proc/stat),
    which a 2-core VM on a busy host feels as a slower run."""

    def __init__(self) -> None:
        self.load = os.getloadavg()[0]
        self.start = self.cpu_times()

    @staticmethod
    def cpu_times() -> list[int]:
        return [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]

    def read(self) -> dict[str, float]:
        spent = [b - a for a, b in zip(self.start, self.cpu_times(), strict=True)]
        total = sum(spent) or 1
        steal = spent[7] if len(spent) > 7 else 0  # user nice system idle iowait irq softirq steal
        return {"load_at_start": round(self.load, 2), "steal_share": round(steal / total, 4)}


def machine_info(backends: list[str]) -> dict[str, Any]:
    from importlib.metadata import PackageNotFoundError, version

    # A VM may name only the vendor's line ("AMD EPYC"): family and model tell its generation.
    fields: dict[str, str] = {}
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        key, _, value = line.partition(":")
        if not line.strip():
            break
        fields.setdefault(key.strip(), value.strip())
    cpu = fields.get("model name", "")
    if "cpu family" in fields:
        cpu += f", family {fields['cpu family']} model {fields.get('model', '?')}"
    mem = Path("/proc/meminfo").read_text().splitlines()[0].split()[1]
    pkgs = {}
    for name in (
        "fastodbc",
        "pyodbc",
        "arrow-odbc",
        "pyarrow",
        "psycopg",
        "psycopg-binary",
        "psycopg-pool",
        "psutil",
        "PyMySQL",
        "connectorx",
        "adbc-driver-manager",
        "adbc-driver-sqlite",
        "adbc-driver-postgresql",
        "dask",
        "SQLAlchemy",
    ):
        try:
            pkgs[name] = version(name)
        except PackageNotFoundError:
            pkgs[name] = None
    # The peers of their own venvs: version, and the version of the Python or pyarrow beside it.
    versions = {
        "turbodbc": "import turbodbc, pyarrow; print(turbodbc.__version__, pyarrow.__version__)",
        "zodbc": "import importlib.metadata as m, platform; print(m.version('zodbc'), platform.python_version())",
    }
    for name, code in versions.items():
        out = sh([str(PEER_VENVS[name] / "bin" / "python"), "-c", code]).split()
        if len(out) == 2:
            pkgs[name], pkgs[f"{name}-beside"] = out
    import sqlite3

    info = {
        "nproc": os.cpu_count(),
        "cpu": cpu,
        "kernel": platform.release(),
        "os": sh(["sh", "-c", ". /etc/os-release && echo $PRETTY_NAME"]),
        "mem_gb": round(int(mem) / 2**20, 1),
        "python": platform.python_version(),
        "packages": pkgs,
        "stdlib_sqlite": sqlite3.sqlite_version,
        "debian": {
            p: sh(["dpkg-query", "-W", "-f=${Version}", p])
            for p in ("unixodbc", "odbc-postgresql", "libsqliteodbc", "postgresql-15", "odbc-mariadb")
        },
        "git": sh(["git", "-C", str(ROOT), "describe", "--always", "--dirty"]),
        "odbc_floor": FLOOR.exists(),
    }
    for profile in profiles.selected(backends):
        if profile.version_sql:
            try:
                info[f"{profile.name}_server"] = native_clients.query(profile.connection(), profile.version_sql)[0][0]
            except Exception as e:  # noqa: BLE001
                info[f"{profile.name}_server"] = f"unknown ({e})"
    info["odbc2parquet"] = sh([str(bulk.ODBC2PARQUET), "--version"]).removeprefix("odbc2parquet ") or None
    return info


# ---------------------------------------------------------------------------------------------


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scale", choices=sorted(CONFIG), default="quick")
    ap.add_argument("--reps", type=int, help="repetitions per case (default: per scale)")
    ap.add_argument(
        "--backend",
        action="append",
        choices=list(profiles.NAMES),
        help="default: all (MariaDB: the bulk, pool and parallel cases only)",
    )
    ap.add_argument("--only", action="append", help="run only cases whose '<backend> <dataset> <op>' contains this")
    ap.add_argument(
        "--peer",
        action="append",
        help="run only these peers (by name: fastodbc, pyodbc, ...); with --baseline, an A/B run of fastodbc alone",
    )
    ap.add_argument("--no-floor", action="store_true", help="skip the odbc-floor runs")
    ap.add_argument("--no-codec", action="store_true", help="skip the Python codec micro-benchmark")
    ap.add_argument("--no-instructions", action="store_true", help="skip the callgrind instruction counts")
    ap.add_argument(
        "--md",
        choices=["auto", "yes", "no"],
        default="auto",
        help="rewrite the generated section of BENCHMARKS.md (auto: full-scale runs only)",
    )
    ap.add_argument("--tag", default="", help="suffix for the result file names")
    ap.add_argument(
        "--baseline",
        metavar="DIR",
        help="also run the fastodbc built in checkout DIR, interleaved, as '<peer> @base' (bench/ab.py)",
    )
    args = ap.parse_args()
    backends = args.backend or list(profiles.NAMES)
    reps = args.reps or CONFIG[args.scale]["reps"]
    os.environ.setdefault("ODBCSYSINI", str(ROOT / "build" / "odbc"))
    # SIGTERM (make interrupted) must still stop the cluster: turn it into SystemExit.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    started = time.time()
    host_load = HostLoad()
    command = " ".join(["python", "bench/run.py", *sys.argv[1:]])
    results: dict[str, Any] = {"cases": []}
    snap = snapshot_fastodbc()
    if args.baseline:
        global BASE_ROOT
        BASE_ROOT = ab.snapshot(Path(args.baseline).resolve(), datasets.DATA_DIR)
    with contextlib.ExitStack() as servers:
        for profile in profiles.selected(backends):
            servers.enter_context(Server(profile))
        cases = build_cases(args.scale, backends, floor=not args.no_floor)
        if args.only:
            cases = [c for c in cases if any(o in f"{c['backend']} {c['dataset']} {c['op']}" for o in args.only)]
        if args.peer:
            for c in cases:
                c["peers"] = [p for p in c["peers"] if p["peer"] in args.peer]
            cases = [c for c in cases if c["peers"]]
        if BASE_ROOT is not None:
            ab.add_base_peers(cases, peer_label)
        # Only what the cases selected read: the pool and asyncio cases need no dataset, the
        # ingest cases only their Parquet files and tables (MariaDB's datasets: partitioning.prepare).
        skip = (*pooling.OPS, "ingest", "ingest_parquet", "parallel_to_sql")
        on = {c["backend"] for c in cases if c["op"] not in skip}
        for profile in profiles.selected(sorted(on)):
            if profile.fetch_cases:
                datasets.load(profile, args.scale, log=log)
        bulk_on = sorted({c["backend"] for c in cases if c["op"] in bulk.OPS})
        if bulk_on:
            bulk.prepare(args.scale, bulk_on, log=log)
        pooling.prepare(args.scale, sorted({c["backend"] for c in cases if c["op"] in pooling.OPS}), log=log)
        partitioning.prepare(args.scale, cases, log=log)
        results["meta"] = {
            "scale": args.scale,
            "reps": reps,
            "short_reps": max(reps, SHORT_REPS),
            "fetchall_reps": max(reps, FETCHALL_REPS),
            "other_peer_reps": OTHER_PEER_REPS,
            "iter_reps": max(reps, ITER_REPS),
            "command": command,
            "started_utc": dt.datetime.fromtimestamp(started, dt.timezone.utc).isoformat(timespec="seconds"),
            "rows": datasets.SCALES[args.scale],
            "config": recorded_config(args.scale),
            "machine": dict(machine_info(backends), **snap),
            "baseline": args.baseline,
        }
        log(f"bench: {len(cases)} cases x {reps} reps ({args.scale})")
        try:
            run_cases(cases, reps, results)
        except KeyboardInterrupt:
            log("bench: interrupted; writing what was measured")
            results["meta"]["interrupted"] = True
    if not args.no_codec:
        log("bench: Python codec micro-benchmark")
        results["codec_py"] = run_json_script("codec_py.py")
    if not args.no_instructions:
        log("bench: instruction counts (callgrind)")
        results["instructions"] = run_json_script("instructions.py")
    results["meta"]["duration_s"] = round(time.time() - started, 1)
    results["meta"]["host_load"] = host_load.read()
    write_results(results, args)
    return 0


def write_results(results: dict, args: argparse.Namespace) -> None:
    RESULTS.mkdir(parents=True, exist_ok=True)
    stamp = dt.datetime.now(dt.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    name = f"{stamp}-{args.scale}{'-' + args.tag if args.tag else ''}"
    meta = results["meta"]
    meta["results_file"] = f"bench/results/{name}.json"
    # The measurements first: a report that fails to render must not cost the run.
    write_json(RESULTS / f"{name}.json", results)
    shutil.copyfile(RESULTS / f"{name}.json", RESULTS / "latest.json")
    if args.baseline:
        (RESULTS / f"{name}-ab.md").write_text(ab.markdown(results, args.baseline))
        log(f"bench: the A/B table in bench/results/{name}-ab.md")
    # The report's tables are ratios to the peers: a run of some peers only has none.
    if not args.peer:
        (RESULTS / f"{name}.md").write_text(report.render(results))
        shutil.copyfile(RESULTS / f"{name}.md", RESULTS / "latest.md")
    log(f"bench: results in bench/results/{name}.json (and latest.json), {meta['duration_s']} s")
    if not args.baseline:
        # An A/B run's twins are in every table and its peers may be fastodbc's alone: it is
        # neither a line of the history nor the published run.
        log(f"bench: bench/history.md += {history.append(results)}")
    partial = args.only or args.backend or args.peer or args.baseline
    complete = args.scale == "full" and not partial and not meta.get("interrupted")
    if complete:
        # The kept copy names itself: the stamped file it was copied from may be deleted.
        meta["results_file"] = f"bench/results/{LATEST_FULL}.json"
        write_json(RESULTS / f"{LATEST_FULL}.json", results)
        (RESULTS / f"{LATEST_FULL}.md").write_text(report.render(results))
        log(f"bench: kept as bench/results/{LATEST_FULL}.json / .md")
    if args.md == "yes" or (args.md == "auto" and complete):
        report.update_benchmarks_md(results)
        log("bench: BENCHMARKS.md updated")
    else:
        log("bench: BENCHMARKS.md keeps the last full run (this run: bench/results/latest.md)")


def write_json(path: Path, results: dict) -> None:
    path.write_text(json.dumps(results, indent=1, default=str) + "\n")


if __name__ == "__main__":
    sys.exit(main())
