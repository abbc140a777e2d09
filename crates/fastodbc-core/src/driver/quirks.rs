//! What a driver does: the quirks of the ODBC drivers fastodbc is tested with (Debian's
//! psqlODBC, sqlite3odbc and MariaDB Connector/ODBC 3.1), observed, each with its evidence.
//! A driver fastodbc does not know has none of them. What fastodbc does about each is in
//! `strategy`.

use crate::ffi;

/// The encoding of a driver's narrow (SQL_C_CHAR) text.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum NarrowText {
    Utf8,
    /// One byte per character (latin1, cp1251, ...).
    SingleByte,
    /// A multi-byte encoding other than UTF-8, or not known.
    #[default]
    Unknown,
}

impl NarrowText {
    /// Bytes the UTF-16 code units `units` take in this narrow encoding, when that is known.
    pub fn len_of_utf16(self, units: impl Iterator<Item = u16>) -> Option<usize> {
        match self {
            NarrowText::Utf8 => Some(
                units
                    .map(|u| match u {
                        0..=0x7F => 1,
                        0x80..=0x7FF => 2,
                        // A surrogate pair is one 4-byte UTF-8 sequence: 2 bytes per unit.
                        0xD800..=0xDFFF => 2,
                        _ => 3,
                    })
                    .sum(),
            ),
            NarrowText::SingleByte => {
                Some(units.filter(|u| !(0xDC00..=0xDFFF).contains(u)).count())
            }
            NarrowText::Unknown => None,
        }
    }
}

