//! The write direction's type table: which Arrow types may go into which target column, and
//! how each value is checked on the way. A pair that would lose information on every value
//! (a float into an INTEGER, a scale the column would cut, text into a number) is refused
//! before anything is sent; a pair that is exact for some values only (int64 into SMALLINT,
//! text into VARCHAR(10)) is checked value by value (`rows`).

use arrow_schema::{DataType, TimeUnit};
use fastodbc_core::ffi;
use fastodbc_core::types::registry::{self, is_binary, is_text, Family};

use super::target::TargetColumn;

/// What the load needs to know about the driver.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WriteOptions {
    /// Declared sizes and ranges are not limits (SQLite): no length, range or digit checks.
    pub sizes_unreliable: bool,
    /// Text holding a NUL is refused: the driver would cut it there (`Strategy::refuse_nul`).
    pub refuse_nul: bool,
    /// Fractional second digits a bound timestamp carries: 6 where timestamps go as text
    /// (`Strategy::timestamp_as_text`), 9 otherwise.
    pub timestamp_digits: u8,
    /// What a NaN double becomes.
    pub nan: Nan,
    /// Target columns keep what their declared type name says (SQLite's type affinity,
    /// `Strategy::affinity_by_type_name`): see `TargetColumn::keeps_integers`.
    pub affinity_by_type_name: bool,
}

/// What a load does with a NaN double.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Nan {
    /// Sent as NaN: the database keeps it (PostgreSQL) or refuses it (MariaDB, 22003).
    #[default]
    Keep,
    /// Refused, naming column, input row and value: the database would store NULL
    /// (`Strategy::refuse_nan`).
    Refuse,
    /// Stored as NULL, asked for (`ingest(nan="null")`); refused in a NOT NULL column.
    Null,
}

/// How one input column's values are written, with the checks they need.
#[derive(Debug, Clone, PartialEq)]
pub enum Writer {
    /// An all-NULL input column (Arrow `null`).
    Null,
    /// Booleans into a BIT column.
    Bool,
    /// Booleans as 0 / 1 into an integer column.
    BoolAsInt,
    /// Integers (or decimals of scale 0) checked against `min..=max`.
    Int {
        min: i128,
        max: i128,
    },
    /// Integers into a floating-point column: only those of at most `bits` significant bits,
    /// which it holds exactly.
    IntAsFloat {
        bits: u32,
    },
    Float {
        nan: Nan,
    },
    /// Decimals as exact text; `int_digits`: the most digits left of the point (None: any).
    Decimal {
        int_digits: Option<u32>,
    },
    /// Decimals into a floating-point column: only those of at most `digits` significant
    /// digits, which come back from it as the same decimal. `keeps_integers`: the column
    /// keeps integers exactly (`TargetColumn::keeps_integers`), so integral values past a
    /// double's 2^53 go as 64-bit integers, whatever their digits.
    DecimalAsFloat {
        digits: u32,
        keeps_integers: bool,
    },
    /// Decimal text into an exact numeric column: a plain decimal number (sign, digits, one
    /// point) of at most `int_digits` digits left of the point and `scale` after it (zeros
    /// past it dropped), sent as that decimal.
    DecimalText {
        int_digits: u32,
        scale: u32,
    },
    /// Integers or decimals as their text, into a text column.
    NumberText {
        max_chars: Option<usize>,
    },
    /// Text of at most `max_chars` characters.
    Text {
        max_chars: Option<usize>,
    },
    Binary {
        max_bytes: Option<usize>,
    },
    Date,
    /// Dates as midnight into a timestamp column.
    DateAsTimestamp,
    /// Timestamps whose fraction has at most `digits` digits; `instant`: zoned input into a
    /// zoned column, sent as text with its UTC offset so the database reads the instant, not
    /// a time in the session's zone.
    Timestamp {
        digits: u8,
        instant: bool,
    },
    /// Times whose fraction has at most `digits` digits (at most 6: times go as text with
    /// microseconds).
    Time {
        digits: u8,
    },
    /// Durations as `[-]HH:MM:SS[.ffffff]` text (hours past 24 kept), whose fraction has at most
    /// `digits` digits: into a TIME column (MariaDB's is a duration) or a text one
    /// (PostgreSQL's `interval` reads the same text).
    Duration {
        digits: u8,
    },
    /// Text into a TIME column, checked to be `[-]H:MM:SS[.f]` with at most `digits` fraction
    /// digits (a CSV column read as text for MariaDB's TIME, a duration pyarrow cannot parse):
    /// the database reads it so, never as its other forms (`1200` as 00:12:00).
    TimeText {
        digits: u8,
    },
}

