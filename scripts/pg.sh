#!/usr/bin/env bash
# Throwaway PostgreSQL cluster for the tests.
#   scripts/pg.sh start  - new cluster in a temp dir on 127.0.0.1:<free port>, db fastodbc_test,
#                          writes build/pg.env (FASTODBC_TEST_PG connection string + paths)
#   scripts/pg.sh stop   - stop the cluster named in build/pg.env and delete its temp dir
#   scripts/pg.sh env    - print build/pg.env (for: eval "$(scripts/pg.sh env)")
set -euo pipefail
cd "$(dirname "$0")/.."
ENV_FILE=build/pg.env

bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n1)
[ -x "$bindir/pg_ctl" ] || { echo "pg.sh: ERROR: no PostgreSQL in /usr/lib/postgresql (run scripts/deps.sh)" >&2; exit 1; }

# PostgreSQL refuses to run as root (and CI is root): run the server tools as `postgres` then.
# cd into the cluster dir first so the tools don't complain about an unreadable cwd.
as_pg() {
    if [ "$(id -u)" -eq 0 ]; then (cd "$PGDIR" && runuser -u postgres -- "$@"); else (cd "$PGDIR" && "$@"); fi
}

stop() {
    [ -f "$ENV_FILE" ] || return 0
    # shellcheck disable=SC1090
    . "$ENV_FILE"
    PGDIR=$FASTODBC_PG_DIR
    # Only ever delete a dir this script made.
    case "$PGDIR" in */fastodbc-pg.*) ;; *) echo "pg.sh: refusing to remove '$PGDIR'" >&2; exit 1 ;; esac
    if [ -d "$PGDIR" ]; then
        as_pg "$bindir/pg_ctl" -D "$FASTODBC_PG_DATA" -m immediate -w stop >/dev/null 2>&1 || true
        rm -rf "$PGDIR"
    fi
    rm -f "$ENV_FILE"
    echo "pg.sh: stopped"
}

free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

start() {
    stop  # a cluster left over from an earlier run would otherwise leak
    mkdir -p build
    PGDIR=$(mktemp -d "${TMPDIR:-/tmp}/fastodbc-pg.XXXXXX")
    local data=$PGDIR/data
    [ "$(id -u)" -eq 0 ] && chown postgres: "$PGDIR"
    chmod 700 "$PGDIR"
    as_pg "$bindir/initdb" -D "$data" -U postgres -A trust -E UTF8 --locale=C --no-sync >"$PGDIR/initdb.log" \
        || { cat "$PGDIR/initdb.log" >&2; rm -rf "$PGDIR"; exit 1; }
    # Speed over durability: this data is thrown away. Only loopback TCP, socket in our dir.
    as_pg tee -a "$data/postgresql.conf" >/dev/null <<CONF
listen_addresses = '127.0.0.1'
unix_socket_directories = '$PGDIR'
fsync = off
synchronous_commit = off
full_page_writes = off
CONF
    as_pg tee "$data/pg_hba.conf" >/dev/null <<HBA
local all all trust
host  all all 127.0.0.1/32 trust
HBA
    # The port is free when probed but could be taken before the server binds it: retry.
    local port ok=
    for _ in 1 2 3; do
        port=$(free_port)
        if as_pg "$bindir/pg_ctl" -D "$data" -l "$PGDIR/server.log" -o "-p $port" -w -t 60 start >/dev/null; then
            ok=1; break
        fi
    done
    [ -n "$ok" ] || { echo "pg.sh: ERROR: server did not start:" >&2; tail -n 20 "$PGDIR/server.log" >&2; rm -rf "$PGDIR"; exit 1; }
    # Written before createdb so that `stop` can clean up if anything below fails.
    cat > "$ENV_FILE" <<ENV
export FASTODBC_TEST_PG='Driver={PostgreSQL Unicode};Server=127.0.0.1;Port=$port;Database=fastodbc_test;Uid=postgres;Pwd=;BoolsAsChar=0;CommLog=0;Debug=0'
export FASTODBC_PG_DIR='$PGDIR'
export FASTODBC_PG_DATA='$data'
export FASTODBC_PG_PORT=$port
ENV
    as_pg "$bindir/createdb" -h 127.0.0.1 -p "$port" -U postgres fastodbc_test
    echo "pg.sh: PostgreSQL $("$bindir/postgres" -V | awk '{print $3}') on 127.0.0.1:$port (data $data)"
}

case "${1:-}" in
    start) start ;;
    stop) stop ;;
    env) cat "$ENV_FILE" ;;
    *) echo "usage: $0 start|stop|env" >&2; exit 2 ;;
esac
