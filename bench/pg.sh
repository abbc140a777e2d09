#!/usr/bin/env bash
# The benchmark's own PostgreSQL cluster, kept between runs so loaded tables are reused.
#   bench/pg.sh start  - start (initdb on first use) the cluster in bench/data/pg on 127.0.0.1:<free
#                        port>, database fastodbc_bench; writes bench/data/pg.env
#   bench/pg.sh stop   - stop it (its data stays; `rm -rf bench/data` forgets everything)
# It is separate from scripts/pg.sh on purpose: `make test` stops and restarts the cluster named
# in build/pg.env, which must not happen under a running benchmark.
set -euo pipefail
cd "$(dirname "$0")/.."
PGDIR=$PWD/bench/data/pg
DATA=$PGDIR/data
ENV_FILE=bench/data/pg.env

LOG_PREFIX=bench/pg.sh
# shellcheck source=scripts/pg-lib.sh
. scripts/pg-lib.sh

stop() {
    [ -f "$DATA/postmaster.pid" ] || { rm -f "$ENV_FILE"; return 0; }
    as_pg "$pg_bindir/pg_ctl" -D "$DATA" -m fast -w stop >/dev/null 2>&1 || true
    rm -f "$ENV_FILE"
    echo "bench/pg.sh: stopped"
}

start() {
    stop  # a server left running by an interrupted run
    mkdir -p "$PGDIR"
    if [ ! -f "$DATA/PG_VERSION" ]; then
        rm -rf "$DATA"
        pg_init "$DATA" "shared_buffers = 256MB" "max_wal_size = 2GB" || exit 1
    fi
    pg_start "$DATA" || exit 1
    local port=$PG_PORT
    cat > "$ENV_FILE" <<ENV
export FASTODBC_BENCH_PG='Driver={PostgreSQL Unicode};Server=127.0.0.1;Port=$port;Database=fastodbc_bench;Uid=postgres;Pwd=;BoolsAsChar=0;CommLog=0;Debug=0'
export FASTODBC_BENCH_PG_DSN='host=127.0.0.1 port=$port dbname=fastodbc_bench user=postgres'
export FASTODBC_BENCH_PG_PORT=$port
ENV
    as_pg "$pg_bindir/psql" -h 127.0.0.1 -p "$port" -U postgres -d postgres -qtAc \
        "SELECT 1 FROM pg_database WHERE datname='fastodbc_bench'" | grep -q 1 \
        || as_pg "$pg_bindir/createdb" -h 127.0.0.1 -p "$port" -U postgres fastodbc_bench
    # A scan of a table larger than a quarter of shared_buffers starts where the last one was
    # left (synchronized scans), and a scan stopped early (a LIMIT, a cursor closed after its
    # first batch) leaves that place mid-table for every later one: `SELECT * FROM mixed`
    # then returns the rows rotated, and the export's check against the generator's order
    # fails. Scans here start at the first row.
    as_pg "$pg_bindir/psql" -h 127.0.0.1 -p "$port" -U postgres -d postgres -qtAc \
        "ALTER SYSTEM SET synchronize_seqscans = off" -c "SELECT pg_reload_conf()" >/dev/null
    echo "bench/pg.sh: PostgreSQL $(pg_version) on 127.0.0.1:$port (data $DATA)"
}

case "${1:-}" in
    start) start ;;
    stop) stop ;;
    *) echo "usage: $0 start|stop" >&2; exit 2 ;;
esac
