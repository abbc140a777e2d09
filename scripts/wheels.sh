#!/usr/bin/env bash
# make wheels: manylinux2014 (glibc 2.17) wheels of fastodbc for CPython 3.10-3.13 and an sdist,
# into dist/. maturin links through zig against glibc 2.17's symbols from this Debian 12 machine
# (no manylinux container needed); the dist profile (Cargo.toml) strips the debug information.
# unixODBC stays a system library (libodbc.so.2): the wheel links it, never bundles it, since
# the driver manager must be the one the system's drivers and odbcinst.ini were installed for
# (python/fastodbc/_system.py names the package to install when it is missing). So maturin's
# auditwheel repair is skipped and scripts/wheel_check.py checks the policy itself.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck disable=SC1091
[ -f "$HOME/.cargo/env" ] && . "$HOME/.cargo/env"

# 3.13t (free-threaded) too where make test-ft has built it: a wheel of its own ABI (cp313t).
PYTHONS=${FASTODBC_WHEEL_PYTHONS:-"3.10 3.11 3.12 3.13 3.13t?"}
interpreters=()
for v in $PYTHONS; do
    optional=; [ "${v%\?}" != "$v" ] && optional=1 && v=${v%\?}
    found=$(bash scripts/pyenv-python.sh "$v" || true)
    if [ -z "$found" ]; then
        [ -n "$optional" ] && { echo "wheels: no CPython $v here (make test-ft builds it): no wheel for it"; continue; }
        echo "wheels: no CPython $v (pyenv install $v, or put python$v on PATH)" >&2
        exit 1
    fi
    interpreters+=("$found")
done

if ! .venv/bin/python scripts/requirements_met.py requirements-wheels.txt; then
    .venv/bin/python -m pip install -q --disable-pip-version-check -r requirements-wheels.txt
fi
rm -rf dist
# The link step looks for libodbc.so in zig's glibc 2.17 sysroot and the target's own dirs only:
# a directory holding nothing but unixODBC's library (its SONAME, libodbc.so.2, is what the
# wheel records), so no other host library can slip into the link.
link_dir=$PWD/build/wheel-link
mkdir -p "$link_dir"
odbc_lib=$(ldconfig -p | awk '/libodbc\.so\.2 .*x86-64/ {print $NF; exit}')
[ -n "$odbc_lib" ] || { echo "wheels: no libodbc.so.2 (apt install unixodbc)" >&2; exit 1; }
ln -sf "$odbc_lib" "$link_dir/libodbc.so"
export RUSTFLAGS="${RUSTFLAGS:-} -L native=$link_dir"
# maturin finds zig as `python3 -m ziglang` on PATH: the venv's, where requirements-wheels put it.
export PATH="$PWD/.venv/bin:$PATH"
.venv/bin/maturin build --profile dist --zig --compatibility manylinux2014 --auditwheel skip \
    --out dist --interpreter "${interpreters[@]}"
.venv/bin/maturin sdist --out dist
.venv/bin/python scripts/wheel_check.py dist/*.whl
ls -l dist