/// What a driver does that fastodbc must work around or may use. `Default` is a driver
/// fastodbc knows nothing about.
/// How a driver answers `SQL_ATTR_CONNECTION_DEAD`, as measured on Debian 12's drivers
/// (tests/pool: a session killed server-side, then the attribute read before any other call).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum DeadAnswer {
    /// Not measured: a driver fastodbc does not know.
    #[default]
    Unknown,
    /// It asks the server (MariaDB Connector/ODBC 3.1: `mysql_ping`, one round trip): a
    /// session killed server-side reads as dead.
    Ping,
    /// It reports the state the driver's last call left (psqlODBC: `CC_not_connected`, no
    /// round trip): a loss a call met reads as dead, a session killed since then as alive.
    LastCall,
    /// The database runs in the process (sqliteodbc): there is no session to lose, and the
    /// answer costs nothing.
    InProcess,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Quirks {
    /// What the driver's narrow text is encoded in, as far as fastodbc can tell. Measured on
    /// Debian's drivers: SQLite's and psqlODBC's (Unicode) narrow text is UTF-8, served faster
    /// than their UTF-16. MariaDB Connector/ODBC 3.1 (`libmaodbc.so`): its narrow text is in
    /// the connection's character set, utf8mb4 by default (SQL_COLLATION_SEQ names it), and
    /// 4-7x faster than its UTF-16 (200,000 rows x 5 VARCHAR(100), fresh processes, medians
    /// of 5: BENCHMARKS.md).
    pub narrow_text: NarrowText,
    /// The driver silently cuts strings at an embedded NUL (SQLite's and psqlODBC's cut
    /// parameters there; MariaDB's keeps NUL in parameters).
    pub cuts_text_at_nul: bool,
    /// Declared column sizes are not limits: values can be longer than described (SQLite's
    /// columns hold any type and length).
    pub sizes_not_limits: bool,
    /// Binary parameter arrays are misread: SQLite's driver reads one byte per element.
    pub misreads_binary_param_arrays: bool,
    /// A SQL_C_TYPE_TIMESTAMP parameter loses its microseconds: SQLite's driver keeps
    /// milliseconds of one, but stores text as given.
    pub timestamp_param_keeps_millis: bool,
    /// `SQLRowCount` after a parameter array counts only the last parameter set's rows
    /// (psqlODBC).
    pub counts_last_param_set_only: bool,
    /// Parameter arrays cost one round trip per row (psqlODBC).
    pub param_array_round_trip_per_row: bool,
    /// The server is PostgreSQL (psqlODBC): array literals, `unnest` and `pg_catalog` are
    /// there.
    pub postgresql_server: bool,
    /// The driver compiles an INSERT again for every parameter set, but keeps a statement
    /// that begins with `WITH` compiled (sqliteodbc: a third of the time of an executemany
    /// INSERT, see `compiled_insert`). Its database is SQLite: `total_changes()` and
    /// `EXPLAIN` are there.
    pub recompiles_insert_per_row: bool,
    /// Number columns converted to C numbers silently: sqliteodbc turns its number text into
    /// SQL_C_SBIGINT / SQL_C_DOUBLE with `strtoll` / `strtod`, so a REAL 3.7 in an INTEGER
    /// column comes back 3, the text 'abc' NULL, '0x1F' 31 (its columns hold any type).
    pub converts_numbers_silently: bool,
    /// Integers arrive as text, converted during the fetch, the driver's slower side:
    /// psqlODBC receives them as text; served as text, its fetch of the benchmark's `int10`
    /// took ~7% less (fresh processes, medians of 5). Its floating-point columns include
    /// `money` (SQL_FLOAT), whose text (`$1,234.56`) only the driver's own conversion reads as
    /// a number.
    pub integers_arrive_as_text: bool,
    /// An error in a directly executed statement rolls back the whole transaction: psqlODBC
    /// sends a direct statement and its savepoint as one simple-protocol query, so a syntax
    /// error there silently rolls back the transaction.
    pub direct_error_loses_transaction: bool,
    /// The database takes SQL's `SAVEPOINT name`, `ROLLBACK TO SAVEPOINT name` and `RELEASE
    /// SAVEPOINT name` inside a transaction: PostgreSQL (psqlODBC), SQLite 3 (sqlite3odbc) and
    /// MariaDB (Connector/ODBC; its InnoDB tables roll back to one, MyISAM ones keep their
    /// rows). Not SQLite 2 (`libsqliteodbc.so`), nor a driver fastodbc does not know.
    pub savepoints: bool,
    /// The application's savepoint commands, each sent alone, break the driver's
    /// statement-level rollback (psqlODBC 13, measured with its CommLog: it wraps each
    /// statement of a transaction in a savepoint of its own, `_EXEC_SVP_<conn>`, released
    /// lazily by the next statement; a lone `SAVEPOINT` lands inside it and is released with
    /// it, and a lone `RELEASE` / `ROLLBACK TO` destroys the driver's, whose next statement then
    /// fails with HY000 "internal SAVEPOINT failed" and the whole transaction is rolled back).
    /// A text of two statements (`SAVEPOINT s; SELECT 1`) is not wrapped, and works.
    pub own_savepoints_break_rollback: bool,
    /// `SQL_GETDATA_EXTENSIONS` as the driver reports it (SQL_GD_BLOCK, SQL_GD_BOUND, ...).
    pub getdata_extensions: u32,
    /// `SQLSetPos(SQL_POSITION)` misplaces the cursor: MariaDB Connector/ODBC 3.1 moves it
    /// relative to the last position, not the rowset's start, the next SQLFetch continues
    /// from there (rows lost or repeated), and SQLGetData after it returns SQL_NO_DATA for a
    /// column already read.
    pub setpos_misplaces_cursor: bool,
    /// A COMMIT on a connection the driver already found lost does nothing and succeeds
    /// (psqlODBC: a loss noticed by any call, even freeing a statement, clears its
    /// in-transaction flag, and COMMIT then sends nothing). `SQL_ATTR_CONNECTION_DEAD` is a
    /// status read in this driver.
    pub commit_when_lost_succeeds: bool,
    /// What its `SQL_ATTR_CONNECTION_DEAD` answer means and costs.
    pub dead_answer: DeadAnswer,
    /// The database runs inside the driver, in this process (sqlite3odbc): its calls wait on
    /// no network. Any other driver's calls may wait forever on a link that stops forwarding
    /// (the server's host gone, a proxy that keeps the TCP connection open), with no bound of
    /// their own: psqlODBC's query timeout is the server's `statement_timeout` and its
    /// SQLCancel libpq's `PQcancel` over a new connection, MariaDB Connector/ODBC 3.1's a
    /// `KILL QUERY` over a new connection, and it ignores query timeouts (01S02); neither
    /// answers through a dead link (docs/driver-quirks.md, "What a dead link meets").
    pub in_process: bool,
    /// The driver reads UTF-16 input past its end: MariaDB Connector/ODBC 3.1 measures it
    /// with its UTF-16 charset's `mb_charlen` applied to a whole code unit, which tests the
    /// unit's low byte, so every unit in U+xxD8..U+xxDB (`Ø`, `Ù`, `付`...) counts as the
    /// start of a surrogate pair and its conversion to UTF-8 reads one unit past the text per
    /// such unit, and keeps it (a NUL, the next row's text in a parameter array, garbage after
    /// a statement). (unixODBC hands the driver the wide functions whatever the application
    /// calls, so the narrow ones are no way around it for statements.)
    pub overreads_wide_input: bool,
    /// SQL_C_GUID parameters are misread or refused: MariaDB Connector/ODBC 3.1 sends a
    /// SQL_GUID struct as its 16 bytes in memory order (Data1-3 little-endian), which a UUID
    /// column stores byte-swapped and a text column refuses (and a parameter array of two or
    /// more crashed it); sqliteodbc refuses SQL_C_GUID (07009). (MariaDB's misleading
    /// SQLSTATEs are restated by native error in fastodbc-py's `errors::MYSQL_RESTATED`: a
    /// failed connect has no driver name to look up.)
    pub misreads_c_guid: bool,
    /// The driver's UTF-16 output is wrong, and its narrow text right:
    /// - sqliteodbc 0.9998 turns characters of plane 16 into others: U+10FFFF comes back
    ///   U+FFFF, U+100000 as a NUL that ends the value.
    /// - MariaDB Connector/ODBC 3.1 (raw probes of indicators and bytes): the miscount of
    ///   `overreads_wide_input` cuts a fetched value one unit short per unit in U+xxD8..U+xxDB
    ///   (`'ÆØÅ'` comes back `'ÆØ'`; `'ÆØÅ ÿ'` loses its `ÿ`); its conversions stop at an
    ///   embedded NUL; a bound value longer than its buffer comes back cut with no 01004 and
    ///   a length counting characters (1,030 emoji: 2,060 bytes), or fails with HY000 'Ansi
    ///   to Unicode conversion error'. Its `SQLGetData` converts long values right.
    pub utf16_output_unreliable: bool,
    /// A TIME parameter with a fraction is refused (22008), although the driver sends text
    /// parameters to the server as text whatever their SQL type (MariaDB). Every way to a
    /// typed TIME drops or refuses the fraction (Connector/ODBC 3.1's `MADB_Time2Sql` and
    /// `MADB_IntervalHtoMS2Sql` set `second_part` to 0, `MADB_Timestamp2Sql` and text
    /// described as SQL_TYPE_TIME refuse one with 22008); a text parameter reaches the server
    /// as a string, which `SELECT ?` returns as a string.
    pub refuses_time_fraction: bool,
    /// The driver never frees what it allocates for the dates and timestamps of a parameter
    /// array: MariaDB Connector/ODBC 3.1.15 keeps a 40-byte block (a `MYSQL_TIME`) for every
    /// SQL_C_TYPE_DATE / SQL_C_TYPE_TIMESTAMP value of an array it executes (valgrind:
    /// "definitely lost", allocated under its `SQLExecute`; 100,000 rows of the bench's
    /// `mixed` set, one DATE and one DATETIME each, grow RSS by 8.3 MB a load, also with a
    /// new statement or connection per load, and through arrow-odbc). Rows executed one at
    /// a time, and dates and timestamps bound as text, keep nothing.
    pub leaks_temporal_param_arrays: bool,
    /// A zoned timestamp (PostgreSQL's `timestamptz`) is described as SQL_TYPE_TIMESTAMP,
    /// named by `SQL_DESC_TYPE_NAME` (`timestamptz`), and its values arrive as the session
    /// TimeZone's wall time with the UTC offset dropped, in every C type: psqlODBC parses the
    /// server's text with its zone ignored (`copy_and_convert_field`: "time zone stuff is
    /// unreliable"), so SQL_C_CHAR gives `2024-03-01 17:30:00.25` for `12:00:00.25+00` in
    /// Asia/Kolkata, and SQL_C_BINARY is refused (07006). The instant is the wall time read
    /// in the session's zone, one instant per wall time except in the hour a change back from
    /// daylight saving time repeats.
    pub zoned_timestamp_as_wall_time: bool,
    /// A statement without parameter markers runs once whatever `SQL_ATTR_PARAMSET_SIZE`
    /// says, with `SQL_SUCCESS` and nothing written to `SQL_ATTR_PARAMS_PROCESSED_PTR` or the
    /// status array: MariaDB Connector/ODBC 3.1.15 (`INSERT INTO t () VALUES ()` with an
    /// array of 3 stores 1 row, `SQLRowCount` 1; pyodbc's fast_executemany loses the rows
    /// the same way). With markers it writes both, and on a failed array fills the status
    /// array with bytes of 1 (0x0101). (sqliteodbc and psqlODBC run every set either way;
    /// all three write `SQL_ATTR_PARAMS_PROCESSED_PTR` for an array with markers.)
    pub ignores_paramset_without_markers: bool,
    /// The status array (`SQL_ATTR_PARAM_STATUS_PTR`) is never written, though
    /// `SQL_ATTR_PARAMS_PROCESSED_PTR` is (sqliteodbc 0.9998).
    pub writes_no_param_status: bool,
    /// The row count of a statement without one of its own (DDL) depends on how it ran:
    /// psqlODBC reports -1 for every such statement run prepared (extended protocol), and run
    /// directly (simple protocol) 0 where the command tag has two words (`CREATE TABLE`,
    /// `DROP INDEX`), -1 for `DROP TABLE` / `ALTER TABLE` and one-word tags (`GRANT`):
    /// `direct_count`.
    pub count_depends_on_protocol: bool,
    /// A NUMERIC of no declared precision is described with this precision, of the driver's
    /// making, the same as a column declared so: psqlODBC 13 describes PostgreSQL's
    /// unconstrained `numeric` as NUMERIC(28,6) (`getNumericColumnSizeX` /
    /// `getNumericDecimalDigitsX` defaults: a table's column, an empty result, `SQLColumns`),
    /// or as (28, the largest scale of the values it read) for an expression, yet its values
    /// may have any number of digits either side of the point (`1E-12`, 30 digits before
    /// it) and be `NaN` or `Infinity`. (More than 28 digits read: that many.)
    pub nominal_numeric: Option<usize>,
    /// A column whose type declares no size is described with a size of the driver's making,
    /// which values may exceed: psqlODBC 13 describes unbounded `varchar` as 255
    /// (`MaxVarcharSize`), `interval` as VARCHAR(32) (`'1 year 2 mons 3 days 04:05:06.789'` is
    /// 33 characters) and unconstrained `numeric` as `nominal_numeric`. The server's catalog
    /// (`pg_attribute.atttypmod`) tells them apart from declared sizes.
    pub made_up_sizes: bool,
    /// A NOT NULL column is reported nullable, by `SQLDescribeCol` and by `SQLColumns`
    /// (`NULLABLE` 1, `IS_NULLABLE` 'YES'), though `information_schema.columns` says 'NO':
    /// MariaDB Connector/ODBC 3.1.15 for `TIMESTAMP NOT NULL`, where the server stores a NULL
    /// as the current time instead of refusing it (MariaDB 10.11, measured; the same NULL
    /// into `INT NOT NULL` is refused).
    pub misreports_not_null: bool,
    /// A failed parameter array's message names the failed set as `at row N`, counted from 1
    /// in the array (MariaDB's server messages: "Out of range value for column 'd' at row
    /// 3"), and the column as `column 'name'`.
    pub names_array_row: bool,
    /// The database's TIME is a duration, described as SQL_TYPE_TIME: MariaDB's holds
    /// -838:59:59.999999 to 838:59:59.999999, given as text such as `838:59:59.999999`.
    pub time_is_duration: bool,
    /// A result column's name length from `SQLDescribeColW` counts the name's UTF-8 bytes,
    /// not its UTF-16 units (sqliteodbc 0.9998): the name arrives whole and NUL-terminated,
    /// followed by one NUL per extra byte (`é` as `é\0`, `日本` with four NULs). pyodbc shows
    /// the same names.
    pub name_length_in_utf8_bytes: bool,
    /// Floating-point values reach the driver as SQLite's own text of them, 15 significant
    /// digits (`sqlite3_column_text`, `%!.15g` in SQLite 3.40): `1.0/3` is
    /// `0.333333333333333`, whatever the C type (measured on sqliteodbc 0.9998: SQL_C_DOUBLE,
    /// SQL_C_CHAR, SQL_C_WCHAR and SQL_C_BINARY all give those digits, with `StepAPI=0` and
    /// `1`; none of its DSN options changes it). -0.0 arrives as 0.0 the same way.
    pub doubles_as_15_digits: bool,
    /// The database stores a NaN double as NULL, with no error (SQLite's `sqlite3_bind_double`).
    pub stores_nan_as_null: bool,
    /// What a column stores follows its declared type name (SQLite's type affinity), which the
    /// SQL type the driver reports does not tell: sqliteodbc describes NUMERIC as SQL_DOUBLE
    /// and DECIMAL as SQL_CHAR, yet both columns keep integral numbers as 64-bit integers
    /// (exactly) and other numbers, their text included, as doubles; REAL / DOUBLE / FLOAT
    /// columns keep every number as a double.
    pub affinity_by_type_name: bool,
    /// The size the driver describes a text column of no declared length with, and a type it
    /// does not know (json, arrays, enums: SQL_WVARCHAR): psqlODBC's `MaxVarcharSize`, 255
    /// unless the connection string says otherwise, so `varchar` and `varchar(255)` are
    /// described alike. 0: every described size is the column's.
    pub unbounded_text_size: usize,
    /// `SQL_DESC_TYPE_NAME` answers (lower-case) that do not name the column's type, which
    /// the catalog (`SQLColumns`' TYPE_NAME) does: psqlODBC says `unknown` for json, jsonb,
    /// arrays, enums and timetz, and nothing for interval; MariaDB Connector/ODBC 3.1 says
    /// `char` for UUID, INET6, INET4 and ENUM (and `text` for JSON, which its catalog calls
    /// LONGTEXT too).
    pub vague_type_names: &'static [&'static str],
}

