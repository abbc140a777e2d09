//! The column types `create` mode asks for: an ODBC SQL type, which the caller turns into the
//! database's own type name from the driver's `SQLGetTypeInfo`, or a native type of the
//! target's (`Server::native_name`) where the field's metadata says its source column was of
//! that kind (`crate::source`). The one table of Arrow type (+ source facts) -> new column;
//! docs/driver-types.md has it per target.

use arrow_schema::{DataType, Field, TimeUnit};
use fastodbc_core::driver::{NativeType, Server};
use fastodbc_core::ffi;
use fastodbc_core::types::registry::{self, Arrow as A};

use super::types::value_type;
use crate::source::{Family, SourceColumn};

/// The SQL type a new column gets for an Arrow type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CreateType {
    pub sql_type: i16,
    /// An unsigned integer: the database's unsigned type of this width where it has one, the
    /// next wider signed type otherwise.
    pub unsigned: bool,
    /// Digits of a NUMERIC.
    pub precision: u32,
    /// Scale of a NUMERIC; fractional second digits of a TIME or TIMESTAMP.
    pub scale: u32,
    /// A timestamp with a zone (its values instants): the database's zoned timestamp type
    /// where it has one (PostgreSQL's `timestamptz`), a plain one holding UTC elsewhere.
    pub zoned: bool,
    /// Characters of a CHAR / VARCHAR, bytes of a VARBINARY (0: none).
    pub length: usize,
    /// The target's own type, used as named (`uuid`, `JSON`, `_int4`).
    pub native: Option<String>,
}

fn unit_digits(u: &TimeUnit) -> u32 {
    match u {
        TimeUnit::Second => 0,
        TimeUnit::Millisecond => 3,
        // Databases keep at most microseconds: nanoseconds are checked value by value.
        TimeUnit::Microsecond | TimeUnit::Nanosecond => 6,
    }
}

/// The SQL type for a new column holding Arrow type `t`, or why there is none.
pub fn create_type(t: &DataType) -> Result<CreateType, String> {
    by_arrow_type(t)
}

/// The column for `field` on `server`: by its Arrow type, made like its source column where
/// the field's metadata says what that was (a length, fractional second digits, a type the
/// target has of the same kind). Values stay as they are: a native type is chosen only for
/// text, which the database parses as it would the literal.
pub fn create_column(field: &Field, server: &Server) -> Result<CreateType, String> {
    let mut c = by_arrow_type(field.data_type())?;
    let source = SourceColumn::of(field);
    let family = source.family();
    match (value_type(field.data_type()), family) {
        (DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View, Some(Family::Native(n))) => {
            c.native = native_for(n, server, source.type_name.as_deref());
        }
        (DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View, Some(f)) => {
            if let (Some(n), Family::Char | Family::VarChar) = (source.length, f) {
                c.sql_type = if f == Family::Char {
                    ffi::SQL_CHAR
                } else {
                    ffi::SQL_VARCHAR
                };
                c.length = n;
            }
        }
        // BINARY(n)'s values come padded already: VARBINARY keeps them as they are.
        (DataType::Binary | DataType::LargeBinary | DataType::BinaryView, Some(f))
            if f.has_length() =>
        {
            if let Some(n) = source.length {
                c.sql_type = ffi::SQL_VARBINARY;
                c.length = n;
            }
        }
        (DataType::Time32(_) | DataType::Time64(_) | DataType::Timestamp(_, _), _) => {
            // The source's digits, where fewer than the Arrow unit's: its values have no more.
            if let Some(digits) = source.scale {
                c.scale = c.scale.min(digits);
            }
        }
        _ => {}
    }
    Ok(c)
}

/// The target's type for source family `n`: the one of the same kind, else (jsonb) the
/// nearest that keeps every value; None: text.
fn native_for(n: NativeType, server: &Server, source_name: Option<&str>) -> Option<String> {
    let name = server.native_name(n).or_else(|| match n {
        // jsonb's text is JSON: a JSON type that keeps text keeps it.
        NativeType::Jsonb => server.native_name(NativeType::Json),
        _ => None,
    })?;
    if n == NativeType::Arrays {
        return source_name.map(|s| s.trim().to_string());
    }
    Some(name.to_string())
}

/// The zeros a negative decimal scale puts after a value's digits.
pub fn negative_scale_digits(scale: i8) -> u32 {
    if scale < 0 {
        u32::from(scale.unsigned_abs())
    } else {
        0
    }
}

fn by_arrow_type(t: &DataType) -> Result<CreateType, String> {
    use DataType as D;
    // The Arrow type the registry's row is for, and what the column adds to its SQL type.
    let (arrow, unsigned, precision, scale, zoned) = match value_type(t) {
        // All NULL: text takes anything later loads bring. A duration may pass 24 hours,
        // which no SQL TIME of the standard holds: its text (`838:59:59.000000`), which every
        // database keeps.
        D::Null | D::Utf8 | D::LargeUtf8 | D::Utf8View | D::Duration(_) => {
            (A::Utf8, false, 0, 0, false)
        }
        D::Boolean => (A::Boolean, false, 0, 0, false),
        // TINYINT is unsigned on some databases and missing on others: a signed byte widens.
        D::Int8 | D::Int16 => (A::Int16, false, 0, 0, false),
        D::Int32 => (A::Int32, false, 0, 0, false),
        D::Int64 => (A::Int64, false, 0, 0, false),
        D::UInt8 => (A::Int8, true, 0, 0, false),
        D::UInt16 => (A::Int16, true, 0, 0, false),
        D::UInt32 => (A::Int32, true, 0, 0, false),
        D::UInt64 => (A::Int64, true, 0, 0, false),
        D::Float16 | D::Float32 => (A::Float32, false, 0, 0, false),
        D::Float64 => (A::Float64, false, 0, 0, false),
        // A negative scale k: the values are integers of up to p + |k| digits
        // (decimal128(15, -3) holds 123456789012345000, 18 digits).
        D::Decimal128(p, s) | D::Decimal256(p, s) => {
            let precision = (u32::from(*p) + negative_scale_digits(*s)).max(1);
            (A::Decimal128, false, precision, (*s).max(0) as u32, false)
        }
        D::Binary | D::LargeBinary | D::BinaryView | D::FixedSizeBinary(_) => {
            (A::Binary, false, 0, 0, false)
        }
        D::Date32 | D::Date64 => (A::Date32, false, 0, 0, false),
        D::Time32(u) | D::Time64(u) => (A::Time64, false, 0, unit_digits(u), false),
        D::Timestamp(u, zone) => (A::Timestamp, false, 0, unit_digits(u), zone.is_some()),
        _ => return Err("fastodbc writes no value of this Arrow type".into()),
    };
    let sql_type = registry::created_for(arrow)
        .ok_or("fastodbc writes no value of this Arrow type")?
        .code;
    Ok(CreateType {
        sql_type,
        unsigned,
        precision,
        scale,
        zoned,
        length: 0,
        native: None,
    })
}
