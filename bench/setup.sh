#!/usr/bin/env bash
# Installs bench/requirements.txt into .venv when something pinned there is missing or at
# another version (pip itself costs seconds, so check first). Called by the bench targets.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! .venv/bin/python scripts/requirements_met.py bench/requirements.txt; then
    echo "bench: pip install -r bench/requirements.txt"
    .venv/bin/python -m pip install -q --disable-pip-version-check -r bench/requirements.txt
fi
