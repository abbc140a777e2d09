//! The type registry: every ODBC SQL type fastodbc knows, in one table, with its family and
//! the facts every direction reads: the value it is fetched as and the C type that carries it
//! (`ColumnPlan::choose_with`), whether its length is a limit or unbounded (fetch buffers, and
//! the checks of a load, `fastodbc-arrow/src/ingest/types.rs`), and the standard DDL name a
//! created table uses where the driver lists none (`fastodbc.ingest`). A SQL type not in the
//! table (intervals, zoned timestamps, a driver's own) is fetched as its text.
//!
//! Each family has its conversions in a module of its own in every crate that converts
//! (`types/numeric.rs`, `types/temporal.rs`, `types/guid.rs` here; `convert.rs` for Python,
//! `values.rs` / `ingest/` for Arrow): docs/architecture.md says where, and how to add a type.

use crate::ffi;
use crate::plan::ValueKind;

/// The type families: each converts its values the same way whatever its SQL type's width.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    Text,
    Binary,
    Bool,
    Integer,
    Float,
    Decimal,
    Temporal,
    Guid,
}

/// How a SQL type's values are carried from the driver.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Carrier {
    /// Text in the column's codec (`Decoding`): `SQL_C_CHAR` or `SQL_C_WCHAR`.
    Text,
    /// UTF-16 text whatever the decoding, streamed (no useful length): SQL Server's XML.
    Utf16,
    /// Bytes as stored (`SQL_C_BINARY`).
    Bytes,
    /// A fixed-size C struct or number: its C type and its size in a block.
    Fixed { c_type: i16, bytes: usize },
    /// Its text form in UTF-8 (`SQL_C_CHAR`), the value read from it: exact numerics (no
    /// precision lost at any scale) and times (`SQL_C_TYPE_TIME` has no fraction of a second).
    /// Its buffer: the declared size and sign, point, leading zero and terminator, at least
    /// `bytes`.
    TextForm { bytes: usize },
}

/// What fastodbc knows of one SQL type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SqlType {
    pub code: i16,
    pub family: Family,
    /// The value a column of this type yields.
    pub kind: ValueKind,
    pub carrier: Carrier,
    /// UTF-16 text (the `W` types): read with the wide codec.
    pub wide: bool,
    /// No declared length bounds it (`LONGVARCHAR`, `LONGVARBINARY`, XML).
    pub long: bool,
    /// Its declared length is a limit the driver enforces or cuts at (`CHAR(n)`, `VARCHAR(n)`,
    /// `BINARY(n)` and their wide forms).
    pub sized: bool,
    /// The standard DDL name for a created table where the driver's type list has none.
    pub ddl: Option<&'static str>,
}

const fn entry(code: i16, family: Family, kind: ValueKind, carrier: Carrier) -> SqlType {
    SqlType {
        code,
        family,
        kind,
        carrier,
        wide: false,
        long: false,
        sized: false,
        ddl: None,
    }
}

const fn fixed(c_type: i16, bytes: usize) -> Carrier {
    Carrier::Fixed { c_type, bytes }
}

impl SqlType {
    const fn named(self, ddl: &'static str) -> SqlType {
        SqlType {
            ddl: Some(ddl),
            ..self
        }
    }
    const fn sized(self) -> SqlType {
        SqlType {
            sized: true,
            ..self
        }
    }
    const fn long(self) -> SqlType {
        SqlType { long: true, ..self }
    }
    const fn wide(self) -> SqlType {
        SqlType { wide: true, ..self }
    }
}

use Family as F;
use ValueKind as K;

