//! Dates and times as parameters: the ODBC structs in their native layout, or their text where
//! the driver's strategy says (`BindOptions`); a time's binding follows its fraction of a
//! second, which `SQL_C_TYPE_TIME` cannot carry.

use super::{packed, BindOptions, Binding, ParamValue};
use crate::ffi;

fn decimal_digits_for_time(us: u32) -> i16 {
    if us == 0 {
        0
    } else {
        6
    }
}

pub(super) fn time_binding(rows: &[Vec<ParamValue>], c: usize, opts: BindOptions) -> Binding {
    // Text keeps microseconds; SQL_C_TYPE_TIME has no fraction field.
    let digits = rows
        .iter()
        .map(|r| match &r[c] {
            ParamValue::Time(_, _, _, us) => decimal_digits_for_time(*us),
            _ => 0,
        })
        .max()
        .unwrap_or(0);
    let size = if digits > 0 { 15 } else { 8 };
    if opts.time_as_varchar && digits == 0 && !opts.temporal_as_varchar {
        // Whole seconds: a native TIME, which `SELECT ?` returns as a time
        // (`Strategy::time_as_varchar`).
        (ffi::SQL_C_TYPE_TIME, ffi::SQL_TYPE_TIME, 8, 0, 6)
    } else if opts.time_as_varchar {
        (ffi::SQL_C_CHAR, ffi::SQL_VARCHAR, size, 0, 16)
    } else {
        (ffi::SQL_C_CHAR, ffi::SQL_TYPE_TIME, size, digits, 16)
    }
}

/// A `SQL_DATE_STRUCT`.
#[inline]
pub(super) fn date_bytes(d: &ffi::SqlDate) -> [u8; 6] {
    packed::<6>(&[
        &d.year.to_ne_bytes(),
        &d.month.to_ne_bytes(),
        &d.day.to_ne_bytes(),
    ])
}

/// A `SQL_TIMESTAMP_STRUCT`.
#[inline]
pub(super) fn timestamp_bytes(t: &ffi::SqlTimestamp) -> [u8; 16] {
    packed::<16>(&[
        &t.year.to_ne_bytes(),
        &t.month.to_ne_bytes(),
        &t.day.to_ne_bytes(),
        &t.hour.to_ne_bytes(),
        &t.minute.to_ne_bytes(),
        &t.second.to_ne_bytes(),
        &t.fraction.to_ne_bytes(),
    ])
}

/// A `SQL_TIME_STRUCT` (whole seconds).
#[inline]
pub(super) fn time_bytes(h: u8, m: u8, s: u8) -> [u8; 6] {
    packed::<6>(&[
        &u16::from(h).to_ne_bytes(),
        &u16::from(m).to_ne_bytes(),
        &u16::from(s).to_ne_bytes(),
    ])
}
