//! Text decoders: UTF-16 and UTF-8 from ODBC buffers into the fixed-width layouts CPython
//! stores strings in (1, 2 or 4 bytes per character).
//!
//! Building a `str` needs its widest character before allocation (`PyUnicode_New`), so each
//! decoder has two steps over the value: `*_shape` finds the storage kind and the length in
//! characters (a branch-free OR / count that the compiler vectorises), then `*_write_*` fills
//! the caller's storage directly. No intermediate string is ever built.

/// How CPython must store a string: the narrowest kind holding its widest character.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum TextKind {
    Ascii,
    Latin1,
    Ucs2,
    Ucs4,
}

impl TextKind {
    /// The `maxchar` argument for `PyUnicode_New` that selects this kind.
    pub fn max_char(self) -> u32 {
        match self {
            TextKind::Ascii => 0x7F,
            TextKind::Latin1 => 0xFF,
            TextKind::Ucs2 => 0xFFFF,
            TextKind::Ucs4 => 0x10_FFFF,
        }
    }
}

/// Storage kind and length in characters of one value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TextShape {
    pub kind: TextKind,
    pub chars: usize,
}

/// Position (in bytes of the encoded input) of the first invalid sequence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InvalidText {
    pub offset: usize,
}

#[inline]
fn is_surrogate(u: u16) -> bool {
    (u & 0xF800) == 0xD800
}

/// Shape of UTF-16 text. Unpaired surrogates are an error, as in CPython's strict decoder.
pub fn utf16_shape(units: &[u16]) -> Result<TextShape, InvalidText> {
    // One OR over all units decides ASCII and Latin-1; only wider text pays for the
    // surrogate scan.
    let or = units_or(units);
    if or < 0x80 {
        return Ok(TextShape {
            kind: TextKind::Ascii,
            chars: units.len(),
        });
    }
    if or < 0x100 {
        return Ok(TextShape {
            kind: TextKind::Latin1,
            chars: units.len(),
        });
    }
    if !units.iter().any(|&u| is_surrogate(u)) {
        return Ok(TextShape {
            kind: TextKind::Ucs2,
            chars: units.len(),
        });
    }
    let mut chars = 0usize;
    let mut i = 0usize;
    while i < units.len() {
        let u = units[i];
        if is_surrogate(u) {
            let paired =
                u < 0xDC00 && i + 1 < units.len() && (0xDC00..0xE000).contains(&units[i + 1]);
            if !paired {
                return Err(InvalidText { offset: i * 2 });
            }
            i += 2;
        } else {
            i += 1;
        }
        chars += 1;
    }
    Ok(TextShape {
        kind: TextKind::Ucs4,
        chars,
    })
}

/// Units from which the AVX2 versions of the ASCII / Latin-1 passes pay off: below it the
/// SSE2 loop is as fast and the feature check would be overhead.
const WIDE_SIMD_UNITS: usize = 64;

/// Whether this CPU has AVX2 (std caches the answer: one load after the first call).
#[inline]
fn has_avx2() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx2")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// The OR of all units. Long inputs go through a copy of the loop compiled for AVX2 (twice
/// the units per instruction) when the CPU has it; short ones keep the inlined SSE2 loop.
#[inline]
fn units_or(units: &[u16]) -> u16 {
    if units.len() >= WIDE_SIMD_UNITS {
        return units_or_wide(units);
    }
    or_all(units)
}

#[inline(always)]
fn or_all(units: &[u16]) -> u16 {
    units.iter().fold(0u16, |acc, &u| acc | u)
}

// Out of line and marked cold so the short path stays compact where it is inlined; one call
// is nothing against 64 units or more.
#[cold]
#[inline(never)]
fn units_or_wide(units: &[u16]) -> u16 {
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn or_all_avx2(units: &[u16]) -> u16 {
        or_all(units)
    }
    #[cfg(target_arch = "x86_64")]
    if has_avx2() {
        // SAFETY: the CPU supports AVX2, the only requirement of `or_all_avx2`.
        return unsafe { or_all_avx2(units) };
    }
    or_all(units)
}

