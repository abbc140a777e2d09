//! Input values to parameter rows: one Arrow column at a time into the rows of a chunk, each
//! value checked as its `Writer` says. A value that doesn't fit its column is refused here,
//! naming the column, the input row and the value, before the chunk is sent: never cut or
//! dropped by a driver.

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Date32Type, Date64Type, Decimal128Type, Decimal256Type, DurationMicrosecondType,
    DurationMillisecondType, DurationNanosecondType, DurationSecondType, Float16Type, Float32Type,
    Float64Type, Int16Type, Int32Type, Int64Type, Int8Type, Time32MillisecondType,
    Time32SecondType, Time64MicrosecondType, Time64NanosecondType, TimestampMicrosecondType,
    TimestampMillisecondType, TimestampNanosecondType, TimestampSecondType, UInt16Type, UInt32Type,
    UInt64Type, UInt8Type,
};
use arrow_array::{Array, ArrowPrimitiveType, OffsetSizeTrait};
use arrow_schema::{DataType, TimeUnit};
use fastodbc_core::types::temporal::civil_from_days;
use fastodbc_core::{ffi, Error, ParamValue, Result};

use super::types::{Nan, Writer};

/// Where the values being written are, for messages.
pub struct At<'a> {
    pub column: &'a str,
    /// The column's type as SQL text.
    pub sql_type: &'a str,
    pub nullable: bool,
    pub refuse_nul: bool,
    /// The input row (counted from 1) of the array's first value.
    pub first_row: usize,
}

impl At<'_> {
    fn error(&self, i: usize, sqlstate: &'static str, what: String) -> Error {
        Error::Value {
            sqlstate,
            message: format!(
                "column {:?} ({}), input row {}: {what}",
                self.column,
                self.sql_type,
                self.first_row + i
            ),
        }
    }
}

/// Pushes each value of `array` onto its row, NULLs checked against the column and the rest
/// converted by `value`.
fn each(
    array: &dyn Array,
    rows: &mut [Vec<ParamValue>],
    at: &At<'_>,
    mut value: impl FnMut(usize) -> Result<ParamValue>,
) -> Result<()> {
    for (i, row) in rows.iter_mut().enumerate().take(array.len()) {
        let v = if array.is_null(i) {
            if !at.nullable {
                return Err(at.error(i, "23000", "NULL in a NOT NULL column".into()));
            }
            ParamValue::Null
        } else {
            value(i)?
        };
        row.push(v);
    }
    Ok(())
}

/// A checked integer as a parameter: BIGINT where it fits, exact text past it (UINT64).
fn int_param(v: i128, min: i128, max: i128, i: usize, at: &At<'_>) -> Result<ParamValue> {
    if v < min || v > max {
        return Err(at.error(i, "22003", format!("{v} is out of the column's range")));
    }
    Ok(match i64::try_from(v) {
        Ok(v) => ParamValue::Int(v),
        Err(_) => ParamValue::Decimal {
            text: v.to_string(),
            precision: 20,
            scale: 0,
        },
    })
}

/// Text longer than `max` characters refused with its length.
fn check_chars(s: &str, max: Option<usize>, i: usize, at: &At<'_>) -> Result<()> {
    if let Some(max) = max {
        // Characters never outnumber UTF-8 bytes.
        if s.len() > max {
            let n = s.chars().count();
            if n > max {
                return Err(at.error(
                    i,
                    "22001",
                    format!("a value of {n} characters is longer than the column"),
                ));
            }
        }
    }
    Ok(())
}

fn integers<T>(
    array: &dyn Array,
    w: &Writer,
    rows: &mut [Vec<ParamValue>],
    at: &At<'_>,
) -> Result<()>
where
    T: ArrowPrimitiveType,
    T::Native: Into<i128>,
{
    let a = array.as_primitive::<T>();
    let get = |i: usize| -> i128 { a.value(i).into() };
    match *w {
        Writer::Int { min, max } => each(array, rows, at, |i| int_param(get(i), min, max, i, at)),
        Writer::IntAsFloat { bits } => each(array, rows, at, |i| {
            let v = get(i);
            if v.unsigned_abs() > 1u128 << bits {
                return Err(at.error(
                    i,
                    "22003",
                    format!("{v} has more digits than the column holds exactly"),
                ));
            }
            Ok(ParamValue::Float(v as f64))
        }),
        Writer::NumberText { max_chars } => each(array, rows, at, |i| {
            let text = get(i).to_string();
            check_chars(&text, max_chars, i, at)?;
            Ok(ParamValue::Text(text))
        }),
        _ => Err(unexpected(array.data_type(), w)),
    }
}

