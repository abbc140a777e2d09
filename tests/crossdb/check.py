"""Comparing what a load left with what the source holds, against a case's expectation; and
what a load did, named by the expectations' own vocabulary (build/crossdb/observed.txt)."""

from __future__ import annotations

import itertools
import math
from typing import Any

from differential.compare import short

from . import rules
from .expectations import Case, Expectation
from .mover import Load

SHOWN = 5  # differing rows shown in a failure


def same(got: Any, want: Any) -> bool:
    """Equal canonical values of the same type; floats by bits (NaN equals NaN, -0.0 differs
    from 0.0)."""
    if type(got) is not type(want):
        return False
    if isinstance(want, float):
        if math.isnan(want):
            return math.isnan(got)
        return got == want and math.copysign(1.0, got) == math.copysign(1.0, want)
    return got == want


def differences(case: Case, load: Load, source: dict[int, Any], rule: str) -> list[str]:
    """The rows whose target value is not the source's after ``rule`` ("" for none)."""
    got = load.values[case.kind]
    out = []
    for row_id, value in source.items():
        want = rules.apply(rule, value)
        if row_id not in got:
            out.append(f"row id {row_id}: missing in the target (source {short(value)})")
        elif not same(got[row_id], want):
            out.append(f"row id {row_id}: source {short(value)} -> target {short(got[row_id])} "
                       f"({type(got[row_id]).__name__}), expected {short(want)} ({type(want).__name__})")
    out += [f"row id {i}: in the target only ({short(got[i])})" for i in got if i not in source]
    return out


def verdict(case: Case, expect: Expectation, load: Load, source: dict[int, Any]) -> str | None:
    """None when the load did what ``expect`` says; else what differs, for the failure."""
    where = f"{case.id} (expected {expect.text}"
    where += f", known defect: {expect.defect})" if expect.defect else ")"
    if expect.outcome == "refused":
        if load.error is None:
            kept = "every value kept" if not differences(case, load, source, "") else "values changed"
            return f"{where}: the load succeeded ({kept}); expected a refusal naming {expect.detail!r}"
        if expect.detail.lower() not in load.error.lower():
            return f"{where}: refused, but the message does not say {expect.detail!r}: {load.error}"
        return None
    if load.error is not None:
        return f"{where}: the load failed: {load.error}"
    diff = differences(case, load, source, expect.detail if expect.outcome == "changed" else "")
    if not diff:
        return None
    column = f"column {case.kind!r}"
    return (f"{where}: {len(diff)} of {len(source)} rows of {column} differ:\n  " + "\n  ".join(diff[:SHOWN])
            + (f"\n  ... and {len(diff) - SHOWN} more" if len(diff) > SHOWN else "")
            + f"\n  (today: {observe(case, load, source)})")


def observe(case: Case, load: Load, source: dict[int, Any]) -> str:
    """What the load did, in the expectations' terms: exact, changed:<the fewest rules that
    explain it>, refused:<its error>, or differs (no rule explains it) with its first row."""
    if load.error is not None:
        return f"refused:{load.error}"
    if not differences(case, load, source, ""):
        return "exact"
    for n in (1, 2, 3):
        for combo in itertools.permutations(rules.RULES, n):
            if not differences(case, load, source, "+".join(combo)):
                return "changed:" + "+".join(combo)
    diff = differences(case, load, source, "")
    return f"differs: {len(diff)} rows; {diff[0]}"
