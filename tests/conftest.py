"""Shared fixtures for the fastodbc test suite.

One test, many databases: every test that takes ``backend`` (or ``cnxn`` / ``cursor`` /
``table``) runs once per profile in PROFILES (tests/profiles/). A profile carries the driver's
quirks as data (see :class:`Profile`), so tests state *what* they expect and the profile says
how a given database/driver pair behaves; a test of one behaviour picks the profiles that have
it (``backends_where``).

Environment:
  FASTODBC_TEST_MODULE  module under test (default ``fastodbc``; ``pyodbc`` runs the suite
                        against the oracle, skipping ``fastodbc_only`` tests)
  <profile.connstr_env> a server's connection string (FASTODBC_TEST_PG, FASTODBC_TEST_MARIADB:
                        written by its server_script's `env`); unset -> that server's tests
                        skip, or fail when CI is set.
"""

from __future__ import annotations

import hashlib
import importlib
import os
import re
from pathlib import Path
from typing import Any

import pytest

from profiles import BACKENDS, BY_NAME, Profile

ROOT = Path(__file__).resolve().parent.parent

# Use the project's own driver registry when it exists (the Makefile sets these too), so a
# bare `pytest` never goes through /etc/odbcinst.ini (whose psqlODBC entry has CommLog=1).
_ODBC_DIR = ROOT / "build" / "odbc"
if "ODBCSYSINI" not in os.environ and (_ODBC_DIR / "odbcinst.ini").is_file():
    os.environ["ODBCSYSINI"] = str(_ODBC_DIR)
    os.environ.setdefault("ODBCINI", str(_ODBC_DIR / "odbc.ini"))

# SQLAlchemy's suite is its own pytest root, run by tests/test_sqlalchemy_suite.py.
collect_ignore = ["sqla_suite"]

MODULE_NAME = os.environ.get("FASTODBC_TEST_MODULE", "fastodbc")
IS_PYODBC = MODULE_NAME == "pyodbc"


# --------------------------------------------------------------------------- pytest hooks


def pytest_configure(config: pytest.Config) -> None:
    if os.environ.get("FASTODBC_TEST_INSTALLED"):
        # A wheel's test run (scripts/test.sh wheels): the installed package, never the
        # checkout's python/fastodbc with its editable build.
        import fastodbc

        where = Path(fastodbc.__file__).resolve()
        if "site-packages" not in where.parts or (ROOT / "python") in where.parents:
            raise pytest.UsageError(f"FASTODBC_TEST_INSTALLED: fastodbc was imported from {where}")
    config.addinivalue_line(
        "markers",
        "fastodbc_only(reason=..., where=None): fastodbc-specific behaviour; skipped when "
        "the module under test is pyodbc (only on backends whose profile p has where(p) true, "
        "if given)",
    )


def _param_backend(item: pytest.Item) -> str | None:
    callspec = getattr(item, "callspec", None)
    if callspec is None:
        return None
    return callspec.params.get("backend")


@pytest.fixture(autouse=True)
def _fastodbc_only(request: pytest.FixtureRequest) -> None:
    if not IS_PYODBC:
        return
    for marker in request.node.iter_markers("fastodbc_only"):
        where = marker.kwargs.get("where")
        reason = marker.kwargs.get("reason", "fastodbc-specific behaviour")
        backend = _param_backend(request.node)
        if where is None or (backend is not None and where(BY_NAME[backend])):
            pytest.skip(f"fastodbc_only: {reason}")


# --------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="session")
def db():
    """The module under test (fastodbc, or pyodbc as the oracle)."""
    return importlib.import_module(MODULE_NAME)


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Profile:
    profile = BY_NAME[request.param]
    bound = profile.bind(tmp_path)
    if bound is None:
        env = profile.connstr_env
        if os.environ.get("CI"):
            pytest.fail(f"{env} is not set: CI must run the {request.param} tests")
        pytest.skip(f"{env} is not set")
    return bound


class Connector:
    """connect(connstr=None, **kwargs) -> a new connection, closed after the test."""

    def __init__(self, db, backend: Profile):
        self._db = db
        self._backend = backend
        self.opened: list[Any] = []

    def __call__(self, connstr: str | None = None, **kwargs: Any):
        c = self._db.connect(connstr or self._backend.connstr, **kwargs)
        self.opened.append(c)
        return c

    def track(self, c):
        """Register a connection opened elsewhere, so teardown closes it too."""
        self.opened.append(c)
        return c

    def release(self) -> None:
        """Roll back every connection still open (frees locks before DROP TABLE)."""
        for c in self.opened:
            try:
                c.rollback()
            except Exception:
                pass

    def close_all(self) -> None:
        for c in reversed(self.opened):
            try:
                c.close()
            except Exception:
                pass


@pytest.fixture
def connect(db, backend: Profile):
    connector = Connector(db, backend)
    yield connector
    connector.close_all()


@pytest.fixture
def cnxn(connect):
    """A connection with autocommit off (the DB-API default)."""
    return connect()


@pytest.fixture
def cursor(cnxn):
    return cnxn.cursor()


def table_name_for(request: pytest.FixtureRequest, suffix: str = "") -> str:
    name = request.node.name
    base = re.sub(r"\[.*\]$", "", name)
    base = re.sub(r"^test_", "", base)
    base = re.sub(r"[^0-9a-zA-Z_]", "_", base).lower()
    digest = hashlib.sha1(name.encode()).hexdigest()[:6]
    return f"t_{base[:40]}_{digest}{suffix}"


def _admin_connect(db, backend: Profile):
    """An autocommit connection for DDL (its lock waits bounded, as every test connection's)."""
    return db.connect(backend.connstr, autocommit=True)


def _drop_table(db, backend: Profile, name: str) -> None:
    c = _admin_connect(db, backend)
    try:
        c.cursor().execute(f"DROP TABLE IF EXISTS {name}")
    finally:
        c.close()


class TableFactory:
    """table() -> a fresh table name for this test, dropped before and after."""

    def __init__(self, request, db, backend, connector: Connector):
        self._request = request
        self._db = db
        self._backend = backend
        self._connector = connector
        self.names: list[str] = []

    def __call__(self, columns: str | None = None, suffix: str = "") -> str:
        if not suffix and self.names:
            suffix = f"_{len(self.names)}"
        name = table_name_for(self._request, suffix)
        _drop_table(self._db, self._backend, name)
        self.names.append(name)
        if columns is not None:
            c = _admin_connect(self._db, self._backend)
            try:
                c.cursor().execute(f"CREATE TABLE {name} ({columns})")
            finally:
                c.close()
        return name

    def cleanup(self) -> None:
        if not self.names:
            return
        # Release whatever the test's connections still hold before dropping.
        self._connector.release()
        # Newest first: a table may refer to an older one (a foreign key).
        for name in reversed(self.names):
            _drop_table(self._db, self._backend, name)


@pytest.fixture
def table(request, db, backend, connect):
    """Factory: table("id INTEGER, v TEXT") creates t_<testname> (committed) and returns
    its name; table() only reserves (and drops) the name."""
    factory = TableFactory(request, db, backend, connect)
    yield factory
    factory.cleanup()


@pytest.fixture
def fault_proxy(backend: Profile):
    """A TCP fault proxy (tests/faults/proxy.py) in front of the backend's server, forwarding;
    ``backend.at(proxy.host, proxy.port)`` is a connection string through it. Skips where
    the database is not a server."""
    if not backend.is_server:
        pytest.skip(f"{backend.name} is not reached over the network")
    from faults.proxy import FaultProxy

    proxy = FaultProxy(backend.address())
    yield proxy
    proxy.close()
