//! The target table's columns, as the driver describes them: read once per load, before any
//! row is sent, so that each input column can be checked against the column it goes to.

use fastodbc_core::types::registry::{self, Family};
use fastodbc_core::types::text::to_utf16;
use fastodbc_core::{ffi, Result, Statement, ValueKind};

/// One column of the target table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TargetColumn {
    pub name: String,
    /// The driver's SQL type (`SQLDescribeCol`).
    pub sql_type: i16,
    /// Characters of a text column, bytes of a binary one, digits of a number; 0 where the
    /// column's type declares none (no limit).
    pub size: usize,
    /// Scale of an exact number, fractional second digits of a time or timestamp.
    pub digits: i16,
    /// False only where the driver says NOT NULL (`SQL_NO_NULLS`); unknown counts as nullable.
    pub nullable: bool,
    pub unsigned: bool,
    /// A timestamp column that holds an instant (PostgreSQL's `timestamptz`), by its type name.
    pub zoned: bool,
    /// The database's name of its type (`SQL_DESC_TYPE_NAME`; empty where the driver gives
    /// none).
    pub type_name: String,
}

impl TargetColumn {
    /// A column of SQLite's NUMERIC affinity, by its declared type name (SQLite's rules, in
    /// their order: INT, then CHAR / CLOB / TEXT, BLOB or no name, REAL / FLOA / DOUB; what is
    /// left is NUMERIC): it keeps integral numbers as 64-bit integers, exactly, and its
    /// driver describes it as SQL_DOUBLE (NUMERIC) or SQL_CHAR (DECIMAL). Meaningful only
    /// where `Quirks::affinity_by_type_name`.
    pub fn keeps_integers(&self) -> bool {
        let n = self.type_name.to_ascii_uppercase();
        let has = |words: &[&str]| words.iter().any(|w| n.contains(w));
        !(n.is_empty()
            || has(&[
                "INT", "CHAR", "CLOB", "TEXT", "BLOB", "REAL", "FLOA", "DOUB",
            ]))
    }

    /// The column's type as SQL text, for messages and `--dry-run`.
    pub fn type_text(&self) -> String {
        // Size 0: the type declares none (`fastodbc.ingest` read it in the catalog).
        let sized = |name: &str| match self.size {
            0 => name.to_string(),
            n => format!("{name}({n})"),
        };
        let mut text = match registry::sql_type(self.sql_type) {
            None => format!("SQL type {}", self.sql_type),
            Some(t) if t.family == Family::Decimal && self.size > 0 => {
                format!("{}({},{})", t.name, self.size, self.digits)
            }
            Some(t) if t.kind == ValueKind::Timestamp => {
                format!("{}({})", t.name, self.digits.max(0))
            }
            Some(t) if t.sized => sized(t.name),
            Some(t) => t.name.to_string(),
        };
        if self.unsigned && is_integer(self.sql_type) {
            text.push_str(" UNSIGNED");
        }
        if !self.nullable {
            text.push_str(" NOT NULL");
        }
        text
    }
}

impl TargetColumn {
    /// The catalog says the column's type declares no size (PostgreSQL's `numeric`,
    /// `varchar`, `interval`): a numeric or text size the driver described is none of the
    /// column's (`Quirks::made_up_sizes`).
    pub fn declare_no_size(&mut self) {
        // Exact numerics and sized text; a binary type's size is its own.
        let sized = registry::sql_type(self.sql_type)
            .is_some_and(|t| t.family == Family::Decimal || (t.family == Family::Text && t.sized));
        if sized {
            self.size = 0;
        }
    }
}

pub fn is_integer(sql_type: i16) -> bool {
    registry::sql_type(sql_type).is_some_and(|t| t.family == Family::Integer)
}

/// Describes the columns of `select`, a query naming the target's columns that returns no
/// row (`SELECT a, b FROM t WHERE 1 = 0`).
pub fn describe_target(stmt: &mut Statement, select: &str) -> Result<Vec<TargetColumn>> {
    stmt.reset();
    stmt.exec_direct(&to_utf16(select))?;
    let n = stmt.num_result_cols()?;
    let mut columns = Vec::with_capacity(n);
    for i in 0..n {
        let desc = stmt.describe_col(i)?;
        // Some drivers don't answer SQL_DESC_UNSIGNED for every type: signed then.
        let unsigned = is_integer(desc.sql_type) && stmt.column_unsigned(i).unwrap_or(false);
        let type_name = stmt.column_type_name(i).unwrap_or_default();
        let zoned = desc.sql_type == ffi::SQL_TYPE_TIMESTAMP && {
            let n = type_name.to_ascii_lowercase();
            n.contains("tz") || n.contains("zone")
        };
        columns.push(TargetColumn {
            name: desc.name,
            sql_type: desc.sql_type,
            size: desc.size,
            digits: desc.digits,
            nullable: desc.nullable,
            unsigned,
            zoned,
            type_name,
        });
    }
    stmt.close_cursor();
    Ok(columns)
}
