"""bench/history.py's line per run, and what bench/run.py writes where at the end of a run.

The runs are a complete full run and cuts of it: bench/tests/full_run.json, the fetchall and
iteration cases of the run of 2026-11-26 (bench/results/latest-full.json while results were
committed) with fastodbc's and pyodbc's figures, its other cases and peers left out.
"""

from __future__ import annotations

import argparse
import copy
import json
import re

import pytest
from bench_modules import BENCH, load

run = load("run")
history = run.history

LATEST_FULL = json.loads((BENCH / "tests" / "full_run.json").read_text())


def with_cases(results: dict, keep) -> dict:
    out = copy.deepcopy(results)
    out["cases"] = [c for c in out["cases"] if keep(c)]
    return out


def test_speedups_are_geometric_means_over_the_large_datasets() -> None:
    speedups = []
    for c in LATEST_FULL["cases"]:
        if c["backend"] == "sqlite" and c["op"] == "fetchall" and c["dataset"] in history.report.BIG:
            r = c["results"]
            speedups.append(r["pyodbc"]["median_s"] / r["fastodbc"]["median_s"])
    assert len(speedups) == 5
    product = speedups[0] * speedups[1] * speedups[2] * speedups[3] * speedups[4]
    assert history.geomean_speedup(LATEST_FULL, "sqlite", "fetchall") == f"{product ** (1 / 5):.2f}x"


def test_a_partial_run_says_how_many_datasets_it_measured() -> None:
    two = with_cases(LATEST_FULL, lambda c: c["dataset"] in ("int10", "mixed") and c["op"] == "fetchall")
    assert history.geomean_speedup(two, "postgresql", "fetchall").endswith("x (2/5)")
    assert history.geomean_speedup(two, "postgresql", "iter") == "-"


def test_line_names_the_run() -> None:
    cells = [c.strip() for c in history.line(LATEST_FULL).strip("|").split("|")]
    # Whichever run latest-full holds: its start in UTC with a Z, its scale, its commit.
    meta = LATEST_FULL["meta"]
    assert meta["started_utc"].endswith("+00:00")
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", cells[0])
    assert cells[0] == meta["started_utc"].replace("+00:00", "Z")
    assert cells[1:3] == ["full", f"`{meta['machine']['git']}`"]
    assert re.fullmatch(r"`[0-9a-f]{7,40}`", cells[2])
    assert len(cells) == 3 + len(history.HEADLINE) + 3
    assert cells[-1] == ""  # a complete run: no options beyond --scale
    met, measured = map(int, cells[-3].split("/"))
    assert 0 < met <= measured


@pytest.mark.parametrize(
    ("command", "interrupted", "cell"),
    [
        ("python bench/run.py --scale full", False, ""),
        ("python bench/run.py --scale=quick --only mixed fetchall --reps 5", False, "`--only mixed fetchall --reps 5`"),
        ("python bench/run.py --scale full", True, "interrupted"),
    ],
)
def test_options_are_the_command_beyond_its_scale(command: str, interrupted: bool, cell: str) -> None:
    assert history.options({"command": command, "interrupted": interrupted}) == cell


def test_append_writes_the_header_once(tmp_path) -> None:
    path = tmp_path / "history.md"
    first = history.append(LATEST_FULL, path)
    second = history.append(LATEST_FULL, path)
    assert path.read_text() == history.HEADER + first + "\n" + second + "\n"


def finish(tmp_path, monkeypatch, results: dict, **args) -> None:
    """bench/run.py's end of a run, writing into tmp_path."""
    monkeypatch.setattr(run, "RESULTS", tmp_path / "results")
    monkeypatch.setattr(history, "HISTORY_MD", tmp_path / "history.md")
    monkeypatch.setattr(run.report, "BENCHMARKS_MD", tmp_path / "BENCHMARKS.md")
    options = {"scale": results["meta"]["scale"], "tag": "", "only": None, "backend": None, "md": "auto"}
    options.update(peer=None, baseline=None)
    run.write_results(copy.deepcopy(results), argparse.Namespace(**dict(options, **args)))


