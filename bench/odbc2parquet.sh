#!/usr/bin/env bash
# Installs odbc2parquet, the export peer of issue 19, into bench/data/odbc2parquet/bin:
# `cargo install --locked` of the pinned version (the dependencies of its own Cargo.lock). Runs
# once (skipped while the binary there reports the pinned version); compiling takes 4-8 min on 2
# cores. It links unixODBC's libodbc (unixodbc-dev). Called by bench/setup.sh; a failure only
# leaves odbc2parquet out of the run (its export cases report it as not installed).
set -euo pipefail
cd "$(dirname "$0")/.."

ODBC2PARQUET=11.0.1
ROOT_DIR=$PWD/bench/data/odbc2parquet
BIN=$ROOT_DIR/bin/odbc2parquet
if [ -x "$BIN" ] && [ "$("$BIN" --version 2>/dev/null)" = "odbc2parquet $ODBC2PARQUET" ]; then
    exit 0
fi
echo "bench: building odbc2parquet $ODBC2PARQUET into bench/data/odbc2parquet (once, 4-8 min)"
if ! dpkg -s unixodbc-dev >/dev/null 2>&1; then
    sudo=$([ "$(id -u)" -eq 0 ] && echo "" || echo sudo)
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q unixodbc-dev
fi
# shellcheck disable=SC1091
[ -f "$HOME/.cargo/env" ] && . "$HOME/.cargo/env"
cargo install --quiet --locked --version "$ODBC2PARQUET" --root "$ROOT_DIR" odbc2parquet
"$BIN" --version
