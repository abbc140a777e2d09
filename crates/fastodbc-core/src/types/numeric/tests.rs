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
    // Integers past 2^53 (SQLite's NUMERIC keeps them) stay integers; 2^53 itself and a text
    // past i64 are doubles.
    assert_eq!(
        NumberText::float(b"9007199254740993"),
        Int(9007199254740993)
    );
    assert_eq!(
        NumberText::float(b"-9223372036854775807"),
        Int(-9223372036854775807)
    );
    assert_eq!(
        NumberText::float(b"9007199254740992"),
        Float(9007199254740992.0)
    );
    assert_eq!(
        NumberText::float(b"12345678901234567890"),
        Float(12345678901234567890.0)
    );
    assert_eq!(
        NumberText::float(b"1234567890123456.5"),
        Float(1234567890123456.5)
    );
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
    let want = match (
        reference_integer(text),
        std::str::from_utf8(text).map(str::parse::<f64>),
    ) {
        // An integer no double holds stays an integer (`float_columns_keep_integers_...`).
        (NumberText::Int(v), _) if v.unsigned_abs() > 1 << 53 => NumberText::Int(v),
        (_, Ok(Ok(v))) => NumberText::Float(v),
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
            let want = match want {
                NumberText::Int(_) => NumberText::Float(text_as_double(text)),
                other => other,
            };
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
    assert!(matches!(NumberText::float(b"-0.0"), Float(v) if v.to_bits() == (-0.0f64).to_bits()));
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

#[test]
fn float_columns_keep_integers_no_double_holds() {
    // SQLite's NUMERIC columns (described as doubles) keep integers as integers.
    assert!(matches!(
        NumberText::float(b"123456789012345678"),
        NumberText::Int(123_456_789_012_345_678)
    ));
    assert!(matches!(
        NumberText::float(b"-9007199254740993"),
        NumberText::Int(-9_007_199_254_740_993)
    ));
    // Up to 2^53 a double is exact, and stays the column's double.
    assert!(
        matches!(NumberText::float(b"9007199254740992"), NumberText::Float(v) if v == 9007199254740992.0)
    );
    assert!(matches!(NumberText::float(b"5"), NumberText::Float(v) if v == 5.0));
    assert!(matches!(
        NumberText::float(b"1.23456789012345e+17"),
        NumberText::Float(_)
    ));
}

fn text_as_double(text: &[u8]) -> f64 {
    std::str::from_utf8(text)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(f64::NAN)
}
