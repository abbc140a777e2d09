//! Numerics: number columns read from their text; the plain-text form of decimals bound as
//! parameters is in `decimal_param`.

mod decimal_param;
pub use decimal_param::{decimal_parts, plain_decimal};

/// An integer element: SQL_C_SBIGINT's 8 bytes, or fewer where the driver wrote the column's
/// own narrower integer and said so in the length (MariaDB Connector/ODBC 3.1 does for the
/// SMALLINT columns of its catalog results, `getTypeInfo`'s among them); `None` for any other
/// length. Every consumer reads integer cells through this.
#[inline]
pub fn int_of_width(b: &[u8]) -> Option<i64> {
    Some(match *b {
        [x] => x as i8 as i64,
        [x, y] => i16::from_ne_bytes([x, y]) as i64,
        [x, y, z, w] => i32::from_ne_bytes([x, y, z, w]) as i64,
        _ => i64::from_ne_bytes(b.try_into().ok()?),
    })
}

/// A value of a number column fetched as text (`Quirks::converts_numbers_silently`). SQLite keeps
/// whatever a column is given: an INTEGER column holds integers, but also REALs its affinity
/// could not turn into integers (3.7, 1e20), and any column can hold text that does not look
/// like a number. Each comes back as what it is, as Python's own `sqlite3` returns it, never
/// cut to a number or dropped to NULL.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum NumberText {
    Int(i64),
    /// A REAL: SQLite writes one with a `.` or an exponent (`3.7`, `1.0e+20`), or `Inf`.
    Float(f64),
    /// Anything else: the text itself.
    Text,
}

impl NumberText {
    /// Reads the text of an integer column. The integer form is the canonical one SQLite
    /// writes (`-?(0|[1-9][0-9]*)` within i64); `007` or `+5` can only be stored text, so stay
    /// text. The value is read as `integer_in_element` reads one in a bound buffer, from a
    /// zero-filled element of its own (values re-read whole after truncation come here).
    #[inline]
    pub fn integer(b: &[u8]) -> NumberText {
        let mut element = [0u8; 24];
        match element.get_mut(..b.len()) {
            Some(head) => {
                head.copy_from_slice(b);
                match Self::integer_words(&element, b.len()) {
                    Some(v) => NumberText::Int(v),
                    None => Self::not_integer(b),
                }
            }
            // Longer than any i64's text.
            None => Self::not_integer(b),
        }
    }

    /// `integer` for a value that lies in a buffer element, read a machine word at a time:
    /// `element` is the whole element (the value, its terminator, and whatever a longer
    /// earlier value left behind it), the value is its first `len` bytes. Text bound number
    /// columns have 24-byte elements, which hold any i64 (20 characters) and three whole words
    /// to load; a shorter element is copied into one by `integer`.
    #[inline]
    pub fn integer_in_element(element: &[u8], len: usize) -> NumberText {
        let value = element.get(..len).unwrap_or(element);
        match element.first_chunk::<24>() {
            Some(e) => match Self::integer_words(e, len) {
                Some(v) => NumberText::Int(v),
                None => Self::not_integer(value),
            },
            None => Self::integer(value),
        }
    }

