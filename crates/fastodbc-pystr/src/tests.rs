use super::*;

fn decode16(units: &[u16]) -> Result<String, InvalidText> {
    let shape = utf16_shape(units)?;
    Ok(match shape.kind {
        TextKind::Ascii | TextKind::Latin1 => {
            let mut out = vec![0u8; shape.chars];
            utf16_write_ucs1(units, &mut out);
            out.iter().map(|&b| b as char).collect()
        }
        TextKind::Ucs2 => {
            let mut out = vec![0u16; shape.chars];
            utf16_write_ucs2(units, &mut out);
            out.iter()
                .map(|&u| char::from_u32(u as u32).unwrap())
                .collect()
        }
        TextKind::Ucs4 => {
            let mut out = vec![0u32; shape.chars];
            utf16_write_ucs4(units, &mut out);
            out.iter().map(|&u| char::from_u32(u).unwrap()).collect()
        }
    })
}

fn decode8(bytes: &[u8]) -> Result<String, InvalidText> {
    let shape = utf8_shape(bytes)?;
    let s = std::str::from_utf8(bytes).unwrap();
    let n = shape.chars;
    Ok(match shape.kind {
        TextKind::Ascii | TextKind::Latin1 => {
            let kind = shape.kind;
            let blocks = move |out: &mut [u8]| match kind {
                TextKind::Ascii => utf8_write_ucs1(bytes, kind, out),
                _ => utf8_write_latin1_blocks(bytes, out),
            };
            agreeing(
                n,
                0xAA,
                &[&|out| utf8_write_ucs1(bytes, kind, out), &blocks],
            )
            .iter()
            .map(|&b| b as char)
            .collect()
        }
        TextKind::Ucs2 => agreeing(
            n,
            0xAAAAu16,
            &[&|out| utf8_write_wide(s, out), &|out| {
                utf8_write_wide_blocks(s, out)
            }],
        )
        .iter()
        .map(|&u| char::from_u32(u as u32).unwrap())
        .collect(),
        TextKind::Ucs4 => agreeing(
            n,
            0xAAAA_AAAAu32,
            &[&|out| utf8_write_wide(s, out), &|out| {
                utf8_write_wide_blocks(s, out)
            }],
        )
        .iter()
        .map(|&u| char::from_u32(u).unwrap())
        .collect(),
    })
}

type Writer<'a, T> = &'a dyn Fn(&mut [T]);

