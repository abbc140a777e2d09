"""Reading the expectations data (expected.py): the cases of the matrix and what each expects.

A case is (source database, column kind, path, mode, target database). Its expectation is
the last line of expected.EXPECTED matching it ("*" matches anything), else ``exact``.
"""

from __future__ import annotations

import dataclasses

from profiles import PROFILES

from . import expected, rules

PATHS = ("parquet", "csv", "api")  # fastodbc export + import (Parquet, CSV); fetch_record_batch -> ingest
MODES = ("create", "append")  # into a new table; into a pre-made one of the natural types
OUTCOMES = ("exact", "changed", "refused")


@dataclasses.dataclass(frozen=True)
class Case:
    source: str
    kind: str
    path: str
    mode: str
    target: str

    @property
    def id(self) -> str:
        return f"{self.source}-{self.kind}-{self.path}-{self.mode}-{self.target}"


@dataclasses.dataclass(frozen=True)
class Expectation:
    outcome: str  # exact, changed or refused
    detail: str = ""  # changed: the rules (a+b); refused: a piece of the error message
    defect: str | None = None  # a known defect: the case is a strict xfail until it is fixed

    @property
    def text(self) -> str:
        return f"{self.outcome}:{self.detail}" if self.detail else self.outcome


def parse(text: str, defect: str | None = None) -> Expectation:
    outcome, _, detail = text.partition(":")
    if outcome not in OUTCOMES:
        raise ValueError(f"expectation {text!r}: not one of {OUTCOMES}")
    if outcome == "changed":
        unknown = [r for r in detail.split("+") if r not in rules.RULES]
        if unknown or not detail:
            raise ValueError(f"expectation {text!r}: no rule named {unknown or detail!r} (rules.RULES)")
    if outcome == "refused" and not detail:
        raise ValueError(f"expectation {text!r}: name a piece of the error message")
    return Expectation(outcome, detail, defect)


def _matches(pattern: str, value: str) -> bool:
    return pattern == "*" or pattern == value


def expectation(case: Case) -> Expectation:
    found = Expectation("exact")
    for line in expected.EXPECTED:
        source, kind, path, mode, target, text, *defect = line
        if all(_matches(p, v) for p, v in zip((source, kind, path, mode, target), dataclasses.astuple(case),
                                               strict=True)):
            found = parse(text, defect[0] if defect else None)
    return found


def cases() -> list[Case]:
    """Every case: each source's kinds, by each path and mode, into each database (itself too:
    the round trip)."""
    return [
        Case(s.name, kind, path, mode, t.name)
        for s in PROFILES
        for kind in s.fidelity_kinds
        for path in PATHS
        for mode in MODES
        for t in PROFILES
    ]


def check_data() -> list[str]:
    """Lines of expected.EXPECTED that are malformed or match no case."""
    problems = []
    all_cases = cases()
    for line in expected.EXPECTED:
        try:
            if not 6 <= len(line) <= 7:
                raise ValueError("a line is (source, kind, path, mode, target, expectation[, defect])")
            parse(line[5])
        except ValueError as e:
            problems.append(f"{line}: {e}")
            continue
        if not any(all(_matches(p, v) for p, v in zip(line[:5], dataclasses.astuple(c), strict=True))
                   for c in all_cases):
            problems.append(f"{line}: matches no case")
    return problems
