//! Numbers to Arrow: integers (bound, or read from their text), floats, exact numerics to
//! `Decimal128` and bits, with the rows path's refusals.

use std::ops::Range;

use arrow_buffer::NullBufferBuilder;
use fastodbc_core::types::numeric::{int_of_width, NumberText};
use fastodbc_core::{ffi, ColumnValues, Result};

use super::Located;
use crate::schema::IntType;

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

/// The indicators and `SQL_C_SBIGINT` elements of a block's rows `rows`, where each is NULL or a
/// whole element (no driver wrote a narrower integer and said so: `int_of_width`): the common
/// case, converted in one pass by `int_run`. `None` otherwise, for the per-value path.
#[inline]
pub fn bigint_run<'a>(
    values: &ColumnValues<'a>,
    rows: &Range<usize>,
) -> Option<(&'a [ffi::Len], &'a [u8])> {
    let ColumnValues::Fixed(c) = values else {
        return None;
    };
    let e = c.0;
    if e.elem != 8 {
        return None;
    }
    let indicators = e.indicators.get(rows.clone())?;
    let data = e
        .data
        .get(rows.start.checked_mul(8)?..rows.end.checked_mul(8)?)?;
    if indicators.iter().any(|&i| (1..8).contains(&i)) {
        return None;
    }
    Some((indicators, data))
}

/// Appends a `bigint_run` starting at block row `first`, each value checked against the column's
/// type: one pass over the elements, and the validity appended at once when no row is NULL.
pub fn int_run<T: Default + TryFrom<i64>>(
    v: &mut Vec<T>,
    nulls: &mut NullBufferBuilder,
    (indicators, data): (&[ffi::Len], &[u8]),
    first: usize,
    at: &Located<'_>,
    t: IntType,
) -> Result<()> {
    v.reserve(indicators.len());
    let words = data
        .chunks_exact(8)
        .map(|w| w.first_chunk::<8>().map_or(0, |w| i64::from_ne_bytes(*w)));
    if !indicators.contains(&ffi::SQL_NULL_DATA) {
        for (i, x) in words.enumerate() {
            v.push(at.narrow(x, first + i, t)?);
        }
        nulls.append_n_non_nulls(indicators.len());
        return Ok(());
    }
    for (i, (&ind, x)) in indicators.iter().zip(words).enumerate() {
        if ind == ffi::SQL_NULL_DATA {
            v.push(T::default());
            nulls.append_null();
        } else {
            v.push(at.narrow(x, first + i, t)?);
            nulls.append_non_null();
        }
    }
    Ok(())
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

/// 10^n for n in 0..=38: the bounds of `decimal128` precisions, the factors of scale padding.
const POW10: [i128; 39] = {
    let mut t = [1i128; 39];
    let mut i = 1;
    while i < 39 {
        t[i] = t[i - 1] * 10;
        i += 1;
    }
    t
};

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
    let not_plain = || refuse("is not a plain decimal number for");
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
    if int_part.is_empty() && frac_part.is_empty() {
        return Err(not_plain());
    }
    let scale_digits = scale.max(0) as usize;
    let (kept, cut) = frac_part.split_at(frac_part.len().min(scale_digits));
    // `None` past i128: refused below, after the checks that come first.
    let value = digit_value(int_part, kept).ok_or_else(not_plain)?;
    if !cut.iter().all(u8::is_ascii_digit) {
        return Err(not_plain());
    }
    if cut.iter().any(|&c| c != b'0') {
        return Err(refuse("has more fractional digits than"));
    }
    let padding = scale_digits - kept.len();
    let value = value.and_then(|v| v.checked_mul(*POW10.get(padding)?));
    // Precision is at most 38 (`schema`).
    let bound = POW10
        .get(usize::from(precision))
        .copied()
        .unwrap_or(i128::MAX);
    match value {
        Some(v) if v < bound => Ok(if negative { -v } else { v }),
        _ => Err(refuse("has more digits than")),
    }
}

/// The digits of `int_part` then `kept` as one integer: `None` if one is no digit, `Some(None)`
/// past i128. Up to 18 digits add up in a `u64` with no overflow to check (most decimals).
#[inline]
fn digit_value(int_part: &[u8], kept: &[u8]) -> Option<Option<i128>> {
    if int_part.len() + kept.len() <= 18 {
        let mut v = 0u64;
        for part in [int_part, kept] {
            for &c in part {
                let d = c.wrapping_sub(b'0');
                if d > 9 {
                    return None;
                }
                v = v * 10 + u64::from(d);
            }
        }
        return Some(Some(i128::from(v)));
    }
    let mut v = Some(0i128);
    for &c in int_part.iter().chain(kept) {
        let d = c.wrapping_sub(b'0');
        if d > 9 {
            return None;
        }
        v = v.and_then(|v| v.checked_mul(10)?.checked_add(i128::from(d)));
    }
    Some(v)
}

#[inline]
pub fn bit(b: &[u8], row: usize, at: &Located<'_>) -> Result<bool> {
    match b.first() {
        Some(&bit) => Ok(bit != 0),
        None => Err(at.error(row, "22018", "the driver returned an empty bit".into())),
    }
}