/// The output of `writers` (the public writer, AVX-512 on CPUs that have it, and the
/// block writer it takes over from), which must agree; each writes the front `n` units of
/// a longer buffer, whose rest must keep `canary`.
fn agreeing<T: Copy + PartialEq + std::fmt::Debug>(
    n: usize,
    canary: T,
    writers: &[Writer<'_, T>],
) -> Vec<T> {
    let mut first: Option<Vec<T>> = None;
    for write in writers {
        let mut buf = vec![canary; n + 80];
        write(&mut buf[..n]);
        assert!(
            buf[n..].iter().all(|&u| u == canary),
            "wrote past the output"
        );
        buf.truncate(n);
        match &first {
            Some(f) => assert_eq!(&buf, f, "writers disagree"),
            None => first = Some(buf),
        }
    }
    first.unwrap_or_default()
}

const SAMPLES: &[&str] = &[
    "",
    "abc",
    "héllo wörld",
    "ÿ",
    "Привет, мир",
    "漢字かな交じり文",
    "😀🎉 emoji",
    "mixed: a é Ж 漢 😀",
    "\u{10FFFF}",
    "\u{FFFF}\u{100}",
];

#[test]
fn utf16_round_trips_samples() {
    for s in SAMPLES {
        let units: Vec<u16> = s.encode_utf16().collect();
        assert_eq!(decode16(&units).unwrap(), *s);
    }
}

#[test]
fn utf8_round_trips_samples() {
    for s in SAMPLES {
        assert_eq!(decode8(s.as_bytes()).unwrap(), *s);
    }
}

#[test]
fn shapes_pick_narrowest_kind() {
    let k = |s: &str| utf8_shape(s.as_bytes()).unwrap().kind;
    assert_eq!(k("abc"), TextKind::Ascii);
    assert_eq!(k("é"), TextKind::Latin1);
    assert_eq!(k("Ā"), TextKind::Ucs2);
    assert_eq!(k("😀"), TextKind::Ucs4);
    let k16 = |s: &str| {
        utf16_shape(&s.encode_utf16().collect::<Vec<u16>>())
            .unwrap()
            .kind
    };
    assert_eq!(k16("abc"), TextKind::Ascii);
    assert_eq!(k16("ÿ"), TextKind::Latin1);
    assert_eq!(k16("Ā"), TextKind::Ucs2);
    assert_eq!(k16("😀"), TextKind::Ucs4);
}

#[test]
fn unpaired_surrogates_are_rejected_with_position() {
    assert_eq!(utf16_shape(&[0x61, 0xD800]), Err(InvalidText { offset: 2 }));
    assert_eq!(utf16_shape(&[0xDC00, 0x61]), Err(InvalidText { offset: 0 }));
    assert_eq!(
        utf16_shape(&[0x61, 0x62, 0xD800, 0x61]),
        Err(InvalidText { offset: 4 })
    );
}

#[test]
fn invalid_utf8_is_rejected_with_position() {
    assert_eq!(utf8_shape(b"ab\xff"), Err(InvalidText { offset: 2 }));
    // An encoded surrogate is invalid UTF-8.
    assert_eq!(utf8_shape(b"\xed\xa0\x80"), Err(InvalidText { offset: 0 }));
    assert_eq!(utf8_shape(b"a\xc3"), Err(InvalidText { offset: 1 }));
}

#[test]
fn random_utf8_matches_std() {
    // Byte strings weighted towards lead bytes, continuation bytes and the boundaries of
    // the restricted second bytes (E0, ED, F0, F4), compared with std's validator.
    let mut x: u64 = 0x2545_F491_4F6C_DD1D;
    for _ in 0..50_000 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let len = (x % 9) as usize;
        let bytes: Vec<u8> = (0..len)
            .map(|i| {
                let r = (x >> (i * 7)) as u8;
                match r % 6 {
                    0 => r % 0x80,
                    1 => 0x80 | (r % 0x40),
                    2 => [0xC2, 0xDF, 0xE0, 0xED, 0xEF, 0xF0, 0xF4, 0xF5, 0xC0][(r % 9) as usize],
                    3 => [0x8F, 0x90, 0x9F, 0xA0, 0xBF][(r % 5) as usize],
                    _ => r,
                }
            })
            .collect();
        match (decode8(&bytes), std::str::from_utf8(&bytes)) {
            (Ok(ours), Ok(s)) => assert_eq!(ours, s, "input {bytes:x?}"),
            (Err(e), Err(s)) => assert_eq!(e.offset, s.valid_up_to(), "input {bytes:x?}"),
            (ours, std) => panic!("input {bytes:x?}: ours {ours:?}, std {std:?}"),
        }
    }
}

/// Characters of every UTF-8 length and storage kind, for the mixed-text tests.
const PIECES: &[char] = &[
    'a',
    'Z',
    ' ',
    '7',
    '\u{7F}',
    'é',
    'ÿ',
    '\u{80}',
    'Ж',
    '߿',
    'Ā',
    '漢',
    '\u{FFFF}',
    '\u{800}',
    '😀',
    '🌰',
    '\u{10000}',
    '\u{10FFFF}',
];

fn xorshift(x: &mut u64) -> u64 {
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    *x
}

/// Strings of `n` characters drawn from `pool`, with runs (one character repeated) so the
/// block decoders see full and partial blocks of every length.
fn random_text(x: &mut u64, n: usize, pool: &[char]) -> String {
    let mut s = String::new();
    while s.chars().count() < n {
        let r = xorshift(x);
        let c = pool[(r % pool.len() as u64) as usize];
        let run = if r >> 32 & 3 == 0 { (r >> 40) % 20 } else { 1 };
        for _ in 0..run.max(1) {
            if s.chars().count() < n {
                s.push(c);
            }
        }
    }
    s
}