fn floats<T>(array: &dyn Array, w: &Writer, rows: &mut [Vec<ParamValue>], at: &At<'_>) -> Result<()>
where
    T: ArrowPrimitiveType,
    T::Native: Into<f64>,
{
    let a = array.as_primitive::<T>();
    match *w {
        Writer::Float { nan } => each(array, rows, at, |i| {
            float_param(a.value(i).into(), nan, i, at)
        }),
        _ => Err(unexpected(array.data_type(), w)),
    }
}

/// A double as a parameter, NaN as `nan` says.
fn float_param(v: f64, nan: Nan, i: usize, at: &At<'_>) -> Result<ParamValue> {
    if !v.is_nan() {
        return Ok(ParamValue::Float(v));
    }
    match nan {
        Nan::Keep => Ok(ParamValue::Float(v)),
        Nan::Refuse => Err(at.error(
            i,
            "22000",
            "NaN, which this database would store as NULL; ingest(nan=\"null\") (the \
             command line's --nan null) stores NaN as NULL"
                .into(),
        )),
        Nan::Null if !at.nullable => Err(at.error(
            i,
            "23000",
            "NaN (stored as NULL, nan=\"null\") in a NOT NULL column".into(),
        )),
        Nan::Null => Ok(ParamValue::Null),
    }
}

/// 2^53: integers up to it in magnitude are doubles exactly.
const EXACT_DOUBLE_INT: i128 = 1 << 53;

/// Significant digits of plain decimal text: leading and trailing zeros don't count.
fn significant_digits(text: &str) -> usize {
    let digits = || text.bytes().filter(u8::is_ascii_digit);
    let leading = digits().take_while(|&b| b == b'0').count();
    let total = digits().count();
    let trailing = digits().rev().take_while(|&b| b == b'0').count();
    total.saturating_sub(leading + trailing)
}

/// A decimal's unscaled digits (with its sign) and scale as plain decimal text.
fn decimal_text(unscaled: &str, scale: i8) -> (String, u32, u32) {
    let (neg, digits) = match unscaled.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, unscaled),
    };
    let mut text = String::with_capacity(digits.len() + 3);
    if neg {
        text.push('-');
    }
    if scale <= 0 {
        text.push_str(digits);
        let zeros = (-scale) as usize;
        if digits != "0" {
            text.extend(std::iter::repeat_n('0', zeros));
        }
        let int_digits = if digits == "0" {
            0
        } else {
            digits.len() + zeros
        };
        return (text, int_digits as u32, 0);
    }
    let scale = scale as usize;
    let int_digits = digits.len().saturating_sub(scale);
    if int_digits == 0 {
        text.push('0');
    } else {
        text.push_str(&digits[..int_digits]);
    }
    text.push('.');
    text.extend(std::iter::repeat_n('0', scale.saturating_sub(digits.len())));
    text.push_str(&digits[digits.len().saturating_sub(scale)..]);
    // "0.5": no integer digit; "-0" keeps none either.
    let significant = digits[..int_digits].trim_start_matches('0').len();
    (text, significant as u32, scale as u32)
}

