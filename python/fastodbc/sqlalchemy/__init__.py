"""SQLAlchemy dialects driving fastodbc, registered as entry points (``pip install
fastodbc[sqlalchemy]``)::

    create_engine("mssql+fastodbc://user:pw@host/db?driver=ODBC+Driver+18+for+SQL+Server")
    create_engine("mysql+fastodbc://user:pw@host:3306/db?driver=MariaDB+Unicode")
    create_engine("postgresql+fastodbc://user:pw@host:5432/db?driver=PostgreSQL+Unicode")

``odbc_connect=<url-encoded connection string>`` passes a whole ODBC connection string, as
with SQLAlchemy's pyodbc dialects, whose URL rules these share (``connector.py``). Importing
this package does not import SQLAlchemy; each dialect module does.

``read_sql(sql, engine)`` is pandas' ``read_sql`` for these engines, read through Arrow
(``frames.py``).
"""

from .frames import read_sql

__all__ = ["read_sql"]
