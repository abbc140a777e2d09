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
    /// The answer is true and takes a round trip: read it when a connection is handed out.
    Probe,
    /// The answer costs nothing: read it whenever a connection changes hands. It is the
    /// whole truth only where nothing remote can die (`DeadAnswer::InProcess`); elsewhere a
    /// session killed since the last call reads as alive, and only a round trip (a pool's
    /// `check`) finds it.
    Status,
    /// Nothing is known of the driver's answer: a pool relies on errors and its `check`.
    #[default]
    Unknown,
}

impl Liveness {
    /// The name the Python layer reads (`Connection._liveness`).
    pub fn name(self) -> &'static str {
        match self {
            Liveness::Probe => "probe",
            Liveness::Status => "status",
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
    /// Times (always bound as text) are described as SQL_VARCHAR, which the server converts
    /// as it would the literal, not SQL_TYPE_TIME (`Quirks::refuses_time_fraction`).
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
    /// `SQL_ATTR_CONNECTION_DEAD` is checked before each COMMIT, which fails when the
    /// connection is lost (`Quirks::commit_when_lost_succeeds`).
    pub check_lost_before_commit: bool,
    /// When a pool reads `SQL_ATTR_CONNECTION_DEAD` (`Quirks::dead_answer`).
    pub liveness: Liveness,
    /// How `executemany` sends a single-row INSERT.
    pub insert: InsertStrategy,
    /// `executemany` sends the rows of a chunk holding bytes one by one
    /// (`Quirks::misreads_binary_param_arrays`).
    pub binary_rows_one_by_one: bool,
    /// `executemany`'s row count is unknown (-1) once a parameter array of two or more rows
    /// ran (`Quirks::counts_last_param_set_only`).
    pub array_row_count_unknown: bool,
}

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
            check_lost_before_commit: q.commit_when_lost_succeeds,
            liveness: match q.dead_answer {
                DeadAnswer::Ping => Liveness::Probe,
                DeadAnswer::LastCall | DeadAnswer::InProcess => Liveness::Status,
                DeadAnswer::Unknown => Liveness::Unknown,
            },
            insert,
            binary_rows_one_by_one: q.misreads_binary_param_arrays,
            array_row_count_unknown: q.counts_last_param_set_only,
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
        assert_eq!(sqlite.insert, InsertStrategy::CompiledOnce);
    }

    #[test]
    fn psqlodbc_strategy() {
        let pg = strategy("psqlodbcw.so", GD, "");
        assert!(pg.text_as_utf8 && !pg.check_wide_getdata && pg.getdata_in_block);
        assert!(pg.plan.integers_as_text && !pg.plan.numbers_as_text && pg.plan.recoverable);
        assert!(pg.prepare_after_changes && pg.check_lost_before_commit && pg.refuse_nul);
        assert!(pg.array_row_count_unknown && !pg.binary_rows_one_by_one);
        assert_eq!(pg.insert, InsertStrategy::ColumnArrays);
        assert!(!pg.temporal_arrays_as_text);
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
        // MariaDB pings (true, a round trip): at checkout. psqlODBC and sqliteodbc answer from
        // a status flag (free): at checkout and return. An unknown driver: never.
        assert_eq!(
            strategy("libmaodbc.so", GD, "utf8mb4_general_ci").liveness,
            Liveness::Probe
        );
        assert_eq!(strategy("psqlodbcw.so", GD, "").liveness, Liveness::Status);
        assert_eq!(
            strategy("sqlite3odbc.so", 11, "").liveness,
            Liveness::Status
        );
        assert_eq!(
            strategy("libmsodbcsql-18.so", GD, "").liveness,
            Liveness::Unknown
        );
        assert_eq!(Liveness::Probe.name(), "probe");
    }
}
