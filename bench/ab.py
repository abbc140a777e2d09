"""A/B runs: fastodbc against an earlier build of itself, in the same run on the same data.

``bench/run.py --baseline DIR`` takes DIR/python/fastodbc (a checkout of another commit with
its extension built: ``git worktree add ../base <commit> && make -C ../base build``), copies it
beside the run's own snapshot, and gives every case a second fastodbc peer for each of its
fastodbc peers, labelled ``<label> @base``, whose worker imports the copy. The repetitions of
both interleave (``run_cases`` rotates the peers), so a loaded host slows both alike: the
ratio of their medians is what a change did, which two runs at different times cannot show.

The export cases keep their single fastodbc (the CLI runs from the venv's entry point).
"""

from __future__ import annotations

import compileall
import os
import shutil
import statistics
from collections.abc import Callable
from pathlib import Path
from typing import Any

SUFFIX = " @base"


def snapshot(base: Path, data_dir: Path) -> Path:
    """Copies ``base/python/fastodbc`` (with its built extension) to ``data_dir/snapshot-base``
    and returns the directory a base worker puts first on its PYTHONPATH."""
    src = base / "python" / "fastodbc"
    if not sorted(src.glob("_native*.so")):
        raise SystemExit(f"bench: {src} has no built extension (make -C {base} build)")
    root = data_dir / "snapshot-base"
    shutil.rmtree(root, ignore_errors=True)
    shutil.copytree(src, root / "fastodbc", ignore=shutil.ignore_patterns("__pycache__"))
    if not compileall.compile_dir(root, quiet=1):
        raise SystemExit("bench: the baseline's snapshot could not be compiled to bytecode")
    return root


def add_base_peers(cases: list[dict], peer_label: Callable[[dict], str]) -> None:
    """Gives each case a base twin of each fastodbc peer (not the export cases: see above);
    ``peer_label`` names a peer's results (run.py's)."""
    for case in cases:
        if case["op"] == "export":
            continue
        twins = [dict(p, base=True, label=peer_label(p) + SUFFIX) for p in case["peers"] if p["peer"] == "fastodbc"]
        case["peers"] = case["peers"] + twins


def worker_env(p: dict, base_root: Path | None) -> dict[str, str] | None:
    """The environment of a base peer's worker: the base copy first on PYTHONPATH (the run's
    own snapshot stays behind it for the benchmark's instruments). None: inherit."""
    if not p.get("base") or base_root is None:
        return None
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(base_root), env.get("PYTHONPATH")]))
    return env


def comparison(results: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per fastodbc peer of each case that has its base twin: both medians and their
    ratio (new / base: below 1 is faster than the base)."""
    rows = []
    for c in results.get("cases", []):
        res = c.get("results", {})
        for label in c.get("peers", []):
            twin = res.get(label + SUFFIX)
            mine = res.get(label)
            if label.endswith(SUFFIX) or twin is None or mine is None:
                continue
            new, old = mine.get("median_s"), twin.get("median_s")
            rows.append(
                {
                    "backend": c.get("backend"),
                    "dataset": c.get("dataset"),
                    "op": c.get("op"),
                    "variant": c.get("variant", ""),
                    "label": label,
                    "new_s": new,
                    "base_s": old,
                    "ratio": new / old if new and old else None,
                }
            )
    return rows


def markdown(results: dict[str, Any], base_name: str) -> str:
    """The comparison as a Markdown table, with the geometric mean of the ratios by op."""
    rows = comparison(results)
    lines = [
        f"fastodbc (this build) against `{base_name}` in the same run: medians, ratio new / base",
        "",
        "| backend | case | peer | new | base | new / base |",
        "|---|---|---|---|---|---|",
    ]
    for r in rows:
        ratio = f"{r['ratio']:.3f}" if r["ratio"] else "-"
        new = f"{r['new_s']:.4f} s" if r["new_s"] else "-"
        old = f"{r['base_s']:.4f} s" if r["base_s"] else "-"
        case = " ".join(filter(None, [r["dataset"], r["op"], r["variant"]]))
        lines.append(f"| {r['backend']} | {case} | {r['label']} | {new} | {old} | {ratio} |")
    by_op: dict[str, list[float]] = {}
    for r in rows:
        if r["ratio"]:
            by_op.setdefault(r["op"], []).append(r["ratio"])
    if by_op:
        lines += ["", "| op | cases | geometric mean new / base | range |", "|---|---|---|---|"]
        for op, ratios in sorted(by_op.items()):
            gm = statistics.geometric_mean(ratios)
            lines.append(f"| {op} | {len(ratios)} | {gm:.3f} | {min(ratios):.3f}-{max(ratios):.3f} |")
    return "\n".join(lines) + "\n"
