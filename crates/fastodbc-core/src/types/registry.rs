//! The type registry: every ODBC SQL type fastodbc knows, in one table, with its family and
//! the facts every direction reads:
//! - fetching: the value it is fetched as and the C type that carries it
//!   (`ColumnPlan::choose_with`), whether its length is unbounded (fetch buffers);
//! - Python: the class of its values (`VALUES`, read by `description` and the converters of
//!   `fastodbc-py`), and the SQL type a Python value of that class is bound as
//!   (`fixed_binding`; `params/` sizes text, bytes, decimals and times from the values);
//! - Arrow: the Arrow type a column of it yields (`fastodbc-arrow/src/schema.rs`), and the
//!   SQL type a created table takes for an Arrow type (`created_for`,
//!   `fastodbc-arrow/src/ingest/create.rs`);
//! - loads: whether its length is a limit, its integer or floating-point width (the checks of
//!   `fastodbc-arrow/src/ingest/types.rs`), its name in messages, and the standard DDL name a
//!   created table uses where the driver lists none (`fastodbc.ingest`).
//!
//! A SQL type not in the table (intervals, zoned timestamps, a driver's own) is fetched as its
//! text. A driver's departures from these facts are quirks (`driver/quirks.rs`), what fastodbc
//! does about them strategy (`driver/strategy.rs`): neither is written here.
//!
//! Each family has its conversions in a module of its own in every crate that converts
//! (`types/numeric.rs`, `types/temporal.rs`, `types/guid.rs`, `params/` here; `convert/` for
//! Python, `convert/` and `ingest/` for Arrow): docs/architecture.md says where, and how to add
//! a type.

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

/// The Arrow type a column of a SQL type yields where the driver keeps what it describes.
/// `fastodbc-arrow` builds it (`schema.rs`) and departs from it by strategy only: 64 bits where
/// a driver's sizes are no limit, unsigned integers where the driver says so, a decimal wider
/// than decimal128 (or of no precision) as its text, TIME as a duration on request, a zoned
/// timestamp in UTC. Times and timestamps are in microseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arrow {
    Utf8,
    Binary,
    Boolean,
    Int8,
    Int16,
    Int32,
    Int64,
    Float32,
    Float64,
    Decimal128,
    Date32,
    Time64,
    Timestamp,
}

impl Arrow {
    /// The bits of an integer type.
    pub const fn int_bits(self) -> Option<u32> {
        match self {
            Arrow::Int8 => Some(8),
            Arrow::Int16 => Some(16),
            Arrow::Int32 => Some(32),
            Arrow::Int64 => Some(64),
            _ => None,
        }
    }

    /// The mantissa bits of a floating-point type (IEEE single: 24, double: 53).
    pub const fn float_bits(self) -> Option<u32> {
        match self {
            Arrow::Float32 => Some(24),
            Arrow::Float64 => Some(53),
            _ => None,
        }
    }
}

/// What fastodbc knows of one SQL type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SqlType {
    pub code: i16,
    /// Its name in messages (`--dry-run`, a load's refusals).
    pub name: &'static str,
    pub family: Family,
    /// The value a column of this type yields.
    pub kind: ValueKind,
    pub carrier: Carrier,
    /// The Arrow type a column of this type yields.
    pub arrow: Arrow,
    /// UTF-16 text (the `W` types): read with the wide codec.
    pub wide: bool,
    /// No declared length bounds it (`LONGVARCHAR`, `LONGVARBINARY`, XML).
    pub long: bool,
    /// Its declared length is a limit the driver enforces or cuts at (`CHAR(n)`, `VARCHAR(n)`,
    /// `BINARY(n)` and their wide forms).
    pub sized: bool,
    /// The standard DDL name for a created table where the driver's type list has none.
    pub ddl: Option<&'static str>,
    /// The type a created table takes for a column of Arrow type `arrow` (`created_for`).
    pub creates: bool,
}

