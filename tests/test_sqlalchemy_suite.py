"""SQLAlchemy's dialect compliance suite (tests/sqla_suite) through fastodbc's dialect and
through pyodbc on the same database: every test that passes with pyodbc passes with fastodbc.
Each run is its own pytest process (SQLAlchemy's plugin takes the session over)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import urllib.parse
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from profiles import backends_where

pytest.importorskip("sqlalchemy")

SUITE = Path(__file__).resolve().parent / "sqla_suite"

pytestmark = [
    pytest.mark.parametrize("backend", backends_where(lambda p: p.sqlalchemy_dialect), indirect=True),
    pytest.mark.fastodbc_only(reason="runs both drivers itself"),
    pytest.mark.timeout(1800),
]


def outcomes(junit: Path) -> dict[str, str]:
    """Each test's outcome in a JUnit report: passed, failed, error or skipped. The suite names
    its classes after the database, driver and server version
    (``ComponentReflectionTest_mariadb+pyodbc_10_11_19_0``): that part becomes ``DB``, so both
    drivers' reports name a test alike."""
    found = {}
    for case in ET.parse(junit).getroot().iter("testcase"):
        classname = re.sub(r"_[a-z0-9]+\+[a-z0-9_]+?_[0-9_]+$", "_DB", case.get("classname", ""))
        name = f"{classname}::{case.get('name')}"
        kinds = [child.tag for child in case if child.tag in ("failure", "error", "skipped")]
        found[name] = kinds[0] if kinds else "passed"
    return found


def run_suite(driver: str, dialect: str, connstr: str, report: Path) -> dict[str, str]:
    url = f"{dialect}+{driver}:///?odbc_connect={urllib.parse.quote_plus(connstr)}"
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-c", str(SUITE / "pytest.ini"), str(SUITE), "--dburi", url,
         f"--junitxml={report}", "-p", "no:randomly"],
        cwd=SUITE,
        env=dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(SUITE), os.environ.get("PYTHONPATH")]))),
        capture_output=True,
        text=True,
        timeout=1500,
    )
    assert report.exists(), done.stdout[-3000:] + done.stderr[-3000:]
    return outcomes(report)


def test_every_suite_test_that_passes_with_pyodbc_passes_with_fastodbc(backend, tmp_path):
    dialect = backend.sqlalchemy_dialect
    pytest.importorskip("pyodbc")  # the oracle's DB-API module (no free-threaded wheel)
    ours = run_suite("fastodbc", dialect, backend.connstr, tmp_path / "fastodbc.xml")
    oracle = run_suite(backend.sqlalchemy_pyodbc_driver, dialect, backend.connstr, tmp_path / "pyodbc.xml")
    passed = {name for name, outcome in ours.items() if outcome == "passed"}
    oracle_passed = {name for name, outcome in oracle.items() if outcome == "passed"}
    # The suite ran: hundreds of tests passed through each driver.
    assert len(passed) > 500 and len(oracle_passed) > 500, (len(passed), len(oracle_passed))
    lost = sorted(oracle_passed - passed)
    assert not lost, "\n".join(f"{name}: {ours.get(name, 'not run')}" for name in lost)
