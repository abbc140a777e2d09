"""The report's shared vocabulary: case lookup, medians and ratios, formatting, and verdicts.

bench/report.py (the report and the targets of issue 3) and bench/report_arrow.py (the Arrow
section, issue 18) both build on these; report.py re-exports them (bench/history.py and the
bench tests call them as ``report.<name>``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from pathlib import Path

import backend_profiles as profiles

BIG = ("int10", "varchar5", "unicode3", "mixed", "blob1")
#: The fetch cases' backends (bench/backend_profiles.py), their native clients, and the variants
#: of their drivers' streaming options as the tables name them.
FETCH_BACKENDS = profiles.FETCH
NATIVE = {b: profiles.BY_NAME[b].native for b in FETCH_BACKENDS}
VARIANT_LABEL = {s.variant: s.label for s in (profiles.BY_NAME[b].streaming for b in FETCH_BACKENDS) if s}
#: Where bench/run.py writes every run: git-ignored, so a clone has none until it runs one.
RESULTS = Path(__file__).resolve().parent / "results"


def results_path(path: Path | None = None) -> Path:
    """A results JSON of bench/run.py: ``path``, else the last run's (latest.json), else the last
    full run's (latest-full.json). None there: SystemExit saying how to make one."""
    candidates = [path] if path else [RESULTS / "latest.json", RESULTS / "latest-full.json"]
    for p in candidates:
        if p.exists():
            return p
    raise SystemExit(
        f"no results at {' or '.join(map(str, candidates))}: results are not kept in git; "
        "run the benchmark first (make bench, make bench-quick, or bench/run.py --only ...)"
    )


def read_results(path: Path | None = None) -> dict:
    return json.loads(results_path(path).read_text())


# ---------------------------------------------------------------------------------------------
# Lookup and formatting


def streaming(backend: str) -> str:
    """The variant of the cases run with the backend's streaming option (bench/run.py)."""
    option = profiles.BY_NAME[backend].streaming
    assert option is not None, f"{backend} has no fetch cases"
    return option.variant


def find(results: dict, backend: str, dataset: str, op: str, variant: str = "") -> dict | None:
    for c in results.get("cases", []):
        if c["backend"] == backend and c["dataset"] == dataset and c["op"] == op and c.get("variant", "") == variant:
            return c
    return None


def cases_of(results: dict, op: str, then: Callable[[dict], tuple] | None = None) -> list[dict]:
    """The run's cases of ``op`` in the backends' order (bench/backend_profiles.py), then by ``then``
    (else in the run's order)."""
    order = {b: i for i, b in enumerate(profiles.NAMES)}
    found = [c for c in results.get("cases", []) if c["op"] == op]
    return sorted(found, key=lambda c: (order.get(c["backend"], 9), *(then(c) if then else ())))


def med(case: dict | None, peer: str) -> float | None:
    if not case:
        return None
    r = case["results"].get(peer)
    if not r or r.get("error") and "median_s" not in r:
        return None
    return r.get("median_s")


def metric(case: dict | None, peer: str, key: str) -> float | None:
    """A figure a worker measured beside the time (``metrics``), where the peer has a time."""
    r = ((case or {}).get("results") or {}).get(peer) or {}
    return (r.get("metrics") or {}).get(key) if "median_s" in r else None


def ratio(case: dict | None, peer: str, base: str = "pyodbc") -> float | None:
    a, b = med(case, peer), med(case, base)
    return a / b if a and b else None


def rep_seconds(case: dict | None, peer: str) -> list[float]:
    """The peer's time of each successful repetition."""
    r = (case or {}).get("results", {}).get(peer) or {}
    return [x["seconds"] for x in r.get("reps", []) if not x.get("error") and x.get("seconds") is not None]


def mann_whitney_p(a: list[float], b: list[float]) -> float | None:
    """Two-sided exact Mann-Whitney U p-value: how likely two samples this far apart would be if
    both came from one distribution. Exact counting (no normal approximation) because the
    benchmark has 5-10 repetitions a peer; ties, rare with float seconds, take half a count."""
    n, m = len(a), len(b)
    if n < 3 or m < 3:
        return None
    u = sum(1.0 if x > y else 0.5 if x == y else 0.0 for x in a for y in b)
    # ways[k]: how many of the C(n+m, n) rank orders give U = k; built one element at a time.
    ways = [[[0] * (i * j + 1) for j in range(m + 1)] for i in range(n + 1)]
    for i in range(n + 1):
        for j in range(m + 1):
            if i == 0 or j == 0:
                ways[i][j][0] = 1
                continue
            w = ways[i][j]
            # The largest element is from `a` (it beats all j of b) or from `b`.
            for k, c in enumerate(ways[i - 1][j]):
                w[k + j] += c
            for k, c in enumerate(ways[i][j - 1]):
                w[k] += c
    dist = ways[n][m]
    total = sum(dist)
    centre = n * m / 2
    far = sum(c for k, c in enumerate(dist) if abs(k - centre) >= abs(u - centre))
    return min(1.0, far / total)


