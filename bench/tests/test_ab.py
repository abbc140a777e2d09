"""bench/ab.py: the twin peers of an A/B run, their environment, and the table of ratios; and
what bench/run.py writes at the end of an A/B run (the table; no history line, no published run).

The run is bench/tests/full_run.json with a twin result made for each fastodbc result.
"""

from __future__ import annotations

import copy
import json
import statistics

import pytest
from bench_modules import load
from test_history import LATEST_FULL, finish

ab = load("ab")
run = load("run")


def with_twins(results: dict, factor_of) -> dict:
    """``results`` with a ``fastodbc @base`` result per case: fastodbc's median times
    ``factor_of(case)``."""
    out = copy.deepcopy(results)
    for c in out["cases"]:
        mine = c["results"].get("fastodbc")
        if mine is None:
            continue
        twin = dict(mine, median_s=mine["median_s"] * factor_of(c))
        c["results"]["fastodbc" + ab.SUFFIX] = twin
        c["peers"] = [*c["peers"], "fastodbc" + ab.SUFFIX]
    return out


def test_each_fastodbc_peer_gets_a_base_twin_but_export() -> None:
    cases = [
        {
            "op": "fetchall",
            "peers": [{"peer": "fastodbc"}, {"peer": "pyodbc"}, {"peer": "fastodbc", "label": "fastodbc wide"}],
        },
        {"op": "export", "peers": [{"peer": "fastodbc"}, {"peer": "odbc2parquet"}]},
    ]
    ab.add_base_peers(cases, run.peer_label)
    labels = [[run.peer_label(p) for p in c["peers"]] for c in cases]
    assert labels[0] == ["fastodbc", "pyodbc", "fastodbc wide", "fastodbc @base", "fastodbc wide @base"]
    assert labels[1] == ["fastodbc", "odbc2parquet"]
    assert [p.get("base", False) for p in cases[0]["peers"]] == [False, False, False, True, True]


def test_a_base_worker_imports_the_base_copy_first(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("PYTHONPATH", "/snapshot")
    assert ab.worker_env({"peer": "fastodbc"}, tmp_path) is None
    assert ab.worker_env({"peer": "fastodbc", "base": True}, None) is None
    env = ab.worker_env({"peer": "fastodbc", "base": True}, tmp_path)
    assert env is not None and env["PYTHONPATH"].split(":") == [str(tmp_path), "/snapshot"]


def test_the_snapshot_wants_a_built_extension(tmp_path) -> None:
    (tmp_path / "base" / "python" / "fastodbc").mkdir(parents=True)
    (tmp_path / "base" / "python" / "fastodbc" / "__init__.py").write_text("X = 1\n")
    with pytest.raises(SystemExit, match="no built extension"):
        ab.snapshot(tmp_path / "base", tmp_path / "data")
    (tmp_path / "base" / "python" / "fastodbc" / "_native.abi3.so").write_bytes(b"")
    root = ab.snapshot(tmp_path / "base", tmp_path / "data")
    assert (root / "fastodbc" / "__init__.py").read_text() == "X = 1\n"


def test_ratios_are_new_over_base_with_geometric_means_per_op() -> None:
    factors = {"fetchall": 1.25, "iterate": 0.8}
    results = with_twins(LATEST_FULL, lambda c: factors.get(c["op"], 1.0))
    rows = ab.comparison(results)
    assert rows and all(r["label"] == "fastodbc" for r in rows)
    for r in rows:
        assert r["ratio"] == pytest.approx(1 / factors.get(r["op"], 1.0))
    table = ab.markdown(results, "../base")
    for op in {r["op"] for r in rows}:
        n = sum(r["op"] == op for r in rows)
        gm = statistics.geometric_mean([1 / factors.get(op, 1.0)] * n)
        assert f"| {op} | {n} | {gm:.3f} |" in table


def test_a_case_without_its_twin_is_left_out() -> None:
    results = with_twins(LATEST_FULL, lambda c: 1.0)
    first = results["cases"][0]
    del first["results"]["fastodbc" + ab.SUFFIX]
    rows = ab.comparison(results)
    assert len(rows) == sum("fastodbc" in c["results"] for c in LATEST_FULL["cases"]) - 1


def test_an_ab_run_writes_its_table_and_neither_history_nor_the_published_run(tmp_path, monkeypatch) -> None:
    results = with_twins(LATEST_FULL, lambda c: 1.1)
    finish(tmp_path, monkeypatch, results, baseline="../base", peer=["fastodbc"])
    names = {p.name for p in (tmp_path / "results").iterdir()}
    (table,) = [n for n in names if n.endswith("-ab.md")]
    assert "| fastodbc @base" not in (tmp_path / "results" / table).read_text()
    assert "latest-full.json" not in names and not (tmp_path / "BENCHMARKS.md").exists()
    assert not (tmp_path / "history.md").exists()
    kept = json.loads((tmp_path / "results" / "latest.json").read_text())
    assert kept["cases"][0]["results"]["fastodbc @base"]["median_s"] > 0
