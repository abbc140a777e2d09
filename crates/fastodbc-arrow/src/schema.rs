//! The Arrow type table: one `ArrowColumn` per result column, chosen once per result from its
//! `ColumnPlan` (what the driver described and how the block holds it). The rows path's table is
//! `plan.rs` plus `fastodbc-py`'s `Converter`; this is the same table for Arrow types.

use std::sync::Arc;

use arrow_schema::{DataType, Field, Schema, TimeUnit};
use fastodbc_core::types::registry::{self, Arrow};
use fastodbc_core::{ffi, ColumnPlan, TextCodec, ValueKind};

use crate::zone::SessionZone;

/// Decodes narrow text in a codec only the consumer's host knows (Python's codecs, for
/// `setdecoding(..., encoding="latin-1")`), into UTF-8.
pub trait NarrowDecoder: Send + Sync {
    /// The text of `bytes`, or why it is not text in that codec.
    fn decode(&self, codec: &str, bytes: &[u8]) -> Result<String, String>;
}

/// Integer types by their SQL width and signedness.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IntType {
    I8,
    I16,
    I32,
    I64,
    U8,
    U16,
    U32,
    U64,
}

impl IntType {
    fn data_type(self) -> DataType {
        match self {
            IntType::I8 => DataType::Int8,
            IntType::I16 => DataType::Int16,
            IntType::I32 => DataType::Int32,
            IntType::I64 => DataType::Int64,
            IntType::U8 => DataType::UInt8,
            IntType::U16 => DataType::UInt16,
            IntType::U32 => DataType::UInt32,
            IntType::U64 => DataType::UInt64,
        }
    }
}

/// How the block's bytes of a column become Arrow values.
#[derive(Clone)]
pub enum Conversion {
    /// `SQL_C_SBIGINT` elements (or the narrower integer a driver wrote and said so), checked
    /// against the column's range.
    Int(IntType),
    /// An unsigned BIGINT fetched as `SQL_C_UBIGINT`.
    UInt64,
    /// An integer column fetched as its text (`Strategy::plan`: psqlODBC, SQLite).
    IntText(IntType),
    Float32,
    Float64,
    /// A floating-point column fetched as its text.
    Float64Text,
    /// Exact numeric text into `decimal128(precision, scale)`, never rounded.
    Decimal {
        precision: u8,
        scale: i8,
    },
    Bool,
    Date,
    Time,
    /// A TIME that is a duration (MariaDB's), into signed microseconds.
    Duration,
    Timestamp,
    /// A zoned timestamp the driver gives as the session zone's wall time, into UTC
    /// microseconds (`ColumnPlan::zoned`, `zone`).
    ZonedTimestamp(SessionZone),
    Utf8,
    Utf16,
    Narrow(Arc<str>, Arc<dyn NarrowDecoder>),
    Binary,
    /// A GUID as the rows path's text (upper-case hex with dashes).
    GuidText,
}

/// A result column as Arrow sees it: its field and how its values are converted.
#[derive(Clone)]
pub struct ArrowColumn {
    pub field: Field,
    pub conversion: Conversion,
}

/// What the type table needs to know beyond the plan.
#[derive(Clone, Default)]
pub struct TypeOptions {
    /// Declared sizes are not limits (SQLite: an INTEGER holds 64 bits, a REAL 8 bytes).
    pub sizes_unreliable: bool,
    /// For narrow text in a codec other than UTF-8.
    pub narrow: Option<Arc<dyn NarrowDecoder>>,
    /// The session's time zone, read where a column is `ColumnPlan::zoned`: such columns
    /// become `timestamp[us, tz=UTC]` instants. Without it they stay wall times.
    pub session_zone: Option<SessionZone>,
    /// A NUMERIC described with this precision may have none declared
    /// (`Strategy::numeric_as_text`): its exact text.
    pub numeric_as_text: Option<usize>,
    /// TIME is a duration (`Strategy::time_as_duration`): `duration[us]`.
    pub time_as_duration: bool,
}

/// The zone of the instants of zoned timestamp columns in Arrow.
pub const INSTANT_ZONE: &str = "UTC";

/// The widest decimal `decimal128` holds.
const MAX_DECIMAL128_PRECISION: usize = 38;