/// The table. One row per SQL type; a new type is a new row here plus its family's
/// conversions (docs/architecture.md, "Add a type").
const TYPES: &[SqlType] = &[
    entry(ffi::SQL_CHAR, F::Text, K::Text, Carrier::Text)
        .sized()
        .named("CHAR"),
    entry(ffi::SQL_VARCHAR, F::Text, K::Text, Carrier::Text)
        .sized()
        .named("VARCHAR"),
    entry(ffi::SQL_LONGVARCHAR, F::Text, K::Text, Carrier::Text)
        .long()
        .named("TEXT"),
    entry(ffi::SQL_WCHAR, F::Text, K::Text, Carrier::Text)
        .wide()
        .sized(),
    entry(ffi::SQL_WVARCHAR, F::Text, K::Text, Carrier::Text)
        .wide()
        .sized(),
    entry(ffi::SQL_WLONGVARCHAR, F::Text, K::Text, Carrier::Text)
        .wide()
        .long(),
    // SQL Server's XML: UTF-16 text of no useful length, always streamed.
    entry(ffi::SQL_SS_XML, F::Text, K::Text, Carrier::Utf16)
        .wide()
        .long(),
    entry(ffi::SQL_BINARY, F::Binary, K::Binary, Carrier::Bytes)
        .sized()
        .named("BINARY"),
    entry(ffi::SQL_VARBINARY, F::Binary, K::Binary, Carrier::Bytes)
        .sized()
        .named("VARBINARY"),
    entry(ffi::SQL_LONGVARBINARY, F::Binary, K::Binary, Carrier::Bytes)
        .long()
        .named("BLOB"),
    entry(ffi::SQL_BIT, F::Bool, K::Bool, fixed(ffi::SQL_C_BIT, 1)).named("BOOLEAN"),
    entry(
        ffi::SQL_TINYINT,
        F::Integer,
        K::Int,
        fixed(ffi::SQL_C_SBIGINT, 8),
    ),
    entry(
        ffi::SQL_SMALLINT,
        F::Integer,
        K::Int,
        fixed(ffi::SQL_C_SBIGINT, 8),
    )
    .named("SMALLINT"),
    entry(
        ffi::SQL_INTEGER,
        F::Integer,
        K::Int,
        fixed(ffi::SQL_C_SBIGINT, 8),
    )
    .named("INTEGER"),
    entry(
        ffi::SQL_BIGINT,
        F::Integer,
        K::Int,
        fixed(ffi::SQL_C_SBIGINT, 8),
    )
    .named("BIGINT"),
    entry(
        ffi::SQL_REAL,
        F::Float,
        K::Float,
        fixed(ffi::SQL_C_DOUBLE, 8),
    )
    .named("REAL"),
    entry(
        ffi::SQL_FLOAT,
        F::Float,
        K::Float,
        fixed(ffi::SQL_C_DOUBLE, 8),
    ),
    entry(
        ffi::SQL_DOUBLE,
        F::Float,
        K::Float,
        fixed(ffi::SQL_C_DOUBLE, 8),
    )
    .named("DOUBLE PRECISION"),
    // Sign, point, leading zero, terminator past the precision; at least 48 (unconstrained
    // numerics report a nominal precision: truncation recovery does the rest).
    entry(
        ffi::SQL_NUMERIC,
        F::Decimal,
        K::Decimal,
        Carrier::TextForm { bytes: 48 },
    )
    .named("NUMERIC"),
    entry(
        ffi::SQL_DECIMAL,
        F::Decimal,
        K::Decimal,
        Carrier::TextForm { bytes: 48 },
    ),
    entry(
        ffi::SQL_TYPE_DATE,
        F::Temporal,
        K::Date,
        fixed(ffi::SQL_C_TYPE_DATE, 6),
    )
    .named("DATE"),
    entry(
        ffi::SQL_TYPE_TIME,
        F::Temporal,
        K::Time,
        Carrier::TextForm { bytes: 32 },
    )
    .named("TIME"),
    entry(
        ffi::SQL_SS_TIME2,
        F::Temporal,
        K::Time,
        Carrier::TextForm { bytes: 32 },
    ),
    entry(
        ffi::SQL_TYPE_TIMESTAMP,
        F::Temporal,
        K::Timestamp,
        fixed(ffi::SQL_C_TYPE_TIMESTAMP, 16),
    )
    .named("TIMESTAMP"),
    entry(
        ffi::SQL_DATETIME,
        F::Temporal,
        K::Timestamp,
        fixed(ffi::SQL_C_TYPE_TIMESTAMP, 16),
    ),
    entry(ffi::SQL_GUID, F::Guid, K::Guid, fixed(ffi::SQL_C_GUID, 16)),
];

/// What fastodbc knows of SQL type `code`; `None` for a type read as its text.
pub fn sql_type(code: i16) -> Option<&'static SqlType> {
    TYPES.iter().find(|t| t.code == code)
}

/// A standard character type (narrow or wide; XML, a driver's own, excluded).
pub fn is_text(code: i16) -> bool {
    sql_type(code).is_some_and(|t| t.family == Family::Text && code != ffi::SQL_SS_XML)
}

pub fn is_binary(code: i16) -> bool {
    sql_type(code).is_some_and(|t| t.family == Family::Binary)
}

/// No declared length bounds its values.
pub fn is_long(code: i16) -> bool {
    sql_type(code).is_some_and(|t| t.long)
}

/// Its declared length is a limit (see `SqlType::sized`).
pub fn is_sized(code: i16) -> bool {
    sql_type(code).is_some_and(|t| t.sized)
}

/// Every SQL type with a standard DDL name, and the name.
pub fn standard_names() -> impl Iterator<Item = (i16, &'static str)> {
    TYPES
        .iter()
        .filter_map(|t| t.ddl.map(|name| (t.code, name)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_sql_type_is_listed_once() {
        for (i, t) in TYPES.iter().enumerate() {
            assert!(
                TYPES[i + 1..].iter().all(|u| u.code != t.code),
                "{} listed twice",
                t.code
            );
        }
    }

    #[test]
    fn the_predicates_read_the_table() {
        for code in [ffi::SQL_CHAR, ffi::SQL_WVARCHAR, ffi::SQL_WLONGVARCHAR] {
            assert!(is_text(code) && !is_binary(code));
        }
        assert!(!is_text(ffi::SQL_SS_XML) && is_long(ffi::SQL_SS_XML));
        assert!(is_binary(ffi::SQL_LONGVARBINARY) && is_long(ffi::SQL_LONGVARBINARY));
        assert!(is_sized(ffi::SQL_WCHAR) && !is_sized(ffi::SQL_LONGVARCHAR));
        assert!(!is_sized(ffi::SQL_INTEGER) && !is_text(ffi::SQL_INTEGER));
        assert!(sql_type(ffi::SQL_TYPE_TIMESTAMP_WITH_TIMEZONE).is_none());
    }

    #[test]
    fn fixed_carriers_are_their_c_types_size() {
        for t in TYPES {
            if let Carrier::Fixed { c_type, bytes } = t.carrier {
                let size = match c_type {
                    ffi::SQL_C_BIT => 1,
                    ffi::SQL_C_TYPE_DATE => 6,
                    ffi::SQL_C_TYPE_TIMESTAMP | ffi::SQL_C_GUID => 16,
                    _ => 8,
                };
                assert_eq!(bytes, size, "{}", t.code);
            }
        }
    }

    #[test]
    fn standard_names_are_the_created_tables_names() {
        let names: std::collections::HashMap<_, _> = standard_names().collect();
        assert_eq!(names.len(), 16);
        assert_eq!(names[&ffi::SQL_LONGVARCHAR], "TEXT");
        assert_eq!(names[&ffi::SQL_DOUBLE], "DOUBLE PRECISION");
        assert!(!names.contains_key(&ffi::SQL_WVARCHAR));
    }
}