/// The input side of the table: an Arrow type's family.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Source {
    Null,
    Bool,
    Int { signed: bool, bits: u32 },
    Float { bits: u32 },
    Decimal { precision: u8, scale: i8 },
    Text,
    Binary,
    Date,
    Timestamp,
    Time,
    Duration,
    Other,
}

/// The value type behind a dictionary, a view or a large layout: what the load sees after
/// `normalized`.
pub fn value_type(t: &DataType) -> &DataType {
    match t {
        DataType::Dictionary(_, v) => value_type(v),
        other => other,
    }
}

fn source_of(t: &DataType) -> Source {
    use DataType as D;
    match value_type(t) {
        D::Null => Source::Null,
        D::Boolean => Source::Bool,
        D::Int8 => Source::Int {
            signed: true,
            bits: 8,
        },
        D::Int16 => Source::Int {
            signed: true,
            bits: 16,
        },
        D::Int32 => Source::Int {
            signed: true,
            bits: 32,
        },
        D::Int64 => Source::Int {
            signed: true,
            bits: 64,
        },
        D::UInt8 => Source::Int {
            signed: false,
            bits: 8,
        },
        D::UInt16 => Source::Int {
            signed: false,
            bits: 16,
        },
        D::UInt32 => Source::Int {
            signed: false,
            bits: 32,
        },
        D::UInt64 => Source::Int {
            signed: false,
            bits: 64,
        },
        D::Float16 => Source::Float { bits: 16 },
        D::Float32 => Source::Float { bits: 32 },
        D::Float64 => Source::Float { bits: 64 },
        D::Decimal128(p, s) | D::Decimal256(p, s) => Source::Decimal {
            precision: *p,
            scale: *s,
        },
        D::Utf8 | D::LargeUtf8 | D::Utf8View => Source::Text,
        D::Binary | D::LargeBinary | D::BinaryView | D::FixedSizeBinary(_) => Source::Binary,
        D::Date32 | D::Date64 => Source::Date,
        D::Timestamp(_, _) => Source::Timestamp,
        D::Time32(_) | D::Time64(_) => Source::Time,
        D::Duration(_) => Source::Duration,
        _ => Source::Other,
    }
}

/// The range of an integer source.
fn source_range(signed: bool, bits: u32) -> (i128, i128) {
    if signed {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        (0, (1i128 << bits) - 1)
    }
}

/// The range an integer column holds.
fn int_range(t: &TargetColumn, opts: &WriteOptions) -> (i128, i128) {
    let bits = match registry::sql_type(t.sql_type).and_then(|r| r.arrow.int_bits()) {
        Some(bits) if !opts.sizes_unreliable => bits,
        _ => 64,
    };
    source_range(!t.unsigned || opts.sizes_unreliable, bits)
}

/// `10^digits - 1`, the largest integer of that many digits (saturating past i128).
fn nines(digits: u32) -> i128 {
    10i128.checked_pow(digits).map_or(i128::MAX, |p| p - 1)
}

/// Where a column's declared size is a limit the driver enforces or would cut at.
fn limit(t: &TargetColumn, opts: &WriteOptions) -> Option<usize> {
    (registry::is_sized(t.sql_type) && !opts.sizes_unreliable && t.size > 0).then_some(t.size)
}

/// The digits of a column's fraction of a second, at most what the binding carries.
fn fraction_digits(t: &TargetColumn, most: u8, opts: &WriteOptions) -> u8 {
    if opts.sizes_unreliable {
        return most;
    }
    (t.digits.clamp(0, 9) as u8).min(most)
}