def test_a_complete_full_run_is_kept_as_latest_full(tmp_path, monkeypatch) -> None:
    finish(tmp_path, monkeypatch, LATEST_FULL)
    names = sorted(p.name for p in (tmp_path / "results").iterdir())
    raw = [n for n in names if not n.startswith("latest")]
    assert len(raw) == 2 and raw[0].endswith("-full.json") and raw[1].endswith("-full.md")
    assert names[-4:] == ["latest-full.json", "latest-full.md", "latest.json", "latest.md"]
    kept = json.loads((tmp_path / "results" / "latest-full.json").read_text())
    assert kept["meta"]["results_file"] == "bench/results/latest-full.json"
    assert kept["cases"] == LATEST_FULL["cases"]
    assert "results: `bench/results/latest-full.json`" in (tmp_path / "results" / "latest-full.md").read_text()
    assert "results: `bench/results/latest-full.json`" in (tmp_path / "BENCHMARKS.md").read_text()
    assert (tmp_path / "history.md").read_text().endswith(history.line(LATEST_FULL) + "\n")


@pytest.mark.parametrize("partial", [{"scale": "quick"}, {"only": ["int10"]}, {"backend": ["sqlite"]}])
def test_other_runs_keep_the_latest_full_run(tmp_path, monkeypatch, partial: dict) -> None:
    results = copy.deepcopy(LATEST_FULL)
    results["meta"]["scale"] = partial.get("scale", "full")
    finish(tmp_path, monkeypatch, results, **partial)
    names = {p.name for p in (tmp_path / "results").iterdir()}
    assert "latest-full.json" not in names and "latest.json" in names
    assert not (tmp_path / "BENCHMARKS.md").exists()
    assert len((tmp_path / "history.md").read_text().splitlines()) == history.HEADER.count("\n") + 1


def test_benchmarks_md_shows_the_last_complete_full_runs_only(tmp_path, monkeypatch) -> None:
    # A dirty tree, a run of a few cases, a quick run: none of them compares with a full run.
    path = tmp_path / "history.md"
    path.write_text(
        history.HEADER
        + "| 2026-12-01T10:00:00Z | full | `aaaaaaa` | 1.40x | 1.41x | 1.60x | 1.61x | 7/13 | 2,000 s |  |\n"
        + "| 2026-12-01T11:00:00Z | full | `bbbbbbb-dirty` | 1.90x | 1.91x | 1.90x | 1.91x | 9/13 | 2,000 s |  |\n"
        + "| 2026-12-01T12:00:00Z | full | `ccccccc` | - | - | - | - | 1/1 | 80 s | `--only insert` |\n"
        + "| 2026-12-01T13:00:00Z | quick | `ddddddd` | 1.30x | 1.31x | 1.50x | 1.51x | 6/13 | 300 s |  |\n"
        + "| 2026-12-02T10:00:00Z | full | `eeeeeee` | 1.42x | 1.43x | 1.62x | 1.63x | 8/13 | 2,100 s |  |\n"
    )
    table = history.recent_table(path).splitlines()
    assert table[2:] == [
        "| 2026-12-01T10:00:00Z | `aaaaaaa` | 1.40x | 1.41x | 1.60x | 1.61x | 7/13 | 2,000 s |",
        "| 2026-12-02T10:00:00Z | `eeeeeee` | 1.42x | 1.43x | 1.62x | 1.63x | 8/13 | 2,100 s |",
    ]
    assert history.recent_table(path, last=1).splitlines()[2:] == table[3:]
    monkeypatch.setattr(history, "HISTORY_MD", path)
    assert "\n".join(table) in run.report.summary(LATEST_FULL)


def test_the_host_s_load_is_named_where_the_run_recorded_it() -> None:
    results = copy.deepcopy(LATEST_FULL)
    results["meta"]["host_load"] = {"load_at_start": 0.31, "steal_share": 0.0412}
    assert "load 0.31 at the start, 4.1% of CPU time taken by the host (steal)" in run.report.render(results)
    load = run.HostLoad().read()
    assert set(load) == {"load_at_start", "steal_share"} and 0 <= load["steal_share"] <= 1
