"""Instruction counts of fastodbc's codecs under callgrind, and the regression gate.

target/release/codec-bench (crate bench/codec) runs each case of its groups: the text decoders
(``utf16``, ``utf8``: the text categories of issue 3), the numeric, temporal and GUID
converters (``numeric``, ``temporal``, ``guid``) and parameter encoding (``params``).
``codec-bench --list`` names the cases and the values one iteration converts (a value is a row
for the parameter batches). Every case runs under ``valgrind --tool=callgrind`` twice, with 0
iterations and with enough for ITERATIONS values; the difference of the two totals divided by
the number of values is the number of instructions (Ir) per value. Instruction counts do not
depend on machine load, so the gate holds on a noisy 2-core box.

    python bench/instructions.py            # print the table
    python bench/instructions.py --check    # also compare with bench/baseline/instructions.json;
                                            # exit 1 if any case is >10% above its baseline
    python bench/instructions.py --update   # rewrite the baseline (after an intended change)
    python bench/instructions.py --only numeric params [--check | --update]
                                            # only these groups; --update then replaces only
                                            # their entries and keeps the others

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


def callgrind_ir(group: str, case: str, iterations: int) -> int:
    proc = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"]
        + [str(BINARY), group, case, str(iterations)],
        capture_output=True,
        text=True,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"codec-bench {group} {case} {iterations} failed:\n{proc.stdout}{proc.stderr}")
    return parse_total(proc.stderr)


def parse_total(stderr: str) -> int:
    """The total Ir of a callgrind run, from its ``Collected : N`` line."""
    m = re.search(r"Collected : (\d+)", stderr)
    if not m:
        raise RuntimeError(f"no 'Collected' line in callgrind output:\n{stderr[-2000:]}")
    return int(m.group(1))


def list_cases() -> list[tuple[str, str, int]]:
    """``(group, case, values per iteration)`` of every case, in codec-bench's order."""
    out = subprocess.run([str(BINARY), "--list"], capture_output=True, text=True, check=True).stdout
    return [(g, c, int(v)) for g, c, v in (line.split() for line in out.splitlines())]


def measure(only: list[str] | None = None) -> dict[str, dict[str, float]]:
    """``{group: {case: Ir per value}}``, for the groups in ``only`` if given."""
    if not BINARY.exists():
        raise SystemExit(f"instructions: {BINARY} is missing (make bench-check builds it)")
    if not shutil.which("valgrind"):
        raise SystemExit("instructions: valgrind is not installed (make deps)")
    cases = list_cases()
    if only:
        unknown = set(only) - {g for g, _, _ in cases}
        if unknown:
            raise SystemExit(f"instructions: no group {', '.join(sorted(unknown))} in codec-bench --list")
        cases = [c for c in cases if c[0] in only]
    for g, c, v in cases:
        if ITERATIONS % v:
            raise SystemExit(f"instructions: {g} {c}: {v} values an iteration do not divide {ITERATIONS}")
    jobs = [(g, c, n) for g, c, v in cases for n in (0, ITERATIONS // v)]
    with ThreadPoolExecutor(max_workers=2) as pool:
        irs = list(pool.map(lambda j: callgrind_ir(*j), jobs))
    got = dict(zip(jobs, irs, strict=True))
    current: dict[str, dict[str, float]] = {}
    for g, c, v in cases:
        n = ITERATIONS // v
        current.setdefault(g, {})[c] = round((got[(g, c, n)] - got[(g, c, 0)]) / ITERATIONS, 1)
    return current


def compare(current: dict, baseline: dict | None) -> tuple[list[list[str]], list[str]]:
    rows, failures = [], []
    for group, cases in current.items():
        for case, ir in cases.items():
            base = (baseline or {}).get(group, {}).get(case)
            if base:
                change = (ir - base) / base
                verdict = "REGRESSION" if change > THRESHOLD else "ok"
                if change > THRESHOLD:
                    failures.append(f"{group} {case}: {ir:.0f} Ir/value vs baseline {base:.0f} ({change:+.1%})")
                rows.append([group, case, f"{ir:.0f}", f"{base:.0f}", f"{change:+.1%}", verdict])
            else:
                rows.append([group, case, f"{ir:.0f}", "-", "-", "no baseline"])
    return rows, failures


def markdown_table(rows: list[list[str]]) -> str:
    head = ["group", "case", "Ir/value", "baseline", "change", "verdict"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--check", action="store_true", help=f"fail on a >{THRESHOLD:.0%}% regression vs the baseline")
    g.add_argument("--update", action="store_true", help="write the current counts as the baseline")
    ap.add_argument("--json", type=Path, help="also write the counts (and comparison) to this file")
    ap.add_argument("--only", nargs="+", metavar="GROUP", help="measure only these groups (utf16, utf8, numeric, ...)")
    args = ap.parse_args()
    current = measure(args.only)
    baseline = json.loads(BASELINE.read_text())["ir_per_value"] if BASELINE.exists() else None
    rows, failures = compare(current, baseline)
    print(markdown_table(rows))
    if args.json:
        args.json.write_text(json.dumps({"ir_per_value": current, "baseline": baseline, "table": rows}, indent=2))
    if args.update:
        BASELINE.parent.mkdir(parents=True, exist_ok=True)
        # With --only, the other groups' entries are kept as they were.
        counts = dict(baseline or {}, **current) if args.only else current
        doc = {
            "what": "callgrind Ir per value (decoded, converted, or parameter row encoded) of"
            " target/release/codec-bench (bench/instructions.py)",
            "iterations": ITERATIONS,
            "threshold": THRESHOLD,
            "ir_per_value": counts,
        }
        BASELINE.write_text(json.dumps(doc, indent=2) + "\n")
        print(f"instructions: baseline written to {BASELINE.relative_to(ROOT)}")
    if args.check:
        if baseline is None:
            print(f"instructions: no baseline at {BASELINE.relative_to(ROOT)} (run with --update)", file=sys.stderr)
            return 1
        missing = sum(r[-1] == "no baseline" for r in rows)
        if missing:
            print(f"instructions: {missing} case(s) without a baseline, not checked (--update)", file=sys.stderr)
        if failures:
            print("instructions: regression over the 10% threshold:", *failures, sep="\n  ", file=sys.stderr)
            return 1
        print("instructions: within 10% of the baseline")
    return 0


if __name__ == "__main__":
    sys.exit(main())
