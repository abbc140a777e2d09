//! Bulk INSERT through column arrays, for PostgreSQL behind psqlODBC.
//!
//! psqlODBC runs a parameter array one row per round trip, and even the multi-row VALUES
//! rewrite (`sqlscan::InsertValues`) leaves the driver writing every value into the SQL as a
//! literal and the server parsing a statement of thousands of expressions. Instead, a block of
//! rows is sent as one text parameter per column, a PostgreSQL array literal, and inserted with
//!
//! ```sql
//! INSERT INTO t (a, b) SELECT unnest(?::"pg_catalog"."_int4"), unnest(?::"pg_catalog"."_text")
//! ```
//!
//! The arrays are all as long as the block, so the set-returning calls of the SELECT list
//! step through them together, as `unnest(a, b)` in FROM would; in the SELECT list the server
//! streams the elements instead of first copying every array into a tuple store (about an
//! eighth less server time for a block).
//!
//! Each element goes through the input function of the target column's own type, as the
//! untyped literal of a VALUES row does; the column's type modifier (length, precision) is
//! applied by the INSERT's assignment, so an over-long string is an error, never cut. The
//! element types come from the catalog (`CATALOG_SQL`), looked up once per `executemany`.

use std::fmt::Write;

use crate::params::{BindOptions, ParamBatch, ParamValue};
use crate::sqlscan::{pg_identifier_name, InsertTarget};
use crate::statement::Statement;
use crate::types::temporal::{format_date, format_time, format_timestamp};
use crate::types::text::to_utf16;

/// Columns of the INSERT's table in order: name, array type of the column's type (schema
/// qualified and quoted, so a name like `bit` is not read as `bit(1)`), and the element
/// delimiter of the type. Types without an array type (and array columns, whose array type is
/// themselves) are missing from it, which sends the INSERT down the VALUES path.
/// `to_regclass` resolves the name exactly as the INSERT will, and is NULL (no rows) for a
/// table that doesn't exist, without raising.
pub const CATALOG_SQL: &str = "SELECT a.attname, \
     pg_catalog.quote_ident(n.nspname) || '.' || pg_catalog.quote_ident(at.typname), \
     t.typdelim::text \
     FROM pg_catalog.pg_attribute a \
     JOIN pg_catalog.pg_type t ON t.oid = a.atttypid AND t.typcategory <> 'A' \
     JOIN pg_catalog.pg_type at ON at.oid = t.typarray \
     JOIN pg_catalog.pg_namespace n ON n.oid = at.typnamespace \
     WHERE a.attrelid = pg_catalog.to_regclass(?) AND a.attnum > 0 AND NOT a.attisdropped \
     ORDER BY a.attnum";

/// Rows per statement below which the catalog query costs more than it saves.
pub const MIN_ROWS: usize = 64;

/// A planned column-array INSERT.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArrayInsert {
    /// `INSERT ... SELECT unnest(?), ...` with one marker per column.
    pub sql: String,
    delimiters: Vec<char>,
}

impl ArrayInsert {
    /// Looks up the INSERT's column types and prepares its column-array form on `stmt`.
    /// `None` (the VALUES path then) when the server can't answer the catalog query or a
    /// column doesn't fit; the statement is left holding either the catalog query or the array
    /// INSERT.
    pub fn prepare(
        stmt: &mut Statement,
        target: &InsertTarget,
        markers: usize,
        opts: BindOptions,
    ) -> Option<ArrayInsert> {
        let table = vec![ParamValue::Text(target.table.clone())];
        let catalog = (|| {
            stmt.reset();
            stmt.prepare(&to_utf16(CATALOG_SQL))?;
            stmt.bind_params(ParamBatch::build(&[table], opts, &[])?)?;
            stmt.execute()?;
            let rows = stmt.text_rows();
            stmt.close_cursor();
            rows
        })();
        let plan = ArrayInsert::plan(target, &catalog.ok()?, markers)?;
        stmt.reset();
        stmt.prepare(&to_utf16(&plan.sql)).ok()?;
        Some(plan)
    }

