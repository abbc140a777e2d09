#!/usr/bin/env bash
# Installs bench/requirements.txt into .venv when something pinned there is missing or at
# another version (pip itself costs seconds, so check first). Called by the bench targets.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! .venv/bin/python scripts/requirements_met.py bench/requirements.txt; then
    echo "bench: pip install -r bench/requirements.txt"
    .venv/bin/python -m pip install -q --disable-pip-version-check -r bench/requirements.txt
fi
# turbodbc: a peer built from source into a venv of its own (bench/turbodbc.sh). If it cannot be
# built, the run goes on and reports turbodbc's cases as not installed.
if ! bash bench/turbodbc.sh; then
    echo "bench: turbodbc could not be built; its cases will report it as not installed" >&2
fi
if ! bash bench/zodbc.sh; then
    echo "bench: zodbc could not be installed; its cases will report it as not installed" >&2
fi
# odbc2parquet: the export peer (issue 19), compiled by cargo into bench/data/odbc2parquet.
if ! bash bench/odbc2parquet.sh; then
    echo "bench: odbc2parquet could not be built; its cases will report it as not installed" >&2
fi
