//! The session's time zone, for drivers that give a zoned timestamp as its wall time in that
//! zone (`Strategy::session_zone_sql`): the instant is found again from the wall time and the
//! zone's rules (chrono-tz's copy of the IANA database), never guessed. A wall time the zone
//! repeats (the hour a change back from daylight saving time adds) names two instants and is
//! refused, as is one it skips.

use chrono::{DateTime, FixedOffset, MappedLocalTime, Offset, TimeZone};
use chrono_tz::Tz;

/// A session zone: an IANA zone or a fixed offset from UTC.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SessionZone {
    Named(Tz),
    /// Seconds east of UTC.
    Fixed(i32),
}

impl std::fmt::Display for SessionZone {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SessionZone::Named(tz) => f.write_str(tz.name()),
            SessionZone::Fixed(secs) => {
                let sign = if *secs < 0 { '-' } else { '+' };
                let a = secs.unsigned_abs();
                write!(f, "UTC{sign}{:02}:{:02}", a / 3600, a / 60 % 60)?;
                if a % 60 != 0 {
                    write!(f, ":{:02}", a % 60)?;
                }
                Ok(())
            }
        }
    }
}

/// Why a wall time names no single instant in its zone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoInstant {
    /// The zone shows this wall time twice (at these two offsets, seconds east of UTC).
    Repeated(i32, i32),
    /// The zone skips this wall time.
    Skipped,
}

impl SessionZone {
    /// The zone PostgreSQL's `SHOW TimeZone` names: an IANA name (`Europe/Paris`, `UTC`,
    /// `EST5EDT`) or a POSIX-style fixed offset (`<+05>-05`, `UTC+3`: POSIX counts hours west
    /// of UTC, so `<+05>-05` is five hours east). `None` for anything else (a POSIX rule with
    /// daylight saving time, `localtime`).
    pub fn parse(setting: &str) -> Option<SessionZone> {
        let s = setting.trim();
        if let Ok(tz) = s.parse::<Tz>() {
            return Some(match tz {
                Tz::UTC | Tz::Etc__UTC | Tz::Etc__UCT | Tz::UCT | Tz::Zulu | Tz::Etc__Zulu => {
                    SessionZone::Fixed(0)
                }
                named => SessionZone::Named(named),
            });
        }
        posix_fixed_offset(s).map(SessionZone::Fixed)
    }

    /// Whether instants read in this zone are the wall times themselves.
    pub fn is_utc(&self) -> bool {
        *self == SessionZone::Fixed(0)
    }

    /// Seconds to subtract from wall time `wall_secs` (seconds since 1970-01-01 00:00 of the
    /// wall clock) to get the instant's seconds since the epoch.
    pub fn offset_at_wall(&self, wall_secs: i64) -> Result<i32, NoInstant> {
        let tz = match self {
            SessionZone::Fixed(off) => return Ok(*off),
            SessionZone::Named(tz) => tz,
        };
        let Some(wall) = DateTime::from_timestamp(wall_secs, 0).map(|d| d.naive_utc()) else {
            return Err(NoInstant::Skipped);
        };
        match tz.offset_from_local_datetime(&wall) {
            MappedLocalTime::Single(off) => Ok(off.fix().local_minus_utc()),
            MappedLocalTime::Ambiguous(a, b) => Err(NoInstant::Repeated(
                a.fix().local_minus_utc(),
                b.fix().local_minus_utc(),
            )),
            MappedLocalTime::None => Err(NoInstant::Skipped),
        }
    }
}

