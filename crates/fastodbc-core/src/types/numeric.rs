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
