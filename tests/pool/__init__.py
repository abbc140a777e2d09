"""Tests of ``fastodbc.pool`` (issue 20): the thread front of the connection pool, on every
backend, against the behaviour docs/pool-and-async.md describes."""
