"""SQLAlchemy's pytest plugin and the oracle dialect. The fastodbc dialects come from the
installed package's entry points, as a user's ``create_engine`` finds them."""

import pytest
from sqlalchemy.dialects import registry

pytest.register_assert_rewrite("sqlalchemy.testing.assertions")

registry.register("postgresql.pyodbc_oracle", "pyodbc_oracle", "PGDialect_pyodbc_oracle")

from sqlalchemy.testing.plugin.pytestplugin import *  # noqa: E402, F403 - the plugin's hooks
