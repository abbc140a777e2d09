"""SQLAlchemy's pytest plugin and the oracle dialect. The fastodbc dialects come from the
installed package's entry points, as a user's ``create_engine`` finds them."""

import pytest
from sqlalchemy.dialects import registry

pytest.register_assert_rewrite("sqlalchemy.testing.assertions")

registry.register("postgresql.pyodbc_oracle", "pyodbc_oracle", "PGDialect_pyodbc_oracle")

from sqlalchemy.testing.plugin.pytestplugin import *  # noqa: E402, F403 - the plugin's hooks

_plugin_sessionstart = pytest_sessionstart  # noqa: F405 - the plugin's, wrapped below


def pytest_sessionstart(session):
    """The plugin's session start, after the schemas the suite reads and writes besides the default one (SQLAlchemy's
    README.unittests asks for them; MariaDB reads SCHEMA as DATABASE), made through fastodbc
    on the connection string of ``--dburi``, whichever driver runs the suite."""
    import urllib.parse

    import fastodbc

    for uri in session.config.getoption("dburi") or []:
        query = urllib.parse.parse_qs(urllib.parse.urlsplit(uri).query)
        for connstr in query.get("odbc_connect", []):
            with fastodbc.connect(connstr, autocommit=True) as cnxn:
                for name in ("test_schema", "test_schema_2"):
                    cnxn.execute(f"CREATE SCHEMA IF NOT EXISTS {name}")
    _plugin_sessionstart(session)