const fn entry(
    code: i16,
    name: &'static str,
    family: Family,
    kind: ValueKind,
    carrier: Carrier,
    arrow: Arrow,
) -> SqlType {
    SqlType {
        code,
        name,
        family,
        kind,
        carrier,
        arrow,
        wide: false,
        long: false,
        sized: false,
        ddl: None,
        creates: false,
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
    const fn creates(self) -> SqlType {
        SqlType {
            creates: true,
            ..self
        }
    }
}

use Arrow as A;
use Family as F;
use ValueKind as K;

const INT: Carrier = fixed(ffi::SQL_C_SBIGINT, 8);
const DOUBLE: Carrier = fixed(ffi::SQL_C_DOUBLE, 8);
// Sign, point, leading zero, terminator past the precision; at least 48 (unconstrained
// numerics report a nominal precision: truncation recovery does the rest).
const DECIMAL_TEXT: Carrier = Carrier::TextForm { bytes: 48 };
const TIME_TEXT: Carrier = Carrier::TextForm { bytes: 32 };
const TIMESTAMP: Carrier = fixed(ffi::SQL_C_TYPE_TIMESTAMP, 16);

/// The table. One row per SQL type; a new type is a new row here plus its family's
/// conversions (docs/architecture.md, "Add a type").
#[rustfmt::skip]
const TYPES: &[SqlType] = &[
    entry(ffi::SQL_CHAR, "CHAR", F::Text, K::Text, Carrier::Text, A::Utf8).sized().named("CHAR"),
    entry(ffi::SQL_VARCHAR, "VARCHAR", F::Text, K::Text, Carrier::Text, A::Utf8).sized().named("VARCHAR"),
    entry(ffi::SQL_LONGVARCHAR, "LONGVARCHAR", F::Text, K::Text, Carrier::Text, A::Utf8).long().named("TEXT").creates(),
    entry(ffi::SQL_WCHAR, "WCHAR", F::Text, K::Text, Carrier::Text, A::Utf8).wide().sized(),
    entry(ffi::SQL_WVARCHAR, "WVARCHAR", F::Text, K::Text, Carrier::Text, A::Utf8).wide().sized(),
    entry(ffi::SQL_WLONGVARCHAR, "WLONGVARCHAR", F::Text, K::Text, Carrier::Text, A::Utf8).wide().long(),
    // SQL Server's XML: UTF-16 text of no useful length, always streamed.
    entry(ffi::SQL_SS_XML, "XML", F::Text, K::Text, Carrier::Utf16, A::Utf8).wide().long(),
    entry(ffi::SQL_BINARY, "BINARY", F::Binary, K::Binary, Carrier::Bytes, A::Binary).sized().named("BINARY"),
    entry(ffi::SQL_VARBINARY, "VARBINARY", F::Binary, K::Binary, Carrier::Bytes, A::Binary).sized().named("VARBINARY"),
    entry(ffi::SQL_LONGVARBINARY, "LONGVARBINARY", F::Binary, K::Binary, Carrier::Bytes, A::Binary).long().named("BLOB").creates(),
    entry(ffi::SQL_BIT, "BIT", F::Bool, K::Bool, fixed(ffi::SQL_C_BIT, 1), A::Boolean).named("BOOLEAN").creates(),
    // Created for unsigned bytes only (create.rs widens a signed Int8 to SMALLINT): TINYINT is
    // unsigned on some databases and missing on others.
    entry(ffi::SQL_TINYINT, "TINYINT", F::Integer, K::Int, INT, A::Int8).creates(),
    entry(ffi::SQL_SMALLINT, "SMALLINT", F::Integer, K::Int, INT, A::Int16).named("SMALLINT").creates(),
    entry(ffi::SQL_INTEGER, "INTEGER", F::Integer, K::Int, INT, A::Int32).named("INTEGER").creates(),
    entry(ffi::SQL_BIGINT, "BIGINT", F::Integer, K::Int, INT, A::Int64).named("BIGINT").creates(),
    entry(ffi::SQL_REAL, "REAL", F::Float, K::Float, DOUBLE, A::Float32).named("REAL").creates(),
    // psqlODBC describes float8 as SQL_FLOAT: a double.
    entry(ffi::SQL_FLOAT, "FLOAT", F::Float, K::Float, DOUBLE, A::Float64),
    entry(ffi::SQL_DOUBLE, "DOUBLE", F::Float, K::Float, DOUBLE, A::Float64).named("DOUBLE PRECISION").creates(),
    entry(ffi::SQL_NUMERIC, "NUMERIC", F::Decimal, K::Decimal, DECIMAL_TEXT, A::Decimal128).named("NUMERIC").creates(),
    entry(ffi::SQL_DECIMAL, "NUMERIC", F::Decimal, K::Decimal, DECIMAL_TEXT, A::Decimal128),
    entry(ffi::SQL_TYPE_DATE, "DATE", F::Temporal, K::Date, fixed(ffi::SQL_C_TYPE_DATE, 6), A::Date32).named("DATE").creates(),
    entry(ffi::SQL_TYPE_TIME, "TIME", F::Temporal, K::Time, TIME_TEXT, A::Time64).named("TIME").creates(),
    entry(ffi::SQL_SS_TIME2, "TIME", F::Temporal, K::Time, TIME_TEXT, A::Time64),
    entry(ffi::SQL_TYPE_TIMESTAMP, "TIMESTAMP", F::Temporal, K::Timestamp, TIMESTAMP, A::Timestamp).named("TIMESTAMP").creates(),
    entry(ffi::SQL_DATETIME, "TIMESTAMP", F::Temporal, K::Timestamp, TIMESTAMP, A::Timestamp),
    entry(ffi::SQL_GUID, "GUID", F::Guid, K::Guid, fixed(ffi::SQL_C_GUID, 16), A::Utf8),
];

/// What a value kind is in Python, and how a Python value of it is bound as a parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Value {
    pub kind: ValueKind,
    /// The class of its Python values, `module.name` (`description`'s type code; pyodbc's).
    pub python: (&'static str, &'static str),
    /// The SQL type a parameter of this kind is bound as, with its column size and digits;
    /// its C type and element size are that type's carrier. Text, bytes, decimals and times
    /// size their binding from the values (`params/`).
    pub param: (i16, usize, i16),
}

