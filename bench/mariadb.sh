#!/usr/bin/env bash
# The benchmark's own MariaDB server (the bulk load cases of issue 19): scripts/mariadb.sh's
# throwaway server, with its env file at bench/data/mariadb.env and the database fastodbc_bench.
# It is separate from the tests' server on purpose: `make test` stops and restarts the server
# named in build/mariadb.env, which must not happen under a running benchmark. Nothing is kept
# between runs (the bulk load cases create their tables).
#   bench/mariadb.sh start|stop
set -euo pipefail
cd "$(dirname "$0")/.."
case "${1:-}" in
    start | stop) ;;
    *) echo "usage: $0 start|stop" >&2; exit 2 ;;
esac
export FASTODBC_MARIADB_ENV_FILE=bench/data/mariadb.env FASTODBC_MARIADB_DB=fastodbc_bench
exec bash scripts/mariadb.sh "$1"
