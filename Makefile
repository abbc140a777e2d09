# fastodbc developer tasks. `make help` lists them.
SHELL := /bin/bash
.DEFAULT_GOAL := help

# unixODBC reads the project-local driver registry written by scripts/odbcinst.sh,
# so nothing under /etc is needed or touched.
export ODBCSYSINI := $(CURDIR)/build/odbc
export ODBCINI := $(CURDIR)/build/odbc/odbc.ini
# maturin installs into the venv named here.
export VIRTUAL_ENV := $(CURDIR)/.venv
# rustup's cargo, for shells that didn't source ~/.cargo/env.
export PATH := $(HOME)/.cargo/bin:$(PATH)

.PHONY: help deps build bench-ext demo test test-deep test-ft test-soak wheels test-wheels lint pg-start pg-stop mariadb-start mariadb-stop clean

help: ## list targets
	@grep -E '^[a-zA-Z_-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-16s %s\n", $$1, $$2}'

deps: ## install apt packages, .venv tools; write build/odbc/odbcinst.ini
	bash scripts/deps.sh
	bash scripts/odbcinst.sh

build: deps ## build the extension into .venv (maturin develop --release)
	.venv/bin/maturin develop --release

# The benchmark's instruments (bench/pyext): a distribution of their own, never in fastodbc's
# wheel; the benchmarks and their tests (bench/tests, run by `make test`) import them.
bench-ext: deps ## build the benchmark's instruments (module fastodbc_bench into .venv, target/release/odbc-floor)
	.venv/bin/maturin develop --release -m bench/pyext/Cargo.toml --target-dir target
	cargo build --release $(BENCH_CARGO) -p odbc-floor

demo: build ## run scripts/demo.py
	.venv/bin/python scripts/demo.py

test: build bench-ext ## cargo + pytest suites against a throwaway PostgreSQL and MariaDB
	bash scripts/test.sh

test-deep: build ## the differential matrix for 30 min (FASTODBC_DEEP=seconds) on every backend
	bash scripts/test.sh deep

wheels: deps ## manylinux2014 wheels for CPython 3.10-3.13 and an sdist into dist/ (scripts/wheels.sh)
	bash scripts/wheels.sh

test-wheels: wheels ## the test suite against each wheel, installed in a clean venv without Rust on PATH
	bash scripts/test.sh wheels

test-ft: deps ## the suite on a free-threaded CPython 3.13t (built once by pyenv), GIL off (scripts/ft.sh)
	bash scripts/ft.sh

test-soak: build ## writers on a pool through a link-cutting proxy, a ledger checked (FASTODBC_SOAK_SECONDS=600 a server)
	bash scripts/test.sh soak

# (wildcard: git keeps no empty dir, so bench/ may be absent from a clone)
lint: deps ## rustfmt, clippy (-D warnings), ruff; fastodbc's workspace and the benchmark's
	cargo fmt --all --check
	cargo clippy --workspace -- -D warnings
	cargo fmt --all --check $(BENCH_CARGO_MANIFEST)
	cargo clippy --workspace $(BENCH_CARGO) -- -D warnings
	.venv/bin/ruff check $(wildcard python tests bench)

pg-start: deps ## start a throwaway PostgreSQL; then: . build/pg.env
	bash scripts/pg.sh start

pg-stop: ## stop it and delete its data
	bash scripts/pg.sh stop

mariadb-start: deps ## start a throwaway MariaDB; then: . build/mariadb.env
	bash scripts/mariadb.sh start

mariadb-stop: ## stop it and delete its data
	bash scripts/mariadb.sh stop

clean: pg-stop mariadb-stop ## remove build/, target/ and the built extension
	rm -rf build target
	rm -f python/fastodbc/_native*.so

# Benchmarks (bench/, BENCHMARKS.md): not part of `make test` (their tests, bench/tests, are).
# The bench targets install the peers of bench/requirements.txt and run their own PostgreSQL
# (bench/pg.sh).
.PHONY: bench bench-quick bench-check bench-criterion
# The benchmark's crates are a workspace of their own, built into the root's target/.
BENCH_CARGO_MANIFEST = --manifest-path bench/Cargo.toml
BENCH_CARGO = $(BENCH_CARGO_MANIFEST) --target-dir target

bench: build bench-ext ## full benchmark suite vs the peers (~15 min): bench/results/ (git-ignored), history.md, BENCHMARKS.md
	bash bench/setup.sh
	cargo build --release $(BENCH_CARGO) -p odbc-floor -p codec-bench
	.venv/bin/python bench/run.py --scale full

bench-quick: build bench-ext ## quick benchmark (~3 min: fewer rows, two floor rowsets): bench/results/ (git-ignored), history.md
	bash bench/setup.sh
	cargo build --release $(BENCH_CARGO) -p odbc-floor -p codec-bench
	.venv/bin/python bench/run.py --scale quick

bench-check: deps ## instruction-count gate of the codecs: text, numeric, temporal, params (>10% fails)
	cargo build --release $(BENCH_CARGO) -p codec-bench
	.venv/bin/python bench/instructions.py --check

# Criterion's defaults (3 s warm-up, 5 s measurement, 100,000 resamples a case) would take
# ~6 minutes for the 38 cases; this is ~1.5 min once built. Reports: target/criterion/.
bench-criterion: deps ## Criterion timings of the same codec cases, no database (~1.5 min)
	cargo bench $(BENCH_CARGO) -p codec-criterion --bench codecs -- --warm-up-time 0.5 --measurement-time 1 --nresamples 20000 --noplot