/// Copies ASCII or Latin-1 UTF-16 into one byte per character (long inputs as `units_or`).
pub fn utf16_write_ucs1(units: &[u16], out: &mut [u8]) {
    if units.len() >= WIDE_SIMD_UNITS {
        return write_ucs1_wide(units, out);
    }
    narrow(units, out)
}

#[inline(always)]
fn narrow(units: &[u16], out: &mut [u8]) {
    for (o, &u) in out.iter_mut().zip(units) {
        *o = u as u8;
    }
}

// Out of line and cold, as `units_or_wide`.
#[cold]
#[inline(never)]
fn write_ucs1_wide(units: &[u16], out: &mut [u8]) {
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn narrow_avx2(units: &[u16], out: &mut [u8]) {
        narrow(units, out)
    }
    #[cfg(target_arch = "x86_64")]
    if has_avx2() {
        // SAFETY: the CPU supports AVX2, the only requirement of `narrow_avx2`.
        unsafe { narrow_avx2(units, out) };
        return;
    }
    narrow(units, out)
}

/// Copies surrogate-free UTF-16: it already is UCS-2.
pub fn utf16_write_ucs2(units: &[u16], out: &mut [u16]) {
    out[..units.len()].copy_from_slice(units);
}

/// Combines surrogate pairs into UCS-4. The input was validated by `utf16_shape`.
pub fn utf16_write_ucs4(units: &[u16], out: &mut [u32]) {
    let mut i = 0usize;
    let mut o = 0usize;
    while i < units.len() && o < out.len() {
        let u = units[i] as u32;
        if (0xD800..0xDC00).contains(&u) && i + 1 < units.len() {
            let lo = units[i + 1] as u32;
            out[o] = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);
            i += 2;
        } else {
            out[o] = u;
            i += 1;
        }
        o += 1;
    }
}

/// Shape of UTF-8 text. Invalid UTF-8 (including encoded surrogates) is an error, as in
/// CPython's strict decoder.
#[inline]
pub fn utf8_shape(bytes: &[u8]) -> Result<TextShape, InvalidText> {
    // The widest byte first (a plain vectorised max): ASCII, the common case, stops here.
    let max = bytes.iter().fold(0u8, |m, &b| m.max(b));
    if max < 0x80 {
        return Ok(TextShape {
            kind: TextKind::Ascii,
            chars: bytes.len(),
        });
    }
    utf8_shape_non_ascii(bytes, max)
}

/// The rest of `utf8_shape`, out of line so the ASCII path stays small enough to inline.
fn utf8_shape_non_ascii(bytes: &[u8], max: u8) -> Result<TextShape, InvalidText> {
    // SIMD validation (runtime CPU detection); the `compat` flavour reports where the first
    // invalid sequence starts, as CPython does.
    if let Err(e) = simdutf8::compat::from_utf8(bytes) {
        return Err(InvalidText {
            offset: e.valid_up_to(),
        });
    }
    // In valid UTF-8 the widest lead byte gives the widest character's range exactly:
    // C2/C3 lead U+0080..U+00FF, up to EF lead U+0100..U+FFFF, F0.. lead astral characters.
    let kind = if max <= 0xC3 {
        TextKind::Latin1
    } else if max <= 0xEF {
        TextKind::Ucs2
    } else {
        TextKind::Ucs4
    };
    // Continuation bytes (10xxxxxx, below -64 as i8), counted with byte-wide accumulators
    // per 64-byte chunk so the loop stays in SIMD lanes.
    let mut continuation = 0usize;
    for chunk in bytes.chunks(64) {
        let c = chunk.iter().fold(0u8, |c, &b| c + ((b as i8) < -64) as u8);
        continuation += c as usize;
    }
    Ok(TextShape {
        kind,
        chars: bytes.len() - continuation,
    })
}

/// Writes validated UTF-8 as one byte per character. The ASCII prefix is one copy; only the
/// rest is decoded byte by byte.
#[inline]
pub fn utf8_write_ucs1(bytes: &[u8], kind: TextKind, out: &mut [u8]) {
    if kind == TextKind::Ascii {
        out[..bytes.len()].copy_from_slice(bytes);
        return;
    }
    utf8_write_latin1(bytes, out)
}

