//! What fastodbc does about a driver's quirks: derived from `Quirks` alone, so a driver is
//! served by what it does, never by its name. Each choice names the quirk it answers.

use super::quirks::{DeadAnswer, NarrowText, Quirks};
use crate::plan::PlanOptions;

/// How `executemany` sends the rows of a single-row `INSERT ... VALUES (?, ...)`
/// (`executemany::ExecuteMany`). Any other statement, and an INSERT the chosen way does not
/// fit, goes as parameter arrays.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum InsertStrategy {
    /// Parameter arrays, as every other statement.
    #[default]
    ParamArrays,
    /// Compiled once behind an unused CTE, then parameter arrays; the row count is the
    /// difference of SQLite's `total_changes()` (`compiled_insert`;
    /// `Quirks::recompiles_insert_per_row`).
    CompiledOnce,
    /// Rewritten to multi-row VALUES statements (`sqlscan::InsertValues`;
    /// `Quirks::param_array_round_trip_per_row`).
    MultiRowValues,
    /// Column arrays, one PostgreSQL array literal per column (`array_insert`), the
    /// multi-row VALUES rewrite as its fallback (`Quirks::param_array_round_trip_per_row` on
    /// a `Quirks::postgresql_server`).
    ColumnArrays,
}

/// What fastodbc does with a connection's driver.
/// What reading `SQL_ATTR_CONNECTION_DEAD` tells a pool, and what it costs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Liveness {
    /// The answer is true and takes a round trip: read it to validate a connection that
    /// idled (a pool's `check_idle_after`).
    Probe,
    /// The answer costs nothing, but a session killed since the last call reads as alive:
    /// read it whenever a connection changes hands, and validate one that idled with a
    /// statement's round trip.
    Status,
    /// The answer costs nothing and is the whole truth: nothing remote can die
    /// (`DeadAnswer::InProcess`).
    Local,
    /// Nothing is known of the driver's answer: a pool relies on errors and its `check`.
    #[default]
    Unknown,
}