/// How values of Arrow type `input` are written into `target`, or why they can't be without
/// loss (the reason only: the caller names the columns and types).
pub fn choose(
    input: &DataType,
    target: &TargetColumn,
    opts: &WriteOptions,
) -> Result<Writer, String> {
    use Source as S;
    let t = target.sql_type;
    let refuse = |why: &str| Err(why.to_string());
    let registered = registry::sql_type(t);
    let exact_numeric = registered.is_some_and(|r| r.family == Family::Decimal);
    // A REAL's 24 bits are a limit only where the driver keeps the sizes it describes.
    let float_bits = match registered.and_then(|r| r.arrow.float_bits()) {
        Some(24) if opts.sizes_unreliable => Some(53),
        bits => bits,
    };
    // NUMERIC(p, s) as described; SQLite's declared precision is no limit.
    let (precision, scale) = (target.size as u32, target.digits.max(0) as u32);
    let numeric_limited = exact_numeric && !opts.sizes_unreliable && precision > 0;
    // SQLite: a NUMERIC / DECIMAL column, described as a double or as text, converts numbers
    // (and number text) to 64-bit integers or doubles.
    let keeps_integers = opts.affinity_by_type_name && target.keeps_integers();
    let float_bits = float_bits.or(keeps_integers.then_some(53));
    match source_of(input) {
        S::Null => Ok(Writer::Null),
        S::Bool if t == ffi::SQL_BIT => Ok(Writer::Bool),
        S::Bool if super::target::is_integer(t) => Ok(Writer::BoolAsInt),
        S::Int { signed, bits } => {
            let (lo, hi) = source_range(signed, bits);
            if super::target::is_integer(t) || keeps_integers {
                let (min, max) = int_range(target, opts);
                Ok(Writer::Int { min: lo.max(min), max: hi.min(max) })
            } else if exact_numeric {
                let most = if numeric_limited {
                    nines(precision.saturating_sub(scale))
                } else {
                    i128::MAX
                };
                Ok(Writer::Int { min: lo.max(-most), max: hi.min(most) })
            } else if let Some(bits) = float_bits {
                Ok(Writer::IntAsFloat { bits })
            } else if is_text(t) {
                Ok(Writer::NumberText { max_chars: limit(target, opts) })
            } else {
                refuse("integers go into integer, exact numeric, floating-point or text columns")
            }
        }
        S::Float { bits } => match float_bits {
            Some(53) => Ok(Writer::Float { nan: opts.nan }),
            Some(_) if bits <= 32 => Ok(Writer::Float { nan: opts.nan }),
            Some(_) => refuse("the column holds single precision only; cast the input to float32 if that is meant"),
            None => refuse("floating-point values would be rounded or converted by the database; cast them to the column's type first"),
        },
        S::Decimal { precision: p, scale: s } => {
            // A negative scale puts zeros after the digits: decimal128(15, -3) has 18 left of the point.
            let in_int_digits = (p as u32).saturating_sub(s.max(0) as u32)
                + super::create::negative_scale_digits(s);
            let s = s.max(0) as u32;
            if exact_numeric {
                if numeric_limited && s > scale {
                    return Err(format!("the column keeps {scale} digits after the point and the input has {s}"));
                }
                let col_int_digits = precision.saturating_sub(scale);
                let int_digits = (numeric_limited && in_int_digits > col_int_digits).then_some(col_int_digits);
                Ok(Writer::Decimal { int_digits })
            } else if super::target::is_integer(t) && s == 0 {
                let (min, max) = int_range(target, opts);
                Ok(Writer::Int { min, max })
            } else if super::target::is_integer(t) {
                Err(format!("the column holds integers and the input has {s} digits after the point"))
            } else if is_text(t) && !keeps_integers {
                Ok(Writer::NumberText { max_chars: limit(target, opts) })
            } else if let Some(bits) = float_bits {
                // SQLite describes NUMERIC columns as DOUBLE (DECIMAL ones as text), and
                // stores their values as integers or doubles.
                Ok(Writer::DecimalAsFloat {
                    digits: if bits == 24 { 6 } else { 15 },
                    keeps_integers,
                })
            } else {
                refuse("decimals go into exact numeric, integer (scale 0), floating-point or text columns")
            }
        }
        S::Text if is_text(t) => Ok(Writer::Text { max_chars: limit(target, opts) }),
        // A numeric of no declared precision (PostgreSQL's `numeric`, size 0): the database
        // parses the text, which may have any digits, `NaN` or `Infinity`.
        S::Text if exact_numeric && !numeric_limited => Ok(Writer::Text { max_chars: None }),
        S::Text if exact_numeric => Ok(Writer::DecimalText {
            int_digits: precision.saturating_sub(scale),
            scale,
        }),
        // The database parses the text as its type (a UUID, or a type ODBC can't name).
        S::Text if t == ffi::SQL_GUID || t == ffi::SQL_UNKNOWN_TYPE || !(-100..=100).contains(&t) => {
            Ok(Writer::Text { max_chars: None })
        }
        S::Text if t == ffi::SQL_TYPE_TIME => Ok(Writer::TimeText {
            digits: fraction_digits(target, 6, opts),
        }),
        S::Text => refuse("text would be parsed by the database as the column's type; convert it to an Arrow type of that kind first"),
        S::Binary if is_binary(t) => Ok(Writer::Binary { max_bytes: limit(target, opts) }),
        S::Date if t == ffi::SQL_TYPE_DATE => Ok(Writer::Date),
        S::Date if t == ffi::SQL_TYPE_TIMESTAMP => Ok(Writer::DateAsTimestamp),
        S::Timestamp if t == ffi::SQL_TYPE_TIMESTAMP => Ok(Writer::Timestamp {
            digits: fraction_digits(target, opts.timestamp_digits, opts),
            instant: target.zoned
                && matches!(value_type(input), DataType::Timestamp(_, Some(_))),
        }),
        S::Time if t == ffi::SQL_TYPE_TIME => Ok(Writer::Time {
            digits: fraction_digits(target, 6, opts),
        }),
        S::Duration if t == ffi::SQL_TYPE_TIME => Ok(Writer::Duration {
            digits: fraction_digits(target, 6, opts),
        }),
        S::Duration if is_text(t) => Ok(Writer::Duration { digits: 9 }),
        S::Other => refuse("fastodbc writes no value of this Arrow type"),
        _ => refuse("the types hold different kinds of values"),
    }
}

