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
    /// text.
    #[inline]
    pub fn integer(b: &[u8]) -> NumberText {
        let (negative, digits) = match b.split_first() {
            Some((b'-', rest)) => (true, rest),
            _ => (false, b),
        };
        if !digits.is_empty()
            && digits.len() <= 19
            && (digits[0] != b'0' || (digits.len() == 1 && !negative))
        {
            // 19 digits stay below u64::MAX: no overflow checks per digit, one range check.
            let mut v: u64 = 0;
            let mut all_digits = true;
            let mut chunks = digits.chunks_exact(8);
            for chunk in &mut chunks {
                let mut eight = [0u8; 8];
                eight.copy_from_slice(chunk);
                match eight_digits(eight) {
                    Some(x) => v = v.wrapping_mul(100_000_000).wrapping_add(x),
                    None => all_digits = false,
                }
            }
            for &d in chunks.remainder() {
                let d = d.wrapping_sub(b'0');
                all_digits &= d <= 9;
                v = v.wrapping_mul(10).wrapping_add(d as u64);
            }
            if all_digits {
                if !negative && v <= i64::MAX as u64 {
                    return NumberText::Int(v as i64);
                }
                if negative && v <= 1 << 63 {
                    return NumberText::Int((v as i64).wrapping_neg());
                }
            }
        }
        Self::not_integer(b)
    }

    /// `integer` for a value that lies in a buffer element, read a machine word at a time:
    /// `element` is the whole element (the value, its terminator, and whatever a longer
    /// earlier value left behind it), the value is its first `len` bytes. Text bound number
    /// columns have 24-byte elements, which hold any i64 (20 characters) and three whole words
    /// to load; a shorter element takes `integer`'s byte-wise path.
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
        match std::str::from_utf8(b)
            .ok()
            .and_then(|s| s.parse::<f64>().ok())
        {
            Some(v) => NumberText::Float(v),
            None => NumberText::Text,
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

/// Eight ASCII digits (most significant first) as their value, in a few word operations
/// instead of a loop; `None` if any byte is not a digit.
#[inline]
fn eight_digits(bytes: [u8; 8]) -> Option<u64> {
    const NIBBLES: u64 = 0xF0F0_F0F0_F0F0_F0F0;
    let x = u64::from_le_bytes(bytes);
    // A digit is 0x30..=0x39: high nibble 3, and still 3 after adding 6.
    let high = x & NIBBLES;
    let carried = (x.wrapping_add(0x0606_0606_0606_0606) & NIBBLES) >> 4;
    if high | carried != 0x3333_3333_3333_3333 {
        return None;
    }
    // Pairs, then quads, then the eight: each step merges neighbouring lanes.
    let v = x - 0x3030_3030_3030_3030;
    let v = (v.wrapping_mul(10).wrapping_add(v >> 8)) & 0x00FF_00FF_00FF_00FF;
    let v = (v.wrapping_mul(100).wrapping_add(v >> 16)) & 0x0000_FFFF_0000_FFFF;
    Some((v.wrapping_mul(10_000).wrapping_add(v >> 32)) & 0xFFFF_FFFF)
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
}