#[test]
fn mixed_text_of_every_length_round_trips() {
    // Every length 0..70 (and some longer) around the 16-byte blocks and the 64-byte
    // SIMD validation chunks, with ASCII runs inside wide text and every storage kind.
    let pools: [&[char]; 5] = [
        PIECES,
        &['a', 'b', ' ', 'é', 'ÿ'],
        &['a', 'Ж', 'ё', '1'],
        &['x', '漢', '字', 'é'],
        &['😀', '🌰', 'q', ' ', '漢'],
    ];
    let mut x: u64 = 0x1234_5678_9ABC_DEF1;
    for pool in pools {
        for n in (0..70).chain([100, 127, 128, 129, 255, 256, 300]) {
            for _ in 0..20 {
                let s = random_text(&mut x, n, pool);
                let shape = utf8_shape(s.as_bytes()).unwrap();
                assert_eq!(shape.chars, s.chars().count(), "{s:?}");
                assert_eq!(decode8(s.as_bytes()).unwrap(), s, "{s:?}");
            }
        }
    }
    // The benchmark's mixed value and runs of one width of every length.
    let mixed = "🌰🌯🌽😹yOUaIzlEjdZg6v6 2m🌰🙃侁乫乁佔伭付伻 íëø Привет";
    assert_eq!(decode8(mixed.as_bytes()).unwrap(), mixed);
    for c in PIECES {
        for n in 0..70 {
            for prefix in ["", "a", "ab", "abc"] {
                let s: String = prefix.chars().chain(std::iter::repeat_n(*c, n)).collect();
                assert_eq!(decode8(s.as_bytes()).unwrap(), s, "{s:?}");
            }
        }
    }
}

#[test]
fn ascii_runs_inside_wide_text_round_trip() {
    // Runs of ASCII of every length up to 140 before, between and after wide characters:
    // the AVX-512 writers widen whole 64-byte ASCII steps on their own path.
    for k in 0..=140 {
        for wide in ["é", "Ж", "漢", "😀", "Ж😀"] {
            let run = "x".repeat(k);
            for s in [
                format!("{run}{wide}"),
                format!("{wide}{run}"),
                format!("{wide}{run}{wide}{}", "y".repeat(k % 67)),
            ] {
                assert_eq!(decode8(s.as_bytes()).unwrap(), s, "{s:?}");
            }
        }
    }
}

#[test]
fn corrupted_long_utf8_matches_std() {
    // Valid mixed text of up to ~300 bytes with one byte replaced (or the end cut off):
    // the offset of the first invalid sequence must be std's `valid_up_to`, as CPython's.
    let mut x: u64 = 0x0DDB_A11C_0FFE_E123;
    for _ in 0..20_000 {
        let n = (xorshift(&mut x) % 90) as usize;
        let mut bytes = random_text(&mut x, n, PIECES).into_bytes();
        if bytes.is_empty() {
            continue;
        }
        let r = xorshift(&mut x);
        let at = (r % bytes.len() as u64) as usize;
        match r >> 60 {
            0 => bytes.truncate(at),
            _ => {
                bytes[at] = [
                    0x80, 0xBF, 0xC0, 0xC2, 0xE0, 0xED, 0xF0, 0xF4, 0xF5, 0xFF, 0x41,
                ][((r >> 8) % 11) as usize]
            }
        }
        match (decode8(&bytes), std::str::from_utf8(&bytes)) {
            (Ok(ours), Ok(s)) => assert_eq!(ours, s, "input {bytes:x?}"),
            (Err(e), Err(s)) => assert_eq!(e.offset, s.valid_up_to(), "input {bytes:x?}"),
            (ours, std) => panic!("input {bytes:x?}: ours {ours:?}, std {std:?}"),
        }
    }
}

/// The shape std's validator implies: kind of the widest character, length, or the
/// offset of the first invalid sequence.
fn reference_shape(bytes: &[u8]) -> Result<TextShape, InvalidText> {
    match std::str::from_utf8(bytes) {
        Ok(s) => {
            let max = s.chars().map(|c| c as u32).max().unwrap_or(0);
            let kind = [
                TextKind::Ascii,
                TextKind::Latin1,
                TextKind::Ucs2,
                TextKind::Ucs4,
            ]
            .into_iter()
            .find(|k| max <= k.max_char())
            .unwrap();
            Ok(TextShape {
                kind,
                chars: s.chars().count(),
            })
        }
        Err(e) => Err(InvalidText {
            offset: e.valid_up_to(),
        }),
    }
}

