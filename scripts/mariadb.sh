#!/usr/bin/env bash
# Throwaway MariaDB server for the tests (never the system service the package may run).
#   scripts/mariadb.sh start   - new server in a temp dir on 127.0.0.1:<free port>, database
#                                fastodbc_test, user fastodbc; writes build/mariadb.env
#                                (FASTODBC_TEST_MARIADB connection string + paths)
#   scripts/mariadb.sh stop    - stop the server named in build/mariadb.env, delete its temp dir
#   scripts/mariadb.sh halt    - stop the server process only: data, port and env file stay
#                                (fault tests: "the server went away")
#   scripts/mariadb.sh resume  - start the halted server again, same data and port
#   scripts/mariadb.sh env     - print build/mariadb.env (for: eval "$(scripts/mariadb.sh env)")
# Every command is idempotent: stop/halt with nothing running and resume of a running server
# do nothing. FASTODBC_MARIADB_ENV_FILE and FASTODBC_MARIADB_DB name another env file and
# database: the benchmark's own server (bench/mariadb.sh), which `make test` must not stop.
set -euo pipefail
cd "$(dirname "$0")/.."
ENV_FILE=${FASTODBC_MARIADB_ENV_FILE:-build/mariadb.env}
DB=${FASTODBC_MARIADB_DB:-fastodbc_test}
DB_USER=fastodbc

mariadbd=$(command -v mariadbd || echo /usr/sbin/mariadbd)
[ -x "$mariadbd" ] || { echo "mariadb.sh: ERROR: no mariadbd (run scripts/deps.sh)" >&2; exit 1; }

# The server refuses to run as root: as root (CI) it runs as `mysql`, else as the caller.
if [ "$(id -u)" -eq 0 ]; then RUN_AS=mysql; else RUN_AS=$(id -un); fi
as_server() {
    if [ "$(id -u)" -eq 0 ]; then (cd "$DIR" && runuser -u mysql -- "$@"); else (cd "$DIR" && "$@"); fi
}

free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

load_env() {
    [ -f "$ENV_FILE" ] || return 1
    # shellcheck disable=SC1090
    . "$ENV_FILE"
    DIR=$FASTODBC_MARIADB_DIR
    # Only ever touch a dir this script made.
    case "$DIR" in */fastodbc-mariadb.*) ;; *) echo "mariadb.sh: refusing to use '$DIR'" >&2; exit 1 ;; esac
}

running_pid() {  # the server's pid if it is running, else nothing
    local pid
    pid=$(cat "$DIR/mariadbd.pid" 2>/dev/null) || return 0
    kill -0 "$pid" 2>/dev/null && echo "$pid"
    return 0
}

# The admin client: as the OS user over the socket (unix_socket authentication, no password).
admin() {
    mariadb --no-defaults --protocol=socket --socket="$DIR/mariadbd.sock" -u "$(id -un)" "$@"
}

# write_cnf PORT: the server's whole configuration (--defaults-file: /etc/mysql is never read).
write_cnf() {
    cat > "$DIR/my.cnf" <<CNF
[mariadbd]
datadir=$DIR/data
port=$1
bind-address=127.0.0.1
socket=$DIR/mariadbd.sock
pid-file=$DIR/mariadbd.pid
log-error=$DIR/server.log
skip-name-resolve
character-set-server=utf8mb4
# A leaked lock (a failed test's open transaction) fails the next test within 10 s instead of
# hanging the suite: lock_wait_timeout bounds metadata locks (DROP TABLE), the InnoDB one rows.
lock_wait_timeout=10
innodb_lock_wait_timeout=10
# Speed over durability: a crash loses a throwaway database.
innodb_flush_log_at_trx_commit=0
innodb_doublewrite=0
innodb_log_file_size=16M
innodb_buffer_pool_size=64M
skip-log-bin
max_allowed_packet=64M
CNF
}

# wait_ready PID: until the server answers on its socket, or its process has ended.
wait_ready() {
    local pid=$1
    for _ in $(seq 1 300); do
        admin -e 'SELECT 1' >/dev/null 2>&1 && return 0
        kill -0 "$pid" 2>/dev/null || return 1
        sleep 0.1
    done
    return 1
}

