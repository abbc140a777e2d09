"""Fixtures of the fidelity matrix: every profile bound at once (a source and a target each),
the source tables made once for the run."""

from __future__ import annotations

import os

import pytest

from conftest import ROOT
from profiles import PROFILES

from .mover import Mover

# The client's time zone for the whole matrix: libpq (psycopg, psqlODBC) reads PGTZ, so a
# zoned value must survive a session zone that is not UTC (issue 30 item 4 was found so).
CLIENT_ZONE = "America/New_York"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = os.path.dirname(__file__)
    for item in items:
        if str(item.path).startswith(here):
            item.add_marker(pytest.mark.crossdb)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "crossdb: the cross-database fidelity matrix (tests/crossdb)")


@pytest.fixture(scope="package")
def mover(tmp_path_factory: pytest.TempPathFactory):
    tmp = tmp_path_factory.mktemp("crossdb")
    profiles = {}
    for p in PROFILES:
        bound = p.bind(tmp)
        if bound is None:
            if os.environ.get("CI"):
                pytest.fail(f"{p.connstr_env} is not set: CI must run the cross-database matrix")
            pytest.skip(f"{p.connstr_env} is not set: the matrix needs every database")
        profiles[p.name] = bound
    saved = os.environ.get("PGTZ")
    os.environ["PGTZ"] = CLIENT_ZONE
    m = Mover(profiles, tmp)
    try:
        yield m
    finally:
        m.close()
        if saved is None:
            os.environ.pop("PGTZ", None)
        else:
            os.environ["PGTZ"] = saved


@pytest.fixture(scope="package")
def observed():
    """Case id -> what its load did (exact, changed:<rules>, refused:<error>, differs ...),
    written to build/crossdb/observed.txt at the end: the lines to edit expected.py from."""
    seen: dict[str, str] = {}
    yield seen
    if seen:
        out = ROOT / "build" / "crossdb"
        out.mkdir(parents=True, exist_ok=True)
        (out / "observed.txt").write_text("".join(f"{k}\t{v}\n" for k, v in sorted(seen.items())))
