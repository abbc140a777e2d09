#!/usr/bin/env bash
# Installs bench/requirements.txt into .venv when something pinned there is missing or at
# another version (pip itself costs seconds, so check first). Called by the bench targets.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! .venv/bin/python - bench/requirements.txt <<'PY'
import re
import sys
from importlib.metadata import PackageNotFoundError, version

bad = []
for line in open(sys.argv[1]):
    line = line.split("#")[0].strip()
    if not line:
        continue
    name, _, want = line.partition("==")
    name = re.sub(r"\[.*\]", "", name)
    try:
        if want and version(name) != want:
            bad.append(line)
    except PackageNotFoundError:
        bad.append(line)
sys.exit(1 if bad else 0)
PY
then
    echo "bench: pip install -r bench/requirements.txt"
    .venv/bin/python -m pip install -q --disable-pip-version-check -r bench/requirements.txt
fi
