//! Numerics: the plain-text form of decimals bound as parameters, and number columns read
//! from their text.

/// A value of a number column fetched as text (`DriverTraits::numbers_as_text`). SQLite keeps
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
    #[inline]
    pub fn float(b: &[u8]) -> NumberText {
        if let Some((v, _)) = simple_float(b) {
            return NumberText::Float(v);
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

/// Plain decimal text (no exponent) for `sign`, `digits` (ASCII, most significant first) and a
/// base-10 `exponent`, with its precision and scale: `(-1, "12345", -2)` is `-123.45` (5, 2);
/// `(0, "1", 3)` is `1000` (4, 0).
pub fn plain_decimal(negative: bool, digits: &str, exponent: i32) -> (String, u16, i16) {
    let digits = digits.trim_start_matches('0');
    let digits = if digits.is_empty() { "0" } else { digits };
    let mut out = String::with_capacity(digits.len() + 4);
    if negative && digits != "0" {
        out.push('-');
    }
    let (precision, scale);
    if exponent >= 0 {
        out.push_str(digits);
        if digits != "0" {
            for _ in 0..exponent {
                out.push('0');
            }
        }
        precision = out.trim_start_matches('-').len();
        scale = 0;
    } else {
        let s = (-exponent) as usize;
        if digits.len() > s {
            let (a, b) = digits.split_at(digits.len() - s);
            out.push_str(a);
            out.push('.');
            out.push_str(b);
            precision = digits.len();
        } else {
            out.push_str("0.");
            for _ in digits.len()..s {
                out.push('0');
            }
            out.push_str(digits);
            precision = s;
        }
        scale = s;
    }
    (out, precision as u16, scale as i16)
}

/// Sign, digits and base-10 exponent of a finite `decimal.Decimal` from its `str()`:
/// `[-]digits[.digits][E|e[+|-]digits]` (`-1.50E+3` is `(true, "150", 1)`), the form
/// `as_tuple()` gives without building a named tuple of digit objects (~8,000 instructions a
/// value). `None` for anything else (NaN, Infinity, an exponent outside i32), which no SQL
/// numeric holds.
pub fn decimal_parts(text: &str) -> Option<(bool, String, i32)> {
    let (negative, rest) = match text.as_bytes().first()? {
        b'-' => (true, &text[1..]),
        b'+' => (false, &text[1..]),
        _ => (false, text),
    };
    let (mantissa, exponent) = match rest.find(['E', 'e']) {
        Some(at) => (&rest[..at], rest[at + 1..].parse::<i32>().ok()?),
        None => (rest, 0),
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let all_digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if whole.len() + fraction.len() == 0 || !all_digits(whole) || !all_digits(fraction) {
        return None;
    }
    let exponent = exponent.checked_sub(i32::try_from(fraction.len()).ok()?)?;
    // Two pushes into one allocation: `[whole, fraction].concat()` is a generic join, left
    // out of line by some builds (+94 instructions a value, seen by `make bench-check`).
    let mut digits = String::with_capacity(whole.len() + fraction.len());
    digits.push_str(whole);
    digits.push_str(fraction);
    Some((negative, digits, exponent))
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
mod tests {
    use super::*;

    #[test]
    fn int_text_forms() {
        use NumberText::*;
        let cases: &[(&[u8], NumberText)] = &[
            (b"0", Int(0)),
            (b"42", Int(42)),
            (b"-17", Int(-17)),
            (b"9223372036854775807", Int(i64::MAX)),
            (b"-9223372036854775808", Int(i64::MIN)),
            (b"9223372036854775808", Text),
            (b"99999999999999999999", Text),
            (b"3.7", Float(3.7)),
            (b"1.0e+20", Float(1e20)),
            (b"-Inf", Float(f64::NEG_INFINITY)),
            (b"abc", Text),
            (b"12abc", Text),
            (b"0x1F", Text),
            (b"007", Text),
            (b"-0", Text),
            (b"+5", Text),
            (b" 42", Text),
            (b"", Text),
            (b"-", Text),
            (b"1.2.3", Text),
            (b"e", Text),
        ];
        for (text, want) in cases {
            assert_eq!(
                NumberText::integer(text),
                *want,
                "{:?}",
                String::from_utf8_lossy(text)
            );
        }
        // Every i64 written by Rust (as SQLite writes them) reads back, at every length.
        let mut v: i64 = 7;
        for _ in 0..19 {
            for x in [v, -v, v + 1, -(v - 1)] {
                assert_eq!(NumberText::integer(x.to_string().as_bytes()), Int(x));
            }
            v = v.saturating_mul(10).saturating_add(3);
        }
        // A non-digit anywhere in an eight-digit chunk, including bytes that carry.
        for bad in [b'/', b':', b' ', 0xFF, 0xFA, b'\0'] {
            for at in 0..16 {
                let mut t = b"1234567890123456".to_vec();
                t[at] = bad;
                assert_eq!(NumberText::integer(&t), Text, "{t:?}");
            }
        }
    }

    /// The integer column rule spelled out plainly, for the word-wise parsers to agree with.
    fn reference_integer(b: &[u8]) -> NumberText {
        let digits = b.strip_prefix(b"-").unwrap_or(b);
        let canonical = !digits.is_empty()
            && digits.iter().all(u8::is_ascii_digit)
            && (digits[0] != b'0' || b == b"0");
        if canonical {
            if let Some(v) = std::str::from_utf8(b)
                .ok()
                .and_then(|s| s.parse::<i64>().ok())
            {
                return NumberText::Int(v);
            }
        }
        let real_form =
            b.iter().any(|&c| matches!(c, b'.' | b'e' | b'E')) || matches!(b, b"Inf" | b"-Inf");
        match std::str::from_utf8(b).ok().filter(|_| real_form) {
            Some(s) => s.parse::<f64>().map_or(NumberText::Text, NumberText::Float),
            None => NumberText::Text,
        }
    }

    /// Checks `text` with `integer` and, placed in 24-byte elements with every kind of stale
    /// byte after it (with and without a terminator), with `integer_in_element`.
    fn check_int(text: &[u8], want: NumberText) {
        let show = String::from_utf8_lossy(text);
        assert_eq!(NumberText::integer(text), want, "{show:?}");
        assert_eq!(reference_integer(text), want, "reference: {show:?}");
        for fill in [
            0u8, b'0', b'9', b'-', b'.', b'e', b' ', 0xFF, 0xFA, b'/', b':',
        ] {
            for terminated in [true, false] {
                let mut e = [fill; 32];
                e[..text.len()].copy_from_slice(text);
                if terminated {
                    e[text.len()] = 0;
                }
                for size in [24, 32] {
                    let got = NumberText::integer_in_element(&e[..size], text.len());
                    assert_eq!(got, want, "{show:?} in {:?}", &e[..size]);
                }
            }
        }
        // An element too short for the word-wise path: the value alone.
        assert_eq!(NumberText::integer_in_element(text, text.len()), want);
    }

    #[test]
    fn int_text_in_elements() {
        use NumberText::*;
        // Every digit count, with and without a sign, at the top and bottom of its length.
        let mut low: i64 = 1;
        for count in 1..=19 {
            let high = if count == 19 { i64::MAX } else { low * 10 - 1 };
            let first = if count == 1 { 0 } else { low };
            for v in [first, low, low + 1, high / 2, high - 1, high] {
                check_int(v.to_string().as_bytes(), Int(v));
                if v != 0 {
                    check_int((-v).to_string().as_bytes(), Int(-v));
                }
            }
            // A leading zero makes any length text ("0" itself aside), signed or not.
            let zero_led = format!("0{}", &high.to_string()[1..]);
            if count > 1 {
                check_int(zero_led.as_bytes(), Text);
                check_int(format!("-{zero_led}").as_bytes(), Text);
            }
            check_int(format!("+{high}").as_bytes(), Text);
            low = low.saturating_mul(10);
        }
        check_int(b"-9223372036854775808", Int(i64::MIN));
        check_int(b"-9223372036854775807", Int(i64::MIN + 1));
        check_int(b"-9223372036854775809", Text);
        check_int(b"9223372036854775808", Text);
        check_int(b"9999999999999999999", Text);
        check_int(b"-9999999999999999999", Text);
        check_int(b"10000000000000000000", Text);
        check_int(b"-10000000000000000000", Text);
        check_int(b"18446744073709551616", Text);
        for text in [
            &b"0"[..],
            b"-0",
            b"00",
            b"-00",
            b"",
            b"-",
            b"--1",
            b"1-",
            b"- 1",
        ] {
            check_int(text, reference_integer(text));
        }
        // Longer than any integer, up to the element's capacity and past it.
        for text in [
            &b"123456789012345678901"[..],
            b"1234567890123456789012",
            b"12345678901234567890123",
            b"1.5e+300000000000000000",
            b"-1.23456789012346e+308",
        ] {
            check_int(text, reference_integer(text));
        }
        // A non-digit at each position of each length, signed and not.
        for len in 1..=20 {
            for at in 0..len {
                for bad in [
                    b'/', b':', b' ', b'.', b'e', b'-', b'+', 0xFF, 0xFA, 0x80, b'\0',
                ] {
                    let mut t: Vec<u8> = (0..len).map(|i| b'1' + (i % 9) as u8).collect();
                    t[at] = bad;
                    check_int(&t, reference_integer(&t));
                    t.insert(0, b'-');
                    check_int(&t, reference_integer(&t));
                }
            }
        }
        // Many small random texts over the characters that matter.
        let alphabet = b"0123456789-+.eE /:\xff";
        let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
        for _ in 0..20_000 {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            let len = (seed >> 59) as usize % 24;
            let mut r = seed;
            let t: Vec<u8> = (0..len)
                .map(|i| {
                    r = r.rotate_left(7) ^ (i as u64).wrapping_mul(0x2545_F491_4F6C_DD1D);
                    // Mostly digits, so that long runs of them come up.
                    if !r.is_multiple_of(4) {
                        b'0' + (r >> 8) as u8 % 10
                    } else {
                        alphabet[(r >> 16) as usize % alphabet.len()]
                    }
                })
                .collect();
            check_int(&t, reference_integer(&t));
        }
        // A stale sign before a value of nothing.
        assert_eq!(
            NumberText::integer_in_element(b"-5000000000000000000000000", 0),
            Text
        );
        assert_eq!(
            NumberText::integer_in_element(b"1234567890123456789012345", 30),
            Text
        );
    }

    #[test]
    fn sixteen_digit_forms_agree() {
        // The SSE2 and word versions (the same function off x86-64), on digits and not.
        let mut seed: u64 = 0x2545_F491_4F6C_DD1D;
        for i in 0..100_000u32 {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            let mut bytes = [0u8; 16];
            for (k, b) in bytes.iter_mut().enumerate() {
                let r = (seed >> (k * 4 % 60)) as u8;
                *b = r % 10;
            }
            // One in four gets a byte out of range, at any place, of any size.
            if i.is_multiple_of(4) {
                bytes[(seed >> 40) as usize % 16] = 10 + (seed >> 48) as u8 % 246;
            }
            let high = u64::from_le_bytes(bytes[..8].try_into().unwrap_or_default());
            let low = u64::from_le_bytes(bytes[8..].try_into().unwrap_or_default());
            let want = bytes
                .iter()
                .try_fold(0u64, |v, &d| (d <= 9).then(|| v * 10 + d as u64));
            assert_eq!(sixteen_digit_values(high, low), want, "{bytes:?}");
            assert_eq!(sixteen_digit_values_swar(high, low), want, "{bytes:?}");
        }
        let nines = u64::from_le_bytes([9; 8]);
        assert_eq!(
            sixteen_digit_values(nines, nines),
            Some(9_999_999_999_999_999)
        );
        assert_eq!(sixteen_digit_values(0, 0), Some(0));
    }

    #[test]
    fn float_column_text() {
        use NumberText::*;
        for v in [
            0.1,
            -1e300,
            5e-324,
            1.7976931348623157e308,
            123456789.125,
            -0.0,
            3.0,
        ] {
            assert_eq!(NumberText::float(format!("{v:e}").as_bytes()), Float(v));
            assert_eq!(NumberText::float(v.to_string().as_bytes()), Float(v));
        }
        assert_eq!(NumberText::float(b"1.0e+20"), Float(1e20));
        assert_eq!(NumberText::float(b"42"), Float(42.0));
        assert_eq!(NumberText::float(b"Inf"), Float(f64::INFINITY));
        for text in [
            &b"abc"[..],
            b"12abc",
            b"",
            b" 1.5",
            b"1.5 ",
            b"0x1p3",
            b"\xff",
        ] {
            assert_eq!(NumberText::float(text), Text, "{text:?}");
        }
    }

    /// A `NumberText` with a double as its bits, so NaNs compare too.
    fn bits(n: NumberText) -> (u8, u64) {
        match n {
            NumberText::Int(v) => (0, v as u64),
            NumberText::Float(v) => (1, v.to_bits()),
            NumberText::Text => (2, 0),
        }
    }

    /// `float` (and `integer`, whose REALs take the same path) against `str::parse::<f64>`,
    /// bit for bit, and `simple_float` wherever it answers; true if `simple_float` did.
    fn check_float(text: &[u8]) -> bool {
        let show = String::from_utf8_lossy(text);
        let want = match std::str::from_utf8(text).map(str::parse::<f64>) {
            Ok(Ok(v)) => NumberText::Float(v),
            _ => NumberText::Text,
        };
        assert_eq!(bits(NumberText::float(text)), bits(want), "{show:?}");
        assert_eq!(
            bits(NumberText::integer(text)),
            bits(reference_integer(text)),
            "integer: {show:?}"
        );
        match simple_float(text) {
            Some((v, _)) => {
                assert_eq!(bits(NumberText::Float(v)), bits(want), "simple: {show:?}");
                true
            }
            None => false,
        }
    }

    /// `v` as SQLite's `%!.15g` writes it: 15 significant digits, trailing zeros dropped but
    /// one kept after a `.`, an exponent (`e+20`, `e-05`) below 1e-4 or from 1e15.
    fn sqlite_g15(v: f64) -> String {
        if v.is_infinite() {
            return if v > 0.0 { "Inf" } else { "-Inf" }.into();
        }
        let sci = format!("{:.14e}", v);
        let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
        let exp: i32 = exp.parse().unwrap_or(0);
        let negative = mantissa.starts_with('-');
        let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
        let sign = if negative { "-" } else { "" };
        let trim = |s: &str| {
            let t = s.trim_end_matches('0');
            if t.is_empty() {
                "0".to_string()
            } else {
                t.to_string()
            }
        };
        if !(-4..15).contains(&exp) {
            let e_sign = if exp < 0 { '-' } else { '+' };
            format!(
                "{sign}{}.{}e{e_sign}{:02}",
                &digits[..1],
                trim(&digits[1..]),
                exp.abs()
            )
        } else if exp >= 0 {
            let point = exp as usize + 1;
            format!("{sign}{}.{}", &digits[..point], trim(&digits[point..]))
        } else {
            let zeros = "0".repeat((-exp - 1) as usize);
            format!("{sign}0.{}", trim(&format!("{zeros}{digits}")))
        }
    }

    /// The forms `v` can be written in with `sig` significant digits: scientific (`e`, `E`,
    /// signed and zero-padded exponents), plain (`123.45`, `0.00012`, `1200`, `1200.`), with
    /// and without a sign.
    fn written_forms(v: f64, sig: usize) -> Vec<String> {
        let sci = format!("{:.*e}", sig - 1, v.abs());
        let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
        let exp: i32 = exp.parse().unwrap_or(0);
        let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
        let mut forms = vec![
            sci.clone(),
            format!("{mantissa}E{exp:+}"),
            format!(
                "{mantissa}e{}{:03}",
                if exp < 0 { '-' } else { '+' },
                exp.abs()
            ),
            format!("{digits}e{}", exp - (digits.len() as i32 - 1)),
        ];
        // Plain, where it is not absurdly long.
        if (-30..40).contains(&exp) {
            let point = exp + 1;
            let plain = if point <= 0 {
                format!("0.{}{digits}", "0".repeat((-point) as usize))
            } else if point as usize >= digits.len() {
                let int = format!("{digits}{}", "0".repeat(point as usize - digits.len()));
                forms.push(format!("{int}."));
                forms.push(format!("{int}.0"));
                int
            } else {
                format!(
                    "{}.{}",
                    &digits[..point as usize],
                    &digits[point as usize..]
                )
            };
            if let Some(no_lead) = plain.strip_prefix('0') {
                forms.push(no_lead.to_string());
            }
            forms.push(plain);
        }
        let signed: Vec<String> = forms
            .iter()
            .flat_map(|f| [format!("-{f}"), format!("+{f}")])
            .collect();
        forms.extend(signed);
        forms
    }

    /// A small fixed-seed generator for the random tests.
    fn next_random(seed: &mut u64) -> u64 {
        *seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let x = *seed;
        (x ^ (x >> 29)).wrapping_mul(0xBF58_476D_1CE4_E5B9) ^ (x >> 32)
    }

    #[test]
    fn float_text_as_sqlite_writes_it() {
        let mut seed: u64 = 0x1234_5678_9ABC_DEF1;
        let (mut checked, mut simple) = (0u32, 0u32);
        let mut check = |t: &str| {
            checked += 1;
            simple += check_float(t.as_bytes()) as u32;
        };
        // Special values, powers of ten and two, and the edges of the double range.
        let mut specials = vec![
            0.0,
            -0.0,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::MAX,
            f64::MIN,
            f64::MIN_POSITIVE,
            5e-324,
            f64::from_bits(0x000F_FFFF_FFFF_FFFF),
            9007199254740992.0,
            9007199254740993.0,
            0.1,
            0.2,
            0.3,
        ];
        for k in -30..=40 {
            specials.push(10f64.powi(k));
            specials.push(2f64.powi(k * 2));
        }
        for &v in &specials {
            check(&sqlite_g15(v));
            check(&sqlite_g15(-v));
        }
        // Random doubles of every magnitude (random bits), and of the magnitudes tables hold.
        for i in 0..300_000u32 {
            let r = next_random(&mut seed);
            let v = if i % 3 == 0 {
                f64::from_bits(r)
            } else {
                let scale = 10f64.powi((r % 24) as i32 - 8);
                let x = (r >> 11) as f64 / (1u64 << 53) as f64 * scale;
                if r & 1 == 0 {
                    x
                } else {
                    -x
                }
            };
            if v.is_nan() {
                continue;
            }
            check(&sqlite_g15(v));
        }
        assert!(checked > 300_000);
        // Most of what SQLite writes is simple.
        assert!(simple > checked / 2, "{simple} of {checked}");
    }

    #[test]
    fn float_text_random_digits() {
        let mut seed: u64 = 0x0DDB_1A5E_5BAD_5EED;
        let (mut checked, mut simple) = (0u32, 0u32);
        for i in 0..200_000u32 {
            let r = next_random(&mut seed);
            let v = if i % 4 == 0 {
                f64::from_bits(r)
            } else {
                let scale = 10f64.powi((r % 60) as i32 - 30);
                (r >> 11) as f64 / (1u64 << 53) as f64 * scale
            };
            if !v.is_finite() {
                continue;
            }
            let sig = 1 + (next_random(&mut seed) % 17) as usize;
            for f in written_forms(v, sig) {
                checked += 1;
                simple += check_float(f.as_bytes()) as u32;
            }
        }
        assert!(checked > 1_000_000, "{checked}");
        assert!(simple > checked / 4, "{simple} of {checked}");
    }

    #[test]
    fn float_text_odd_forms() {
        use NumberText::*;
        let odd: &[&str] = &[
            "0",
            "-0",
            "+0",
            "0.0",
            "-0.0",
            "0e0",
            "-0e0",
            "0e-400",
            "0e400",
            "0.",
            ".0",
            "-.0",
            "1.",
            ".5",
            "-.5",
            "+.5",
            "1e5",
            "1E5",
            "1E+05",
            "1e-05",
            "1.e3",
            ".5e1",
            "+1.5",
            "1e+0",
            "1e-0",
            "1e0000",
            "1e00000",
            "1e+00005",
            "1e22",
            "1e23",
            "1e37",
            "1e38",
            "9e22",
            "9007199254740992e22",
            "9007199254740993",
            "9007199254740992",
            "9007199254740992.0",
            "900719925474099.3",
            "90071992547409.93e1",
            "4.9e-324",
            "5.0e-324",
            "2.4e-324",
            "2.5e-324",
            "1.7976931348623157e308",
            "1.7976931348623159e308",
            "1e308",
            "1e309",
            "-1e309",
            "1e-22",
            "1e-23",
            "123456789e-22",
            "123456789e-23",
            "1234567890123456789",
            "12345678901234567890",
            "1234567890123456789e-5",
            "0.000000000000000000001",
            "0.0000000000000000001",
            "00000000000000000001.5",
            "1.000000000000000000",
            "0000000000000000000",
            "00000000000000000000",
            "1.0e+20",
            "1.0e-20",
            "Inf",
            "-Inf",
            "+Inf",
            "inf",
            "INF",
            "infinity",
            "-Infinity",
            "+infinity",
            "NaN",
            "nan",
            "-NaN",
            "+nan",
            "1e",
            "1e+",
            "1e-",
            "e5",
            "-e5",
            ".",
            "-.",
            "+",
            "-",
            "",
            " 1",
            "1 ",
            "1.2.3",
            "1..2",
            "1e5.5",
            "1e5e5",
            "1e--5",
            "1e+-5",
            "--1",
            "+-1",
            "-+1",
            "1-",
            "1+",
            "0x10",
            "1_000",
            "1,5",
            "١",
            "1\0",
            "\0",
            "1.5\n",
            "1ee5",
            "1E",
            "1d5",
            "1f",
            "Infx",
            "1e99999",
            "1e-99999",
            "1e2147483648",
            "1e-2147483649",
            "1e4294967296",
            "1e99999999999999999999",
            "1.5e+4",
            "1.5e+04",
            "1.5e+004",
            "1.5e+0004",
            "1.5e+00004",
        ];
        for text in odd {
            check_float(text.as_bytes());
        }
        // Each simple form claimed, with what std reads.
        for (text, want) in [
            ("-0", -0.0f64),
            ("-0.0", -0.0),
            ("0e0", 0.0),
            ("1.", 1.0),
            (".5", 0.5),
            ("1E+05", 1e5),
            ("1e22", 1e22),
            ("1e23", 1e23),
            ("1e37", 1e37),
            ("9007199254740992e22", 9007199254740992e22),
            ("90071992547409.92e24", 9007199254740992e22),
            ("9007199254740992", 9007199254740992.0),
            ("190138201.5568", 190138201.5568),
            ("451412.704482610", 451412.70448261),
        ] {
            assert_eq!(
                simple_float(text.as_bytes()).map(|(v, _)| v.to_bits()),
                Some(want.to_bits()),
                "{text}"
            );
        }
        // Left to std: what needs more than one exact operation, and what is not simple.
        for text in [
            "1e38",
            "9007199254740993e22",
            "9007199254740993",
            "4.9e-324",
            "5.0e-324",
            "12345678901234567890",
            "0.000000000000000000001",
            "1e",
            "e5",
            ".",
            "+1.5",
            "Inf",
            "-Inf",
            "inf",
            "NaN",
            "1e+00005",
            " 1",
            "1.2.3",
        ] {
            assert_eq!(simple_float(text.as_bytes()), None, "{text}");
        }
        assert_eq!(NumberText::float(b"1e23"), Float(1e23));
        assert_eq!(NumberText::float(b"-0"), Float(-0.0));
        assert!(
            matches!(NumberText::float(b"-0.0"), Float(v) if v.to_bits() == (-0.0f64).to_bits())
        );
        assert_eq!(NumberText::float(b"1e"), Text);
        // An integer column's pure digits stay integers or text; its REALs are read.
        assert_eq!(NumberText::integer(b"-0"), Text);
        assert_eq!(NumberText::integer(b"007"), Text);
        assert_eq!(NumberText::integer(b"-0.0"), Float(-0.0));
        assert_eq!(NumberText::integer(b"1e5"), Float(1e5));
        assert_eq!(NumberText::integer(b"99999999999999999999"), Text);
        // Every split of up to 20 digits around a `.`, with and without a sign and exponent:
        // every length up to the 32-byte limit and past it, every run length.
        let pool = b"98765432109876543210";
        for int in 0..=20 {
            for frac in 0..=20 {
                for point in [false, true] {
                    if !point && frac > 0 {
                        continue;
                    }
                    let mut t = pool[..int].to_vec();
                    if point {
                        t.push(b'.');
                        t.extend_from_slice(&pool[20 - frac..]);
                    }
                    for prefix in ["", "-", "+"] {
                        for suffix in ["", "e5", "E-05", "e+0022", "e-22", "e15", "x"] {
                            let text = [prefix.as_bytes(), &t, suffix.as_bytes()].concat();
                            check_float(&text);
                        }
                    }
                }
            }
        }
        // Random short texts over the characters that matter.
        let alphabet = b"0123456789-+.eE";
        let mut seed: u64 = 0xC0FF_EE00_1234_5678;
        for _ in 0..200_000 {
            let r = next_random(&mut seed);
            let len = (r % 12) as usize;
            let mut x = next_random(&mut seed);
            let t: Vec<u8> = (0..len)
                .map(|i| {
                    if i % 8 == 7 {
                        x = next_random(&mut seed);
                    }
                    let c = alphabet[(x % alphabet.len() as u64) as usize];
                    x /= alphabet.len() as u64;
                    c
                })
                .collect();
            check_float(&t);
        }
    }

    #[test]
    fn plain_forms() {
        assert_eq!(
            plain_decimal(true, "999999999999999999", -4),
            ("-99999999999999.9999".into(), 18, 4)
        );
        assert_eq!(plain_decimal(false, "1", 3), ("1000".into(), 4, 0));
        assert_eq!(plain_decimal(false, "5", -3), ("0.005".into(), 3, 3));
        assert_eq!(plain_decimal(true, "0", -2), ("0.00".into(), 2, 2));
        assert_eq!(plain_decimal(false, "0", 5), ("0".into(), 1, 0));
    }

    #[test]
    fn decimal_parts_of_str_forms() {
        let p = |t: &str| decimal_parts(t);
        assert_eq!(p("123.45"), Some((false, "12345".into(), -2)));
        assert_eq!(p("-123.45"), Some((true, "12345".into(), -2)));
        assert_eq!(p("0"), Some((false, "0".into(), 0)));
        assert_eq!(p("-0"), Some((true, "0".into(), 0)));
        assert_eq!(p("0.0001"), Some((false, "00001".into(), -4)));
        assert_eq!(p("1E+3"), Some((false, "1".into(), 3)));
        assert_eq!(p("1.50E+3"), Some((false, "150".into(), 1)));
        assert_eq!(p("-1.5e-7"), Some((true, "15".into(), -8)));
        assert_eq!(p("0E-7"), Some((false, "0".into(), -7)));
        assert_eq!(p("1E+2147483647"), Some((false, "1".into(), i32::MAX)));
        for bad in [
            "",
            "-",
            "NaN",
            "-NaN",
            "sNaN",
            "Infinity",
            "-Infinity",
            "1E",
            "1E+",
            ".",
            "1.2.3",
            "1E+2147483648",
            "1.5E-2147483648",
            "1a",
            " 1",
            "1_0",
        ] {
            assert_eq!(p(bad), None, "{bad:?}");
        }
        // What the INSERT sends: the same plain text as the digits-tuple path.
        let plain = |t: &str| {
            let (n, d, e) = decimal_parts(t).unwrap();
            plain_decimal(n, &d, e)
        };
        assert_eq!(plain("-123.4500"), ("-123.4500".into(), 7, 4));
        assert_eq!(plain("1.2E+5"), ("120000".into(), 6, 0));
        assert_eq!(plain("0.000"), ("0.000".into(), 3, 3));
        assert_eq!(plain("-0E-2"), ("0.00".into(), 2, 2));
    }
}