# launch: start mariadbd on $DIR/my.cnf in its own session (it outlives this script).
launch() {
    rm -f "$DIR/mariadbd.pid"
    if [ "$(id -u)" -eq 0 ]; then
        (cd "$DIR" && setsid runuser -u mysql -- "$mariadbd" --defaults-file="$DIR/my.cnf" </dev/null >>"$DIR/server.out" 2>&1 &
            echo $! > "$DIR/launcher.pid")
    else
        (cd "$DIR" && setsid "$mariadbd" --defaults-file="$DIR/my.cnf" </dev/null >>"$DIR/server.out" 2>&1 &
            echo $! > "$DIR/launcher.pid")
    fi
    wait_ready "$(cat "$DIR/launcher.pid")"
}

halt() {
    load_env || return 0
    local pid
    pid=$(running_pid)
    [ -n "$pid" ] || return 0
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 1 300); do
        kill -0 "$pid" 2>/dev/null || return 0
        sleep 0.1
    done
    kill -KILL "$pid" 2>/dev/null || true
}

resume() {
    load_env || { echo "mariadb.sh: no $ENV_FILE (run: $0 start)" >&2; exit 1; }
    [ -z "$(running_pid)" ] || return 0
    launch || { echo "mariadb.sh: ERROR: server did not restart:" >&2; tail -n 20 "$DIR/server.log" >&2; exit 1; }
}

stop() {
    load_env || return 0
    halt
    rm -rf "$DIR"
    rm -f "$ENV_FILE"
    echo "mariadb.sh: stopped"
}

start() {
    stop  # a server left over from an earlier run would otherwise leak
    mkdir -p "$(dirname "$ENV_FILE")"
    DIR=$(mktemp -d "${TMPDIR:-/tmp}/fastodbc-mariadb.XXXXXX")
    chmod 755 "$DIR"
    [ "$(id -u)" -eq 0 ] && chown mysql: "$DIR"
    local port password
    port=$(free_port)
    write_cnf "$port"
    as_server mariadb-install-db --defaults-file="$DIR/my.cnf" --user="$RUN_AS" --skip-test-db \
        >"$DIR/install.log" 2>&1 || { cat "$DIR/install.log" >&2; rm -rf "$DIR"; exit 1; }
    password=$(python3 -c 'import secrets; print(secrets.token_hex(12))')
    # Written before the server starts so that `stop` can clean up if anything below fails.
    write_env "$port" "$password"
    # The port was free when probed but could be taken before the server binds it: retry.
    local ok=
    for _ in 1 2 3; do
        if launch; then ok=1; break; fi
        port=$(free_port)
        write_cnf "$port"
        write_env "$port" "$password"
    done
    [ -n "$ok" ] || { echo "mariadb.sh: ERROR: server did not start:" >&2; tail -n 20 "$DIR/server.log" >&2; stop; exit 1; }
    admin <<SQL
CREATE DATABASE $DB CHARACTER SET utf8mb4;
CREATE USER '$DB_USER'@'127.0.0.1' IDENTIFIED BY '$password';
GRANT ALL PRIVILEGES ON *.* TO '$DB_USER'@'127.0.0.1' WITH GRANT OPTION;
SQL
    echo "mariadb.sh: MariaDB $("$mariadbd" --version | awk '{print $3}') on 127.0.0.1:$port (data $DIR/data)"
}

write_env() {  # write_env PORT PASSWORD
    cat > "$ENV_FILE" <<ENV
export FASTODBC_TEST_MARIADB='Driver={MariaDB Unicode};Server=127.0.0.1;Port=$1;Database=$DB;User=$DB_USER;Password=$2'
export FASTODBC_MARIADB_DIR='$DIR'
export FASTODBC_MARIADB_DATA='$DIR/data'
export FASTODBC_MARIADB_PORT=$1
export FASTODBC_MARIADB_SOCKET='$DIR/mariadbd.sock'
export FASTODBC_MARIADB_PID_FILE='$DIR/mariadbd.pid'
ENV
}

case "${1:-}" in
    start) start ;;
    stop) stop ;;
    halt) halt ;;
    resume) resume ;;
    env) cat "$ENV_FILE" ;;
    *) echo "usage: $0 start|stop|halt|resume|env" >&2; exit 2 ;;
esac
