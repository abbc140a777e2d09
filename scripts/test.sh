#!/usr/bin/env bash
# Run the Rust and Python test suites against the throwaway test servers: the server_script
# of every profile in tests/profiles (PROFILES: scripts/pg.sh, scripts/mariadb.sh). Each is
# started, its `env` sourced, and stopped whatever happens; the exit code is the first
# failing suite's.
#   scripts/test.sh        every suite (the differential matrix's quick profile included)
#   scripts/test.sh deep   only the differential matrix, deep: FASTODBC_DEEP seconds (1800)
#                          spread over its tests and backends, then its counts
#   scripts/test.sh soak   only the soak (scripts/soak.py): FASTODBC_SOAK_SECONDS (600) a server
#   scripts/test.sh wheels the suite against each wheel of dist/, installed (make test-wheels)
#   scripts/test.sh ft     the suite on the free-threaded build/ft-venv, GIL off (make test-ft)
# Expects `make build` and `make bench-ext` to have run (the Makefile's targets do that first).
set -uo pipefail
cd "$(dirname "$0")/.."
# shellcheck disable=SC1091
[ -f "$HOME/.cargo/env" ] && . "$HOME/.cargo/env"
export ODBCSYSINI=${ODBCSYSINI:-$PWD/build/odbc} ODBCINI=${ODBCINI:-$PWD/build/odbc/odbc.ini}

# The free-threaded run has its own interpreter (scripts/ft.sh); every other, the project's .venv.
python=$PWD/.venv/bin/python
[ "${1:-}" = ft ] && python=$PWD/build/ft-venv/bin/python
servers=$(cd tests && "$python" -m profiles servers) || exit 1
started=()
# shellcheck disable=SC2317  # called by the trap
stop_servers() { for s in "${started[@]}"; do bash "$s" stop; done; }
trap stop_servers EXIT
trap 'exit 130' INT TERM   # make sure the EXIT trap runs on Ctrl-C / kill too
for s in $servers; do
    started+=("$s")
    bash "$s" start || exit 1
    eval "$(bash "$s" env)"
done

if [ "${1:-}" = deep ]; then
    rc=0
    FASTODBC_DIFFERENTIAL=deep nice .venv/bin/python -m pytest -q tests/test_differential.py || rc=$?
    .venv/bin/python scripts/differential_report.py build/differential/deep-stats.json
    exit "$rc"
fi

if [ "${1:-}" = wheels ]; then
    # Each wheel of dist/ (make wheels) in a clean virtualenv of its CPython, installed with its
    # extras, no Rust toolchain on PATH, then the test suite against the installed package
    # (tests/conftest.py checks where fastodbc came from). bench/tests need the benchmark's own
    # extension and stay with `make test`.
    rc=0
    for wheel in dist/fastodbc-*.whl; do
        tag=$(basename "$wheel" | sed -E 's/.*-cp3[0-9]+-(cp3[0-9]+t?)-.*/\1/')  # cp313, cp313t
        version="3.${tag#cp3}"
        python=$(bash scripts/pyenv-python.sh "$version")
        venv=build/wheel-venvs/$tag
        rm -rf "$venv"
        "$python" -m venv "$venv"
        # The system's sbin directories stay: the fault tests restart servers through runuser.
        clean_path="$PWD/$venv/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
        if PATH=$clean_path command -v cargo rustc >/dev/null; then
            echo "wheels: a Rust toolchain is still on PATH" >&2
            exit 1
        fi
        pip=(env PATH="$clean_path" "$venv/bin/python" -m pip install -q --disable-pip-version-check)
        if [ "${tag%t}" != "$tag" ]; then
            # The free-threaded wheel: the extras and tools that have 3.13t wheels (as make test-ft),
            # the GIL kept off.
            "${pip[@]}" "$wheel[arrow,pandas,cli,dask]" -r requirements-ft.txt || { rc=1; continue; }
            "${pip[@]}" --no-deps -r requirements-ft-nodeps.txt || { rc=1; continue; }
            gil=0
        else
            "${pip[@]}" "$wheel[arrow,pandas,polars,cli,dask,sqlalchemy]" -r requirements-wheel-test.txt \
                || { rc=1; continue; }
            gil=
        fi
        echo "wheels: $(basename "$wheel") on $("$venv/bin/python" --version)"
        PATH=$clean_path PYTHON_GIL=$gil FASTODBC_TEST_INSTALLED=1 nice "$venv/bin/python" -m pytest -q \
            -p no:cacheprovider tests || { prc=$?; ((rc)) || rc=$prc; }
    done
    exit "$rc"
fi

if [ "${1:-}" = ft ]; then
    # Tests whose tools have no 3.13t wheel skip (pytest.importorskip); bench/tests need the
    # benchmark's own extension and stay with `make test`.
    PYTHON_GIL=0 nice "$python" -m pytest -q -p no:cacheprovider tests
    exit $?
fi

if [ "${1:-}" = soak ]; then
    nice .venv/bin/python scripts/soak.py
    exit $?
fi

rc=0
# fastodbc-py is a cdylib whose libpython symbols are resolved only when Python loads it, so its
# test binary can't link; pytest covers it instead. (The benchmark's crates, bench/Cargo.toml,
# have no Rust tests: bench/tests covers them.)
cargo test --workspace --exclude fastodbc-py || rc=$?

# bench/tests: the benchmark's own tests (its instruments, reports, history).
.venv/bin/python -m pytest -q tests bench/tests || { prc=$?; ((rc)) || rc=$prc; }
exit "$rc"
