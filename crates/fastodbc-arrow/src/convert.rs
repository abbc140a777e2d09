//! One value's bytes, as the driver wrote them, to its Arrow value: the same readings as the
//! rows path (`fastodbc-py`'s `Converter`), and the same refusals, so that a value either comes
//! out equal through both or raises the same `DataError` through both.

use arrow_buffer::NullBufferBuilder;
use chrono::DateTime;
use fastodbc_core::types::numeric::{int_of_width, NumberText};
use fastodbc_core::types::temporal::days_from_civil;
use fastodbc_core::types::{guid, temporal};
use fastodbc_core::{ColumnValues, Error, Result};

use crate::schema::{Conversion, IntType};
use crate::zone::{NoInstant, SessionZone};

/// Where a value is, for messages: its column, and the result's row of the block's row 0.
pub struct Located<'a> {
    pub column: &'a str,
    pub first_row: usize,
}

impl Located<'_> {
    /// A `DataError` with `sqlstate` about the value of block row `row` (rows counted from 1 in
    /// the result): the rows path's SQLSTATE for the same value.
    pub fn error(&self, row: usize, sqlstate: &'static str, what: String) -> Error {
        Error::Value {
            sqlstate,
            message: format!(
                "column {:?}, row {}: {what}",
                self.column,
                self.first_row + row + 1
            ),
        }
    }

    /// `v` in the column's integer type, or a `DataError` naming the value.
    #[inline]
    pub fn narrow<T: TryFrom<i64>>(&self, v: i64, row: usize, t: IntType) -> Result<T> {
        T::try_from(v)
            .map_err(|_| self.error(row, "22003", format!("{v} does not fit the column's {t:?}")))
    }
}

/// An integer element (`types::numeric::int_of_width`, as the rows path reads it).
#[inline]
pub fn int(b: &[u8], row: usize, at: &Located<'_>) -> Result<i64> {
    int_of_width(b).ok_or_else(|| {
        at.error(
            row,
            "22018",
            format!("the driver returned an invalid integer {b:?}"),
        )
    })
}

/// A `SQL_C_UBIGINT` element.
#[inline]
pub fn uint64(b: &[u8], row: usize, at: &Located<'_>) -> Result<u64> {
    match b.first_chunk::<8>() {
        Some(w) => Ok(u64::from_ne_bytes(*w)),
        None => Err(at.error(
            row,
            "22018",
            format!("the driver returned an invalid integer {b:?}"),
        )),
    }
}

/// The integers of a column fetched as text (SQLite): the canonical integer text SQLite writes.
/// A REAL or text stored in the column cannot be an int64 value: `DataError`, where the rows
/// path returns a float or a str.
pub fn int_texts<T: Default + TryFrom<i64>>(
    v: &mut Vec<T>,
    nulls: &mut NullBufferBuilder,
    values: &ColumnValues<'_>,
    rows: std::ops::Range<usize>,
    at: &Located<'_>,
    t: IntType,
) -> Result<()> {
    v.reserve(rows.len());
    for row in rows {
        // Read a word at a time where the value lies in its element (24 bytes, as bound).
        let n = match values {
            ColumnValues::Variable(c) => match c.elements.indicators.get(row) {
                Some(&len) if len >= 0 && len as usize <= c.capacity => {
                    let start = row * c.elements.elem;
                    match c.elements.data.get(start..start + c.elements.elem) {
                        Some(element) => {
                            Some(NumberText::integer_in_element(element, len as usize))
                        }
                        None => values.value(row).map(NumberText::integer),
                    }
                }
                _ => values.value(row).map(NumberText::integer),
            },
            _ => values.value(row).map(NumberText::integer),
        };
        match n {
            Some(NumberText::Int(x)) => {
                v.push(at.narrow(x, row, t)?);
                nulls.append_non_null();
            }
            None => {
                v.push(T::default());
                nulls.append_null();
            }
            Some(_) => {
                let text = values
                    .value(row)
                    .map(String::from_utf8_lossy)
                    .unwrap_or_default();
                return Err(at.error(
                    row,
                    "22018",
                    format!("{text:?} is stored in this integer column and is no integer; CAST it in the query"),
                ));
            }
        }
    }
    Ok(())
}

/// A double element (`SQL_C_DOUBLE`), or a float's 4 bytes.
#[inline]
pub fn float(b: &[u8], row: usize, at: &Located<'_>) -> Result<f64> {
    if let Some(w) = b.first_chunk::<8>() {
        return Ok(f64::from_ne_bytes(*w));
    }
    match b.first_chunk::<4>() {
        Some(w) => Ok(f32::from_ne_bytes(*w) as f64),
        None => Err(at.error(
            row,
            "22018",
            format!("the driver returned an invalid double {b:?}"),
        )),
    }
}

