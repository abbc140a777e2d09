#!/usr/bin/env bash
# Builds turbodbc, a benchmark peer, into a virtualenv of its own: bench/data/turbodbc-venv.
#
# turbodbc publishes only source. Its build needs simdutf (C++), which Debian 12 does not package,
# and Arrow C++ of the pyarrow it builds against (pyarrow < 25, while the main .venv pins 26 for
# arrow-odbc: hence the separate venv, and turbodbc's workers run its python). simdutf's
# single-file release ships inside the `simdutf` crate on crates.io (its Rust bindings vendor
# cpp/simdutf.{h,cpp}): compiled here into a static library, with pkg-config files for it and for
# the Arrow C++ library inside the pyarrow wheel. Every download is pinned by version and the
# crate by its sha256. Runs once (skipped while the venv imports the pinned turbodbc); takes
# 1-5 minutes on 2 cores. Called by bench/setup.sh; a failure only leaves turbodbc out of the run.
set -euo pipefail
cd "$(dirname "$0")/.."

TURBODBC=5.3.0
PYARROW=24.0.0
SIMDUTF_CRATE=0.7.0 # vendors simdutf 7.7.1
SIMDUTF_SHA256=5f542752c7335a9174e7bb81112c3ca1415a7a6b6ec2c3e840aca347a30f9141
BUILD_TOOLS=(numpy==2.4.6 meson==1.12.1 meson-python==0.22.1 pybind11==3.1.0 ninja==1.13.2)

VENV=$PWD/bench/data/turbodbc-venv
if [ -x "$VENV/bin/python" ] &&
    "$VENV/bin/python" -c "import sys, turbodbc; sys.exit(turbodbc.__version__ != '$TURBODBC')" 2>/dev/null; then
    exit 0
fi
echo "bench: building turbodbc $TURBODBC into bench/data/turbodbc-venv (once, 1-5 min)"

# Boost headers (variant, optional, date_time) and the unixODBC headers turbodbc includes.
missing=()
for pkg in libboost-dev unixodbc-dev pkg-config g++; do
    dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
    sudo=$([ "$(id -u)" -eq 0 ] && echo "" || echo sudo)
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}"
fi

rm -rf "$VENV"
PY=$(.venv/bin/python -c "import sys; print(sys._base_executable)")
"$PY" -m venv "$VENV"
pip() { "$VENV/bin/python" -m pip install -q --disable-pip-version-check "$@"; }
# psycopg: the worker empties PostgreSQL's insert table through it.
pip "pyarrow==$PYARROW" "psycopg[binary]==3.3.9" "${BUILD_TOOLS[@]}"

work=$VENV/build-deps
mkdir -p "$work/simdutf" "$work/pkgconfig"
crate=$work/simdutf.crate
curl -fsSL --retry 3 -o "$crate" "https://static.crates.io/crates/simdutf/simdutf-$SIMDUTF_CRATE.crate"
echo "$SIMDUTF_SHA256  $crate" | sha256sum -c --quiet
tar xzf "$crate" -C "$work/simdutf" --strip-components=2 "simdutf-$SIMDUTF_CRATE/cpp/simdutf.h" \
    "simdutf-$SIMDUTF_CRATE/cpp/simdutf.cpp"
g++ -O2 -std=c++17 -fPIC -c "$work/simdutf/simdutf.cpp" -o "$work/simdutf/simdutf.o"
ar rcs "$work/simdutf/libsimdutf.a" "$work/simdutf/simdutf.o"
cat >"$work/pkgconfig/simdutf.pc" <<EOF
Name: simdutf
Description: simdutf, from the simdutf crate $SIMDUTF_CRATE
Version: 7.7.1
Cflags: -I$work/simdutf
Libs: -L$work/simdutf -lsimdutf
EOF

pyarrow_dir=$("$VENV/bin/python" -c "import pyarrow, os; print(os.path.dirname(pyarrow.__file__))")
# The wheel ships libarrow.so.N only; the linker wants libarrow.so.
"$VENV/bin/python" -c "import pyarrow; pyarrow.create_library_symlinks()"
cat >"$work/pkgconfig/arrow.pc" <<EOF
Name: arrow
Description: Arrow C++ of the pyarrow $PYARROW wheel
Version: $PYARROW
Cflags: -I$pyarrow_dir/include
Libs: -L$pyarrow_dir -larrow -Wl,-rpath,$pyarrow_dir
EOF

# turbodbc's meson build finds simdutf and arrow through pkg-config, and includes pybind11 and
# simdutf headers without declaring them.
pybind11_inc=$("$VENV/bin/python" -c "import pybind11; print(pybind11.get_include())")
PKG_CONFIG_PATH=$work/pkgconfig \
    CPLUS_INCLUDE_PATH=$pybind11_inc:$work/simdutf \
    PATH=$VENV/bin:$PATH \
    pip --no-build-isolation --no-binary turbodbc "turbodbc==$TURBODBC"
"$VENV/bin/python" -c "import turbodbc; print('bench: turbodbc', turbodbc.__version__, 'built')"
