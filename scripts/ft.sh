#!/usr/bin/env bash
# make test-ft: the test suite on a free-threaded CPython 3.13 (3.13t) with the GIL off.
#   1. CPython 3.13.5t built once by pyenv (kept in pyenv's versions). With no python.org here,
#      its source comes from Debian's pool: trixie's python3.13_3.13.5.orig.tar.xz is
#      Python-3.13.5.tar.xz, byte for byte (the sha256 below is pyenv's own for that tarball).
#   2. build/ft-venv: fastodbc built into it (maturin develop, target/ft: the 3.13t build's
#      artefacts apart from the GIL build's), with the test tools that have 3.13t wheels.
#   3. scripts/test.sh ft: the suite with PYTHON_GIL=0, so an oracle's module (pyodbc, ...)
#      that would turn the GIL back on cannot; tests/test_free_threading.py checks that
#      importing fastodbc alone leaves it off.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck disable=SC1091
[ -f "$HOME/.cargo/env" ] && . "$HOME/.cargo/env"

VERSION=3.13.5
SHA256=93e583f243454e6e9e4588ca2c2662206ad961659863277afcdb96801647d640
DEBIAN_SOURCE=http://deb.debian.org/debian/pool/main/p/python3.13/python3.13_${VERSION}.orig.tar.xz
PYENV_ROOT=${PYENV_ROOT:-$HOME/.pyenv}
python=$PYENV_ROOT/versions/${VERSION}t/bin/python3.13t

if [ ! -x "$python" ]; then
    command -v pyenv >/dev/null || { echo "test-ft: pyenv is needed to build CPython ${VERSION}t" >&2; exit 1; }
    cache=$PYENV_ROOT/cache
    mkdir -p "$cache"
    tarball=$cache/Python-$VERSION.tar.xz
    if ! echo "$SHA256  $tarball" | sha256sum -c --status 2>/dev/null; then
        curl -sSf -o "$tarball.part" "$DEBIAN_SOURCE"
        echo "$SHA256  $tarball.part" | sha256sum -c --status || { echo "test-ft: $DEBIAN_SOURCE: wrong sha256" >&2; exit 1; }
        mv "$tarball.part" "$tarball"
    fi
    PYTHON_BUILD_CACHE_PATH=$cache MAKE_OPTS=-j"$(nproc)" nice pyenv install -s "${VERSION}t"
fi

venv=build/ft-venv
[ -x "$venv/bin/python" ] || "$python" -m venv "$venv"
pip=("$venv/bin/python" -m pip install -q --disable-pip-version-check)
if ! "$venv/bin/python" scripts/requirements_met.py requirements-ft.txt; then
    "${pip[@]}" -r requirements-ft.txt
fi
if ! "$venv/bin/python" scripts/requirements_met.py requirements-ft-nodeps.txt; then
    "${pip[@]}" --no-deps -r requirements-ft-nodeps.txt
fi
VIRTUAL_ENV=$PWD/$venv "$venv/bin/maturin" develop --release --target-dir target/ft
"$venv/bin/python" -c 'import sys, fastodbc; assert not sys._is_gil_enabled(), "fastodbc turned the GIL on"'
bash scripts/test.sh ft