impl Liveness {
    /// The name the Python layer reads (`DriverTraits.liveness`).
    pub fn name(self) -> &'static str {
        match self {
            Liveness::Probe => "probe",
            Liveness::Status => "status",
            Liveness::Local => "local",
            Liveness::Unknown => "unknown",
        }
    }
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Strategy {
    /// Text columns are fetched as narrow text decoded as UTF-8, not as UTF-16, unless
    /// `setdecoding` says otherwise: the driver's narrow text is UTF-8, and cheaper than its
    /// UTF-16 (`Quirks::narrow_text`).
    pub text_as_utf8: bool,
    /// `str` parameters holding a NUL are refused, never sent cut (`Quirks::cuts_text_at_nul`).
    pub refuse_nul: bool,
    /// `str` parameters go as UTF-8 (SQL_C_CHAR) whatever `setencoding` asks, and getencoding
    /// says so: the narrow text is the connection's utf8mb4, taken as given, and the UTF-16
    /// would be read past its end (`Quirks::overreads_wide_input` with UTF-8 narrow text;
    /// `BindOptions::for_driver`).
    pub params_as_utf8: bool,
    /// UTF-16 `str` parameters holding a code unit the driver would read past the value's end
    /// are refused (`Quirks::overreads_wide_input`; sent as UTF-16 where the narrow text is
    /// not UTF-8).
    pub refuse_overread_utf16: bool,
    /// Statements get spaces after their end for the driver to read (`Statement::prepare` /
    /// `exec_direct`; `Quirks::overreads_wide_input`).
    pub pad_statements: bool,
    /// Catalog functions refuse names holding a unit the driver would read past: they would
    /// be looked up with one more character per such unit, finding nothing or another object
    /// (`Quirks::overreads_wide_input`).
    pub refuse_overread_catalog_names: bool,
    /// Timestamps are bound as `YYYY-MM-DD HH:MM:SS.ffffff` text, keeping microseconds
    /// (`Quirks::timestamp_param_keeps_millis`).
    pub timestamp_as_text: bool,
    /// Times with a fraction (bound as text) are described as SQL_VARCHAR, which the server
    /// converts as it would the literal, not SQL_TYPE_TIME; times of whole seconds go as a
    /// native SQL_C_TYPE_TIME, so `SELECT ?` gives a time (`Quirks::refuses_time_fraction`).
    pub time_as_varchar: bool,
    /// Dates and timestamps of `executemany`'s parameter arrays (and so of a load) are bound
    /// as text described as SQL_VARCHAR, which the server converts as it would the literal
    /// (`Quirks::leaks_temporal_param_arrays`: bound natively, a load of 10M rows would keep
    /// ~850 MB). A single `execute` keeps the native types: nothing leaks there, and
    /// `SELECT ?` stays a date.
    pub temporal_arrays_as_text: bool,
    /// `uuid.UUID` parameters go as their 36-character text, not SQL_C_GUID
    /// (`Quirks::misreads_c_guid`).
    pub guid_as_text: bool,
    /// How result columns are fetched: text room beyond declared sizes
    /// (`Quirks::sizes_not_limits`), truncated values re-read (`getdata_in_block`,
    /// `getdata_bound`), numbers fetched as their text (`Quirks::converts_numbers_silently`),
    /// integers fetched as their text (`Quirks::integers_arrive_as_text`; not floating-point
    /// columns: `money` is one), and text asked for as UTF-16 fetched as UTF-8 or read with
    /// `SQLGetData` (`Quirks::utf16_output_unreliable`).
    pub plan: PlanOptions,
    /// A value a block fetch truncated is re-read in the block, with `SQLSetPos` then
    /// `SQLGetData` (`Quirks::getdata_block`, unless `Quirks::setpos_misplaces_cursor`).
    /// Without it, results whose values may be truncated are fetched one row at a time.
    pub getdata_in_block: bool,
    /// A value a one-row fetch truncated is re-read with `SQLGetData` on its bound column
    /// (`Quirks::getdata_bound`).
    pub getdata_bound: bool,
    /// Text fetched as SQL_C_WCHAR with `SQLGetData` is checked against its length in narrow
    /// bytes (`narrow_text`): `DataError` when they disagree (`Quirks::utf16_output_unreliable`).
    pub check_wide_getdata: bool,
    /// The driver's narrow text encoding, for `check_wide_getdata`.
    pub narrow_text: NarrowText,
    /// Statements run with SQLPrepare + SQLExecute, never SQLExecDirect, while the
    /// transaction holds changes (`Quirks::direct_error_loses_transaction`).
    pub prepare_after_changes: bool,
    /// A load inside the caller's transaction (`Cursor.ingest`, autocommit off) is
    /// bracketed by a savepoint, so that its failure rolls back the load alone
    /// (`Quirks::savepoints`).
    pub load_savepoint: bool,
    /// Each savepoint command of a load goes in a text of two statements, never alone
    /// (`Quirks::own_savepoints_break_rollback`).
    pub savepoint_in_one_text: bool,
    /// `SQL_ATTR_CONNECTION_DEAD` is checked before each COMMIT, which fails when the
    /// connection is lost (`Quirks::commit_when_lost_succeeds`).
    pub check_lost_before_commit: bool,
    /// When a pool reads `SQL_ATTR_CONNECTION_DEAD` (`Quirks::dead_answer`).
    pub liveness: Liveness,
    /// Its calls get no deadline (`Quirks::in_process`: no link to break). Other drivers'
    /// calls with a timeout still running at timeout + `link::GRACE` are given up: the TCP
    /// socket the thread waits on is shut down and the connection is broken (`crate::link`).
    pub unwatched_calls: bool,
    /// How `executemany` sends a single-row INSERT.
    pub insert: InsertStrategy,
    /// `executemany` sends the rows of a chunk holding bytes one by one
    /// (`Quirks::misreads_binary_param_arrays`).
    pub binary_rows_one_by_one: bool,
    /// `executemany`'s row count is unknown (-1) once a parameter array of two or more rows
    /// ran (`Quirks::counts_last_param_set_only`).
    pub array_row_count_unknown: bool,
    /// The query that reads the session's time zone, where zoned timestamps arrive as its
    /// wall time (`Quirks::zoned_timestamp_as_wall_time` on a `Quirks::postgresql_server`):
    /// their columns are marked `ColumnPlan::zoned`, rows keep the wall time (as pyodbc),
    /// and Arrow reads the instant, the wall time in the zone this query names.
    pub session_zone_sql: Option<&'static str>,
    /// A statement run prepared because of `prepare_after_changes` reports the row count the
    /// driver gives it run directly (`direct_count`), as pyodbc, which runs it directly, sees
    /// (`Quirks::count_depends_on_protocol`).
    pub direct_count_after_prepare: bool,
    /// A NUMERIC described with this precision may be of no declared precision
    /// (`Quirks::nominal_numeric`): Arrow holds it as its exact text (`string`: any digits,
    /// `NaN`, `Infinity`), never a `decimal128` its values may not fit (a declared
    /// NUMERIC(28,s) too: the description cannot tell them apart). Rows keep `Decimal`.
    pub numeric_as_text: Option<usize>,
    /// The catalog query a load reads its target's columns with, where the driver's
    /// description is not the whole truth (`Quirks::made_up_sizes`,
    /// `Quirks::misreports_not_null`). Parameters: the schema (NULL: the session's) and the
    /// table; rows: the column's name, 1 if it is NOT NULL, 1 if its type declares no size
    /// (the described size is no limit). Read by `fastodbc.ingest`.
    pub target_catalog_sql: Option<&'static str>,
    /// The statement that makes a session give zoned timestamps as UTC wall times, exact
    /// instants with no hour repeated (`Quirks::zoned_timestamp_as_wall_time`): run by the
    /// command line's `export` on its own connection.
    pub instants_session_sql: Option<&'static str>,
    /// A load's failed chunk is located to its input row (and the value, where the message
    /// names the column) from the message's `at row N` (`Quirks::names_array_row`); every
    /// other failed chunk is named by its input rows.
    pub array_row_in_errors: bool,
    /// TIME columns go into Arrow as `duration[us]`, which holds every value, not
    /// `time64[us]` (`Quirks::time_is_duration`). (Rows: `datetime.time` within a day,
    /// `datetime.timedelta` outside it, whatever the driver.)
    pub time_as_duration: bool,
    /// Result column names end at their first NUL (`Quirks::name_length_in_utf8_bytes`).
    pub names_end_at_nul: bool,
    /// Significant digits a double keeps when read (0: all of them): the Python layer warns
    /// once per result holding floating-point columns (`Quirks::doubles_as_15_digits`).
    pub float_digits: u8,
    /// NaN doubles are refused (`DataError`), in parameters and loads, unless a load asks for
    /// them as NULL (`Quirks::stores_nan_as_null`).
    pub refuse_nan: bool,
    /// A load reads the target columns' declared type names for what they keep
    /// (`Quirks::affinity_by_type_name`).
    pub affinity_by_type_name: bool,
    /// A text column described with this size has no known length: Arrow's metadata
    /// carries none for it (`Quirks::unbounded_text_size`).
    pub unknown_text_size: Option<usize>,
    /// Result columns whose described type name is one of these are looked up in the
    /// catalog when an Arrow reader describes them (by base table and column, one
    /// `SQLColumns` per table), for their fields' metadata (`Quirks::vague_type_names`).
    pub catalog_type_names: &'static [&'static str],
}

