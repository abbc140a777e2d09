"""Instruction counts of fastodbc's text decoders under callgrind, and the regression gate.

For every codec (utf16, utf8) and text category, target/release/codec-bench (crate bench/codec)
runs under ``valgrind --tool=callgrind`` twice, with 0 and with N iterations; the difference of
the two totals divided by N is the number of instructions (Ir) per decoded value. Instruction
counts do not depend on machine load, so the gate holds on a noisy 2-core box.

    python bench/instructions.py            # print the table
    python bench/instructions.py --check    # also compare with bench/baseline/instructions.json;
                                            # exit 1 if any case is >10% above its baseline
    python bench/instructions.py --update   # rewrite the baseline (after an intended change)

``make bench-check`` builds codec-bench and runs ``--check``.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BINARY = ROOT / "target" / "release" / "codec-bench"
BASELINE = ROOT / "bench" / "baseline" / "instructions.json"
ITERATIONS = 2000
THRESHOLD = 0.10
CODECS = ("utf16", "utf8")


def callgrind_ir(codec: str, category: str, iterations: int) -> int:
    proc = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"]
        + [str(BINARY), codec, category, str(iterations)],
        capture_output=True,
        text=True,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"codec-bench {codec} {category} {iterations} failed:\n{proc.stdout}{proc.stderr}")
    m = re.search(r"Collected : (\d+)", proc.stderr)
    if not m:
        raise RuntimeError(f"no 'Collected' line in callgrind output:\n{proc.stderr}")
    return int(m.group(1))


def measure() -> dict[str, dict[str, float]]:
    """``{codec: {category: Ir per value}}``."""
    if not BINARY.exists():
        raise SystemExit(f"instructions: {BINARY} is missing (cargo build --release -p codec-bench)")
    if not shutil.which("valgrind"):
        raise SystemExit("instructions: valgrind is not installed (make deps)")
    categories = subprocess.run([str(BINARY), "--list"], capture_output=True, text=True, check=True).stdout.split()
    jobs = [(c, cat, n) for c in CODECS for cat in categories for n in (0, ITERATIONS)]
    with ThreadPoolExecutor(max_workers=2) as pool:
        irs = list(pool.map(lambda j: callgrind_ir(*j), jobs))
    got = dict(zip(jobs, irs))
    return {
        c: {cat: round((got[(c, cat, ITERATIONS)] - got[(c, cat, 0)]) / ITERATIONS, 1) for cat in categories}
        for c in CODECS
    }


def compare(current: dict, baseline: dict | None) -> tuple[list[list[str]], list[str]]:
    rows, failures = [], []
    for codec, cats in current.items():
        for cat, ir in cats.items():
            base = (baseline or {}).get(codec, {}).get(cat)
            if base:
                change = (ir - base) / base
                verdict = "REGRESSION" if change > THRESHOLD else "ok"
                if change > THRESHOLD:
                    failures.append(f"{codec} {cat}: {ir:.0f} Ir/value vs baseline {base:.0f} ({change:+.1%})")
                rows.append([codec, cat, f"{ir:.0f}", f"{base:.0f}", f"{change:+.1%}", verdict])
            else:
                rows.append([codec, cat, f"{ir:.0f}", "-", "-", "no baseline"])
    return rows, failures


def markdown_table(rows: list[list[str]]) -> str:
    head = ["codec", "category", "Ir/value", "baseline", "change", "verdict"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--check", action="store_true", help=f"fail on a >{THRESHOLD:.0%} regression vs the baseline")
    g.add_argument("--update", action="store_true", help="write the current counts as the baseline")
    ap.add_argument("--json", type=Path, help="also write the counts (and comparison) to this file")
    args = ap.parse_args()
    current = measure()
    baseline = json.loads(BASELINE.read_text())["ir_per_value"] if BASELINE.exists() else None
    rows, failures = compare(current, baseline)
    print(markdown_table(rows))
    if args.json:
        args.json.write_text(json.dumps({"ir_per_value": current, "baseline": baseline, "table": rows}, indent=2))
    if args.update:
        BASELINE.parent.mkdir(parents=True, exist_ok=True)
        doc = {
            "what": "callgrind Ir per decoded value of target/release/codec-bench (bench/instructions.py)",
            "iterations": ITERATIONS,
            "threshold": THRESHOLD,
            "ir_per_value": current,
        }
        BASELINE.write_text(json.dumps(doc, indent=2) + "\n")
        print(f"instructions: baseline written to {BASELINE.relative_to(ROOT)}")
    if args.check:
        if baseline is None:
            print(f"instructions: no baseline at {BASELINE.relative_to(ROOT)} (run with --update)", file=sys.stderr)
            return 1
        if failures:
            print("instructions: regression over the 10% threshold:", *failures, sep="\n  ", file=sys.stderr)
            return 1
        print("instructions: within 10% of the baseline")
    return 0


if __name__ == "__main__":
    sys.exit(main())