/// A floating-point column fetched as text (SQLite): text that is no number is refused.
#[inline]
pub fn float_text(b: &[u8], row: usize, at: &Located<'_>) -> Result<f64> {
    match NumberText::float(b) {
        NumberText::Float(v) => Ok(v),
        // Past 2^53 (`NumberText::float`): a double would change it.
        NumberText::Int(v) => Err(at.error(
            row,
            "22003",
            format!("the integer {v} is stored in this floating-point column and a double can't hold it exactly; CAST it in the query"),
        )),
        NumberText::Text => Err(at.error(
            row,
            "22018",
            format!(
                "{:?} is stored in this floating-point column and is no number; CAST it in the query",
                String::from_utf8_lossy(b)
            ),
        )),
    }
}

/// Decimal text (`-123.4500`) as the `decimal128(precision, scale)` integer: exact or refused
/// (more digits than the precision, a nonzero digit past the scale, NaN, an exponent).
pub fn decimal(b: &[u8], precision: u8, scale: i8, row: usize, at: &Located<'_>) -> Result<i128> {
    let refuse = |why: &str| {
        at.error(
            row,
            "22003",
            format!(
                "{:?} {why} decimal128({precision}, {scale}); CAST the column in the query (to a \
                 NUMERIC of that precision and scale, or to text)",
                String::from_utf8_lossy(b)
            ),
        )
    };
    let text = b.trim_ascii();
    let (negative, digits) = match text.split_first() {
        Some((b'-', rest)) => (true, rest),
        Some((b'+', rest)) => (false, rest),
        _ => (false, text),
    };
    let (int_part, frac_part) = match digits.iter().position(|&c| c == b'.') {
        Some(dot) => (&digits[..dot], &digits[dot + 1..]),
        None => (digits, &digits[..0]),
    };
    if int_part.is_empty() && frac_part.is_empty()
        || !int_part.iter().chain(frac_part).all(u8::is_ascii_digit)
    {
        return Err(refuse("is not a plain decimal number for"));
    }
    let scale_digits = scale.max(0) as usize;
    let (kept, cut) = frac_part.split_at(frac_part.len().min(scale_digits));
    if cut.iter().any(|&c| c != b'0') {
        return Err(refuse("has more fractional digits than"));
    }
    let padding = scale_digits - kept.len();
    let too_many = || refuse("has more digits than");
    let mut value: i128 = 0;
    for &c in int_part.iter().chain(kept) {
        value = value
            .checked_mul(10)
            .and_then(|v| v.checked_add(i128::from(c - b'0')))
            .ok_or_else(too_many)?;
    }
    for _ in 0..padding {
        value = value.checked_mul(10).ok_or_else(too_many)?;
    }
    // 10^38 < i128::MAX: precision is at most 38 (`schema`).
    if value >= 10i128.pow(u32::from(precision)) {
        return Err(too_many());
    }
    Ok(if negative { -value } else { value })
}

#[inline]
pub fn bit(b: &[u8], row: usize, at: &Located<'_>) -> Result<bool> {
    match b.first() {
        Some(&bit) => Ok(bit != 0),
        None => Err(at.error(row, "22018", "the driver returned an empty bit".into())),
    }
}