/// PostgreSQL's catalog for a load's target: NOT NULL, and whether the type declares its
/// size (`atttypmod` -1: `numeric`, `varchar` without one; `interval` is described as
/// VARCHAR(32) whatever its fields). `to_regclass`: no error (which would abort the
/// transaction) for a name it cannot find, only no rows.
pub const POSTGRESQL_TARGET_CATALOG_SQL: &str = "SELECT a.attname, \
     CASE WHEN a.attnotnull THEN 1 ELSE 0 END, \
     CASE WHEN a.atttypmod < 0 OR a.atttypid = CAST('interval' AS regtype) THEN 1 ELSE 0 END \
     FROM pg_catalog.pg_attribute a \
     WHERE a.attrelid = to_regclass(concat_ws('.', quote_ident(CAST(? AS text)), \
     quote_ident(CAST(? AS text)))) AND a.attnum > 0 AND NOT a.attisdropped";

/// MariaDB's catalog for a load's target: NOT NULL as the server keeps it.
pub const MARIADB_TARGET_CATALOG_SQL: &str = "SELECT column_name, \
     CASE WHEN is_nullable = 'NO' THEN 1 ELSE 0 END, 0 \
     FROM information_schema.columns \
     WHERE table_schema = COALESCE(?, DATABASE()) AND table_name = ?";

