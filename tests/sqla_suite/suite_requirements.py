"""The suite's requirements: SQLAlchemy's defaults, which read the dialect's own flags. The same
class serves fastodbc and the pyodbc oracle, so a difference is the driver's."""

from sqlalchemy.testing.requirements import SuiteRequirements


class Requirements(SuiteRequirements):
    pass