impl ArrowColumn {
    /// The type table. `unsigned` is the driver's `SQL_DESC_UNSIGNED` for integer columns.
    pub fn for_plan(plan: &ColumnPlan, unsigned: bool, opts: &TypeOptions) -> ArrowColumn {
        let desc = &plan.desc;
        let text = |codec: &Option<TextCodec>| match codec {
            Some(TextCodec::Utf16) => Conversion::Utf16,
            Some(TextCodec::Narrow(name)) => match &opts.narrow {
                Some(decoder) => Conversion::Narrow(name.as_str().into(), decoder.clone()),
                // No decoder given: the bytes are checked as UTF-8, and refused if they are not.
                None => Conversion::Utf8,
            },
            _ => Conversion::Utf8,
        };
        // The registry's Arrow type for the SQL type; its widths are the ones kept here, the
        // rest is strategy (options) and the plan (text read as text).
        let registered = registry::sql_type(desc.sql_type).map(|t| t.arrow);
        let (data_type, conversion) = match plan.kind {
            ValueKind::Text => (DataType::Utf8, text(&plan.codec)),
            ValueKind::Binary => (DataType::Binary, Conversion::Binary),
            ValueKind::Bool => (DataType::Boolean, Conversion::Bool),
            ValueKind::Int if plan.c_type == ffi::SQL_C_UBIGINT => {
                (DataType::UInt64, Conversion::UInt64)
            }
            ValueKind::Int => {
                let int = int_type(registered, unsigned, opts.sizes_unreliable);
                let conversion = match plan.codec {
                    Some(_) => Conversion::IntText(int),
                    None => Conversion::Int(int),
                };
                (int.data_type(), conversion)
            }
            ValueKind::Float if plan.codec.is_some() => {
                (DataType::Float64, Conversion::Float64Text)
            }
            // Only a REAL is 4 bytes (the registry's Float32).
            ValueKind::Float if registered == Some(Arrow::Float32) && !opts.sizes_unreliable => {
                (DataType::Float32, Conversion::Float32)
            }
            ValueKind::Float => (DataType::Float64, Conversion::Float64),
            ValueKind::Decimal => {
                let scale = desc.digits.max(0) as usize;
                let nominal = opts.numeric_as_text == Some(desc.size);
                if nominal
                    || desc.size == 0
                    || desc.size > MAX_DECIMAL128_PRECISION
                    || scale > desc.size
                {
                    // Wider than decimal128, or of no stated precision (PostgreSQL's `numeric`
                    // holds any digits, NaN and Infinity): its exact text.
                    (DataType::Utf8, Conversion::Utf8)
                } else {
                    let (precision, scale) = (desc.size as u8, scale as i8);
                    (
                        DataType::Decimal128(precision, scale),
                        Conversion::Decimal { precision, scale },
                    )
                }
            }
            ValueKind::Date => (DataType::Date32, Conversion::Date),
            ValueKind::Time if opts.time_as_duration => (
                DataType::Duration(TimeUnit::Microsecond),
                Conversion::Duration,
            ),
            ValueKind::Time => (DataType::Time64(TimeUnit::Microsecond), Conversion::Time),
            ValueKind::Timestamp => match opts.session_zone.filter(|_| plan.zoned) {
                Some(zone) => (
                    DataType::Timestamp(TimeUnit::Microsecond, Some(INSTANT_ZONE.into())),
                    Conversion::ZonedTimestamp(zone),
                ),
                None => (
                    DataType::Timestamp(TimeUnit::Microsecond, None),
                    Conversion::Timestamp,
                ),
            },
            ValueKind::Guid => (DataType::Utf8, Conversion::GuidText),
        };
        ArrowColumn {
            field: Field::new(c_safe(&desc.name), data_type, true),
            conversion,
        }
    }
}

/// A name or text fit for the Arrow C Data Interface, whose strings end at a NUL: arrow-rs
/// panics exporting one that holds a NUL (an abort across the FFI boundary), so a NUL a
/// driver leaves in a name shows as U+FFFD instead.
pub fn c_safe(text: &str) -> String {
    text.replace('\0', "\u{FFFD}")
}

/// The Arrow integer of an integer SQL type: the registry's width (64 bits for a type it
/// doesn't list, or where the driver's sizes are no limit), signed unless the driver says
/// unsigned.
fn int_type(registered: Option<Arrow>, unsigned: bool, sizes_unreliable: bool) -> IntType {
    let bits = match registered.and_then(Arrow::int_bits) {
        Some(bits) if !sizes_unreliable => bits,
        _ => 64,
    };
    match (bits, unsigned) {
        (8, false) => IntType::I8,
        (8, true) => IntType::U8,
        (16, false) => IntType::I16,
        (16, true) => IntType::U16,
        (32, false) => IntType::I32,
        (32, true) => IntType::U32,
        (_, false) => IntType::I64,
        (_, true) => IntType::U64,
    }
}

/// The schema of a result's columns.
pub fn schema_of(columns: &[ArrowColumn]) -> Schema {
    Schema::new(
        columns
            .iter()
            .map(|c| c.field.clone())
            .collect::<Vec<Field>>(),
    )
}

#[cfg(test)]
mod c_safe_tests {
    #[test]
    fn a_nul_in_a_name_never_reaches_the_c_interface() {
        assert_eq!(super::c_safe("a\0b"), "a\u{FFFD}b");
        assert_eq!(super::c_safe("é"), "é");
    }
}
