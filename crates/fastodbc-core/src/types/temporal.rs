//! Date and time helpers shared by fetch and bind.

use std::fmt::Write;

use crate::ffi::{SqlDate, SqlTimestamp};

/// Appends `v` in decimal, zero-padded to `width` digits: `write!` with `{:02}` costs ~600
/// instructions a field, which made text timestamps a tenth of an executemany's time.
/// Days from 1970-01-01 to a valid proleptic Gregorian date (Howard Hinnant's algorithm).
pub fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The proleptic Gregorian date (year, month, day) `days` after 1970-01-01, the inverse of
/// `days_from_civil`.
pub fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

fn push_padded(out: &mut String, v: u32, width: usize) {
    let mut digits = [b'0'; 10];
    let mut at = digits.len();
    let mut rest = v;
    while rest > 0 {
        at -= 1;
        digits[at] = b'0' + (rest % 10) as u8;
        rest /= 10;
    }
    let start = at.min(digits.len() - width.min(digits.len()));
    for &d in &digits[start..] {
        out.push(d as char);
    }
}

/// Writes `HH:MM:SS[.ffffff]`, the text form times are bound as (it keeps microseconds).
pub fn format_time(out: &mut String, h: u8, m: u8, s: u8, us: u32) {
    push_padded(out, h.into(), 2);
    out.push(':');
    push_padded(out, m.into(), 2);
    out.push(':');
    push_padded(out, s.into(), 2);
    if us != 0 {
        out.push('.');
        push_padded(out, us, 6);
    }
}

/// Writes `YYYY-MM-DD`.
pub fn format_date(out: &mut String, year: i16, month: u16, day: u16) {
    if year < 0 {
        let _ = write!(out, "{year:05}");
    } else {
        push_padded(out, year as u32, 4);
    }
    out.push('-');
    push_padded(out, month.into(), 2);
    out.push('-');
    push_padded(out, day.into(), 2);
}

/// Writes `YYYY-MM-DD HH:MM:SS[.ffffff]` for a timestamp (fraction in nanoseconds).
pub fn format_timestamp(out: &mut String, t: &SqlTimestamp) {
    format_date(out, t.year, t.month, t.day);
    out.push(' ');
    format_time(
        out,
        t.hour as u8,
        t.minute as u8,
        t.second as u8,
        t.fraction / 1000,
    );
}

/// A time of day parsed from a driver's text (`HH:MM:SS[.fraction]`), fraction in microseconds.
/// Digits past the sixth are dropped only if they are zeros; otherwise `None` (caller raises).
pub fn parse_time(text: &[u8]) -> Option<(u8, u8, u8, u32)> {
    let t = std::str::from_utf8(text).ok()?.trim();
    let (hms, frac) = match t.split_once('.') {
        Some((a, b)) => (a, Some(b)),
        None => (t, None),
    };
    let mut it = hms.split(':');
    let h: u8 = it.next()?.parse().ok()?;
    let m: u8 = it.next()?.parse().ok()?;
    let s: u8 = it.next()?.parse().ok()?;
    if it.next().is_some() || h > 23 || m > 59 || s > 59 {
        return None;
    }
    let us = match frac {
        None => 0,
        Some(f) => {
            if f.is_empty() || !f.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            let (head, tail) = f.split_at(f.len().min(6));
            if tail.bytes().any(|b| b != b'0') {
                return None;
            }
            let mut v: u32 = head.parse().ok()?;
            for _ in head.len()..6 {
                v *= 10;
            }
            v
        }
    };
    Some((h, m, s, us))
}

/// A duration in microseconds parsed from a time's text as MariaDB gives it
/// (`[-]H+:MM:SS[.fraction]`, hours past 23 and a sign allowed: its TIME holds
/// -838:59:59.999999 to 838:59:59.999999). `None` for anything else.
pub fn parse_duration(text: &[u8]) -> Option<i64> {
    let t = std::str::from_utf8(text).ok()?.trim();
    let (negative, t) = match t.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, t),
    };
    let (h, rest) = t.split_once(':')?;
    if h.is_empty() || h.len() > 9 || !h.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let hours: i64 = h.parse().ok()?;
    let (_, m, s, us) = parse_time(format!("00:{rest}").as_bytes())?;
    let micros = ((hours * 60 + i64::from(m)) * 60 + i64::from(s)) * 1_000_000 + i64::from(us);
    Some(if negative { -micros } else { micros })
}

/// Reads an `SQL_C_TYPE_DATE` element.
#[inline]
pub fn read_date(b: &[u8]) -> SqlDate {
    SqlDate {
        year: i16::from_ne_bytes([b[0], b[1]]),
        month: u16::from_ne_bytes([b[2], b[3]]),
        day: u16::from_ne_bytes([b[4], b[5]]),
    }
}

/// Reads an `SQL_C_TYPE_TIMESTAMP` element.
#[inline]
pub fn read_timestamp(b: &[u8]) -> SqlTimestamp {
    let u = |i: usize| u16::from_ne_bytes([b[i], b[i + 1]]);
    SqlTimestamp {
        year: i16::from_ne_bytes([b[0], b[1]]),
        month: u(2),
        day: u(4),
        hour: u(6),
        minute: u(8),
        second: u(10),
        fraction: u32::from_ne_bytes([b[12], b[13], b[14], b[15]]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_parse_with_any_fraction_width() {
        assert_eq!(parse_time(b"12:34:56"), Some((12, 34, 56, 0)));
        assert_eq!(parse_time(b"12:34:56.5"), Some((12, 34, 56, 500_000)));
        assert_eq!(parse_time(b"00:00:00.000001"), Some((0, 0, 0, 1)));
        assert_eq!(
            parse_time(b"23:59:59.999999000"),
            Some((23, 59, 59, 999_999))
        );
        assert_eq!(parse_time(b"23:59:59.9999991"), None);
        assert_eq!(parse_time(b"25:00:00"), None);
    }

    #[test]
    fn format_then_parse_round_trips() {
        let mut s = String::new();
        format_time(&mut s, 1, 2, 3, 40);
        assert_eq!(s, "01:02:03.000040");
        assert_eq!(parse_time(s.as_bytes()), Some((1, 2, 3, 40)));
    }

    #[test]
    fn formats_match_write() {
        let mut rng = 0x2545_f491_4f6c_dd1du64;
        let mut next = |m: u64| {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng % m
        };
        for i in 0..20_000u32 {
            let t = SqlTimestamp {
                year: if i < 10 {
                    [0, 1, 9, 10, 99, 999, 1000, 9999, -1, -45][i as usize]
                } else {
                    next(10_000) as i16
                },
                month: next(13) as u16,
                day: if i == 11 { 123 } else { next(32) as u16 },
                hour: next(24) as u16,
                minute: next(60) as u16,
                second: next(60) as u16,
                fraction: if i % 3 == 0 {
                    0
                } else {
                    next(1_000_000) as u32 * 1000
                },
            };
            let mut got = String::new();
            format_timestamp(&mut got, &t);
            let mut want = if t.year < 0 {
                format!("{:05}", t.year)
            } else {
                format!("{:04}", t.year)
            };
            want += &format!(
                "-{:02}-{:02} {:02}:{:02}:{:02}",
                t.month, t.day, t.hour, t.minute, t.second
            );
            if t.fraction != 0 {
                want += &format!(".{:06}", t.fraction / 1000);
            }
            assert_eq!(got, want);
        }
        let mut s = String::new();
        push_padded(&mut s, u32::MAX, 2);
        assert_eq!(s, u32::MAX.to_string());
    }
}