/// `utf8_shape` and each of its non-ASCII passes the CPU can run against std.
fn check_shape8(bytes: &[u8]) {
    let expected = reference_shape(bytes);
    assert_eq!(utf8_shape(bytes), expected, "input {bytes:x?}");
    if expected.map(|s| s.kind) != Ok(TextKind::Ascii) {
        assert_eq!(utf8_shape_portable(bytes), expected, "input {bytes:x?}");
        #[cfg(target_arch = "x86_64")]
        if has_avx2() {
            // SAFETY: the CPU supports AVX2.
            let avx2 = unsafe { avx2::utf8_shape(bytes) };
            assert_eq!(avx2, expected, "input {bytes:x?}");
        }
    }
}

#[test]
fn shape_passes_match_std_at_every_length_and_position() {
    // Every length 0..140 (the 32-byte blocks of the AVX2 pass, its zero-padded short
    // values below 35 bytes and its overlapping last block), text of every category
    // after ASCII prefixes of every length below 70 (where the ASCII skip ends), valid,
    // cut short, and with one byte replaced at every position for some lengths.
    let pools: [&[char]; 7] = [
        PIECES,
        &['é', 'ÿ', '\u{80}'],
        &['a', 'b', ' ', 'é', 'ÿ'],
        &['Ж', 'ё', '߿'],
        &[
            '漢', '字', '\u{800}', '\u{FFFF}', 'Ā', '\u{D7FF}', '\u{E000}',
        ],
        &[
            '😀',
            '🌰',
            '\u{10000}',
            '\u{10FFFF}',
            '\u{3FFFF}',
            '\u{40000}',
        ],
        &['😀', 'q', ' ', '漢', 'Ж', 'é'],
    ];
    let mut x: u64 = 0x5EED_0FA5_C11A_5C00;
    for pool in pools {
        for n in 0..140 {
            let text = random_text(&mut x, n, pool);
            for prefix in [
                0usize, 1, 2, 3, 15, 16, 17, 29, 31, 32, 33, 35, 63, 64, 65, 69,
            ] {
                let s = "k".repeat(prefix) + &text;
                let bytes = s.as_bytes();
                check_shape8(bytes);
                for cut in 1..4.min(bytes.len() + 1) {
                    check_shape8(&bytes[..bytes.len() - cut]);
                }
            }
            let bytes = text.as_bytes();
            if n % 7 == 0 || (28..=40).contains(&bytes.len()) || bytes.len() < 20 {
                for at in 0..bytes.len() {
                    for bad in [
                        0x80, 0xBF, 0xC0, 0xC1, 0xC2, 0xE0, 0xED, 0xF0, 0xF4, 0xF5, 0xFF, 0x41,
                    ] {
                        let mut b = bytes.to_vec();
                        b[at] = bad;
                        check_shape8(&b);
                    }
                }
            }
        }
    }
}

#[test]
fn shape_passes_reject_every_invalid_pair_and_triple() {
    // Every byte after every non-ASCII byte, completed as a two-, three- or four-byte
    // sequence would be (overlongs, encoded surrogates, above U+10FFFF, stray and missing
    // continuation bytes), at offsets across the 32-byte blocks and the short values.
    for pad in [0usize, 1, 13, 29, 30, 31, 32, 33, 60, 61, 62, 63] {
        for lead in 0x80..=0xFFu8 {
            for second in 0x00..=0xFFu8 {
                for tail in [&b""[..], b"\x80", b"\x80\x80"] {
                    let mut b = vec![b'x'; pad];
                    b.extend_from_slice(&[lead, second]);
                    b.extend_from_slice(tail);
                    check_shape8(&b);
                    b.extend_from_slice(b"yz");
                    check_shape8(&b);
                }
            }
        }
    }
}

#[test]
fn shape_counts_long_text() {
    // More than one counting round of the AVX2 pass (250 blocks of 32 bytes).
    for s in [
        "é".repeat(9_000),
        "漢".repeat(5_000) + "a",
        "😀".repeat(4_100) + "ab",
        ("a".repeat(40) + "Жé漢😀").repeat(300),
    ] {
        check_shape8(s.as_bytes());
        let mut b = s.clone().into_bytes();
        let last = b.len() - 1;
        b[last] = 0xC3;
        check_shape8(&b);
    }
}

