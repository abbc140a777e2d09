"""Partitioned parallel reads: ``fastodbc.partition`` plans a query's result as partitions of
a key (plain data, sent anywhere), and each partition is read over its own connection,
N at once here (``Plan.read``) or one per worker (``read_one``, ``fastodbc.dask``)."""

from .databases import ReadConsistency, consistency_of
from .plan import Partition, Plan
from .planner import partition
from .read import read, read_batches, read_one

__all__ = [
    "Partition",
    "Plan",
    "ReadConsistency",
    "consistency_of",
    "partition",
    "read",
    "read_batches",
    "read_one",
]