/// Whether `type_name` (`SQL_DESC_TYPE_NAME` of a SQL_TYPE_TIMESTAMP column) names a
/// timestamp holding an instant: PostgreSQL's `timestamptz` / `timestamp with time zone`.
pub fn names_zoned_timestamp(type_name: &str) -> bool {
    let n = type_name.trim().to_ascii_lowercase();
    n == "timestamptz" || n == "timestamp with time zone"
}

/// MariaDB Connector/ODBC (`libmaodbc.so`).
fn is_mariadb(driver_name: &str) -> bool {
    driver_name.to_ascii_lowercase().starts_with("libmaodbc")
}

/// Whether `Quirks::detect` needs the connection's `SQL_COLLATION_SEQ`: MariaDB's narrow text
/// is in the connection's character set (utf8mb4 unless the connection string names another),
/// which its collation names. Other drivers are not asked.
pub fn narrow_text_needs_collation(driver_name: &str) -> bool {
    is_mariadb(driver_name)
}

/// The narrow encoding a MariaDB connection's collation (`utf8mb4_general_ci`) implies.
fn mariadb_narrow_text(collation: &str) -> NarrowText {
    let charset = collation.split('_').next().unwrap_or("");
    match charset {
        "utf8" | "utf8mb3" | "utf8mb4" => NarrowText::Utf8,
        // The server's multi-byte client character sets (ucs2, utf16 and utf32 cannot be one).
        "big5" | "cp932" | "eucjpms" | "euckr" | "gb2312" | "gbk" | "sjis" | "ujis" | "" => {
            NarrowText::Unknown
        }
        _ => NarrowText::SingleByte,
    }
}