    /// The integer `e[..len]` is in the canonical form, or `None`, a word at a time: the
    /// digits (after any sign) are at most three words, loaded so the last digit is the top
    /// byte of the last word (little-endian: the highest address is the most significant
    /// byte); the first word is shifted up to drop what lies past its digits, and the zeros
    /// that come in read as leading 0 digits once the words are turned to digit values
    /// (`^ '0'`). Then eight or sixteen digits at once (`eight_digit_values`,
    /// `sixteen_digit_values`): one straight line of word operations for each of 1..=8, 9..=16
    /// and 17..=19 digits, no loop over characters.
    #[inline]
    fn integer_words(e: &[u8; 24], len: usize) -> Option<i64> {
        const ZEROS: u64 = 0x3030_3030_3030_3030;
        // Digit values of the eight bytes at `at`. Every offset used is at most 12 (the last
        // eight of 20 bytes); `& 15` changes none of them but lets the compiler see the bytes
        // lie in the element, so there is no bounds check to pay.
        let word = |at: usize| {
            let at = at & 15;
            let mut bytes = [0u8; 8];
            bytes.copy_from_slice(&e[at..at + 8]);
            u64::from_le_bytes(bytes) ^ ZEROS
        };
        let negative = e[0] == b'-';
        let first = negative as usize;
        // 1..=19 digits (none wraps to a huge count, even for a stale '-' with `len` 0; more
        // than 20 bytes are more digits), and no leading zero but in "0".
        let digits = len.wrapping_sub(first);
        if digits.wrapping_sub(1) >= 19 || (e[first] == b'0' && len != 1) {
            return None;
        }
        let head = word(first);
        let v = if digits <= 8 {
            let x = head << (8 * (8 - digits));
            if non_digit_bytes(x) != 0 {
                return None;
            }
            eight_digit_values(x)
        } else if digits <= 16 {
            sixteen_digit_values(head << (8 * (16 - digits)), word(len - 8))?
        } else {
            let high = head << (8 * (24 - digits));
            let v = sixteen_digit_values(word(len - 16), word(len - 8))
                .filter(|_| non_digit_bytes(high) == 0)?;
            // At most 19 digits: below u64::MAX, but maybe past i64.
            let v = eight_digit_values(high) * 10_000_000_000_000_000 + v;
            if v > i64::MAX as u64 + negative as u64 {
                return None;
            }
            v
        };
        // -(2^63) wraps to i64::MIN.
        Some(if negative {
            (v as i64).wrapping_neg()
        } else {
            v as i64
        })
    }

    /// An integer column's text that is not an integer: a REAL, or the text itself.
    #[cold]
    fn not_integer(b: &[u8]) -> NumberText {
        // The REAL SQLite writes, with its `.` or exponent: read exactly when it is simple.
        if let Some((v, true)) = simple_float(b) {
            return NumberText::Float(v);
        }
        let real_form =
            b.iter().any(|&c| matches!(c, b'.' | b'e' | b'E')) || matches!(b, b"Inf" | b"-Inf");
        match std::str::from_utf8(b).ok().filter(|_| real_form) {
            Some(s) => s.parse::<f64>().map_or(NumberText::Text, NumberText::Float),
            None => NumberText::Text,
        }
    }

    /// Reads the text of a floating-point column: the whole text as a double (the number the
    /// driver's `strtod` would have read, correctly rounded), else the text itself, where the
    /// driver would have returned NULL or the number at the start of it.
    /// An integer past 2^53 (more than 15 digits: SQLite's NUMERIC columns, described as
    /// doubles, keep integers so) is `Int`, which no double holds exactly.
    #[inline]
    pub fn float(b: &[u8]) -> NumberText {
        // The fast path first: it takes no integer past 2^53 (its `m` stays within it), so
        // the integer reading below is only tried on the texts it leaves.
        if let Some((v, _)) = simple_float(b) {
            return NumberText::Float(v);
        }
        if b.len() > 15 {
            // Only the integer reading (`integer_words`): `integer`'s fallback for other
            // texts would read the double that is read below.
            let mut element = [0u8; 24];
            if let Some(head) = element.get_mut(..b.len()) {
                head.copy_from_slice(b);
                if let Some(v) = Self::integer_words(&element, b.len()) {
                    if v.unsigned_abs() > EXACT_INTEGER_LIMIT {
                        return NumberText::Int(v);
                    }
                }
            }
        }
        match std::str::from_utf8(b)
            .ok()
            .and_then(|s| s.parse::<f64>().ok())
        {
            Some(v) => NumberText::Float(v),
            None => NumberText::Text,
        }
    }
}

/// Powers of ten a double holds exactly: 10^22 = 5^22 * 2^22 is the last whose odd part fits
/// the 53-bit significand (5^22 < 2^53 < 5^23).
const EXACT_POWERS_OF_TEN: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// 2^53: every integer up to it is a double exactly.
const EXACT_INTEGER_LIMIT: u64 = 1 << 53;

