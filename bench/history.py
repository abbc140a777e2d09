"""The benchmark's history: one line per run of bench/run.py in bench/history.md.

bench/run.py appends the line of every run it finishes (full and quick); the results of a run
(bench/results/<stamp>-<scale>.json, latest.json, latest-full.json) are not committed: this line
and BENCHMARKS.md's tables are what git keeps of a run. Directly:

    python bench/history.py RESULTS.json...   # append the lines of these runs, oldest first
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

import report  # noqa: E402 - bench/ is not a package

HISTORY_MD = BENCH / "history.md"

#: (column heading, backend, operation) of the headline speedups.
HEADLINE = (
    ("SQLite fetchall", "sqlite", "fetchall"),
    ("SQLite iteration", "sqlite", "iter"),
    ("PostgreSQL fetchall", "postgresql", "fetchall"),
    ("PostgreSQL iteration", "postgresql", "iter"),
)

HEADER = f"""# Benchmark history

One line per run of `bench/run.py` (`make bench`, `make bench-quick`, and runs of a few cases),
appended by the run itself (`bench/history.py`). The speedups are pyodbc's time / fastodbc's in
the same case of the same run, geometric means over the {len(report.BIG)} large datasets
({", ".join(report.BIG)}); "(n/{len(report.BIG)})" where the run measured fewer. Targets: the
targets of issue 3 met (met where reachable included) / those measured, by today's
bench/report.py. Options: the command's options beyond `--scale` (a run of a few cases, or
`--tag`). Times vary by up to ~30% between runs on the shared machine, and hosts changed
(BENCHMARKS.md names them): compare runs of one day.

Runs write their results to `bench/results/` (git-ignored; the last full run's are
`latest-full.md` and `latest-full.json` there); BENCHMARKS.md has its tables. Results once
committed are in git history: `git log --diff-filter=D -- bench/results`. A/B runs
(`--baseline`: this build against another, docs/benchmarks/method.md) write their own table
(`bench/results/<name>-ab.md`) and no line here.

| run (UTC) | scale | git | {" | ".join(h for h, _, _ in HEADLINE)} | targets | duration | options |
|---|---|---|{"---:|" * len(HEADLINE)}---:|---:|---|
"""


def geomean_speedup(results: dict, backend: str, op: str) -> str:
    """pyodbc / fastodbc, the geometric mean over the large datasets the run measured."""
    speedups = []
    for ds in report.BIG:
        x = report.ratio(report.find(results, backend, ds, op), "fastodbc")
        if x:
            speedups.append(1 / x)
    if not speedups:
        return "-"
    mean = math.exp(sum(math.log(s) for s in speedups) / len(speedups))
    partial = f" ({len(speedups)}/{len(report.BIG)})" if len(speedups) < len(report.BIG) else ""
    return f"{mean:.2f}x{partial}"


def targets_met(results: dict) -> str:
    verdicts = [v for _, _, v in report.targets(results) if v not in ("not measured", "not applicable yet")]
    return f"{sum(v.startswith('met') for v in verdicts)}/{len(verdicts)}" if verdicts else "-"


def options(meta: dict) -> str:
    """The command's options beyond --scale: empty for a complete run. (The command is its words
    joined by spaces, as bench/run.py records it.)"""
    words = meta.get("command", "").split()[2:]
    rest, skip = [], False
    for w in words:
        if skip:
            skip = False
        elif w == "--scale":
            skip = True
        elif not w.startswith("--scale="):
            rest.append(w)
    cell = f"`{' '.join(rest)}`" if rest else ""
    return f"{cell} interrupted".strip() if meta.get("interrupted") else cell


def line(results: dict) -> str:
    """The history line of a run."""
    meta = results["meta"]
    started = meta.get("started_utc", "?").replace("+00:00", "Z")
    git = meta.get("machine", {}).get("git", "?")
    duration = meta.get("duration_s")
    cells = [
        started,
        meta.get("scale", "?"),
        f"`{git}`",
        *(geomean_speedup(results, b, op) for _, b, op in HEADLINE),
        targets_met(results),
        "-" if duration is None else f"{float(duration):,.0f} s",
        options(meta),
    ]
    return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"


def append(results: dict, path: Path | None = None) -> str:
    """Appends the run's line to the history (its header first where the file is new); returns it."""
    text = line(results)
    with (path or HISTORY_MD).open("a") as f:
        if f.tell() == 0:
            f.write(HEADER)
        f.write(text + "\n")
    return text


def complete_full_runs(text: str, last: int = 8) -> list[list[str]]:
    """The cells of the last ``last`` complete full runs in a history (full scale, no options,
    a clean tree): the runs whose headline ratios compare."""
    runs = []
    for row in text.splitlines():
        cells = [c.strip() for c in row.strip().strip("|").split("|")]
        if len(cells) != 5 + len(HEADLINE) + 1 or cells[1] != "full" or cells[-1]:
            continue
        if cells[2].endswith("-dirty`") or cells[2] in ("git", "---"):
            continue
        runs.append(cells)
    return runs[-last:]


def recent_table(path: Path | None = None, last: int = 8) -> str:
    """A short table of the headline ratios of the last complete full runs, for BENCHMARKS.md:
    a regression shows as a drop in a column."""
    path = path or HISTORY_MD
    runs = complete_full_runs(path.read_text() if path.exists() else "", last)
    if not runs:
        return ""
    head = ["run (UTC)", "git", *(h for h, _, _ in HEADLINE), "targets", "duration"]
    lines = ["| " + " | ".join(head) + " |", "|---|---|" + "---:|" * (len(HEADLINE) + 2)]
    for cells in runs:
        lines.append("| " + " | ".join([cells[0], cells[2], *cells[3:-1]]) + " |")
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", nargs="+", type=Path, help="results JSON files of bench/run.py, oldest first")
    ap.add_argument("--history", type=Path, default=HISTORY_MD)
    args = ap.parse_args()
    for path in args.results:
        print(append(json.loads(path.read_text()), args.history))
    return 0


if __name__ == "__main__":
    sys.exit(main())
