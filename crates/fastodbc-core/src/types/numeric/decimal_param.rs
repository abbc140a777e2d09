//! `decimal.Decimal` parameters: the parts of a Decimal's text and the plain decimal text
//! (with its precision and scale) that is bound as SQL_NUMERIC.

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
