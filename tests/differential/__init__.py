"""The differential matrix: random tables read and written by fastodbc and by an independent
client (the profile's oracle) on the same database, every value compared.

values.py   value strategies per column kind, sizes across the fetch path's thresholds
schema.py   random schemas and tables (rows placed at block edges), DDL from the profile
reading.py  read paths (fetch methods, read-ahead, text C type, block budget) and the
            expected rows at each step
arrow.py    the Arrow read of the same result (fetch_record_batch in random batch budgets):
            Arrow types, whole batches, values equal to the oracle's
writing.py  insert paths (execute, executemany and its strategies)
ingest.py   bulk loads (Cursor.ingest): random Arrow inputs, layouts, chunks, batch budgets
            (ingest_values.py: the Arrow types and values per column kind); ingest_check.py
            compares what was stored with the input; ingest_refusals.py plants one bad value
            and checks the load is refused, naming column and row
oracles.py  the oracle clients (sqlite3, psycopg, PyMySQL)
compare.py  what fastodbc must return for an oracle's value; strict comparison of rows
repro.py    a failing example as a short script
"""
