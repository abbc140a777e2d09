//! Dates and times to Arrow: `Date32`, `Time64`, `Duration`, `Timestamp` (microseconds; an
//! instant in UTC for a zoned column), with the rows path's refusals.

use chrono::DateTime;
use fastodbc_core::types::temporal;
use fastodbc_core::types::temporal::days_from_civil;
use fastodbc_core::Result;

use super::Located;
use crate::zone::{NoInstant, SessionZone};

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
    temporal::parse_duration(b).ok_or_else(|| invalid_time(b, row, at))
}

#[cold]
fn invalid_time(b: &[u8], row: usize, at: &Located<'_>) -> fastodbc_core::Error {
    at.error(
        row,
        "22018",
        format!(
            "the driver returned an invalid time {:?}",
            String::from_utf8_lossy(b)
        ),
    )
}

/// Microseconds since midnight, from the text a time column is fetched as.
#[inline]
pub fn time(b: &[u8], row: usize, at: &Located<'_>) -> Result<i64> {
    match temporal::parse_time(b) {
        Some((h, m, s, us)) => Ok(((i64::from(h) * 60 + i64::from(m)) * 60 + i64::from(s))
            * 1_000_000
            + i64::from(us)),
        None => Err(invalid_time(b, row, at)),
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