    /// Plans the statement from the INSERT's target and the rows of `CATALOG_SQL`
    /// (`[name, array type, delimiter]`). `None` when a column can't be matched or typed, or
    /// the column count differs from `markers`: the caller then uses the VALUES path, and the
    /// server reports any real error in the user's own statement.
    pub fn plan(
        target: &InsertTarget,
        catalog: &[Vec<Option<String>>],
        markers: usize,
    ) -> Option<ArrayInsert> {
        let columns: Vec<(&str, &str, char)> = catalog
            .iter()
            .map(|row| match row.as_slice() {
                [Some(name), Some(array_type), Some(delim)] => {
                    Some((name.as_str(), array_type.as_str(), delim.chars().next()?))
                }
                _ => None,
            })
            .collect::<Option<_>>()?;
        let chosen: Vec<(&str, char)> = match &target.columns {
            Some(written) => written
                .iter()
                .map(|w| {
                    let name = pg_identifier_name(w);
                    let mut found = columns.iter().filter(|c| c.0 == name);
                    match (found.next(), found.next()) {
                        (Some(c), None) => Some((c.1, c.2)),
                        _ => None,
                    }
                })
                .collect::<Option<_>>()?,
            None => columns.iter().map(|c| (c.1, c.2)).collect(),
        };
        if chosen.len() != markers || markers == 0 {
            return None;
        }
        let mut sql = format!("INSERT INTO {}", target.table);
        if let Some(written) = &target.columns {
            let _ = write!(sql, " ({})", written.join(", "));
        }
        sql.push_str(" SELECT ");
        for (i, (array_type, _)) in chosen.iter().enumerate() {
            if i > 0 {
                sql.push_str(", ");
            }
            let _ = write!(sql, "unnest(?::{array_type})");
        }
        Some(ArrayInsert {
            sql,
            delimiters: chosen.iter().map(|c| c.1).collect(),
        })
    }

    /// The parameters for a block of rows: one array literal per column, as text.
    pub fn params(&self, rows: &[Vec<ParamValue>]) -> Vec<ParamValue> {
        self.delimiters
            .iter()
            .enumerate()
            .map(|(c, &delim)| {
                let mut out = String::with_capacity(rows.len() * 16 + 2);
                out.push('{');
                for (i, row) in rows.iter().enumerate() {
                    if i > 0 {
                        out.push(delim);
                    }
                    write_element(&mut out, &row[c]);
                }
                out.push('}');
                ParamValue::Text(out)
            })
            .collect()
    }
}

