"""Tests of partitioned parallel reads (issue 31): ``fastodbc.partition``'s plans, their
parallel reading, one snapshot shared between partitions, and ``fastodbc.dask``, on every
backend, each against a single-connection read of the same query."""
