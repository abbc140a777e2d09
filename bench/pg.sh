#!/usr/bin/env bash
# The benchmark's own PostgreSQL cluster, kept between runs so loaded tables are reused.
#   bench/pg.sh start  - start (initdb on first use) the cluster in bench/data/pg on 127.0.0.1:<free
#                        port>, database fastodbc_bench; writes bench/data/pg.env
#   bench/pg.sh stop   - stop it (its data stays; `rm -rf bench/data` forgets everything)
# It is separate from scripts/pg.sh on purpose: `make test` stops and restarts the cluster named
# in build/pg.env, which must not happen under a running benchmark.
set -euo pipefail
cd "$(dirname "$0")/.."
DIR=$PWD/bench/data/pg
DATA=$DIR/data
ENV_FILE=bench/data/pg.env

bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n1)
[ -x "$bindir/pg_ctl" ] || { echo "bench/pg.sh: ERROR: no PostgreSQL in /usr/lib/postgresql (run make deps)" >&2; exit 1; }

# PostgreSQL refuses to run as root: run the server tools as `postgres` then.
as_pg() {
    if [ "$(id -u)" -eq 0 ]; then (cd "$DIR" && runuser -u postgres -- "$@"); else (cd "$DIR" && "$@"); fi
}

stop() {
    [ -f "$DATA/postmaster.pid" ] || { rm -f "$ENV_FILE"; return 0; }
    as_pg "$bindir/pg_ctl" -D "$DATA" -m fast -w stop >/dev/null 2>&1 || true
    rm -f "$ENV_FILE"
    echo "bench/pg.sh: stopped"
}

free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

start() {
    stop  # a server left running by an interrupted run
    mkdir -p "$DIR"
    [ "$(id -u)" -eq 0 ] && chown postgres: "$DIR"
    chmod 700 "$DIR"
    if [ ! -f "$DATA/PG_VERSION" ]; then
        rm -rf "$DATA"
        as_pg "$bindir/initdb" -D "$DATA" -U postgres -A trust -E UTF8 --locale=C --no-sync >"$DIR/initdb.log" \
            || { cat "$DIR/initdb.log" >&2; exit 1; }
        # Speed over durability (generated data), loopback TCP only, socket in our dir.
        as_pg tee -a "$DATA/postgresql.conf" >/dev/null <<CONF
listen_addresses = '127.0.0.1'
unix_socket_directories = '$DIR'
fsync = off
synchronous_commit = off
full_page_writes = off
shared_buffers = 256MB
max_wal_size = 2GB
CONF
        as_pg tee "$DATA/pg_hba.conf" >/dev/null <<HBA
local all all trust
host  all all 127.0.0.1/32 trust
HBA
    fi
    local port ok=
    for _ in 1 2 3; do
        port=$(free_port)
        if as_pg "$bindir/pg_ctl" -D "$DATA" -l "$DIR/server.log" -o "-p $port" -w -t 60 start >/dev/null; then
            ok=1; break
        fi
    done
    [ -n "$ok" ] || { echo "bench/pg.sh: ERROR: server did not start:" >&2; tail -n 20 "$DIR/server.log" >&2; exit 1; }
    cat > "$ENV_FILE" <<ENV
export FASTODBC_BENCH_PG='Driver={PostgreSQL Unicode};Server=127.0.0.1;Port=$port;Database=fastodbc_bench;Uid=postgres;Pwd=;BoolsAsChar=0;CommLog=0;Debug=0'
export FASTODBC_BENCH_PG_DSN='host=127.0.0.1 port=$port dbname=fastodbc_bench user=postgres'
export FASTODBC_BENCH_PG_PORT=$port
ENV
    as_pg "$bindir/psql" -h 127.0.0.1 -p "$port" -U postgres -d postgres -qtAc \
        "SELECT 1 FROM pg_database WHERE datname='fastodbc_bench'" | grep -q 1 \
        || as_pg "$bindir/createdb" -h 127.0.0.1 -p "$port" -U postgres fastodbc_bench
    echo "bench/pg.sh: PostgreSQL $("$bindir/postgres" -V | awk '{print $3}') on 127.0.0.1:$port (data $DATA)"
}

case "${1:-}" in
    start) start ;;
    stop) stop ;;
    *) echo "usage: $0 start|stop" >&2; exit 2 ;;
esac
