"""What each case of the fidelity matrix expects: DATA, one line per case or per group of cases.

A line is (source, kind, path, mode, target, expectation[, defect]); "*" matches anything. The
last line matching a case wins; a case no line matches expects ``exact``.
  source, target  profile names (tests/profiles): sqlite, postgresql, mariadb
  kind            a column kind (tests/crossdb/kinds.py), as the source's fidelity_kinds name it
  path            parquet (fastodbc export + import), csv (the same), api (fetch_record_batch ->
                  Cursor.ingest)
  mode            create (a new table), append (a pre-made table of the target's natural types:
                  the target profile's fidelity_ddl)
  expectation     exact | changed:<rule>[+<rule>...] (tests/crossdb/rules.py) |
                  refused:<a piece of the error message>
  defect          a known defect: the expectation is the right result and the case a strict
                  xfail, so a fix makes it fail (XPASS) until its line loses the field. None
                  today: every case issue 30 found does what its line says.
docs/type-fidelity.md is made from this file (scripts/type_fidelity.py); a test keeps it so.
build/crossdb/observed.txt (written by each run) says what every case did today, in these terms;
FASTODBC_CROSSDB_ALONE=1 loads each column alone for it.
"""

EXPECTED: list[tuple[str, ...]] = [
    # -- what a database itself refuses or changes (documented; not fastodbc's to fix)
    ("postgresql", "real", "*", "*", "mariadb", "refused:c_real"),  # NaN and infinities: 22003 Out of range
    ("postgresql", "double", "*", "*", "mariadb", "refused:c_double"),
    ("sqlite", "double", "*", "*", "mariadb", "refused:c_double"),  # SQLite keeps infinities
    ("*", "real", "*", "*", "sqlite", "changed:negative zero"),
    ("*", "double", "*", "*", "sqlite", "changed:negative zero"),
    # SQLite's NUMERIC is a double: more digits than 15 are refused by name
    ("*", "numeric(18,4)", "parquet", "*", "sqlite", "refused:keeps 15"),
    ("*", "numeric(18,4)", "api", "*", "sqlite", "refused:keeps 15"),
    ("*", "numeric(38,9)", "parquet", "*", "sqlite", "refused:keeps 15"),
    ("*", "numeric(38,9)", "api", "*", "sqlite", "refused:keeps 15"),
    # -- fastodbc refuses a type pair that would lose information on every value
    ("mariadb", "bool", "*", "append", "postgresql", "refused:cannot be stored in column"),  # int8 into BOOLEAN
    ("mariadb", "bool", "*", "append", "sqlite", "refused:cannot be stored in column"),
    ("*", "bool", "csv", "append", "mariadb", "refused:invalid value 'true'"),  # 'true' into TINYINT(1)
    ("mariadb", "bool", "csv", "append", "*", "exact"),  # CSV is read as the column's type
    ("sqlite", "numeric(18,4)", "parquet", "append", "postgresql", "refused:cannot be stored in column"),
    ("sqlite", "numeric(18,4)", "parquet", "append", "mariadb", "refused:cannot be stored in column"),
    ("sqlite", "numeric(18,4)", "api", "append", "postgresql", "refused:cannot be stored in column"),
    ("sqlite", "numeric(18,4)", "api", "append", "mariadb", "refused:cannot be stored in column"),
    ("sqlite", "numeric(38,9)", "parquet", "append", "postgresql", "refused:cannot be stored in column"),
    ("sqlite", "numeric(38,9)", "parquet", "append", "mariadb", "refused:cannot be stored in column"),
    ("sqlite", "numeric(38,9)", "api", "append", "postgresql", "refused:cannot be stored in column"),
    ("sqlite", "numeric(38,9)", "api", "append", "mariadb", "refused:cannot be stored in column"),
    # SQLite's source holds 99999999999999.9999 as the double 1e14: past NUMERIC(18,4) / (38,9)'s range
    ("sqlite", "numeric(18,4)", "csv", "append", "postgresql", "refused:numeric field overflow"),
    ("sqlite", "numeric(18,4)", "csv", "append", "mariadb", "refused:c_num_18_4"),
    ("sqlite", "numeric(38,9)", "csv", "append", "postgresql", "refused:numeric field overflow"),
    ("sqlite", "numeric(38,9)", "csv", "append", "mariadb", "refused:c_num_38_9"),

    # -- the cases issue 30 found wrong, with the result its fixes give (later lines refine)
    ("postgresql", "real", "csv", "*", "postgresql", "exact"),  # NaN written unquoted, read as NULL
    ("postgresql", "double", "csv", "*", "postgresql", "exact"),
    ("*", "numeric(18,4)", "csv", "create", "postgresql", "exact"),
    ("*", "numeric(18,4)", "csv", "create", "mariadb", "exact"),
    ("*", "numeric(38,9)", "csv", "create", "postgresql", "exact"),
    ("*", "numeric(38,9)", "csv", "create", "mariadb", "exact"),
    ("postgresql", "numeric(18,4)", "csv", "*", "sqlite", "refused:keeps 15"),
    ("postgresql", "numeric(38,9)", "csv", "*", "sqlite", "refused:keeps 15"),
    ("mariadb", "numeric(18,4)", "csv", "*", "sqlite", "refused:keeps 15"),
    ("mariadb", "numeric(38,9)", "csv", "*", "sqlite", "refused:keeps 15"),
    ("sqlite", "double", "*", "*", "postgresql", "exact"),
    ("sqlite", "double", "*", "*", "sqlite", "exact"),
    ("sqlite", "numeric(18,4)", "*", "create", "*", "exact"),
    ("sqlite", "numeric(38,9)", "*", "create", "*", "exact"),
    ("sqlite", "numeric(18,4)", "*", "append", "sqlite", "exact"),
    ("sqlite", "numeric(38,9)", "*", "append", "sqlite", "exact"),
    ("postgresql", "timestamptz", "*", "*", "postgresql", "exact"),
    ("postgresql", "timestamptz", "*", "*", "mariadb", "changed:UTC naive"),
    ("postgresql", "timestamptz", "*", "*", "sqlite", "changed:UTC naive"),
    ("postgresql", "real", "*", "*", "sqlite", "refused:NaN"),  # today: NaN stored as NULL
    ("postgresql", "double", "*", "*", "sqlite", "refused:NaN"),
    ("sqlite", "non-ascii name", "*", "*", "*", "exact"),  # today: a panic aborts the process
    ("*", "non-ascii name", "*", "append", "sqlite", "exact"),  # 'prix_é\x00': no such column
    ("postgresql", "numeric", "*", "*", "postgresql", "exact"),
    ("postgresql", "numeric", "*", "*", "mariadb", "exact"),
    ("postgresql", "numeric", "*", "append", "mariadb", "refused:Out of range value"),  # 42 digits

    ("postgresql", "numeric", "*", "*", "sqlite", "refused:keeps 15"),
    ("postgresql", "interval", "*", "append", "postgresql", "exact"),
    ("*", "bytes", "csv", "*", "*", "exact"),
    ("*", "binary(4)", "csv", "*", "*", "exact"),
    ("mariadb", "duration", "*", "*", "*", "exact"),
    ("postgresql", "bool", "*", "create", "mariadb", "exact"),
    ("sqlite", "bool", "*", "create", "mariadb", "exact"),

    # -- as the fixes of issue 30 left them (exact where a defect above was fixed; refusals
    #    that name the column, row and value where a value can't be kept): later lines win
    ('mariadb', 'binary(4)', 'csv', 'append', 'mariadb', 'exact'),
    ('mariadb', 'binary(4)', 'csv', 'append', 'postgresql', 'exact'),
    ('mariadb', 'binary(4)', 'csv', 'append', 'sqlite', 'exact'),
    ('mariadb', 'bool', 'api', 'append', 'sqlite', 'exact'),
    ('mariadb', 'bool', 'parquet', 'append', 'sqlite', 'exact'),
    ('mariadb', 'bytes', 'csv', 'append', 'mariadb', 'exact'),
    ('mariadb', 'bytes', 'csv', 'append', 'postgresql', 'exact'),
    ('mariadb', 'bytes', 'csv', 'append', 'sqlite', 'exact'),
    ('mariadb', 'duration', 'api', 'append', 'mariadb', 'exact'),
    ('mariadb', 'duration', 'api', 'append', 'postgresql', 'exact'),
    ('mariadb', 'duration', 'api', 'append', 'sqlite', 'exact'),
    ('mariadb', 'duration', 'api', 'create', 'mariadb', 'exact'),
    ('mariadb', 'duration', 'api', 'create', 'postgresql', 'exact'),
    ('mariadb', 'duration', 'api', 'create', 'sqlite', 'exact'),
    ('mariadb', 'duration', 'csv', 'append', 'mariadb', 'exact'),
    ('mariadb', 'duration', 'csv', 'append', 'postgresql', 'exact'),
    ('mariadb', 'duration', 'csv', 'append', 'sqlite', 'exact'),
    ('mariadb', 'duration', 'csv', 'create', 'mariadb', 'exact'),
    ('mariadb', 'duration', 'csv', 'create', 'postgresql', 'exact'),
    ('mariadb', 'duration', 'csv', 'create', 'sqlite', 'exact'),
    ('mariadb', 'duration', 'parquet', 'append', 'mariadb', 'exact'),
    ('mariadb', 'duration', 'parquet', 'append', 'postgresql', 'exact'),
    ('mariadb', 'duration', 'parquet', 'append', 'sqlite', 'exact'),
    ('mariadb', 'duration', 'parquet', 'create', 'mariadb', 'exact'),
    ('mariadb', 'duration', 'parquet', 'create', 'postgresql', 'exact'),
    ('mariadb', 'duration', 'parquet', 'create', 'sqlite', 'exact'),
    ('mariadb', 'non-ascii name', 'api', 'append', 'sqlite', 'exact'),
    ('mariadb', 'non-ascii name', 'csv', 'append', 'sqlite', 'exact'),
    ('mariadb', 'non-ascii name', 'parquet', 'append', 'sqlite', 'exact'),
    ('mariadb', 'numeric(18,4)', 'csv', 'create', 'mariadb', 'exact'),
    ('mariadb', 'numeric(18,4)', 'csv', 'create', 'postgresql', 'exact'),
    ('mariadb', 'numeric(18,4)', 'csv', 'create', 'sqlite', 'refused:the column keeps 15 exactly'),
    ('postgresql', 'bool', 'api', 'create', 'mariadb', 'exact'),
    ('postgresql', 'bool', 'csv', 'create', 'mariadb', 'exact'),
    ('postgresql', 'bool', 'parquet', 'create', 'mariadb', 'exact'),
    ('postgresql', 'bytes', 'csv', 'append', 'mariadb', 'exact'),
    ('postgresql', 'bytes', 'csv', 'append', 'postgresql', 'exact'),
    ('postgresql', 'bytes', 'csv', 'append', 'sqlite', 'exact'),
    ('postgresql', 'double', 'api', 'append', 'sqlite', 'refused:would store as NULL'),
    ('postgresql', 'double', 'api', 'create', 'sqlite', 'refused:would store as NULL'),
    ('postgresql', 'double', 'csv', 'append', 'postgresql', 'exact'),
    ('postgresql', 'double', 'csv', 'append', 'sqlite', 'refused:would store as NULL'),
    ('postgresql', 'double', 'csv', 'create', 'postgresql', 'exact'),
    ('postgresql', 'double', 'csv', 'create', 'sqlite', 'refused:would store as NULL'),
    ('postgresql', 'double', 'parquet', 'append', 'sqlite', 'refused:would store as NULL'),
    ('postgresql', 'double', 'parquet', 'create', 'sqlite', 'refused:would store as NULL'),
    ('postgresql', 'interval', 'api', 'append', 'postgresql', 'exact'),
    ('postgresql', 'interval', 'csv', 'append', 'postgresql', 'exact'),
    ('postgresql', 'interval', 'parquet', 'append', 'postgresql', 'exact'),
    ('postgresql', 'non-ascii name', 'api', 'append', 'sqlite', 'exact'),
    ('postgresql', 'non-ascii name', 'csv', 'append', 'sqlite', 'exact'),
    ('postgresql', 'non-ascii name', 'parquet', 'append', 'sqlite', 'exact'),
    ('postgresql', 'numeric', 'api', 'append', 'postgresql', 'exact'),
    ('postgresql', 'numeric', 'api', 'create', 'mariadb', 'exact'),
    ('postgresql', 'numeric', 'api', 'create', 'postgresql', 'exact'),
    ('postgresql', 'numeric', 'csv', 'append', 'postgresql', 'exact'),
    ('postgresql', 'numeric', 'csv', 'create', 'mariadb', 'exact'),
    ('postgresql', 'numeric', 'csv', 'create', 'postgresql', 'exact'),
    ('postgresql', 'numeric', 'parquet', 'append', 'postgresql', 'exact'),
    ('postgresql', 'numeric', 'parquet', 'create', 'mariadb', 'exact'),
    ('postgresql', 'numeric', 'parquet', 'create', 'postgresql', 'exact'),
    ('postgresql', 'numeric(18,4)', 'csv', 'create', 'mariadb', 'exact'),
    ('postgresql', 'numeric(18,4)', 'csv', 'create', 'postgresql', 'exact'),
    ('postgresql', 'numeric(18,4)', 'csv', 'create', 'sqlite', 'refused:the column keeps 15 exactly'),
    ('postgresql', 'real', 'api', 'append', 'sqlite', 'refused:would store as NULL'),
    ('postgresql', 'real', 'api', 'create', 'sqlite', 'refused:would store as NULL'),
    ('postgresql', 'real', 'csv', 'append', 'postgresql', 'exact'),
    ('postgresql', 'real', 'csv', 'append', 'sqlite', 'refused:would store as NULL'),
    ('postgresql', 'real', 'csv', 'create', 'postgresql', 'exact'),
    ('postgresql', 'real', 'csv', 'create', 'sqlite', 'refused:would store as NULL'),
    ('postgresql', 'real', 'parquet', 'append', 'sqlite', 'refused:would store as NULL'),
    ('postgresql', 'real', 'parquet', 'create', 'sqlite', 'refused:would store as NULL'),
    ('postgresql', 'timestamptz', 'csv', 'append', 'postgresql', 'exact'),
    ('postgresql', 'timestamptz', 'csv', 'create', 'postgresql', 'exact'),
    ('postgresql', 'timestamptz', 'parquet', 'append', 'mariadb', 'changed:UTC naive'),
    ('postgresql', 'timestamptz', 'parquet', 'append', 'postgresql', 'exact'),
    ('postgresql', 'timestamptz', 'parquet', 'append', 'sqlite', 'changed:UTC naive'),
    ('postgresql', 'timestamptz', 'parquet', 'create', 'mariadb', 'changed:UTC naive'),
    ('postgresql', 'timestamptz', 'parquet', 'create', 'postgresql', 'exact'),
    ('postgresql', 'timestamptz', 'parquet', 'create', 'sqlite', 'changed:UTC naive'),
    ('sqlite', 'bool', 'api', 'create', 'mariadb', 'exact'),
    ('sqlite', 'bool', 'csv', 'create', 'mariadb', 'exact'),
    ('sqlite', 'bool', 'parquet', 'create', 'mariadb', 'exact'),
    ('sqlite', 'bytes', 'csv', 'append', 'mariadb', 'exact'),
    ('sqlite', 'bytes', 'csv', 'append', 'postgresql', 'exact'),
    ('sqlite', 'bytes', 'csv', 'append', 'sqlite', 'exact'),
    ('sqlite', 'non-ascii name', 'api', 'append', 'mariadb', 'exact'),
    ('sqlite', 'non-ascii name', 'api', 'append', 'postgresql', 'exact'),
    ('sqlite', 'non-ascii name', 'api', 'append', 'sqlite', 'exact'),
    ('sqlite', 'non-ascii name', 'api', 'create', 'mariadb', 'exact'),
    ('sqlite', 'non-ascii name', 'api', 'create', 'postgresql', 'exact'),
    ('sqlite', 'non-ascii name', 'api', 'create', 'sqlite', 'exact'),
    ('sqlite', 'non-ascii name', 'csv', 'append', 'mariadb', 'exact'),
    ('sqlite', 'non-ascii name', 'csv', 'append', 'postgresql', 'exact'),
    ('sqlite', 'non-ascii name', 'csv', 'append', 'sqlite', 'exact'),
    ('sqlite', 'non-ascii name', 'csv', 'create', 'mariadb', 'exact'),
    ('sqlite', 'non-ascii name', 'csv', 'create', 'postgresql', 'exact'),
    ('sqlite', 'non-ascii name', 'csv', 'create', 'sqlite', 'exact'),
    ('sqlite', 'non-ascii name', 'parquet', 'append', 'mariadb', 'exact'),
    ('sqlite', 'non-ascii name', 'parquet', 'append', 'postgresql', 'exact'),
    ('sqlite', 'non-ascii name', 'parquet', 'append', 'sqlite', 'exact'),
    ('sqlite', 'non-ascii name', 'parquet', 'create', 'mariadb', 'exact'),
    ('sqlite', 'non-ascii name', 'parquet', 'create', 'postgresql', 'exact'),
    ('sqlite', 'non-ascii name', 'parquet', 'create', 'sqlite', 'exact'),
    ('sqlite', 'numeric(38,9)', 'api', 'append', 'mariadb', 'refused:hold it exactly'),
    ('sqlite', 'numeric(38,9)', 'api', 'append', 'postgresql', 'refused:hold it exactly'),
    ('sqlite', 'numeric(38,9)', 'csv', 'append', 'postgresql', 'refused:hold it exactly'),
    ('sqlite', 'numeric(38,9)', 'parquet', 'append', 'mariadb', 'refused:hold it exactly'),
    ('sqlite', 'numeric(38,9)', 'parquet', 'append', 'postgresql', 'refused:hold it exactly'),
    # -- SQLite's REAL: 15 digits whatever fastodbc asks (measured: every C type, StepAPI 0 / 1),
    #    a PrecisionWarning says so; integers a NUMERIC keeps past a double are refused on read
    ('sqlite', 'double', 'api', 'append', 'postgresql', 'changed:15 digits'),
    ('sqlite', 'double', 'api', 'append', 'sqlite', 'changed:15 digits'),
    ('sqlite', 'double', 'api', 'create', 'postgresql', 'changed:15 digits'),
    ('sqlite', 'double', 'api', 'create', 'sqlite', 'changed:15 digits'),
    ('sqlite', 'double', 'csv', 'append', 'postgresql', 'changed:15 digits'),
    ('sqlite', 'double', 'csv', 'append', 'sqlite', 'changed:15 digits'),
    ('sqlite', 'double', 'csv', 'create', 'postgresql', 'changed:15 digits'),
    ('sqlite', 'double', 'csv', 'create', 'sqlite', 'changed:15 digits'),
    ('sqlite', 'double', 'parquet', 'append', 'postgresql', 'changed:15 digits'),
    ('sqlite', 'double', 'parquet', 'append', 'sqlite', 'changed:15 digits'),
    ('sqlite', 'double', 'parquet', 'create', 'postgresql', 'changed:15 digits'),
    ('sqlite', 'double', 'parquet', 'create', 'sqlite', 'changed:15 digits'),
    ('sqlite', 'numeric(38,9)', 'api', 'append', 'sqlite', 'refused:hold it exactly'),
    ('sqlite', 'numeric(38,9)', 'api', 'create', 'mariadb', 'refused:hold it exactly'),
    ('sqlite', 'numeric(38,9)', 'api', 'create', 'postgresql', 'refused:hold it exactly'),
    ('sqlite', 'numeric(38,9)', 'api', 'create', 'sqlite', 'refused:hold it exactly'),
    ('sqlite', 'numeric(38,9)', 'csv', 'append', 'sqlite', 'refused:hold it exactly'),
    ('sqlite', 'numeric(38,9)', 'csv', 'create', 'mariadb', 'refused:hold it exactly'),
    ('sqlite', 'numeric(38,9)', 'csv', 'create', 'postgresql', 'refused:hold it exactly'),
    ('sqlite', 'numeric(38,9)', 'csv', 'create', 'sqlite', 'refused:hold it exactly'),
    ('sqlite', 'numeric(38,9)', 'parquet', 'append', 'sqlite', 'refused:hold it exactly'),
    ('sqlite', 'numeric(38,9)', 'parquet', 'create', 'mariadb', 'refused:hold it exactly'),
    ('sqlite', 'numeric(38,9)', 'parquet', 'create', 'postgresql', 'refused:hold it exactly'),
    ('sqlite', 'numeric(38,9)', 'parquet', 'create', 'sqlite', 'refused:hold it exactly'),
    ('sqlite', 'numeric(18,4)', 'api', 'append', 'sqlite', 'changed:15 digits'),
    ('sqlite', 'numeric(18,4)', 'api', 'create', 'mariadb', 'changed:15 digits'),
    ('sqlite', 'numeric(18,4)', 'api', 'create', 'postgresql', 'changed:15 digits'),
    ('sqlite', 'numeric(18,4)', 'api', 'create', 'sqlite', 'changed:15 digits'),
    ('sqlite', 'numeric(18,4)', 'csv', 'append', 'sqlite', 'changed:15 digits'),
    ('sqlite', 'numeric(18,4)', 'csv', 'create', 'mariadb', 'changed:15 digits'),
    ('sqlite', 'numeric(18,4)', 'csv', 'create', 'postgresql', 'changed:15 digits'),
    ('sqlite', 'numeric(18,4)', 'csv', 'create', 'sqlite', 'changed:15 digits'),
    ('sqlite', 'numeric(18,4)', 'parquet', 'append', 'sqlite', 'changed:15 digits'),
    ('sqlite', 'numeric(18,4)', 'parquet', 'create', 'mariadb', 'changed:15 digits'),
    ('sqlite', 'numeric(18,4)', 'parquet', 'create', 'postgresql', 'changed:15 digits'),
    ('sqlite', 'numeric(18,4)', 'parquet', 'create', 'sqlite', 'changed:15 digits'),
    # CSV text into an existing double column (SQLite's NUMERIC) is refused where a value has
    # more digits than its double gives back; a new table gets a DECIMAL of the digits seen.
    ('postgresql', 'numeric(18,4)', 'csv', 'append', 'sqlite', 'refused:more digits than a double keeps'),
    ('postgresql', 'numeric(38,9)', 'csv', 'append', 'sqlite', 'refused:more digits than a double keeps'),
    ('mariadb', 'numeric(18,4)', 'csv', 'append', 'sqlite', 'refused:more digits than a double keeps'),
    ('mariadb', 'numeric(38,9)', 'csv', 'append', 'sqlite', 'refused:more digits than a double keeps'),
    # PostgreSQL's unconstrained numeric arrives as text (docs/databases.md): a new table keeps
    # it as text; an existing one takes what fits and names what does not.
    ('postgresql', 'numeric', '*', 'append', 'mariadb', 'refused:more digits left of the point'),
    ('postgresql', 'numeric', '*', 'create', 'sqlite', 'exact'),
    ('postgresql', 'numeric', '*', 'append', 'sqlite', 'refused:cannot be stored in column'),
    ('postgresql', 'numeric', 'csv', 'append', 'sqlite', 'refused:more digits than a double keeps'),
    # The API path reads with the caller's session (PGTZ=America/New_York here): psqlODBC drops
    # the UTC offset, so a wall time of the hour repeated when DST ends is refused by name
    # (the CLI reads in UTC and keeps every instant).
    ('postgresql', 'timestamptz', 'api', '*', '*', 'refused:names two instants'),
]