#[test]
fn writers_stop_at_a_short_output() {
    // A safe API: an output shorter than the text is filled and nothing more, by the
    // public writers (AVX-512 where the CPU has it) and the block writers alike.
    let s = "ab😀漢é".repeat(30);
    let full: Vec<u32> = s.chars().map(|c| c as u32).collect();
    let bmp = s.replace('😀', "Ж");
    let full2: Vec<u16> = bmp.chars().map(|c| c as u16).collect();
    let latin1 = "abcé".repeat(40);
    let full1: Vec<u8> = latin1.chars().map(|c| c as u8).collect();
    for n in 0..full.len() {
        let mut out = vec![0u32; n];
        utf8_write_wide(&s, &mut out);
        assert_eq!(out[..], full[..n]);
        utf8_write_wide_blocks(&s, &mut out);
        assert_eq!(out[..], full[..n]);
        let mut out = vec![0u16; n];
        utf8_write_wide(&bmp, &mut out);
        assert_eq!(out[..], full2[..n]);
        utf8_write_wide_blocks(&bmp, &mut out);
        assert_eq!(out[..], full2[..n]);
        let mut out = vec![0u8; n];
        utf8_write_ucs1(latin1.as_bytes(), TextKind::Latin1, &mut out);
        assert_eq!(out[..], full1[..n]);
        utf8_write_latin1_blocks(latin1.as_bytes(), &mut out);
        assert_eq!(out[..], full1[..n]);
    }
}

#[test]
fn wide_writers_stay_in_bounds_on_the_wrong_width() {
    // UCS-2 output for text with astral characters (a caller's mistake): wrong units, but
    // the writers finish and write nothing past the output.
    let mut x: u64 = 0x0123_4567_89AB_CDEF;
    for n in 0..200 {
        let s = random_text(&mut x, n, PIECES);
        let chars = s.chars().count();
        let mut buf = vec![0xAAAAu16; chars + 80];
        utf8_write_wide(&s, &mut buf[..chars]);
        utf8_write_wide_blocks(&s, &mut buf[..chars]);
        assert!(buf[chars..].iter().all(|&u| u == 0xAAAA));
    }
}

#[test]
fn latin1_writer_terminates_on_any_bytes() {
    // `utf8_write_ucs1` takes bytes, not `str`: on bytes that are not Latin-1 UTF-8 its
    // output is meaningless, but it must finish and stay in bounds.
    let mut x: u64 = 0xFEED_FACE_CAFE_BEEF;
    for _ in 0..2_000 {
        let n = (xorshift(&mut x) % 80) as usize;
        let mut bytes: Vec<u8> = (0..n).map(|_| xorshift(&mut x) as u8).collect();
        bytes.push(b'.');
        let mut out = vec![0u8; bytes.len()];
        utf8_write_ucs1(&bytes, TextKind::Latin1, &mut out);
    }
}

#[test]
fn random_utf16_matches_std() {
    // Deterministic xorshift: inputs weighted towards surrogates and boundaries.
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    for _ in 0..20_000 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let len = (x % 12) as usize;
        let units: Vec<u16> = (0..len)
            .map(|i| {
                let r = (x >> (i * 5)) as u16;
                match r % 5 {
                    0 => r % 0x80,
                    1 => 0xD800 | (r % 0x800),
                    2 => r,
                    3 => 0x80 + r % 0x80,
                    _ => 0xDC00 | (r % 0x400),
                }
            })
            .collect();
        let ours = decode16(&units).ok();
        let std = String::from_utf16(&units).ok();
        assert_eq!(ours, std, "input {units:x?}");
    }
}

/// CPython's strict UTF-16 decoder: the text, or the byte offset of the first unpaired
/// surrogate (2 * its index).
fn reference16(units: &[u16]) -> Result<String, InvalidText> {
    let mut text = String::new();
    let mut at = 0usize;
    for c in char::decode_utf16(units.iter().copied()) {
        match c {
            Ok(c) => {
                text.push(c);
                at += c.len_utf16();
            }
            Err(_) => return Err(InvalidText { offset: 2 * at }),
        }
    }
    Ok(text)
}