/// Arrow type text for messages (`timestamp[us, tz=UTC]` style, as pyarrow prints it).
pub fn arrow_type_text(t: &DataType) -> String {
    use DataType as D;
    let unit = |u: &TimeUnit| match u {
        TimeUnit::Second => "s",
        TimeUnit::Millisecond => "ms",
        TimeUnit::Microsecond => "us",
        TimeUnit::Nanosecond => "ns",
    };
    match t {
        D::Null => "null".into(),
        D::Boolean => "bool".into(),
        D::Utf8 => "string".into(),
        D::LargeUtf8 => "large_string".into(),
        D::Utf8View => "string_view".into(),
        D::Binary => "binary".into(),
        D::LargeBinary => "large_binary".into(),
        D::BinaryView => "binary_view".into(),
        D::FixedSizeBinary(n) => format!("fixed_size_binary[{n}]"),
        D::Float16 => "halffloat".into(),
        D::Float32 => "float".into(),
        D::Float64 => "double".into(),
        D::Decimal128(p, s) => format!("decimal128({p}, {s})"),
        D::Decimal256(p, s) => format!("decimal256({p}, {s})"),
        D::Date32 => "date32[day]".into(),
        D::Date64 => "date64[ms]".into(),
        D::Time32(u) => format!("time32[{}]", unit(u)),
        D::Time64(u) => format!("time64[{}]", unit(u)),
        D::Timestamp(u, None) => format!("timestamp[{}]", unit(u)),
        D::Timestamp(u, Some(tz)) => format!("timestamp[{}, tz={tz}]", unit(u)),
        D::Dictionary(k, v) => format!(
            "dictionary<values={}, indices={}>",
            arrow_type_text(v),
            arrow_type_text(k)
        ),
        other => other.to_string().to_lowercase(),
    }
}