fn decimals(
    array: &dyn Array,
    scale: i8,
    w: &Writer,
    rows: &mut [Vec<ParamValue>],
    at: &At<'_>,
) -> Result<()> {
    let unscaled = |i: usize| -> String {
        match array.data_type() {
            DataType::Decimal256(..) => array.as_primitive::<Decimal256Type>().value(i).to_string(),
            _ => array.as_primitive::<Decimal128Type>().value(i).to_string(),
        }
    };
    match *w {
        Writer::Decimal { int_digits } => each(array, rows, at, |i| {
            let (text, ints, s) = decimal_text(&unscaled(i), scale);
            if int_digits.is_some_and(|most| ints > most) {
                return Err(at.error(
                    i,
                    "22003",
                    format!("{text} has more digits left of the point than the column"),
                ));
            }
            Ok(ParamValue::Decimal {
                text,
                precision: (ints + s).max(1) as u16,
                scale: s as i16,
            })
        }),
        Writer::Int { min, max } => each(array, rows, at, |i| {
            let (text, _, _) = decimal_text(&unscaled(i), scale);
            let v: i128 = text.parse().map_err(|_| {
                at.error(i, "22003", format!("{text} is out of the column's range"))
            })?;
            int_param(v, min, max, i, at)
        }),
        Writer::DecimalAsFloat {
            digits,
            keeps_integers,
        } => each(array, rows, at, |i| {
            let (text, _, _) = decimal_text(&unscaled(i), scale);
            if keeps_integers {
                // An integral value a double can't hold goes as the integer (SQLite keeps it
                // so); a double would store its nearest double's digits.
                let whole = text.split_once('.').map_or(text.as_str(), |(w, f)| {
                    if f.bytes().all(|b| b == b'0') {
                        w
                    } else {
                        ""
                    }
                });
                if let Ok(v) = whole.parse::<i64>() {
                    if i128::from(v).abs() > EXACT_DOUBLE_INT {
                        return Ok(ParamValue::Int(v));
                    }
                }
            }
            let n = significant_digits(&text);
            if n > digits as usize {
                return Err(at.error(
                    i,
                    "22003",
                    format!("{text} has {n} significant digits; the column keeps {digits} exactly"),
                ));
            }
            let v: f64 = text
                .parse()
                .map_err(|_| at.error(i, "22018", format!("{text} is not a number")))?;
            Ok(ParamValue::Float(v))
        }),
        Writer::NumberText { max_chars } => each(array, rows, at, |i| {
            let (text, _, _) = decimal_text(&unscaled(i), scale);
            check_chars(&text, max_chars, i, at)?;
            Ok(ParamValue::Text(text))
        }),
        _ => Err(unexpected(array.data_type(), w)),
    }
}

fn texts<O: OffsetSizeTrait>(
    array: &dyn Array,
    w: &Writer,
    rows: &mut [Vec<ParamValue>],
    at: &At<'_>,
) -> Result<()> {
    let a = array.as_string::<O>();
    if let Writer::DecimalText { int_digits, scale } = *w {
        return each(array, rows, at, |i| {
            decimal_of_text(a.value(i), int_digits, scale)
                .map_err(|why| at.error(i, "22003", format!("{:?} {why}", a.value(i))))
        });
    }
    if let Writer::TimeText { digits } = *w {
        return each(array, rows, at, |i| {
            let s = a.value(i).trim();
            if time_text_ok(s, digits) {
                Ok(ParamValue::Text(s.to_owned()))
            } else {
                Err(at.error(
                    i,
                    "22007",
                    format!(
                        "{s:?} is not a time as [-]H:MM:SS with at most {digits} fraction digits"
                    ),
                ))
            }
        });
    }
    let Writer::Text { max_chars } = *w else {
        return Err(unexpected(array.data_type(), w));
    };
    each(array, rows, at, |i| {
        let s = a.value(i);
        check_chars(s, max_chars, i, at)?;
        if at.refuse_nul && s.contains('\0') {
            return Err(at.error(
                i,
                "22018",
                "text holding a NUL, which the driver would cut there".into(),
            ));
        }
        Ok(ParamValue::Text(s.to_owned()))
    })
}

/// Whether `s` is `[-]H:MM:SS[.f]`: hours of 1 to 3 digits, minutes and seconds below 60, at
/// most `digits` fraction digits.
fn time_text_ok(s: &str, digits: u8) -> bool {
    let s = s.strip_prefix('-').unwrap_or(s);
    let (clock, fraction) = s.split_once('.').unwrap_or((s, ""));
    let all_digits = |p: &str| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit());
    let parts: Vec<&str> = clock.split(':').collect();
    let [h, m, sec] = parts[..] else {
        return false;
    };
    let below_60 = |p: &str| all_digits(p) && p.len() == 2 && p < "60";
    all_digits(h)
        && h.len() <= 3
        && below_60(m)
        && below_60(sec)
        && (fraction.is_empty() || all_digits(fraction))
        && fraction.len() <= usize::from(digits)
}