impl Quirks {
    /// The quirks of the driver `driver_name` (`SQL_DRIVER_NAME`, its file name), given its
    /// `SQL_GETDATA_EXTENSIONS` and, where `narrow_text_needs_collation`, its
    /// `SQL_COLLATION_SEQ` (empty otherwise). The table of drivers fastodbc knows.
    pub fn detect(driver_name: &str, getdata_extensions: u32, collation: &str) -> Quirks {
        let name = driver_name.to_ascii_lowercase();
        // sqlite3odbc (`sqlite3odbc.so`, `libsqlite3odbc.so`) and its SQLite 2 sibling
        // (`libsqliteodbc.so`).
        let sqlite = name.contains("sqlite");
        let sqlite3 = name.contains("sqlite3odbc");
        // psqlODBC, Unicode (`psqlodbcw.so`) or ANSI (`psqlodbca.so`).
        let psql = name.starts_with("psqlodbc");
        let mariadb = is_mariadb(&name);
        let narrow_text = if sqlite || name.starts_with("psqlodbcw") {
            NarrowText::Utf8
        } else if mariadb {
            mariadb_narrow_text(collation)
        } else {
            NarrowText::Unknown
        };
        Quirks {
            narrow_text,
            cuts_text_at_nul: sqlite || psql,
            sizes_not_limits: sqlite,
            misreads_binary_param_arrays: sqlite,
            timestamp_param_keeps_millis: sqlite,
            counts_last_param_set_only: psql,
            param_array_round_trip_per_row: psql,
            postgresql_server: psql,
            recompiles_insert_per_row: sqlite3,
            converts_numbers_silently: sqlite3,
            integers_arrive_as_text: psql,
            direct_error_loses_transaction: psql,
            savepoints: psql || sqlite3 || mariadb,
            own_savepoints_break_rollback: psql,
            getdata_extensions,
            setpos_misplaces_cursor: mariadb,
            commit_when_lost_succeeds: psql,
            dead_answer: if mariadb {
                DeadAnswer::Ping
            } else if psql {
                DeadAnswer::LastCall
            } else if sqlite {
                DeadAnswer::InProcess
            } else {
                DeadAnswer::Unknown
            },
            in_process: sqlite,
            overreads_wide_input: mariadb,
            misreads_c_guid: mariadb || sqlite,
            utf16_output_unreliable: mariadb || sqlite3,
            refuses_time_fraction: mariadb,
            leaks_temporal_param_arrays: mariadb,
            zoned_timestamp_as_wall_time: psql,
            ignores_paramset_without_markers: mariadb,
            writes_no_param_status: sqlite3,
            count_depends_on_protocol: psql,
            nominal_numeric: psql.then_some(28),
            made_up_sizes: psql,
            misreports_not_null: mariadb,
            names_array_row: mariadb,
            time_is_duration: mariadb,
            name_length_in_utf8_bytes: sqlite3,
            doubles_as_15_digits: sqlite3,
            stores_nan_as_null: sqlite,
            affinity_by_type_name: sqlite3,
            unbounded_text_size: if psql { 255 } else { 0 },
            vague_type_names: if psql {
                &["unknown", ""]
            } else if mariadb {
                &["char"]
            } else {
                &[]
            },
        }
    }

