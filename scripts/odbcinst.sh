#!/usr/bin/env bash
# Write a project-local ODBC driver registry, build/odbc/odbcinst.ini (+ an empty odbc.ini).
# The Makefile points ODBCSYSINI/ODBCINI here, so /etc/odbcinst.ini is never needed nor edited.
# Driver= paths are absolute and found at run time: Debian puts them in
# /usr/lib/<multiarch>/odbc/, and a bare file name would depend on the loader's search path.
# A test profile's `driver` (tests/profiles) names one of these sections.
set -euo pipefail
cd "$(dirname "$0")/.."
out=build/odbc
mkdir -p "$out"

find_lib() {  # find_lib PACKAGE FILENAME -> absolute path of FILENAME shipped by PACKAGE
    local p
    p=$(dpkg -L "$1" 2>/dev/null | grep -m1 "/$2\$" || true)
    [ -n "$p" ] || p=$(find /usr/lib /usr/local/lib -name "$2" 2>/dev/null | head -n1)
    [ -n "$p" ] && [ -f "$p" ] || { echo "odbcinst: ERROR: $2 not found (run scripts/deps.sh)" >&2; exit 1; }
    echo "$p"
}

sections=()
# entry SECTION DESCRIPTION PACKAGE LIBRARY [KEY=VALUE...]: one driver's section.
entry() {
    local section=$1 description=$2 lib
    lib=$(find_lib "$3" "$4")
    shift 4
    sections+=("$section")
    printf '\n[%s]\nDescription=%s\nDriver=%s\n' "$section" "$description" "$lib"
    [ $# -eq 0 ] || printf '%s\n' "$@"
}

# Write to a temp file and move, so a concurrent reader never sees half a file.
{
    printf '[ODBC]\nTrace=No\n'
    entry 'SQLite3' 'SQLite3 ODBC Driver' libsqliteodbc libsqlite3odbc.so
    entry 'PostgreSQL Unicode' 'PostgreSQL ODBC driver (Unicode version)' odbc-postgresql psqlodbcw.so Debug=0 CommLog=0
    entry 'PostgreSQL ANSI' 'PostgreSQL ODBC driver (ANSI version)' odbc-postgresql psqlodbca.so Debug=0 CommLog=0
    entry 'MariaDB Unicode' 'MariaDB Connector/ODBC' odbc-mariadb libmaodbc.so
} > "$out/odbcinst.ini.tmp"
mv "$out/odbcinst.ini.tmp" "$out/odbcinst.ini"
[ -f "$out/odbc.ini" ] || : > "$out/odbc.ini"

# Sanity check: unixODBC must list every driver from this file.
drivers=$(ODBCSYSINI="$PWD/$out" ODBCINI="$PWD/$out/odbc.ini" odbcinst -q -d)
for d in "${sections[@]}"; do
    grep -qxF "[$d]" <<<"$drivers" || { echo "odbcinst: ERROR: [$d] not registered" >&2; exit 1; }
done
