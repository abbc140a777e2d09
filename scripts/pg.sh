#!/usr/bin/env bash
# Throwaway PostgreSQL cluster for the tests.
#   scripts/pg.sh start  - new cluster in a temp dir on 127.0.0.1:<free port>, db fastodbc_test,
#                          writes build/pg.env (FASTODBC_TEST_PG connection string + paths)
#   scripts/pg.sh stop   - stop the cluster named in build/pg.env and delete its temp dir
#   scripts/pg.sh halt   - stop the server only: data, port and env file stay
#                          (fault tests: "the server went away")
#   scripts/pg.sh resume - start the halted server again, same data and port
#   scripts/pg.sh env    - print build/pg.env (for: eval "$(scripts/pg.sh env)")
set -euo pipefail
cd "$(dirname "$0")/.."
ENV_FILE=build/pg.env

LOG_PREFIX=pg.sh
# shellcheck source=scripts/pg-lib.sh
. scripts/pg-lib.sh

stop() {
    [ -f "$ENV_FILE" ] || return 0
    # shellcheck disable=SC1090
    . "$ENV_FILE"
    PGDIR=$FASTODBC_PG_DIR
    # Only ever delete a dir this script made.
    case "$PGDIR" in */fastodbc-pg.*) ;; *) echo "pg.sh: refusing to remove '$PGDIR'" >&2; exit 1 ;; esac
    if [ -d "$PGDIR" ]; then
        as_pg "$pg_bindir/pg_ctl" -D "$FASTODBC_PG_DATA" -m immediate -w stop >/dev/null 2>&1 || true
        rm -rf "$PGDIR"
    fi
    rm -f "$ENV_FILE"
    echo "pg.sh: stopped"
}

load_env() {
    [ -f "$ENV_FILE" ] || return 1
    # shellcheck disable=SC1090
    . "$ENV_FILE"
    PGDIR=$FASTODBC_PG_DIR
    case "$PGDIR" in */fastodbc-pg.*) ;; *) echo "pg.sh: refusing to use '$PGDIR'" >&2; exit 1 ;; esac
}

running() {
    as_pg "$pg_bindir/pg_ctl" -D "$FASTODBC_PG_DATA" status >/dev/null 2>&1
}

halt() {
    load_env || return 0
    running || return 0
    as_pg "$pg_bindir/pg_ctl" -D "$FASTODBC_PG_DATA" -m fast -w -t 60 stop >/dev/null
}

resume() {
    load_env || { echo "pg.sh: no $ENV_FILE (run: $0 start)" >&2; exit 1; }
    running && return 0
    as_pg "$pg_bindir/pg_ctl" -D "$FASTODBC_PG_DATA" -l "$PGDIR/server.log" \
        -o "-p $FASTODBC_PG_PORT" -w -t 60 start >/dev/null \
        || { echo "pg.sh: ERROR: server did not restart:" >&2; tail -n 20 "$PGDIR/server.log" >&2; exit 1; }
}

start() {
    stop  # a cluster left over from an earlier run would otherwise leak
    mkdir -p build
    PGDIR=$(mktemp -d "${TMPDIR:-/tmp}/fastodbc-pg.XXXXXX")
    local data=$PGDIR/data
    pg_init "$data" || { rm -rf "$PGDIR"; exit 1; }
    pg_start "$data" || { rm -rf "$PGDIR"; exit 1; }
    local port=$PG_PORT
    # Written before createdb so that `stop` can clean up if anything below fails.
    cat > "$ENV_FILE" <<ENV
export FASTODBC_TEST_PG='Driver={PostgreSQL Unicode};Server=127.0.0.1;Port=$port;Database=fastodbc_test;Uid=postgres;Pwd=;BoolsAsChar=0;CommLog=0;Debug=0'
export FASTODBC_PG_DIR='$PGDIR'
export FASTODBC_PG_DATA='$data'
export FASTODBC_PG_PORT=$port
ENV
    as_pg "$pg_bindir/createdb" -h 127.0.0.1 -p "$port" -U postgres fastodbc_test
    echo "pg.sh: PostgreSQL $(pg_version) on 127.0.0.1:$port (data $data)"
}

case "${1:-}" in
    start) start ;;
    stop) stop ;;
    halt) halt ;;
    resume) resume ;;
    env) cat "$ENV_FILE" ;;
    *) echo "usage: $0 start|stop|halt|resume|env" >&2; exit 2 ;;
esac
