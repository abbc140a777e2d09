//! The column types `create` mode asks for, as ODBC SQL types: the caller turns each into the
//! database's own type name from the driver's `SQLGetTypeInfo`.

use arrow_schema::{DataType, TimeUnit};
use fastodbc_core::ffi;

use super::types::value_type;

/// The SQL type a new column gets for an Arrow type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CreateType {
    pub sql_type: i16,
    /// An unsigned integer: the database's unsigned type of this width where it has one, the
    /// next wider signed type otherwise.
    pub unsigned: bool,
    /// Digits of a NUMERIC.
    pub precision: u32,
    /// Scale of a NUMERIC; fractional second digits of a TIME or TIMESTAMP.
    pub scale: u32,
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
    use DataType as D;
    let plain = |sql_type| CreateType {
        sql_type,
        unsigned: false,
        precision: 0,
        scale: 0,
    };
    let unsigned = |sql_type| CreateType {
        unsigned: true,
        ..plain(sql_type)
    };
    Ok(match value_type(t) {
        // All NULL: text takes anything later loads bring.
        D::Null | D::Utf8 | D::LargeUtf8 | D::Utf8View => plain(ffi::SQL_LONGVARCHAR),
        D::Boolean => plain(ffi::SQL_BIT),
        // TINYINT is unsigned on some databases and missing on others.
        D::Int8 | D::Int16 => plain(ffi::SQL_SMALLINT),
        D::Int32 => plain(ffi::SQL_INTEGER),
        D::Int64 => plain(ffi::SQL_BIGINT),
        D::UInt8 => unsigned(ffi::SQL_TINYINT),
        D::UInt16 => unsigned(ffi::SQL_SMALLINT),
        D::UInt32 => unsigned(ffi::SQL_INTEGER),
        D::UInt64 => unsigned(ffi::SQL_BIGINT),
        D::Float16 | D::Float32 => plain(ffi::SQL_REAL),
        D::Float64 => plain(ffi::SQL_DOUBLE),
        D::Decimal128(p, s) | D::Decimal256(p, s) => CreateType {
            precision: u32::from(*p).max(1),
            scale: (*s).max(0) as u32,
            ..plain(ffi::SQL_NUMERIC)
        },
        D::Binary | D::LargeBinary | D::BinaryView | D::FixedSizeBinary(_) => {
            plain(ffi::SQL_LONGVARBINARY)
        }
        D::Date32 | D::Date64 => plain(ffi::SQL_TYPE_DATE),
        D::Time32(u) | D::Time64(u) => CreateType {
            scale: unit_digits(u),
            ..plain(ffi::SQL_TYPE_TIME)
        },
        D::Timestamp(u, _) => CreateType {
            scale: unit_digits(u),
            ..plain(ffi::SQL_TYPE_TIMESTAMP)
        },
        _ => return Err("fastodbc writes no value of this Arrow type".into()),
    })
}
