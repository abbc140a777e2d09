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
//! so the rewrite is used only on tables without triggers (`triggers_sql`).

use crate::sqlscan::{name_parts, quoted_identifier, InsertTarget};
use crate::statement::Statement;
use crate::types::text::to_utf16;

/// The prefix that makes sqliteodbc keep the statement compiled.
const PREFIX: &str = "WITH fastodbc_compiled_once(x) AS (SELECT 1) ";

/// Names of the connection's schemas (`main`, `temp`, attached databases): column 2.
pub const SCHEMAS_SQL: &str = "PRAGMA database_list";

/// Changes made by INSERT, UPDATE and DELETE statements on this connection so far.
pub const TOTAL_CHANGES_SQL: &str = "SELECT total_changes()";

/// The INSERT as it is prepared: compiled once by sqliteodbc.
pub fn sql(insert: &str) -> String {
    format!("{PREFIX}{}", insert.trim_start())
}

/// A query counting the triggers of tables named like the INSERT's target in any of
/// `schemas` (a same-named table in another schema counts too: the check errs towards the
/// plain path). `None` when the target's name can't be taken apart.
pub fn triggers_sql(target: &InsertTarget, schemas: &[String]) -> Option<String> {
    // The table name is the last dotted part; SQLite keeps an unquoted name as written and
    // compares it without regard to ASCII case (hence COLLATE NOCASE below).
    let written = *name_parts(&target.table)?.last()?;
    let name = quoted_identifier(written)
        .unwrap_or_else(|| written.to_string())
        .replace('\'', "''");
    let mut parts: Vec<String> = schemas
        .iter()
        .map(|s| {
            format!(
                "SELECT tbl_name FROM \"{}\".sqlite_master WHERE type = 'trigger'",
                s.replace('"', "\"\"")
            )
        })
        .collect();
    if parts.is_empty() {
        return None;
    }
    if !schemas.iter().any(|s| s.eq_ignore_ascii_case("temp")) {
        parts.push("SELECT tbl_name FROM temp.sqlite_master WHERE type = 'trigger'".into());
    }
    Some(format!(
        "SELECT count(*) FROM ({}) WHERE tbl_name = '{name}' COLLATE NOCASE",
        parts.join(" UNION ALL ")
    ))
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

/// Whether the INSERT may be compiled once: its table has no triggers, and the catalog could
/// be read. The statement handle is left reset.
pub fn applies(stmt: &mut Statement, target: &InsertTarget) -> bool {
    stmt.reset();
    let schemas = stmt
        .exec_direct(&to_utf16(SCHEMAS_SQL))
        .and_then(|_| stmt.text_rows());
    stmt.close_cursor();
    let Ok(rows) = schemas else {
        return false;
    };
    let names: Vec<String> = rows.into_iter().filter_map(|r| r.get(1)?.clone()).collect();
    triggers_sql(target, &names).is_some_and(|sql| query_int(stmt, &sql) == Some(0))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn target(table: &str) -> InsertTarget {
        InsertTarget {
            table: table.into(),
            columns: None,
        }
    }

    #[test]
    fn trigger_query_covers_every_schema_and_temp() {
        let sql =
            triggers_sql(&target("aux.\"it's\""), &["main".into(), "aux".into()]).expect("query");
        assert!(sql.contains("FROM \"main\".sqlite_master"));
        assert!(sql.contains("FROM \"aux\".sqlite_master"));
        assert!(sql.contains("FROM temp.sqlite_master"));
        assert!(sql.ends_with("WHERE tbl_name = 'it''s' COLLATE NOCASE"));
        assert_eq!(triggers_sql(&target("t"), &[]), None);
    }

    #[test]
    fn prefix_keeps_the_statement() {
        assert_eq!(
            sql("  INSERT INTO t VALUES (?)"),
            "WITH fastodbc_compiled_once(x) AS (SELECT 1) INSERT INTO t VALUES (?)"
        );
    }
}