/// Appends one array element: `NULL`; text, decimals and bytes in double quotes with `"` and
/// `\` escaped (quoting keeps empty strings, spaces, braces and delimiters intact); numbers,
/// booleans, dates, times and GUIDs bare: their text is digits, signs, `.`, `:`, letters and
/// inner spaces only, never `NULL`, which the server reads unquoted as it is (and a little
/// faster than quoted).
fn write_element(out: &mut String, v: &ParamValue) {
    // Only text and decimals can hold `"` or `\`; every other value is written straight into
    // `out` (no allocation per value).
    let quoted = |out: &mut String, text: &str| {
        out.push('"');
        if text.contains(['"', '\\']) {
            for ch in text.chars() {
                if ch == '"' || ch == '\\' {
                    out.push('\\');
                }
                out.push(ch);
            }
        } else {
            out.push_str(text);
        }
        out.push('"');
    };
    match v {
        ParamValue::Null | ParamValue::NullBinary => {
            out.push_str("NULL");
            return;
        }
        ParamValue::Text(s) => return quoted(out, s),
        ParamValue::Decimal { text, .. } => return quoted(out, text),
        ParamValue::Bytes(b) => {
            // bytea's hex input format; its backslash escaped for the array literal.
            out.reserve(5 + b.len() * 2);
            out.push_str("\"\\\\x");
            for byte in b {
                let _ = write!(out, "{byte:02x}");
            }
            out.push('"');
            return;
        }
        _ => {}
    }
    match v {
        // As the driver binds SQL_C_BIT: boolean, integer and text columns all take it.
        ParamValue::Bool(b) => out.push(if *b { '1' } else { '0' }),
        ParamValue::Int(i) => {
            let _ = write!(out, "{i}");
        }
        ParamValue::Float(f) if f.is_nan() => out.push_str("NaN"),
        ParamValue::Float(f) if f.is_infinite() => {
            out.push_str(if *f > 0.0 { "Infinity" } else { "-Infinity" })
        }
        // Display is the shortest text that reads back as the same double.
        ParamValue::Float(f) => {
            let _ = write!(out, "{f}");
        }
        ParamValue::Date(d) => {
            format_date(out, d.year, d.month, d.day);
        }
        ParamValue::Time(h, m, s, us) => format_time(out, *h, *m, *s, *us),
        ParamValue::Timestamp(t) => format_timestamp(out, t),
        ParamValue::Guid(g) => {
            let _ = write!(out, "{:08x}-{:04x}-{:04x}-", g.d1, g.d2, g.d3);
            for (i, byte) in g.d4.iter().enumerate() {
                if i == 2 {
                    out.push('-');
                }
                let _ = write!(out, "{byte:02x}");
            }
        }
        ParamValue::Null
        | ParamValue::NullBinary
        | ParamValue::Text(_)
        | ParamValue::Decimal { .. }
        | ParamValue::Bytes(_) => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ffi::{SqlDate, SqlGuid, SqlTimestamp};

    fn catalog(cols: &[(&str, &str)]) -> Vec<Vec<Option<String>>> {
        cols.iter()
            .map(|(n, t)| vec![Some(n.to_string()), Some(t.to_string()), Some(",".into())])
            .collect()
    }

    #[test]
    fn plans_against_the_catalog() {
        let cat = catalog(&[
            ("id", "pg_catalog._int4"),
            ("Name", "pg_catalog._text"),
            ("note", "pg_catalog._varchar"),
        ]);
        let target = InsertTarget {
            table: "s.t".into(),
            columns: Some(vec!["\"Name\"".into(), "ID".into()]),
        };
        let plan = ArrayInsert::plan(&target, &cat, 2).unwrap();
        assert_eq!(
            plan.sql,
            "INSERT INTO s.t (\"Name\", ID) SELECT unnest(?::pg_catalog._text), unnest(?::pg_catalog._int4)"
        );
        // Unknown column, wrong case of a quoted name, wrong count: the VALUES path instead.
        for cols in [vec!["nope"], vec!["name"], vec!["id"]] {
            let target = InsertTarget {
                table: "t".into(),
                columns: Some(cols.iter().map(|c| c.to_string()).collect()),
            };
            assert_eq!(ArrayInsert::plan(&target, &cat, cols.len() + 1), None);
            assert_eq!(
                ArrayInsert::plan(&target, &cat, cols.len()).is_some(),
                cols == ["id"]
            );
        }
        let all = InsertTarget {
            table: "t".into(),
            columns: None,
        };
        assert!(ArrayInsert::plan(&all, &cat, 3).is_some());
        assert_eq!(ArrayInsert::plan(&all, &cat, 2), None);
        assert_eq!(ArrayInsert::plan(&all, &[], 0), None);
    }

    #[test]
    fn writes_array_literals() {
        let mut cat = catalog(&[("a", "x"), ("b", "y")]);
        cat[1][2] = Some(";".into());
        let target = InsertTarget {
            table: "t".into(),
            columns: None,
        };
        let plan = ArrayInsert::plan(&target, &cat, 2).unwrap();
        let rows = vec![
            vec![ParamValue::Text("a\"b\\c,{}".into()), ParamValue::Int(-5)],
            vec![ParamValue::Null, ParamValue::Text(String::new())],
            vec![ParamValue::Text("NULL".into()), ParamValue::Bool(true)],
        ];
        assert_eq!(
            plan.params(&rows),
            vec![
                ParamValue::Text(r#"{"a\"b\\c,{}",NULL,"NULL"}"#.into()),
                ParamValue::Text(r#"{-5;"";1}"#.into()),
            ]
        );
        let one = |v: ParamValue| {
            let mut s = String::new();
            write_element(&mut s, &v);
            s
        };
        assert_eq!(one(ParamValue::Float(0.1)), "0.1");
        assert_eq!(one(ParamValue::Float(-1e300)).len(), 302);
        assert_eq!(one(ParamValue::Float(f64::NEG_INFINITY)), "-Infinity");
        assert_eq!(one(ParamValue::Bytes(vec![0, 255])), r#""\\x00ff""#);
        assert_eq!(
            one(ParamValue::Date(SqlDate {
                year: 7,
                month: 1,
                day: 2
            })),
            "0007-01-02"
        );
        assert_eq!(
            one(ParamValue::Timestamp(SqlTimestamp {
                year: 2024,
                month: 2,
                day: 29,
                hour: 23,
                minute: 59,
                second: 58,
                fraction: 5000,
            })),
            "2024-02-29 23:59:58.000005"
        );
        assert_eq!(
            one(ParamValue::Guid(SqlGuid {
                d1: 0x0123_4567,
                d2: 0x89ab,
                d3: 0xcdef,
                d4: [1, 2, 3, 4, 5, 6, 7, 8],
            })),
            "01234567-89ab-cdef-0102-030405060708"
        );
    }
}
