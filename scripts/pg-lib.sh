# Shared by scripts/pg.sh (the tests' throwaway cluster) and bench/pg.sh (the benchmark's
# persistent one): finding the server, running its tools, creating and starting a cluster.
# Source it after setting PGDIR (the cluster's directory) and LOG_PREFIX (for messages).

pg_bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n1)
[ -x "$pg_bindir/pg_ctl" ] || { echo "$LOG_PREFIX: ERROR: no PostgreSQL in /usr/lib/postgresql (run scripts/deps.sh)" >&2; exit 1; }

# PostgreSQL refuses to run as root (and CI is root): run the server tools as `postgres` then.
# cd into the cluster dir first so the tools don't complain about an unreadable cwd.
as_pg() {
    if [ "$(id -u)" -eq 0 ]; then (cd "$PGDIR" && runuser -u postgres -- "$@"); else (cd "$PGDIR" && "$@"); fi
}

free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# pg_init DATA [postgresql.conf lines...]: a new cluster in DATA (inside PGDIR, owned by the
# server's user). Speed over durability, loopback TCP only, socket in PGDIR.
pg_init() {
    local data=$1
    shift
    [ "$(id -u)" -eq 0 ] && chown postgres: "$PGDIR"
    chmod 700 "$PGDIR"
    as_pg "$pg_bindir/initdb" -D "$data" -U postgres -A trust -E UTF8 --locale=C --no-sync >"$PGDIR/initdb.log" \
        || { cat "$PGDIR/initdb.log" >&2; return 1; }
    {
        printf '%s\n' "listen_addresses = '127.0.0.1'" "unix_socket_directories = '$PGDIR'" \
            "fsync = off" "synchronous_commit = off" "full_page_writes = off"
        printf '%s\n' "$@"
    } | as_pg tee -a "$data/postgresql.conf" >/dev/null
    # Every role logs in without a password, but `fastodbc_login`: the tests create it to see
    # what a wrong password does.
    printf '%s\n' "local all all trust" "host  all fastodbc_login 127.0.0.1/32 scram-sha-256" \
        "host  all all 127.0.0.1/32 trust" | as_pg tee "$data/pg_hba.conf" >/dev/null
}

# pg_start DATA: starts the cluster on a free port and sets PG_PORT. The port is free when
# probed but could be taken before the server binds it: retry.
pg_start() {
    local data=$1
    for _ in 1 2 3; do
        PG_PORT=$(free_port)
        if as_pg "$pg_bindir/pg_ctl" -D "$data" -l "$PGDIR/server.log" -o "-p $PG_PORT" -w -t 60 start >/dev/null; then
            return 0
        fi
    done
    echo "$LOG_PREFIX: ERROR: server did not start:" >&2
    tail -n 20 "$PGDIR/server.log" >&2
    return 1
}

pg_version() {
    "$pg_bindir/postgres" -V | awk '{print $3}'
}