#: Below this p-value a slower median is a measured difference, not the run's noise.
PARITY_P = 0.05


def fmt_s(s: float | None) -> str:
    if s is None:
        return "-"
    if s >= 1:
        return f"{s:.2f} s"
    if s >= 1e-3:
        return f"{s * 1e3:.1f} ms"
    return f"{s * 1e6:.1f} µs"


def fmt_x(x: float | None) -> str:
    return "-" if x is None else f"{x:.2f}x"


def cell(case: dict | None, peer: str) -> str:
    """A peer's time ratio to pyodbc, or why there is none."""
    if not case or peer not in case["results"]:
        return "n/a"
    r = case["results"][peer]
    if "median_s" not in r:
        return "error"
    x = ratio(case, peer)
    return fmt_x(x) if x is not None else fmt_s(r["median_s"])


def table(head: list[str], rows: Iterable[list[str]], align: str = "") -> str:
    align = align or "l" + "r" * (len(head) - 1)
    sep = "|" + "|".join("---:" if a == "r" else "---" for a in align) + "|"
    return "\n".join(["| " + " | ".join(head) + " |", sep] + ["| " + " | ".join(r) + " |" for r in rows])


def error_cell(limit: int) -> Callable[[dict, str], list[str]]:
    """The cells of a peer without a time: the peer, its error cut to ``limit`` characters."""

    def cells(case: dict, peer: str) -> list[str]:
        err = (case["results"].get(peer) or {}).get("error") or "no result"
        return [peer, f"error: `{err[:limit]}`"]

    return cells


#: A failed peer's cell where a table names no limit.
ERROR_CELL = error_cell(120)


def peer_rows(
    cases: Iterable[dict],
    row: Callable[[dict, str], list[str]],
    width: int,
    *,
    peers: Callable[[dict], Iterable[str]] = lambda c: c["peers"],
    where: Callable[[dict], str] = lambda c: c["backend"],
    error: Callable[[dict, str], list[str]] = ERROR_CELL,
) -> list[list[str]]:
    """The rows of a table of a row per case and peer (the section tables of bench/report_pool.py,
    report_parallel.py, report_bulk.py): ``where`` the case ran, then ``row(case, peer)`` where
    the peer has a time, else ``error(case, peer)`` and "-" to the ``width`` of the table."""
    rows = []
    for c in cases:
        for peer in peers(c):
            if med(c, peer) is None:
                cells = [where(c), *error(c, peer)]
                rows.append(cells + ["-"] * (width - len(cells)))
            else:
                rows.append([where(c), *row(c, peer)])
    return rows


def best_floor(c: dict | None) -> tuple[str | None, float | None]:
    if not c:
        return None, None
    floors = [(p, med(c, p)) for p in c["results"] if p.startswith("floor") and med(c, p)]
    if not floors:
        return None, None
    return min(floors, key=lambda t: t[1])


# ---------------------------------------------------------------------------------------------
# Verdicts


def status(ok: bool | None, reachable: bool) -> str | None:
    """A dataset's verdict: met, out of reach (a client costing no more than the ODBC floor plus
    the Python objects it returns would miss it too), or not met."""
    if ok is None:
        return None
    return "met" if ok else "not met" if reachable else "out of reach"


def verdict_of(statuses: list[str | None], labels: list[str] | None = None, beyond: str = "") -> str:
    """The verdict over every dataset's status; with ``labels`` (one a status) it names the
    datasets out of reach and why (``beyond``: the bound they are beyond)."""
    known = [s for s in statuses if s is not None]
    if not known:
        return "not measured"
    partly = " (partly measured)" if len(known) < len(statuses) else ""
    if all(s == "met" for s in known):
        return "met" + partly
    out = [lb for s, lb in zip(statuses, labels or [], strict=False) if s == "out of reach"]
    why = f" ({beyond})" if beyond else ""
    if all(s == "out of reach" for s in known) and out:
        return f"out of reach on {', '.join(out)}{why}" + partly
    if all(s in ("met", "out of reach") for s in known):
        if not out:
            return "met where reachable; the rest beyond the ceiling (floor, Python objects)" + partly
        return f"met where reachable; out of reach on {', '.join(out)}{why}" + partly
    return "not met" + (f"; out of reach on {', '.join(out)}{why}" if out else "") + partly