/// One row per value kind.
#[rustfmt::skip]
const VALUES: [Value; 10] = [
    Value { kind: K::Text, python: ("builtins", "str"), param: (ffi::SQL_VARCHAR, 0, 0) },
    // pyodbc reports bytearray for binary columns (their values are bytes).
    Value { kind: K::Binary, python: ("builtins", "bytearray"), param: (ffi::SQL_VARBINARY, 0, 0) },
    Value { kind: K::Bool, python: ("builtins", "bool"), param: (ffi::SQL_BIT, 1, 0) },
    Value { kind: K::Int, python: ("builtins", "int"), param: (ffi::SQL_BIGINT, 19, 0) },
    Value { kind: K::Float, python: ("builtins", "float"), param: (ffi::SQL_DOUBLE, 15, 0) },
    Value { kind: K::Decimal, python: ("decimal", "Decimal"), param: (ffi::SQL_NUMERIC, 0, 0) },
    Value { kind: K::Date, python: ("datetime", "date"), param: (ffi::SQL_TYPE_DATE, 10, 0) },
    Value { kind: K::Time, python: ("datetime", "time"), param: (ffi::SQL_TYPE_TIME, 0, 0) },
    // Microseconds: Python's datetime holds no finer fraction.
    Value { kind: K::Timestamp, python: ("datetime", "datetime"), param: (ffi::SQL_TYPE_TIMESTAMP, 26, 6) },
    // GUIDs are `str` instead where `native_uuid` is off (as in pyodbc).
    Value { kind: K::Guid, python: ("uuid", "UUID"), param: (ffi::SQL_GUID, 16, 0) },
];

