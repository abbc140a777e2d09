#!/usr/bin/env bash
# Install everything the project needs; idempotent and fast when nothing is missing.
#   - Debian packages (unixODBC, the SQLite3, PostgreSQL and MariaDB ODBC drivers, PostgreSQL,
#     MariaDB, valgrind, GNU time)
#   - .venv with the pinned tools of requirements-dev.txt
#   - checks that the Rust toolchain (rustup's cargo) is reachable
set -euo pipefail
cd "$(dirname "$0")/.."

# python3-venv: `python3 -m venv` needs it when python3 is the Debian one (ensurepip).
# mariadb-server: the tests run their own throwaway server (scripts/mariadb.sh), never the
# system service the package may start.
# time: GNU time, the peak memory of the benchmark's child processes (bench/child.py).
APT_PKGS=(unixodbc unixodbc-dev libsqliteodbc odbc-postgresql odbc-mariadb postgresql mariadb-server
    valgrind python3-venv time)

missing=()
for p in "${APT_PKGS[@]}"; do
    # dpkg -s succeeds for removed-but-configured packages too, so check the status line.
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if ((${#missing[@]})); then
    echo "deps: installing ${missing[*]}"
    SUDO=; [ "$(id -u)" -eq 0 ] || SUDO=sudo
    # The drivers' postinst scripts register them with odbcinst, which writes where ODBCSYSINI
    # points: the Makefile exports the project's build/odbc, absent on a fresh clone, and the
    # registration then fails ("Unable to find component name"), failing the install. The
    # system registry is the right target for the packages' own scripts.
    APT=($SUDO env -u ODBCSYSINI -u ODBCINI DEBIAN_FRONTEND=noninteractive)
    # A package left half-configured by an earlier failed run is finished first.
    "${APT[@]}" dpkg --configure -a
    "${APT[@]}" apt-get update -qq
    "${APT[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# Rust: rustup installs into ~/.cargo, which a non-login shell may not have on PATH.
# shellcheck disable=SC1091
[ -f "$HOME/.cargo/env" ] && . "$HOME/.cargo/env"
if ! command -v cargo >/dev/null; then
    echo "deps: ERROR: cargo not found (install Rust with rustup: https://rustup.rs)" >&2
    exit 1
fi

[ -x .venv/bin/python ] || python3 -m venv .venv

# pip only when a pinned requirement is absent or at another version.
if ! .venv/bin/python scripts/requirements_met.py requirements-dev.txt; then
    echo "deps: pip install -r requirements-dev.txt"
    .venv/bin/python -m pip install -q --disable-pip-version-check -r requirements-dev.txt
fi