/// Decimal text as the exact decimal a NUMERIC with `int_digits` digits left of the point
/// and `scale` after it holds, or why it is not one (no rounding: a nonzero digit past the
/// scale is refused).
fn decimal_of_text(
    text: &str,
    int_digits: u32,
    scale: u32,
) -> std::result::Result<ParamValue, String> {
    let t = text.trim();
    let (sign, digits) = match t.strip_prefix('-') {
        Some(rest) => ("-", rest),
        None => ("", t.strip_prefix('+').unwrap_or(t)),
    };
    let (ints, frac) = digits.split_once('.').unwrap_or((digits, ""));
    let plain = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if (ints.is_empty() && frac.is_empty()) || !plain(ints) || !plain(frac) {
        return Err("is not a plain decimal number".into());
    }
    let ints = ints.trim_start_matches('0');
    let frac = frac.trim_end_matches('0');
    if ints.len() > int_digits as usize {
        return Err("has more digits left of the point than the column".into());
    }
    if frac.len() > scale as usize {
        return Err(format!(
            "has more digits after the point than the column's {scale}"
        ));
    }
    let ints = if ints.is_empty() { "0" } else { ints };
    let text = if frac.is_empty() {
        format!("{sign}{ints}")
    } else {
        format!("{sign}{ints}.{frac}")
    };
    Ok(ParamValue::Decimal {
        text,
        precision: (ints.len() + frac.len()).max(1) as u16,
        scale: frac.len() as i16,
    })
}

fn binaries(
    array: &dyn Array,
    w: &Writer,
    rows: &mut [Vec<ParamValue>],
    at: &At<'_>,
) -> Result<()> {
    let Writer::Binary { max_bytes } = *w else {
        return Err(unexpected(array.data_type(), w));
    };
    let bytes = |i: usize| -> &[u8] {
        match array.data_type() {
            DataType::LargeBinary => array.as_binary::<i64>().value(i),
            DataType::FixedSizeBinary(_) => array.as_fixed_size_binary().value(i),
            _ => array.as_binary::<i32>().value(i),
        }
    };
    each(array, rows, at, |i| {
        let b = bytes(i);
        if max_bytes.is_some_and(|most| b.len() > most) {
            return Err(at.error(
                i,
                "22001",
                format!("a value of {} bytes is longer than the column", b.len()),
            ));
        }
        Ok(ParamValue::Bytes(b.to_vec()))
    })
}

fn sql_date(days: i64, i: usize, at: &At<'_>) -> Result<ffi::SqlDate> {
    let (year, month, day) = civil_from_days(days);
    if !(1..=9999).contains(&year) {
        return Err(at.error(i, "22008", format!("year {year} is outside 1..9999")));
    }
    Ok(ffi::SqlDate {
        year: year as i16,
        month: month as u16,
        day: day as u16,
    })
}

/// Nanoseconds of `v` in `unit`, split into days and nanoseconds of the day.
fn split_day(v: i64, unit: TimeUnit) -> (i64, i64) {
    let per_second: i64 = match unit {
        TimeUnit::Second => 1,
        TimeUnit::Millisecond => 1_000,
        TimeUnit::Microsecond => 1_000_000,
        TimeUnit::Nanosecond => 1_000_000_000,
    };
    let per_day = 86_400 * per_second;
    let (days, rest) = (v.div_euclid(per_day), v.rem_euclid(per_day));
    (days, rest * (1_000_000_000 / per_second))
}

/// Nanoseconds refused where the column keeps fewer fractional digits than they need.
fn check_fraction(
    nanos: i64,
    digits: u8,
    i: usize,
    at: &At<'_>,
    what: impl Fn() -> String,
) -> Result<()> {
    let step = 10i64.pow(9 - u32::from(digits.min(9)));
    if nanos % step != 0 {
        return Err(at.error(
            i,
            "22008",
            format!(
                "{} has more fractional second digits than the column keeps ({digits})",
                what()
            ),
        ));
    }
    Ok(())
}

