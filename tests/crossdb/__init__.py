"""The cross-database fidelity matrix (issue 30): a table of each database's own types moved to
every database by the command line (Parquet, CSV) and the Python API (fetch_record_batch ->
Cursor.ingest), into a new table and into a pre-made one, read back by independent clients and
compared value by value with the source; what each (source kind, path, mode, target) must give
is data (expected.py). `pytest -m crossdb` or `pytest tests/crossdb` selects it.

kinds.py         column kinds: the source values, the canonical form a value is compared in
rules.py         the named changes an expectation may allow
expected.py      the expectations (docs/type-fidelity.md is made from it: scripts/type_fidelity.py)
expectations.py  the cases, and the expectation of each
mover.py         the source tables, the loads (cached, shared by the cases of a load), reading back
worker.py        the process that runs exports and loads (a crash ends it, not the run)
check.py         comparing a load with its source against the expectation
"""