    /// `SQLGetData` may follow a block fetch after `SQLSetPos` (SQL_GD_BLOCK | SQL_GD_BOUND).
    pub fn getdata_block(&self) -> bool {
        let both = ffi::SQL_GD_BLOCK | ffi::SQL_GD_BOUND;
        self.getdata_extensions & both == both
    }

    /// `SQLGetData` may re-read a bound column of the current row (SQL_GD_BOUND).
    pub fn getdata_bound(&self) -> bool {
        self.getdata_extensions & ffi::SQL_GD_BOUND != 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn narrow_text_from_a_mariadb_collation() {
        assert_eq!(mariadb_narrow_text("utf8mb4_general_ci"), NarrowText::Utf8);
        assert_eq!(mariadb_narrow_text("utf8mb3_general_ci"), NarrowText::Utf8);
        assert_eq!(
            mariadb_narrow_text("latin1_swedish_ci"),
            NarrowText::SingleByte
        );
        assert_eq!(mariadb_narrow_text("sjis_japanese_ci"), NarrowText::Unknown);
        assert_eq!(mariadb_narrow_text(""), NarrowText::Unknown);
    }

    #[test]
    fn zoned_timestamp_names() {
        for name in ["timestamptz", "TIMESTAMPTZ", "timestamp with time zone"] {
            assert!(names_zoned_timestamp(name), "{name}");
        }
        for name in ["timestamp", "datetime", "timestamp without time zone", ""] {
            assert!(!names_zoned_timestamp(name), "{name}");
        }
    }

    #[test]
    fn narrow_length_of_utf16_text() {
        let text = "aé東😀Ø";
        let units = || text.encode_utf16();
        assert_eq!(NarrowText::Utf8.len_of_utf16(units()), Some(text.len()));
        assert_eq!(NarrowText::SingleByte.len_of_utf16(units()), Some(5));
        assert_eq!(NarrowText::Unknown.len_of_utf16(units()), None);
    }

    const GD: u32 = ffi::SQL_GD_BLOCK | ffi::SQL_GD_BOUND;

    #[test]
    fn only_mariadb_is_asked_its_collation() {
        assert!(narrow_text_needs_collation("libmaodbc.so"));
        assert!(narrow_text_needs_collation("LIBMAODBC.SO"));
        for name in [
            "psqlodbcw.so",
            "libsqlite3odbc.so",
            "libmsodbcsql-18.so",
            "",
        ] {
            assert!(!narrow_text_needs_collation(name), "{name}");
        }
    }

    #[test]
    fn a_driver_fastodbc_does_not_know_has_no_quirks() {
        for name in ["libmsodbcsql-18.so", "libtdsodbc.so", ""] {
            let q = Quirks::detect(name, GD, "");
            assert_eq!(
                q,
                Quirks {
                    getdata_extensions: GD,
                    ..Quirks::default()
                },
                "{name}"
            );
        }
    }

    #[test]
    fn psqlodbc_quirks() {
        let pg = Quirks::detect("psqlodbcw.so", GD, "");
        assert_eq!(pg.narrow_text, NarrowText::Utf8);
        assert!(pg.cuts_text_at_nul && pg.counts_last_param_set_only);
        assert!(pg.param_array_round_trip_per_row && pg.postgresql_server);
        assert!(pg.integers_arrive_as_text && pg.direct_error_loses_transaction);
        assert!(pg.commit_when_lost_succeeds && pg.getdata_block());
        assert!(pg.zoned_timestamp_as_wall_time);
        assert!(pg.count_depends_on_protocol);
        assert!(pg.commit_when_lost_succeeds && pg.getdata_block() && pg.savepoints);
        assert!(pg.own_savepoints_break_rollback && pg.made_up_sizes);
        assert_eq!(pg.nominal_numeric, Some(28));
        assert_eq!(pg.dead_answer, DeadAnswer::LastCall);
        assert!(!pg.sizes_not_limits && !pg.utf16_output_unreliable && !pg.misreads_c_guid);
        // The ANSI driver: the same server and protocol, its narrow text not known.
        let ansi = Quirks::detect("psqlodbca.so", GD, "");
        assert_eq!(ansi.narrow_text, NarrowText::Unknown);
        assert_eq!(
            ansi,
            Quirks {
                narrow_text: NarrowText::Unknown,
                ..pg
            }
        );
    }

    #[test]
    fn sqliteodbc_quirks() {
        let sqlite = Quirks::detect("sqlite3odbc.so", 0, "");
        assert_eq!(sqlite.narrow_text, NarrowText::Utf8);
        assert!(sqlite.cuts_text_at_nul && sqlite.sizes_not_limits);
        assert!(sqlite.misreads_binary_param_arrays && sqlite.timestamp_param_keeps_millis);
        assert!(sqlite.recompiles_insert_per_row && sqlite.converts_numbers_silently);
        assert!(sqlite.misreads_c_guid && sqlite.utf16_output_unreliable);
        assert!(!sqlite.postgresql_server && !sqlite.overreads_wide_input);
        assert!(sqlite.writes_no_param_status && !sqlite.ignores_paramset_without_markers);
        assert!(sqlite.name_length_in_utf8_bytes && sqlite.doubles_as_15_digits);
        assert!(sqlite.stores_nan_as_null && sqlite.affinity_by_type_name);
        // The SQLite 2 driver shares what is SQLite's, not what is sqlite3odbc 0.9998's.
        let sqlite2 = Quirks::detect("libsqliteodbc.so", 0, "");
        assert!(sqlite2.sizes_not_limits && sqlite2.misreads_c_guid && !sqlite2.savepoints);
        assert!(sqlite.savepoints);
        assert!(!sqlite2.recompiles_insert_per_row && !sqlite2.utf16_output_unreliable);
    }

    #[test]
    fn mariadb_quirks_follow_its_connection_character_set() {
        let utf8 = Quirks::detect("libmaodbc.so", GD, "utf8mb4_general_ci");
        assert_eq!(utf8.narrow_text, NarrowText::Utf8);
        assert!(utf8.utf16_output_unreliable && utf8.overreads_wide_input);
        assert!(utf8.setpos_misplaces_cursor && utf8.getdata_bound());
        assert!(utf8.refuses_time_fraction && utf8.misreads_c_guid && !utf8.cuts_text_at_nul);
        assert!(utf8.leaks_temporal_param_arrays && utf8.ignores_paramset_without_markers);
        assert!(utf8.leaks_temporal_param_arrays && utf8.savepoints);
        assert!(utf8.misreports_not_null && !utf8.made_up_sizes);
        let latin1 = Quirks::detect("libmaodbc.so", GD, "latin1_swedish_ci");
        assert_eq!(latin1.narrow_text, NarrowText::SingleByte);
    }
}