/// Checks shape, writer and error offset of `units` against the reference and the
/// scalar surrogate scan.
fn check16(units: &[u16]) {
    let expected = reference16(units);
    assert_eq!(decode16(units), expected, "input {units:x?}");
    if units.iter().any(|&u| is_surrogate(u)) {
        assert_eq!(
            utf16_shape(units),
            utf16_scan_surrogates(units),
            "input {units:x?}"
        );
    }
}

/// Text of `n` units drawn mostly from surrogate pairs, with ASCII, Latin-1, BMP and
/// units next to the surrogate range.
fn surrogate_heavy(x: &mut u64, n: usize) -> Vec<u16> {
    let mut units = Vec::with_capacity(n + 1);
    while units.len() < n {
        let r = xorshift(x);
        match r % 8 {
            0..=3 => {
                let c = 0x10000 + (r >> 8) as u32 % 0x10_0000;
                let c = char::from_u32(c).unwrap_or('\u{10000}');
                let mut b = [0u16; 2];
                units.extend_from_slice(c.encode_utf16(&mut b));
            }
            4 => units.push((r >> 8) as u16 % 0x80),
            5 => units.push(0x80 + (r >> 8) as u16 % 0x80),
            6 => units.push([0xD7FF, 0xE000, 0xFFFF, 0x4E00][(r >> 8) as usize % 4]),
            _ => units.push(0x100 + (r >> 8) as u16 % 0xD700),
        }
    }
    units.truncate(n);
    units
}

#[test]
fn random_surrogate_heavy_utf16_matches_reference() {
    let mut x: u64 = 0x0123_4567_89AB_CDEF;
    for n in (0..=70).chain(100..=300) {
        for _ in 0..40 {
            let mut units = surrogate_heavy(&mut x, n);
            check16(&units);
            if n > 0 {
                // One random unit replaced by a random surrogate (often unpaired).
                let at = (xorshift(&mut x) % n as u64) as usize;
                units[at] = 0xD800 | (xorshift(&mut x) as u16 % 0x800);
                check16(&units);
            }
        }
    }
}

#[test]
fn unpaired_surrogates_at_every_position_are_reported_exactly() {
    // Valid pairs throughout, then an unpaired high or low at each position in turn (also
    // across the eight-unit block boundaries), with the same text before it.
    for n in [
        1usize, 2, 7, 8, 9, 10, 15, 16, 17, 18, 24, 31, 32, 33, 47, 64, 65, 130,
    ] {
        let pairs: Vec<u16> = "😀".encode_utf16().cycle().take(n).collect();
        let mixed: Vec<u16> = "a😀漢é😀😀b".encode_utf16().cycle().take(n).collect();
        for base in [pairs, mixed] {
            check16(&base);
            for at in 0..n {
                for lone in [0xD800u16, 0xDBFF, 0xDC00, 0xDFFF] {
                    let mut units = base.clone();
                    units[at] = lone;
                    check16(&units);
                    // The same surrogate inserted rather than replacing a unit.
                    let mut units = base.clone();
                    units.insert(at, lone);
                    check16(&units);
                }
            }
        }
    }
}

#[test]
fn ucs4_writer_stops_at_a_short_output() {
    for s in [
        "ab😀漢é".repeat(10),
        "😀".repeat(20),
        "abcdefgh😀".repeat(6),
    ] {
        let units: Vec<u16> = s.encode_utf16().collect();
        let full: Vec<u32> = s.chars().map(|c| c as u32).collect();
        for n in 0..=full.len() {
            let mut out = vec![0u32; n];
            utf16_write_ucs4(&units, &mut out);
            assert_eq!(out[..], full[..n], "{s:?} into {n}");
        }
    }
}

#[test]
fn ucs4_writer_terminates_on_any_units() {
    // Unvalidated input: meaningless output, but it finishes and stays in bounds.
    let mut x: u64 = 0xFEED_FACE_CAFE_BEEF;
    for _ in 0..5_000 {
        let n = (xorshift(&mut x) % 80) as usize;
        let units: Vec<u16> = (0..n)
            .map(|_| {
                let r = xorshift(&mut x) as u16;
                if r & 1 == 0 {
                    0xD800 | (r >> 5)
                } else {
                    r
                }
            })
            .collect();
        let mut out = vec![0u32; (xorshift(&mut x) % 80) as usize];
        utf16_write_ucs4(&units, &mut out);
    }
}
