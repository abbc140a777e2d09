"""Every test of SQLAlchemy's dialect compliance suite."""

from sqlalchemy.testing.suite import *  # noqa: F403 - the suite's test classes