/// `<+05>-05`, `<-03:30>+03:30`, `UTC+3`, `XYZ-05:30:15`: a POSIX TZ string with no daylight
/// saving part, as seconds east of UTC.
fn posix_fixed_offset(s: &str) -> Option<i32> {
    let rest = if let Some(quoted) = s.strip_prefix('<') {
        &quoted[quoted.find('>')? + 1..]
    } else {
        let letters = s.find(|c: char| !c.is_ascii_alphabetic())?;
        if letters < 3 {
            return None;
        }
        &s[letters..]
    };
    let (west, digits) = match rest.as_bytes().first()? {
        b'+' => (1, &rest[1..]),
        b'-' => (-1, &rest[1..]),
        b'0'..=b'9' => (1, rest),
        _ => return None,
    };
    let mut parts = digits.split(':');
    let mut secs = 0i32;
    for (i, unit) in [3600, 60, 1].into_iter().enumerate() {
        match parts.next() {
            Some(p) if !p.is_empty() && p.len() <= 2 && p.bytes().all(|b| b.is_ascii_digit()) => {
                let v: i32 = p.parse().ok()?;
                if (i == 0 && v > 24) || (i > 0 && v > 59) {
                    return None;
                }
                secs += v * unit;
            }
            Some(_) => return None,
            None if i == 0 => return None,
            None => break,
        }
    }
    // Anything left (a daylight saving part) is a rule this reads no further.
    if parts.next().is_some() {
        return None;
    }
    FixedOffset::east_opt(-west * secs).map(|o| o.local_minus_utc())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wall(y: i32, mo: u32, d: u32, h: u32, mi: u32) -> i64 {
        chrono::NaiveDate::from_ymd_opt(y, mo, d)
            .and_then(|d| d.and_hms_opt(h, mi, 0))
            .map(|t| t.and_utc().timestamp())
            .unwrap_or_default()
    }

    #[test]
    fn settings_postgresql_shows() {
        assert_eq!(SessionZone::parse("UTC"), Some(SessionZone::Fixed(0)));
        assert_eq!(SessionZone::parse("Etc/UTC"), Some(SessionZone::Fixed(0)));
        assert_eq!(
            SessionZone::parse("<+05>-05"),
            Some(SessionZone::Fixed(5 * 3600))
        );
        assert_eq!(
            SessionZone::parse("<-03:30>+03:30"),
            Some(SessionZone::Fixed(-(3 * 3600 + 1800)))
        );
        assert_eq!(
            SessionZone::parse("UTC+3"),
            Some(SessionZone::Fixed(-3 * 3600))
        );
        assert_eq!(
            SessionZone::parse("Asia/Kolkata"),
            Some(SessionZone::Named(Tz::Asia__Kolkata))
        );
        assert!(matches!(
            SessionZone::parse("EST5EDT"),
            Some(SessionZone::Named(_))
        ));
        for unknown in ["localtime", "", "PST8PDT,M3.2.0,M11.1.0x", "<+05", "AB+1"] {
            assert_eq!(SessionZone::parse(unknown), None, "{unknown}");
        }
        assert!(SessionZone::parse("UTC").is_some_and(|z| z.is_utc()));
        let shown = |s: &str| SessionZone::parse(s).map(|z| z.to_string());
        assert_eq!(shown("<+05>-05").as_deref(), Some("UTC+05:00"));
        assert_eq!(shown("<-03:30>+03:30").as_deref(), Some("UTC-03:30"));
        assert_eq!(shown("Europe/Paris").as_deref(), Some("Europe/Paris"));
    }

    #[test]
    fn offsets_across_daylight_saving_time() {
        let ny = SessionZone::Named(Tz::America__New_York);
        assert_eq!(ny.offset_at_wall(wall(2024, 1, 15, 12, 0)), Ok(-5 * 3600));
        assert_eq!(ny.offset_at_wall(wall(2024, 7, 15, 12, 0)), Ok(-4 * 3600));
        // 2024-11-03 01:30 happens twice in New York; 2024-03-10 02:30 never.
        assert_eq!(
            ny.offset_at_wall(wall(2024, 11, 3, 1, 30)),
            Err(NoInstant::Repeated(-4 * 3600, -5 * 3600))
        );
        assert_eq!(
            ny.offset_at_wall(wall(2024, 3, 10, 2, 30)),
            Err(NoInstant::Skipped)
        );
        assert_eq!(ny.offset_at_wall(wall(2024, 11, 3, 2, 0)), Ok(-5 * 3600));
        let kolkata = SessionZone::Named(Tz::Asia__Kolkata);
        assert_eq!(kolkata.offset_at_wall(wall(2024, 3, 1, 17, 30)), Ok(19_800));
    }
}