/// The double `str::parse::<f64>` reads from `b`, for the simple texts SQLite writes for a
/// REAL (`%!.15g`: `-190138201.5568`, `1.0e+20`), and whether the text had a `.` or an
/// exponent; `None` for anything else, which is left to `str::parse`.
///
/// Simple is `-?D*(\.D*)?([eE][-+]?D{1,4})?`, under 32 bytes, with 1..=19 digits `D` in all
/// before the exponent, read as an integer `m` (all of them, a `.` dropped) times 10^`e` (the
/// exponent less the digits after the `.`), where `m <= 2^53` and `e` in -22..=22 — or in
/// 23..=37 with `m * 10^(e - 22)` still at most 2^53. Then `m` and 10^`e` are both doubles
/// exactly, and one multiply or divide of the two rounds once, correctly (IEEE 754), to the
/// one nearest double: what a correct parser such as std's returns (std's own fast path is
/// this one, Clinger's). The sign is applied after, exactly (`-0` stays `-0.0`).
///
/// The digits are read up to eight at a time from a zero-padded copy of the text (a zero byte
/// is not a digit, so every run stops at the end): `digit_runs`.
#[inline]
fn simple_float(b: &[u8]) -> Option<(f64, bool)> {
    // x87 arithmetic (32-bit x86 without SSE2) rounds twice, so the one operation is not
    // exact there: std's fast path is off on it too.
    if b.len() >= 32 || cfg!(all(target_arch = "x86", not(target_feature = "sse2"))) {
        return None;
    }
    let mut buf = [0u8; 40];
    buf.get_mut(..b.len())?.copy_from_slice(b);
    let negative = buf[0] == b'-';
    let start = negative as usize;
    // Up to 31 digits are read, wrapping `m`; more than 19 are refused below.
    let (mut m, mut at) = digit_runs(&buf, 0, start);
    let mut digits = at - start;
    let mut fraction = 0;
    let mut real_form = false;
    if buf[at & 31] == b'.' {
        real_form = true;
        let (f, end) = digit_runs(&buf, m, at + 1);
        fraction = end - (at + 1);
        (m, at) = (f, end);
        digits += fraction;
    }
    if digits == 0 || digits > 19 || m > EXACT_INTEGER_LIMIT {
        return None;
    }
    let mut e = -(fraction as i32);
    if at < b.len() {
        // 'e' or 'E' (no other byte is either once 0x20 is set), then the whole rest.
        let (&c, mut rest) = b.get(at..)?.split_first()?;
        if c | 0x20 != b'e' {
            return None;
        }
        real_form = true;
        let mut exponent_negative = false;
        if let Some((&sign @ (b'-' | b'+'), after)) = rest.split_first() {
            exponent_negative = sign == b'-';
            rest = after;
        }
        if !(1..=4).contains(&rest.len()) {
            return None;
        }
        let mut x: i32 = 0;
        for &c in rest {
            let d = c.wrapping_sub(b'0');
            if d > 9 {
                return None;
            }
            x = x * 10 + d as i32;
        }
        e += if exponent_negative { -x } else { x };
    }
    let v = if e < 0 {
        m as f64 / *EXACT_POWERS_OF_TEN.get(e.unsigned_abs() as usize)?
    } else if let Some(&p) = EXACT_POWERS_OF_TEN.get(e as usize) {
        m as f64 * p
    } else {
        // 10^e = 10^(e - 22) * 10^22, the first factor taken into `m` while it stays exact.
        let shifted = 10u64
            .checked_pow((e - 22) as u32)
            .and_then(|p| m.checked_mul(p))
            .filter(|&s| s <= EXACT_INTEGER_LIMIT)?;
        shifted as f64 * 1e22
    };
    Some((if negative { -v } else { v }, real_form))
}

/// The run of digits in `buf` from `at` (below 32), read onto `m` (`m * 10^k + run`,
/// wrapping), and where the run ends: a word of eight bytes at a time, its leading digits
/// found from the first non-digit byte and shifted to the top (the zeros coming in below read
/// as leading 0 digits), as `NumberText::integer_words` does.
#[inline(always)]
fn digit_runs(buf: &[u8; 40], mut m: u64, mut at: usize) -> (u64, usize) {
    const SCALE: [u64; 9] = [
        1,
        10,
        100,
        1_000,
        10_000,
        100_000,
        1_000_000,
        10_000_000,
        100_000_000,
    ];
    loop {
        let from = at & 31;
        let mut bytes = [0u8; 8];
        bytes.copy_from_slice(&buf[from..from + 8]);
        let d = u64::from_le_bytes(bytes) ^ 0x3030_3030_3030_3030;
        // The first non-digit byte is the lowest flagged one (carries only go up from it).
        let k = (non_digit_bytes(d).trailing_zeros() / 8) as usize;
        if k == 0 {
            return (m, at);
        }
        let run = eight_digit_values(d << (64 - 8 * k));
        m = m.wrapping_mul(SCALE[k]).wrapping_add(run);
        at += k;
        if k < 8 {
            return (m, at);
        }
    }
}

