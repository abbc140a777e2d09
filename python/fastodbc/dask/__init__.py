"""Dask collections over ODBC: ``read_sql`` / ``from_plan`` build a ``dask.dataframe`` from a
partition plan (one task per partition, each opening its own connection where it runs), and
``to_sql`` loads a frame's partitions into a table all-or-nothing.

Needs the ``dask`` extra: ``pip install fastodbc[dask]`` (dask's dataframe and, for a
cluster, distributed).
"""

from .load import to_sql
from .read import from_plan, read_sql

__all__ = ["from_plan", "read_sql", "to_sql"]
