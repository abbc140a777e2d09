//! Exact numerics: the plain-text form of decimals bound as parameters.

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

#[cfg(test)]
mod tests {
    use super::*;

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