fn days_in_month(year: i64, month: i64) -> i64 {
    match month {
        4 | 6 | 9 | 11 => 30,
        2 if (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 => 29,
        2 => 28,
        _ => 31,
    }
}

/// A date the rows path can also give (Python's years 1 to 9999): year 0, month 0 (MariaDB's
/// zero dates) and PostgreSQL's infinities refused there are refused here.
fn valid_date(year: i64, month: i64, day: i64) -> bool {
    (1..=9999).contains(&year)
        && (1..=12).contains(&month)
        && day >= 1
        && day <= days_in_month(year, month)
}

#[inline]
pub fn date(b: &[u8], row: usize, at: &Located<'_>) -> Result<i32> {
    if b.len() < 6 {
        return Err(at.error(
            row,
            "22018",
            format!("the driver returned an invalid date {b:?}"),
        ));
    }
    let d = temporal::read_date(b);
    let (y, m, day) = (i64::from(d.year), i64::from(d.month), i64::from(d.day));
    if !valid_date(y, m, day) {
        return Err(at.error(
            row,
            "22008",
            format!("{y}-{m:02}-{day:02} is not a date datetime can hold"),
        ));
    }
    Ok(days_from_civil(y, m, day) as i32)
}

/// Signed microseconds, from the text a duration's TIME column is fetched as (MariaDB's
/// `-838:59:59.999999`).
#[inline]
pub fn duration(b: &[u8], row: usize, at: &Located<'_>) -> Result<i64> {
    temporal::parse_duration(b).ok_or_else(|| {
        at.error(
            row,
            "22018",
            format!(
                "the driver returned an invalid time {:?}",
                String::from_utf8_lossy(b)
            ),
        )
    })
}

/// Microseconds since midnight, from the text a time column is fetched as.
#[inline]
pub fn time(b: &[u8], row: usize, at: &Located<'_>) -> Result<i64> {
    match temporal::parse_time(b) {
        Some((h, m, s, us)) => Ok(((i64::from(h) * 60 + i64::from(m)) * 60 + i64::from(s))
            * 1_000_000
            + i64::from(us)),
        None => Err(at.error(
            row,
            "22018",
            format!(
                "the driver returned an invalid time {:?}",
                String::from_utf8_lossy(b)
            ),
        )),
    }
}

/// Microseconds since 1970-01-01 00:00:00, from a `SQL_C_TYPE_TIMESTAMP` element.
#[inline]
pub fn timestamp(b: &[u8], row: usize, at: &Located<'_>) -> Result<i64> {
    if b.len() < 16 {
        return Err(at.error(
            row,
            "22018",
            format!("the driver returned an invalid timestamp {b:?}"),
        ));
    }
    let t = temporal::read_timestamp(b);
    let (y, mo, d) = (i64::from(t.year), i64::from(t.month), i64::from(t.day));
    let (h, mi, s) = (i64::from(t.hour), i64::from(t.minute), i64::from(t.second));
    if !valid_date(y, mo, d) || h > 23 || mi > 59 || s > 59 {
        return Err(at.error(
            row,
            "22008",
            format!("{y}-{mo:02}-{d:02} {h:02}:{mi:02}:{s:02} is not a date datetime can hold"),
        ));
    }
    if !t.fraction.is_multiple_of(1000) {
        return Err(at.error(
            row,
            "22008",
            format!(
                "timestamp has sub-microsecond precision ({} ns), which timestamp[us] cannot hold",
                t.fraction
            ),
        ));
    }
    let seconds = days_from_civil(y, mo, d) * 86_400 + (h * 60 + mi) * 60 + s;
    Ok(seconds * 1_000_000 + i64::from(t.fraction / 1000))
}

/// Appends the bytes of one text or binary value to `out` in the column's Arrow form: UTF-8
/// checked, UTF-16 transcoded, narrow text decoded, a GUID as its canonical text.
pub fn var(
    conversion: &Conversion,
    b: &[u8],
    out: &mut Vec<u8>,
    row: usize,
    at: &Located<'_>,
) -> Result<()> {
    let decode = |encoding: &'static str, offset: usize| Error::Decode {
        column: format!("{} (row {})", at.column, at.first_row + row + 1),
        encoding,
        offset,
    };
    match conversion {
        Conversion::Binary => out.extend_from_slice(b),
        Conversion::Utf16 => {
            if !b.len().is_multiple_of(2) {
                return Err(decode("UTF-16", b.len() - 1));
            }
            let units = b.chunks_exact(2).map(|u| u16::from_ne_bytes([u[0], u[1]]));
            let mut buf = [0u8; 4];
            for (i, c) in char::decode_utf16(units).enumerate() {
                let c = c.map_err(|_| decode("UTF-16", i * 2))?;
                out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            }
        }
        Conversion::Narrow(codec, decoder) => {
            let text = decoder
                .decode(codec, b)
                .map_err(|why| at.error(row, "22018", why))?;
            out.extend_from_slice(text.as_bytes());
        }
        Conversion::GuidText => {
            if b.len() < 16 {
                return Err(at.error(
                    row,
                    "22018",
                    format!("the driver returned an invalid GUID {b:?}"),
                ));
            }
            let text = guid::guid_text(&guid::guid_to_rfc_bytes(b));
            out.extend(text.iter().map(u8::to_ascii_lowercase));
        }
        _ => match std::str::from_utf8(b) {
            Ok(_) => out.extend_from_slice(b),
            Err(e) => return Err(decode("UTF-8", e.valid_up_to())),
        },
    }
    Ok(())
}

/// UTC microseconds since the epoch of a zoned timestamp the driver gave as `zone`'s wall
/// time (a `SQL_C_TYPE_TIMESTAMP` element): a wall time the zone shows twice, or never,
/// is refused with the way out, never guessed.
#[inline]
pub fn zoned_timestamp(b: &[u8], zone: SessionZone, row: usize, at: &Located<'_>) -> Result<i64> {
    let wall = timestamp(b, row, at)?;
    if zone.is_utc() {
        return Ok(wall);
    }
    let secs = wall.div_euclid(1_000_000);
    match zone.offset_at_wall(secs) {
        Ok(offset) => Ok(wall - i64::from(offset) * 1_000_000),
        Err(why) => {
            let shown = DateTime::from_timestamp_micros(wall)
                .map(|t| t.naive_utc().to_string())
                .unwrap_or_else(|| wall.to_string());
            let what = match why {
                NoInstant::Repeated(a, b) => format!(
                    "zoned timestamp {shown} names two instants in the session's time zone \
                     {zone} (UTC offsets {a} s and {b} s: the hour repeated when daylight \
                     saving time ends), and the driver drops the offset that tells them apart"
                ),
                NoInstant::Skipped => format!(
                    "zoned timestamp {shown} is a wall time the session's time zone {zone} skips"
                ),
            };
            Err(at.error(
                row,
                "22008",
                format!("{what}; run the query with SET TIME ZONE 'UTC' to read it"),
            ))
        }
    }
}