fn timestamps(
    array: &dyn Array,
    unit: TimeUnit,
    w: &Writer,
    rows: &mut [Vec<ParamValue>],
    at: &At<'_>,
) -> Result<()> {
    let Writer::Timestamp { digits, instant } = *w else {
        return Err(unexpected(array.data_type(), w));
    };
    let value = |i: usize| -> i64 {
        match unit {
            TimeUnit::Second => array.as_primitive::<TimestampSecondType>().value(i),
            TimeUnit::Millisecond => array.as_primitive::<TimestampMillisecondType>().value(i),
            TimeUnit::Microsecond => array.as_primitive::<TimestampMicrosecondType>().value(i),
            TimeUnit::Nanosecond => array.as_primitive::<TimestampNanosecondType>().value(i),
        }
    };
    each(array, rows, at, |i| {
        let (days, nanos) = split_day(value(i), unit);
        let d = sql_date(days, i, at)?;
        let secs = nanos / 1_000_000_000;
        let fraction = nanos % 1_000_000_000;
        let t = ffi::SqlTimestamp {
            year: d.year,
            month: d.month,
            day: d.day,
            hour: (secs / 3600) as u16,
            minute: (secs / 60 % 60) as u16,
            second: (secs % 60) as u16,
            fraction: fraction as u32,
        };
        check_fraction(fraction, digits, i, at, || {
            let mut s = String::new();
            fastodbc_core::types::temporal::format_timestamp(&mut s, &t);
            format!("{s} ({fraction} ns)")
        })?;
        if instant {
            let mut s = String::with_capacity(32);
            fastodbc_core::types::temporal::format_timestamp(&mut s, &t);
            s.push_str("+00:00");
            return Ok(ParamValue::Text(s));
        }
        Ok(ParamValue::Timestamp(t))
    })
}

fn dates(array: &dyn Array, w: &Writer, rows: &mut [Vec<ParamValue>], at: &At<'_>) -> Result<()> {
    let days = |i: usize| -> i64 {
        match array.data_type() {
            DataType::Date64 => array
                .as_primitive::<Date64Type>()
                .value(i)
                .div_euclid(86_400_000),
            _ => i64::from(array.as_primitive::<Date32Type>().value(i)),
        }
    };
    match w {
        Writer::Date => each(array, rows, at, |i| {
            Ok(ParamValue::Date(sql_date(days(i), i, at)?))
        }),
        Writer::DateAsTimestamp => each(array, rows, at, |i| {
            let d = sql_date(days(i), i, at)?;
            Ok(ParamValue::Timestamp(ffi::SqlTimestamp {
                year: d.year,
                month: d.month,
                day: d.day,
                ..Default::default()
            }))
        }),
        _ => Err(unexpected(array.data_type(), w)),
    }
}

fn times(array: &dyn Array, w: &Writer, rows: &mut [Vec<ParamValue>], at: &At<'_>) -> Result<()> {
    let Writer::Time { digits } = *w else {
        return Err(unexpected(array.data_type(), w));
    };
    let nanos = |i: usize| -> i64 {
        match array.data_type() {
            DataType::Time32(TimeUnit::Second) => {
                i64::from(array.as_primitive::<Time32SecondType>().value(i)) * 1_000_000_000
            }
            DataType::Time32(_) => {
                i64::from(array.as_primitive::<Time32MillisecondType>().value(i)) * 1_000_000
            }
            DataType::Time64(TimeUnit::Microsecond) => {
                array.as_primitive::<Time64MicrosecondType>().value(i) * 1_000
            }
            _ => array.as_primitive::<Time64NanosecondType>().value(i),
        }
    };
    each(array, rows, at, |i| {
        let n = nanos(i);
        if !(0..86_400_000_000_000).contains(&n) {
            return Err(at.error(i, "22008", format!("{n} ns is not a time of day")));
        }
        let secs = n / 1_000_000_000;
        let fraction = n % 1_000_000_000;
        check_fraction(fraction, digits, i, at, || {
            format!("a time with {fraction} ns")
        })?;
        Ok(ParamValue::Time(
            (secs / 3600) as u8,
            (secs / 60 % 60) as u8,
            (secs % 60) as u8,
            (fraction / 1000) as u32,
        ))
    })
}

