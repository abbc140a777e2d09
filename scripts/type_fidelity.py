"""Writes docs/type-fidelity.md from the fidelity matrix's expectations (tests/crossdb/expected.py):
per source database, kind and target, what each path and mode keeps. `--check` exits 1 when the
checked-in file differs (tests/crossdb/test_fidelity.py checks it too).

    .venv/bin/python scripts/type_fidelity.py [--check]
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "type-fidelity.md"
sys.path.insert(0, str(ROOT / "tests"))

from crossdb import rules  # noqa: E402
from crossdb.expectations import MODES, PATHS, Case, cases, expectation  # noqa: E402
from profiles import PROFILES  # noqa: E402

HEADER = """# Type fidelity across databases

What arrives when a table of each test database's own types is moved to each database: by the
command line through Parquet (`fastodbc export` then `fastodbc import`), through CSV, and by the
Python API (`cursor.fetch_record_batch()` into `cursor.ingest(...)`), into a new table (`create`)
or a pre-made one of the target's natural types (`append`). Made by `scripts/type_fidelity.py`
from the expectations the test matrix asserts (tests/crossdb/expected.py; `pytest -m crossdb`):
every value is read back with an independent client (psycopg, PyMySQL, sqlite3) and compared
with the source.

- **exact**: every value arrives as the same value of its kind (a text form that reads back
  as the same value counts: a uuid as text, JSON as its parsed value, CHAR without padding).
- **changed**: every value arrives, changed by the named rule(s) below.
- **refused**: the load fails (nothing written) with an error saying the quoted words.
- **defect (...)**: what the issue-30 fix must give; today's result differs (the matrix holds
  these cases as strict xfails).

Columns, types and values: tests/crossdb/kinds.py (the source DDL per database and the natural
target types: `fidelity_ddl` of tests/profiles/).
"""


def _label(defect: str) -> str:
    return defect.split(":")[0].replace("issue 30 ", "")


def cell(case: Case) -> str:
    e = expectation(case)
    if e.outcome == "changed":
        text = "changed: " + " + ".join(e.detail.split("+"))
    elif e.outcome == "refused":
        text = f"refused (\u201c{e.detail}\u201d)"
    else:
        text = "exact"
    return f"{text}; **defect ({_label(e.defect)})**" if e.defect else text


def render() -> str:
    lines = [HEADER]
    all_cases = cases()
    for source in PROFILES:
        lines.append(f"\n## From {source.name}\n")
        head = " | ".join(f"{p} {m}" for p in PATHS for m in MODES)
        lines.append(f"| kind (source type) | into | {head} |")
        lines.append("|---|---|" + "---|" * (len(PATHS) * len(MODES)))
        for kind in source.fidelity_kinds:
            for target in PROFILES:
                row = [cell(Case(source.name, kind, p, m, target.name)) for p in PATHS for m in MODES]
                lines.append(f"| {kind} (`{source.fidelity_ddl[kind]}`) | {target.name} | " + " | ".join(row) + " |")
    lines.append("\n## Rules\n")
    for name, (_, text) in rules.RULES.items():
        lines.append(f"- **{name}**: {text}")
    defects = sorted({e.defect for e in map(expectation, all_cases) if e.defect})
    if defects:
        lines.append("\n## Known defects (issue 30)\n")
        lines += [f"- **{_label(d)}**: {d.split(':', 1)[1].strip()}" for d in defects]
    return "\n".join(lines) + "\n"


def main() -> int:
    text = render()
    if "--check" in sys.argv[1:]:
        if not OUT.exists() or OUT.read_text() != text:
            print(f"{OUT.relative_to(ROOT)} is stale: run .venv/bin/python scripts/type_fidelity.py", file=sys.stderr)
            return 1
        return 0
    OUT.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