/// Bytes of `d` (digit values, one a byte) that are not 0..=9, as a nonzero mask: a byte above
/// 0x0F keeps a high nibble bit, one of 10..=15 gets one from `+ 6`. A byte of 0xFA or more
/// carries into the next, but its own high nibble is set already.
#[inline]
fn non_digit_bytes(d: u64) -> u64 {
    (d | d.wrapping_add(0x0606_0606_0606_0606)) & 0xF0F0_F0F0_F0F0_F0F0
}

/// Eight digit values (byte 0 the most significant) as their number: pairs, quads, then the
/// eight, one multiply a step (each multiply adds a lane times 10, 100, 10000 to its
/// neighbour). Meaningless, but no panic, if a byte is not 0..=9.
#[inline]
fn eight_digit_values(d: u64) -> u64 {
    let d = (d.wrapping_mul(10 << 8 | 1) >> 8) & 0x00FF_00FF_00FF_00FF;
    let d = (d.wrapping_mul(100 << 16 | 1) >> 16) & 0x0000_FFFF_0000_FFFF;
    d.wrapping_mul(10_000 << 32 | 1) >> 32
}

/// Sixteen digit values (`high`'s byte 0 the most significant, `low`'s byte 7 the least) as
/// their number, or `None` if a byte is not 0..=9: two words of `eight_digit_values`.
#[cfg_attr(all(target_arch = "x86_64", target_feature = "sse2"), allow(dead_code))]
#[inline]
fn sixteen_digit_values_swar(high: u64, low: u64) -> Option<u64> {
    if non_digit_bytes(high) | non_digit_bytes(low) != 0 {
        return None;
    }
    Some(eight_digit_values(high) * 100_000_000 + eight_digit_values(low))
}

#[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
use sixteen_digit_values_swar as sixteen_digit_values;

/// `sixteen_digit_values_swar` in one SSE2 register (part of every x86-64): the check is one
/// unsigned byte max, and each merge of neighbouring lanes (pairs, quads, eights) is one or
/// two multiply-adds, where the word version needs shift, mask and multiply per word and step.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[inline]
fn sixteen_digit_values(high: u64, low: u64) -> Option<u64> {
    // SAFETY: the build enables SSE2 (the cfg above; every x86-64 has it), so its
    // instructions are there to run.
    unsafe { sixteen_digit_values_sse2(high, low) }
}

#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[target_feature(enable = "sse2")]
#[inline]
fn sixteen_digit_values_sse2(high: u64, low: u64) -> Option<u64> {
    use std::arch::x86_64::*;
    let x = _mm_set_epi64x(low as i64, high as i64);
    let nine = _mm_set1_epi8(9);
    if _mm_movemask_epi8(_mm_cmpeq_epi8(_mm_max_epu8(x, nine), nine)) != 0xFFFF {
        return None;
    }
    // 16-bit lanes of two digits, the more significant in the low byte: 10 * low + high.
    let tens = _mm_mullo_epi16(_mm_and_si128(x, _mm_set1_epi16(0xFF)), _mm_set1_epi16(10));
    let pairs = _mm_add_epi16(tens, _mm_srli_epi16::<8>(x));
    // 32-bit lanes of two pairs (100 * first + second), back to 16 bits (at most 9999, no
    // saturation), then 32-bit lanes of eight digits (10000 * first + second).
    let quads = _mm_madd_epi16(pairs, _mm_set1_epi32(1 << 16 | 100));
    let quads = _mm_packs_epi32(quads, quads);
    let eights = _mm_madd_epi16(quads, _mm_set1_epi32(1 << 16 | 10_000));
    let both = _mm_cvtsi128_si64(eights) as u64;
    Some((both & 0xFFFF_FFFF) * 100_000_000 + (both >> 32))
}

#[cfg(test)]
mod tests;