/// PostgreSQL's session zone for exact instants.
pub const POSTGRESQL_UTC_SESSION_SQL: &str = "SET TIME ZONE 'UTC'";

/// PostgreSQL's TimeZone setting: an IANA name (`Europe/Paris`, `UTC`) or a POSIX-style
/// fixed offset (`<+05>-05`).
pub const POSTGRESQL_SESSION_ZONE_SQL: &str = "SHOW TimeZone";

impl Strategy {
    /// What fastodbc does about `quirks`.
    pub fn for_quirks(quirks: &Quirks) -> Strategy {
        let q = quirks;
        let utf8 = q.narrow_text == NarrowText::Utf8;
        let getdata_in_block = q.getdata_block() && !q.setpos_misplaces_cursor;
        let getdata_bound = q.getdata_bound();
        let insert = match (
            q.param_array_round_trip_per_row,
            q.postgresql_server,
            q.recompiles_insert_per_row,
        ) {
            (true, true, _) => InsertStrategy::ColumnArrays,
            (true, false, _) => InsertStrategy::MultiRowValues,
            (false, _, true) => InsertStrategy::CompiledOnce,
            (false, _, false) => InsertStrategy::ParamArrays,
        };
        Strategy {
            text_as_utf8: utf8,
            refuse_nul: q.cuts_text_at_nul,
            params_as_utf8: q.overreads_wide_input && utf8,
            refuse_overread_utf16: q.overreads_wide_input,
            pad_statements: q.overreads_wide_input,
            refuse_overread_catalog_names: q.overreads_wide_input,
            timestamp_as_text: q.timestamp_param_keeps_millis,
            time_as_varchar: q.refuses_time_fraction,
            guid_as_text: q.misreads_c_guid,
            temporal_arrays_as_text: q.leaks_temporal_param_arrays,
            plan: PlanOptions {
                sizes_unreliable: q.sizes_not_limits,
                recoverable: getdata_in_block || getdata_bound,
                numbers_as_text: q.converts_numbers_silently,
                integers_as_text: q.integers_arrive_as_text,
                wide_text_via_getdata: q.utf16_output_unreliable && !utf8,
                wide_text_as_utf8: q.utf16_output_unreliable && utf8,
            },
            getdata_in_block,
            getdata_bound,
            check_wide_getdata: q.utf16_output_unreliable,
            narrow_text: q.narrow_text,
            prepare_after_changes: q.direct_error_loses_transaction,
            load_savepoint: q.savepoints,
            savepoint_in_one_text: q.own_savepoints_break_rollback,
            check_lost_before_commit: q.commit_when_lost_succeeds,
            liveness: match q.dead_answer {
                DeadAnswer::Ping => Liveness::Probe,
                DeadAnswer::LastCall => Liveness::Status,
                DeadAnswer::InProcess => Liveness::Local,
                DeadAnswer::Unknown => Liveness::Unknown,
            },
            unwatched_calls: q.in_process,
            insert,
            binary_rows_one_by_one: q.misreads_binary_param_arrays,
            array_row_count_unknown: q.counts_last_param_set_only,
            session_zone_sql: (q.zoned_timestamp_as_wall_time && q.postgresql_server)
                .then_some(POSTGRESQL_SESSION_ZONE_SQL),
            direct_count_after_prepare: q.count_depends_on_protocol
                && q.direct_error_loses_transaction,
            numeric_as_text: q.nominal_numeric,
            target_catalog_sql: if q.made_up_sizes && q.postgresql_server {
                Some(POSTGRESQL_TARGET_CATALOG_SQL)
            } else if q.misreports_not_null {
                Some(MARIADB_TARGET_CATALOG_SQL)
            } else {
                None
            },
            instants_session_sql: (q.zoned_timestamp_as_wall_time && q.postgresql_server)
                .then_some(POSTGRESQL_UTC_SESSION_SQL),
            array_row_in_errors: q.names_array_row,
            time_as_duration: q.time_is_duration,
            names_end_at_nul: q.name_length_in_utf8_bytes,
            float_digits: if q.doubles_as_15_digits { 15 } else { 0 },
            refuse_nan: q.stores_nan_as_null,
            affinity_by_type_name: q.affinity_by_type_name,
            unknown_text_size: (q.unbounded_text_size > 0).then_some(q.unbounded_text_size),
            catalog_type_names: q.vague_type_names,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ffi;

    const GD: u32 = ffi::SQL_GD_BLOCK | ffi::SQL_GD_BOUND;

    fn strategy(name: &str, gd: u32, collation: &str) -> Strategy {
        Strategy::for_quirks(&Quirks::detect(name, gd, collation))
    }

    #[test]
    fn mariadb_strategy_follows_its_connection_character_set() {
        let utf8 = strategy("libmaodbc.so", GD, "utf8mb4_general_ci");
        assert!(utf8.text_as_utf8 && utf8.check_wide_getdata && utf8.pad_statements);
        assert!(!utf8.getdata_in_block && utf8.getdata_bound && utf8.time_as_varchar);
        assert!(utf8.params_as_utf8 && utf8.plan.wide_text_as_utf8);
        assert!(!utf8.plan.wide_text_via_getdata && utf8.guid_as_text && !utf8.refuse_nul);
        assert!(utf8.temporal_arrays_as_text);
        let latin1 = strategy("libmaodbc.so", GD, "latin1_swedish_ci");
        assert!(!latin1.text_as_utf8 && latin1.narrow_text == NarrowText::SingleByte);
        assert!(!latin1.params_as_utf8 && latin1.refuse_overread_utf16);
        assert!(latin1.plan.wide_text_via_getdata && !latin1.plan.wide_text_as_utf8);
        assert_eq!(latin1.insert, InsertStrategy::ParamArrays);
    }

    #[test]
    fn sqliteodbc_strategy() {
        // SQL_GETDATA_EXTENSIONS as sqlite3odbc 0.9998 answers it: SQL_GD_BOUND, no SQL_GD_BLOCK.
        let sqlite = strategy("sqlite3odbc.so", 11, "");
        assert!(!sqlite.getdata_in_block && sqlite.getdata_bound && sqlite.plan.recoverable);
        assert!(sqlite.text_as_utf8 && sqlite.check_wide_getdata && !sqlite.pad_statements);
        assert!(sqlite.plan.numbers_as_text && sqlite.plan.sizes_unreliable);
        assert!(sqlite.timestamp_as_text && sqlite.guid_as_text && sqlite.refuse_nul);
        assert!(sqlite.binary_rows_one_by_one && !sqlite.array_row_count_unknown);
        assert!(sqlite.unwatched_calls, "in-process: no link to break");
        assert!(sqlite.names_end_at_nul && sqlite.refuse_nan && sqlite.affinity_by_type_name);
        assert_eq!(sqlite.float_digits, 15);
        let pg = strategy("psqlodbcw.so", GD, "");
        assert!(!pg.names_end_at_nul && !pg.refuse_nan && pg.float_digits == 0);
        assert_eq!(sqlite.insert, InsertStrategy::CompiledOnce);
    }

    #[test]
    fn psqlodbc_strategy() {
        let pg = strategy("psqlodbcw.so", GD, "");
        assert!(pg.text_as_utf8 && !pg.check_wide_getdata && pg.getdata_in_block);
        assert!(pg.plan.integers_as_text && !pg.plan.numbers_as_text && pg.plan.recoverable);
        assert!(pg.prepare_after_changes && pg.check_lost_before_commit && pg.refuse_nul);
        assert!(pg.array_row_count_unknown && !pg.binary_rows_one_by_one);
        assert!(pg.direct_count_after_prepare);
        assert!(!pg.unwatched_calls && !strategy("libmaodbc.so", GD, "").unwatched_calls);
        assert_eq!(pg.insert, InsertStrategy::ColumnArrays);
        assert!(!pg.temporal_arrays_as_text);
        assert_eq!(pg.session_zone_sql, Some("SHOW TimeZone"));
        assert_eq!(pg.numeric_as_text, Some(28));
        assert_eq!(pg.target_catalog_sql, Some(POSTGRESQL_TARGET_CATALOG_SQL));
        assert_eq!(pg.instants_session_sql, Some("SET TIME ZONE 'UTC'"));
        let maria = strategy("libmaodbc.so", GD, "utf8mb4_general_ci");
        assert_eq!(maria.target_catalog_sql, Some(MARIADB_TARGET_CATALOG_SQL));
        assert_eq!(maria.numeric_as_text, None);
        assert!(maria.array_row_in_errors && !pg.array_row_in_errors);
        assert!(maria.time_as_duration && !pg.time_as_duration);
        assert_eq!(strategy("sqlite3odbc.so", 11, "").session_zone_sql, None);
        assert!(!strategy("psqlodbca.so", GD, "").text_as_utf8);
    }

    #[test]
    fn insert_strategy_follows_the_quirks() {
        let round_trips = Quirks {
            param_array_round_trip_per_row: true,
            ..Quirks::default()
        };
        assert_eq!(
            Strategy::for_quirks(&round_trips).insert,
            InsertStrategy::MultiRowValues
        );
    }

    #[test]
    fn a_driver_without_quirks_gets_the_odbc_defaults() {
        let plain = strategy("libmsodbcsql-18.so", 0, "");
        assert_eq!(plain, Strategy::for_quirks(&Quirks::default()));
        assert_eq!(plain, Strategy::default());
        let bound = strategy("libmsodbcsql-18.so", GD, "");
        assert!(bound.getdata_in_block && bound.getdata_bound && bound.plan.recoverable);
        assert!(!bound.text_as_utf8 && bound.insert == InsertStrategy::ParamArrays);
    }

    #[test]
    fn a_pool_reads_connection_dead_where_it_means_something() {
        // MariaDB pings (true, a round trip): to validate an idle connection. psqlODBC and
        // sqliteodbc answer from a status flag (free): at checkout and return; psqlODBC's is
        // not the whole truth (an idle one is validated with a statement), sqliteodbc's is.
        // An unknown driver: never.
        assert_eq!(
            strategy("libmaodbc.so", GD, "utf8mb4_general_ci").liveness,
            Liveness::Probe
        );
        assert_eq!(strategy("psqlodbcw.so", GD, "").liveness, Liveness::Status);
        assert_eq!(strategy("sqlite3odbc.so", 11, "").liveness, Liveness::Local);
        assert_eq!(
            strategy("libmsodbcsql-18.so", GD, "").liveness,
            Liveness::Unknown
        );
        assert_eq!(Liveness::Probe.name(), "probe");
    }
}
