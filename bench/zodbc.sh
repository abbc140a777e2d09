#!/usr/bin/env bash
# Installs zodbc, a benchmark peer, into a virtualenv of its own: bench/data/zodbc-venv.
#
# zodbc 0.9.3 publishes wheels for CPython 3.12-3.14 only (and source that needs Zig packages from
# GitHub); .venv is 3.11. So it gets the first python3.12 / 3.13 found (pyenv's, on these
# machines). Without one, zodbc's cases report it as not installed. Called by bench/setup.sh.
set -euo pipefail
cd "$(dirname "$0")/.."

ZODBC=0.9.3
VENV=$PWD/bench/data/zodbc-venv
if [ -x "$VENV/bin/python" ] &&
    "$VENV/bin/python" -c "import sys, importlib.metadata as m; sys.exit(m.version('zodbc') != '$ZODBC')" 2>/dev/null; then
    exit 0
fi
py=""
for candidate in python3.12 python3.13 "$HOME"/.pyenv/versions/3.12*/bin/python3 "$HOME"/.pyenv/versions/3.13*/bin/python3; do
    if command -v "$candidate" >/dev/null 2>&1 && "$candidate" -c "import venv" 2>/dev/null; then
        py=$(command -v "$candidate")
        break
    fi
done
if [ -z "$py" ]; then
    echo "bench: no Python 3.12 or 3.13 for zodbc's wheels; zodbc is left out" >&2
    exit 1
fi
echo "bench: installing zodbc $ZODBC into bench/data/zodbc-venv ($("$py" --version))"
rm -rf "$VENV"
"$py" -m venv "$VENV"
# pyarrow for its Arrow fetch; psycopg: the worker empties PostgreSQL's insert table through it.
"$VENV/bin/python" -m pip install -q --disable-pip-version-check "zodbc==$ZODBC" pyarrow==26.0.1 \
    "psycopg[binary]==3.3.9"