/// Latin-1 text as one byte per character: the ASCII prefix is one copy, the rest decoded.
fn utf8_write_latin1(bytes: &[u8], out: &mut [u8]) {
    let prefix = ascii_prefix(bytes);
    out[..prefix].copy_from_slice(&bytes[..prefix]);
    let mut o = prefix;
    let mut i = prefix;
    while i < bytes.len() {
        let b = bytes[i];
        if b < 0x80 {
            out[o] = b;
            i += 1;
        } else {
            // Two-byte sequence C2/C3 xx for U+0080..U+00FF.
            out[o] = ((b & 0x1F) << 6) | (bytes[i + 1] & 0x3F);
            i += 2;
        }
        o += 1;
    }
}

/// Writes validated UTF-8 as UCS-2 or UCS-4 code points: the ASCII prefix is widened in a
/// loop the compiler vectorises, the rest decoded character by character.
pub fn utf8_write_wide<T: Copy + From<u8> + TryFrom<u32>>(s: &str, out: &mut [T]) {
    let bytes = s.as_bytes();
    let prefix = ascii_prefix(bytes);
    for (o, &b) in out.iter_mut().zip(&bytes[..prefix]) {
        *o = T::from(b);
    }
    // Validated input: each lead byte says how many continuation bytes follow.
    if std::mem::size_of::<T>() == 2 {
        for (o, c) in out[prefix..].iter_mut().zip(s[prefix..].chars()) {
            if let Ok(x) = T::try_from(c as u32) {
                *o = x;
            }
        }
        return;
    }
    let mut i = prefix;
    let mut o = prefix;
    while i < bytes.len() && o < out.len() {
        let b = bytes[i] as u32;
        let (c, n) = if b < 0x80 {
            (b, 1)
        } else if b < 0xE0 {
            (((b & 0x1F) << 6) | (bytes[i + 1] as u32 & 0x3F), 2)
        } else if b < 0xF0 {
            (
                ((b & 0x0F) << 12)
                    | ((bytes[i + 1] as u32 & 0x3F) << 6)
                    | (bytes[i + 2] as u32 & 0x3F),
                3,
            )
        } else {
            (
                ((b & 0x07) << 18)
                    | ((bytes[i + 1] as u32 & 0x3F) << 12)
                    | ((bytes[i + 2] as u32 & 0x3F) << 6)
                    | (bytes[i + 3] as u32 & 0x3F),
                4,
            )
        };
        if let Ok(x) = T::try_from(c) {
            out[o] = x;
        }
        i += n;
        o += 1;
    }
}

/// Length of the leading run of ASCII bytes, eight bytes at a time.
fn ascii_prefix(bytes: &[u8]) -> usize {
    let mut i = 0;
    while i + 8 <= bytes.len() {
        let mut word = [0u8; 8];
        word.copy_from_slice(&bytes[i..i + 8]);
        if u64::from_ne_bytes(word) & 0x8080_8080_8080_8080 != 0 {
            break;
        }
        i += 8;
    }
    while i < bytes.len() && bytes[i] < 0x80 {
        i += 1;
    }
    i
}

/// Encodes a Rust string as UTF-16 for the W functions (no terminator).
pub fn to_utf16(s: &str) -> Vec<u16> {
    s.encode_utf16().collect()
}

#[cfg(test)]
mod tests {
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
        Ok(match shape.kind {
            TextKind::Ascii | TextKind::Latin1 => {
                let mut out = vec![0u8; shape.chars];
                utf8_write_ucs1(bytes, shape.kind, &mut out);
                out.iter().map(|&b| b as char).collect()
            }
            TextKind::Ucs2 => {
                let mut out = vec![0u16; shape.chars];
                utf8_write_wide(s, &mut out);
                out.iter()
                    .map(|&u| char::from_u32(u as u32).unwrap())
                    .collect()
            }
            TextKind::Ucs4 => {
                let mut out = vec![0u32; shape.chars];
                utf8_write_wide(s, &mut out);
                out.iter().map(|&u| char::from_u32(u).unwrap()).collect()
            }
        })
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
        let k16 = |s: &str| utf16_shape(&to_utf16(s)).unwrap().kind;
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
                        2 => {
                            [0xC2, 0xDF, 0xE0, 0xED, 0xEF, 0xF0, 0xF4, 0xF5, 0xC0][(r % 9) as usize]
                        }
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
}
