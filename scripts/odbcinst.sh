#!/usr/bin/env bash
# Write a project-local ODBC driver registry, build/odbc/odbcinst.ini (+ an empty odbc.ini).
# The Makefile points ODBCSYSINI/ODBCINI here, so /etc/odbcinst.ini is never needed nor edited.
# Driver= paths are absolute and found at run time: Debian puts them in
# /usr/lib/<multiarch>/odbc/, and a bare file name would depend on the loader's search path.
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
sqlite=$(find_lib libsqliteodbc libsqlite3odbc.so)
pgw=$(find_lib odbc-postgresql psqlodbcw.so)
pga=$(find_lib odbc-postgresql psqlodbca.so)
maria=$(find_lib odbc-mariadb libmaodbc.so)

# Write to a temp file and move, so a concurrent reader never sees half a file.
cat > "$out/odbcinst.ini.tmp" <<INI
[ODBC]
Trace=No

[SQLite3]
Description=SQLite3 ODBC Driver
Driver=$sqlite

[PostgreSQL Unicode]
Description=PostgreSQL ODBC driver (Unicode version)
Driver=$pgw
Debug=0
CommLog=0

[PostgreSQL ANSI]
Description=PostgreSQL ODBC driver (ANSI version)
Driver=$pga
Debug=0
CommLog=0

[MariaDB Unicode]
Description=MariaDB Connector/ODBC
Driver=$maria
INI
mv "$out/odbcinst.ini.tmp" "$out/odbcinst.ini"
[ -f "$out/odbc.ini" ] || : > "$out/odbc.ini"

# Sanity check: unixODBC must list every driver from this file.
drivers=$(ODBCSYSINI="$PWD/$out" ODBCINI="$PWD/$out/odbc.ini" odbcinst -q -d)
for d in SQLite3 'PostgreSQL Unicode' 'PostgreSQL ANSI' 'MariaDB Unicode'; do
    grep -qxF "[$d]" <<<"$drivers" || { echo "odbcinst: ERROR: [$d] not registered" >&2; exit 1; }
done