fn durations(
    array: &dyn Array,
    w: &Writer,
    rows: &mut [Vec<ParamValue>],
    at: &At<'_>,
) -> Result<()> {
    let Writer::Duration { digits } = *w else {
        return Err(unexpected(array.data_type(), w));
    };
    let DataType::Duration(unit) = array.data_type() else {
        return Err(unexpected(array.data_type(), w));
    };
    let nanos = |i: usize| -> i128 {
        match unit {
            TimeUnit::Second => {
                i128::from(array.as_primitive::<DurationSecondType>().value(i)) * 1_000_000_000
            }
            TimeUnit::Millisecond => {
                i128::from(array.as_primitive::<DurationMillisecondType>().value(i)) * 1_000_000
            }
            TimeUnit::Microsecond => {
                i128::from(array.as_primitive::<DurationMicrosecondType>().value(i)) * 1_000
            }
            TimeUnit::Nanosecond => {
                i128::from(array.as_primitive::<DurationNanosecondType>().value(i))
            }
        }
    };
    each(array, rows, at, |i| {
        let n = nanos(i);
        let (sign, n) = if n < 0 { ("-", -n) } else { ("", n) };
        let secs = n / 1_000_000_000;
        let fraction = (n % 1_000_000_000) as i64;
        check_fraction(fraction, digits, i, at, || {
            format!("a duration with {fraction} ns")
        })?;
        let (h, m, s) = (secs / 3600, secs / 60 % 60, secs % 60);
        let text = if fraction == 0 {
            format!("{sign}{h:02}:{m:02}:{s:02}")
        } else if fraction % 1000 == 0 {
            format!("{sign}{h:02}:{m:02}:{s:02}.{:06}", fraction / 1000)
        } else {
            format!("{sign}{h:02}:{m:02}:{s:02}.{fraction:09}")
        };
        Ok(ParamValue::Text(text))
    })
}

fn unexpected(t: &DataType, w: &Writer) -> Error {
    Error::Programming(format!("no conversion of Arrow {t} for {w:?}"))
}

/// Pushes the values of `array` (no dictionary or view: see `load::normalized`) onto `rows`,
/// one per row, as `w` says.
pub fn write_column(
    array: &dyn Array,
    w: &Writer,
    rows: &mut [Vec<ParamValue>],
    at: &At<'_>,
) -> Result<()> {
    use DataType as D;
    match (array.data_type(), w) {
        (_, Writer::Null) | (D::Null, _) => each(array, rows, at, |_| Ok(ParamValue::Null)),
        (D::Boolean, Writer::Bool | Writer::BoolAsInt) => {
            let a = array.as_boolean();
            let as_int = matches!(w, Writer::BoolAsInt);
            each(array, rows, at, |i| {
                let b = a.value(i);
                Ok(if as_int {
                    ParamValue::Int(i64::from(b))
                } else {
                    ParamValue::Bool(b)
                })
            })
        }
        (D::Int8, _) => integers::<Int8Type>(array, w, rows, at),
        (D::Int16, _) => integers::<Int16Type>(array, w, rows, at),
        (D::Int32, _) => integers::<Int32Type>(array, w, rows, at),
        (D::Int64, _) => integers::<Int64Type>(array, w, rows, at),
        (D::UInt8, _) => integers::<UInt8Type>(array, w, rows, at),
        (D::UInt16, _) => integers::<UInt16Type>(array, w, rows, at),
        (D::UInt32, _) => integers::<UInt32Type>(array, w, rows, at),
        (D::UInt64, _) => integers::<UInt64Type>(array, w, rows, at),
        (D::Float16, Writer::Float { nan }) => {
            let a = array.as_primitive::<Float16Type>();
            each(array, rows, at, |i| {
                float_param(a.value(i).to_f64(), *nan, i, at)
            })
        }
        (D::Float32, _) => floats::<Float32Type>(array, w, rows, at),
        (D::Float64, _) => floats::<Float64Type>(array, w, rows, at),
        (D::Decimal128(_, s) | D::Decimal256(_, s), _) => decimals(array, *s, w, rows, at),
        (D::Utf8, _) => texts::<i32>(array, w, rows, at),
        (D::LargeUtf8, _) => texts::<i64>(array, w, rows, at),
        (D::Binary | D::LargeBinary | D::FixedSizeBinary(_), _) => binaries(array, w, rows, at),
        (D::Date32 | D::Date64, _) => dates(array, w, rows, at),
        (D::Time32(_) | D::Time64(_), _) => times(array, w, rows, at),
        (D::Timestamp(unit, _), _) => timestamps(array, *unit, w, rows, at),
        (D::Duration(_), _) => durations(array, w, rows, at),
        (t, w) => Err(unexpected(t, w)),
    }
}
