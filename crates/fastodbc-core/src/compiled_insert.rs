//! Bulk INSERT compiled once, for SQLite behind sqliteodbc.
//!
//! sqliteodbc keeps a compiled statement (`sqlite3_stmt`) across executions only for
//! statements it classes as queries: those beginning with `SELECT`, `PRAGMA`, `EXPLAIN` or
//! `WITH`. Every other statement is compiled again for each parameter set, which is about a
//! third of the time of an `executemany` INSERT (`sqlite3Parser`, `sqlite3Insert` per row).
//! SQLite accepts a common table expression in front of an INSERT, so
//!
//! ```sql
//! WITH fastodbc_compiled_once(x) AS (SELECT 1) INSERT INTO t (a, b) VALUES (?, ?)
//! ```
//!
//! inserts exactly what the plain statement does, compiled once and reset between rows. The
//! CTE is never referenced: the INSERT's only values are markers.
//!
//! The driver then reports no row count (a query changes no rows, it says), so the count is
//! `total_changes()` after the rows minus before. That counts rows written by triggers as well,
//! so the rewrite is used only for an INSERT that fires no trigger (`applies`).

use crate::params::{BindOptions, ParamBatch, ParamValue};
use crate::statement::Statement;
use crate::types::text::to_utf16;

/// The prefix that makes sqliteodbc keep the statement compiled.
const PREFIX: &str = "WITH fastodbc_compiled_once(x) AS (SELECT 1) ";

/// Changes made by INSERT, UPDATE and DELETE statements on this connection so far. It reads
/// no table, so it starts no read transaction.
pub const TOTAL_CHANGES_SQL: &str = "SELECT total_changes()";

/// The INSERT as it is prepared: compiled once by sqliteodbc.
pub fn sql(insert: &str) -> String {
    format!("{PREFIX}{}", insert.trim_start())
}

/// The statement that lists the program SQLite compiles for the INSERT (one row per opcode,
/// the opcode's name in column 2) without running it.
fn explain_sql(insert: &str) -> String {
    format!("EXPLAIN {}", sql(insert))
}

/// Whether a compiled program (`EXPLAIN` rows) runs a trigger: SQLite compiles each trigger
/// the statement fires into a sub-program started by the `Program` opcode.
fn fires_triggers(rows: &[Vec<Option<String>>]) -> bool {
    rows.iter()
        .any(|r| r.get(1).and_then(|op| op.as_deref()) == Some("Program"))
}

/// Runs a query returning one integer in its first row and column.
fn query_int(stmt: &mut Statement, sql: &str) -> Option<i64> {
    stmt.reset();
    stmt.exec_direct(&to_utf16(sql)).ok()?;
    let rows = stmt.text_rows();
    stmt.close_cursor();
    rows.ok()?.first()?.first()?.as_deref()?.parse().ok()
}

/// `total_changes()` of the statement's connection, or `None` if it can't be read.
pub fn total_changes(stmt: &mut Statement) -> Option<i64> {
    query_int(stmt, TOTAL_CHANGES_SQL)
}

/// Whether the INSERT may be compiled once: SQLite compiles it with the prefix, and its
/// program fires no trigger. `markers` NULLs stand for its parameters (EXPLAIN runs nothing).
///
/// The program is read with `EXPLAIN` rather than from `sqlite_master`: reading a table
/// inside the connection's transaction would hold a shared lock until it ends, and another
/// connection's COMMIT then waits for it while this one's INSERT waits for that COMMIT (each
/// gives up with "database is locked"). EXPLAIN reads the schema but keeps no lock, and
/// answers for the statement as SQLite will run it (temp triggers, attached schemas, case).
/// The statement handle is left reset.
pub fn applies(stmt: &mut Statement, insert: &str, markers: usize, opts: BindOptions) -> bool {
    stmt.reset();
    let nulls = vec![ParamValue::Null; markers];
    let program = ParamBatch::build(&[nulls], opts, &[])
        .and_then(|batch| stmt.bind_params(batch))
        .and_then(|_| stmt.exec_direct(&to_utf16(&explain_sql(insert))))
        .and_then(|_| stmt.text_rows());
    stmt.reset();
    program.is_ok_and(|rows| !rows.is_empty() && !fires_triggers(&rows))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn program(opcodes: &[&str]) -> Vec<Vec<Option<String>>> {
        opcodes
            .iter()
            .enumerate()
            .map(|(i, op)| vec![Some(i.to_string()), Some(op.to_string())])
            .collect()
    }

    #[test]
    fn a_trigger_is_a_sub_program() {
        assert!(!fires_triggers(&program(&[
            "Init",
            "OpenWrite",
            "Insert",
            "Halt"
        ])));
        assert!(fires_triggers(&program(&[
            "Init", "Insert", "Program", "Halt"
        ])));
        assert_eq!(
            explain_sql("INSERT INTO t VALUES (?)"),
            "EXPLAIN WITH fastodbc_compiled_once(x) AS (SELECT 1) INSERT INTO t VALUES (?)"
        );
    }

    #[test]
    fn prefix_keeps_the_statement() {
        assert_eq!(
            sql("  INSERT INTO t VALUES (?)"),
            "WITH fastodbc_compiled_once(x) AS (SELECT 1) INSERT INTO t VALUES (?)"
        );
    }
}