// One row per kind: `value` indexes by the kind (its order is checked by a test).
const _: () = assert!(VALUES.len() == ValueKind::Guid as usize + 1);

/// Every value kind, in `ValueKind` order.
pub fn values() -> &'static [Value] {
    &VALUES
}

/// What value kind `kind` is in Python and as a parameter.
pub fn value(kind: ValueKind) -> &'static Value {
    // VALUES lists the ten kinds in `ValueKind` order (a test checks): the index is the kind.
    &VALUES[kind as usize]
}

/// A parameter binding of fixed size: C type, SQL type, column size, digits, element bytes.
pub type FixedBinding = (i16, i16, usize, i16, usize);

/// The binding of a parameter of kind `kind` where its SQL type has a fixed-size carrier
/// (bool, integer, float, date, timestamp, GUID); `None` where the values size it.
pub fn fixed_binding(kind: ValueKind) -> Option<FixedBinding> {
    let (code, size, digits) = value(kind).param;
    match sql_type(code)?.carrier {
        Carrier::Fixed { c_type, bytes } => Some((c_type, code, size, digits, bytes)),
        _ => None,
    }
}

/// The SQL type a created table takes for Arrow type `arrow` (a `creates` row).
pub fn created_for(arrow: Arrow) -> Option<&'static SqlType> {
    TYPES.iter().find(|t| t.creates && t.arrow == arrow)
}

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
    fn values_are_listed_in_kind_order() {
        for (i, v) in VALUES.iter().enumerate() {
            assert_eq!(v.kind as usize, i, "{:?}", v.kind);
            assert_eq!(value(v.kind).kind, v.kind);
        }
    }

    #[test]
    fn fixed_bindings_are_their_sql_types_carriers() {
        assert_eq!(
            fixed_binding(K::Int),
            Some((ffi::SQL_C_SBIGINT, ffi::SQL_BIGINT, 19, 0, 8))
        );
        assert_eq!(
            fixed_binding(K::Timestamp),
            Some((
                ffi::SQL_C_TYPE_TIMESTAMP,
                ffi::SQL_TYPE_TIMESTAMP,
                26,
                6,
                16
            ))
        );
        assert_eq!(
            fixed_binding(K::Bool),
            Some((ffi::SQL_C_BIT, ffi::SQL_BIT, 1, 0, 1))
        );
        for kind in [K::Text, K::Binary, K::Decimal, K::Time] {
            assert_eq!(fixed_binding(kind), None, "{kind:?}");
        }
    }

    #[test]
    fn each_arrow_type_a_table_is_created_with_has_one_sql_type() {
        for t in TYPES.iter().filter(|t| t.creates) {
            assert_eq!(created_for(t.arrow).map(|c| c.code), Some(t.code));
        }
        assert_eq!(
            created_for(A::Utf8).map(|t| t.code),
            Some(ffi::SQL_LONGVARCHAR)
        );
        assert_eq!(
            created_for(A::Float64).map(|t| t.code),
            Some(ffi::SQL_DOUBLE)
        );
        assert_eq!(created_for(A::Int8).map(|t| t.code), Some(ffi::SQL_TINYINT));
    }

    #[test]
    fn widths_come_from_the_arrow_type() {
        let bits = |code| sql_type(code).and_then(|t| t.arrow.int_bits());
        assert_eq!(bits(ffi::SQL_TINYINT), Some(8));
        assert_eq!(bits(ffi::SQL_INTEGER), Some(32));
        assert_eq!(bits(ffi::SQL_REAL), None);
        let mantissa = |code| sql_type(code).and_then(|t| t.arrow.float_bits());
        assert_eq!(mantissa(ffi::SQL_REAL), Some(24));
        assert_eq!(mantissa(ffi::SQL_FLOAT), Some(53));
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
