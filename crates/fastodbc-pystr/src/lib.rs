//! fastodbc-pystr: text fetched as UTF-16 or UTF-8, decoded into the fixed-width layouts
//! CPython stores strings in (PEP 393: 1, 2 or 4 bytes per character). The Python-rows
//! consumer (`fastodbc-py`) builds its `str` objects with these; they are a crate of their own,
//! without PyO3, so the codec benchmark (`bench/codec`) runs them in a plain binary, and so
//! `fastodbc-core` knows nothing of Python's string layout.
//!
//! Building a `str` needs its widest character before allocation (`PyUnicode_New`), so each
//! decoder has two steps over the value: `*_shape` finds the storage kind and the length in
//! characters (a branch-free OR / count that the compiler vectorises), then `*_write_*` fills
//! the caller's storage directly. No intermediate string is ever built.

pub mod prepare;
pub use prepare::{PreparedRows, RowsPreparation};

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

/// Where a decoder writes a string's characters: CPython's storage for the string's kind,
/// one element a character.
pub enum TextStorage<'a> {
    /// ASCII and Latin-1.
    Ucs1(&'a mut [u8]),
    Ucs2(&'a mut [u16]),
    Ucs4(&'a mut [u32]),
}

impl TextStorage<'_> {
    /// The storage of a string of `shape` at `data`.
    ///
    /// # Safety
    /// `data` points to `shape.chars` writable elements of the kind's width (one, two
    /// or four bytes), aligned, that nothing else uses while the storage lives.
    pub unsafe fn from_raw(shape: TextShape, data: *mut std::ffi::c_void) -> Self {
        let n = shape.chars;
        match shape.kind {
            TextKind::Ascii | TextKind::Latin1 => {
                TextStorage::Ucs1(std::slice::from_raw_parts_mut(data.cast(), n))
            }
            TextKind::Ucs2 => TextStorage::Ucs2(std::slice::from_raw_parts_mut(data.cast(), n)),
            TextKind::Ucs4 => TextStorage::Ucs4(std::slice::from_raw_parts_mut(data.cast(), n)),
        }
    }
}

/// Writes UTF-16 `units` into the storage of their shape (other storage gets wrong
/// characters or the first ones only, never a write outside it).
#[inline]
pub fn utf16_write(units: &[u16], out: TextStorage<'_>) {
    match out {
        TextStorage::Ucs1(out) => utf16_write_ucs1(units, out),
        TextStorage::Ucs2(out) => utf16_write_ucs2(units, out),
        TextStorage::Ucs4(out) => utf16_write_ucs4(units, out),
    }
}

/// Writes UTF-8 `s`, of kind `kind`, into the storage of its shape (as `utf16_write`).
#[inline]
pub fn utf8_write(s: &str, kind: TextKind, out: TextStorage<'_>) {
    match out {
        TextStorage::Ucs1(out) => utf8_write_ucs1(s.as_bytes(), kind, out),
        TextStorage::Ucs2(out) => utf8_write_wide(s, out),
        TextStorage::Ucs4(out) => utf8_write_wide(s, out),
    }
}

/// UTF-16 code units of bytes read in place: `None` unless they are 2-byte aligned and of
/// even length (block elements are 8-byte aligned, so in a block only an odd length or a value
/// kept elsewhere after truncation gives `None`).
pub fn utf16_units(bytes: &[u8]) -> Option<&[u16]> {
    if !bytes.len().is_multiple_of(2) || !(bytes.as_ptr() as usize).is_multiple_of(2) {
        return None;
    }
    // SAFETY: aligned, length even, and u16 has no invalid bit patterns.
    Some(unsafe { std::slice::from_raw_parts(bytes.as_ptr().cast::<u16>(), bytes.len() / 2) })
}

/// Shape of UTF-16 text. Unpaired surrogates are an error, as in CPython's strict decoder.
/// `#[inline]`, as `utf8_shape`: without it, whether its callers (`decode_utf16`, the fetch
/// path) inline it depends on how the crate's code happens to be split into codegen units, and
/// a call costs ~30 instructions a value (seen when unrelated code moved, 2026-11-25).
#[inline]
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
    utf16_shape_surrogates(units)
}

/// Shape of UTF-16 text holding a surrogate. From nine units on, one branch-free SSE2 pass
/// checks that the pairing is valid (every high surrogate is followed by a low one and
/// every low one preceded by a high one) and counts the pairs; only invalid text goes on to
/// the scalar scan, which finds the first unpaired surrogate as CPython reports it.
#[inline(always)]
fn utf16_shape_surrogates(units: &[u16]) -> Result<TextShape, InvalidText> {
    #[cfg(target_arch = "x86_64")]
    if let Some(pairs) = sse2::utf16_pairs(units) {
        return Ok(TextShape {
            kind: TextKind::Ucs4,
            chars: units.len() - pairs,
        });
    }
    utf16_scan_surrogates(units)
}

/// The scalar surrogate scan: the length in characters, or the byte offset of the first
/// unpaired surrogate (CPython's strict decoder reports the same one).
fn utf16_scan_surrogates(units: &[u16]) -> Result<TextShape, InvalidText> {
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

/// Combines surrogate pairs into UCS-4. The input was validated by `utf16_shape`; on any
/// other input the output is meaningless but stays in bounds. Out of line so the block
/// loop does not weigh on the narrower kinds' paths where the writers are inlined together.
#[inline(never)]
pub fn utf16_write_ucs4(units: &[u16], out: &mut [u32]) {
    #[cfg(target_arch = "x86_64")]
    let (i, o) = sse2::utf16_write_ucs4(units, out);
    #[cfg(not(target_arch = "x86_64"))]
    let (i, o) = (0, 0);
    utf16_write_ucs4_scalar(units, out, i, o);
}

/// Decodes `units[i..]` into `out[o..]` a unit or pair at a time.
#[inline(always)]
fn utf16_write_ucs4_scalar(units: &[u16], out: &mut [u32], mut i: usize, mut o: usize) {
    while i < units.len() && o < out.len() {
        let u = units[i] as u32;
        if (0xD800..0xDC00).contains(&u) && i + 1 < units.len() {
            let lo = units[i + 1] as u32;
            // Wrapping: only unvalidated input (a high surrogate before a non-low) wraps.
            out[o] = (0x10000 + ((u - 0xD800) << 10)).wrapping_add(lo.wrapping_sub(0xDC00));
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
    // ASCII, the common case, stops here: std's check reads a word at a time, the last word
    // overlapping, where a vectorised max over the bytes leaves a byte-wise tail (64
    // instructions for 55 bytes against ~20).
    if bytes.is_ascii() {
        return Ok(TextShape {
            kind: TextKind::Ascii,
            chars: bytes.len(),
        });
    }
    utf8_shape_non_ascii(bytes)
}

/// The rest of `utf8_shape`, out of line so the ASCII path stays small enough to inline. With
/// AVX2 one pass validates, counts and finds the widest lead byte (`avx2::utf8_shape`).
fn utf8_shape_non_ascii(bytes: &[u8]) -> Result<TextShape, InvalidText> {
    #[cfg(target_arch = "x86_64")]
    if has_avx2() {
        // SAFETY: the CPU supports AVX2, the only requirement of `avx2::utf8_shape`.
        return unsafe { avx2::utf8_shape(bytes) };
    }
    utf8_shape_portable(bytes)
}

/// `utf8_shape` without SSSE3: a max over the bytes, simdutf8's validator and a count of the
/// continuation bytes, three passes.
fn utf8_shape_portable(bytes: &[u8]) -> Result<TextShape, InvalidText> {
    let max = bytes.iter().fold(0u8, |m, &b| m.max(b));
    // SIMD validation (runtime CPU detection); the `compat` flavour reports where the first
    // invalid sequence starts, as CPython does.
    if let Err(e) = simdutf8::compat::from_utf8(bytes) {
        return Err(InvalidText {
            offset: e.valid_up_to(),
        });
    }
    Ok(TextShape {
        kind: kind_of_max_byte(max),
        chars: bytes.len() - continuation_bytes(bytes),
    })
}

/// The storage kind of valid UTF-8 whose largest byte is `max` (not ASCII): the widest lead
/// byte gives the widest character's range exactly: C2/C3 lead U+0080..U+00FF, up to EF
/// lead U+0100..U+FFFF, F0.. lead astral characters.
#[inline]
fn kind_of_max_byte(max: u8) -> TextKind {
    if max <= 0xC3 {
        TextKind::Latin1
    } else if max <= 0xEF {
        TextKind::Ucs2
    } else {
        TextKind::Ucs4
    }
}

/// The error of invalid UTF-8 found by a SIMD pass: where the first invalid sequence starts,
/// as std (and CPython) report it. Out of line and cold: only invalid input gets here.
#[cold]
#[inline(never)]
fn utf8_error(bytes: &[u8]) -> Result<TextShape, InvalidText> {
    match std::str::from_utf8(bytes) {
        Err(e) => Err(InvalidText {
            offset: e.valid_up_to(),
        }),
        // Unreachable unless the SIMD check is wrong; the portable pass decides then.
        Ok(_) => utf8_shape_portable(bytes),
    }
}

/// `N` bytes, the upper half 0xFF: loaded at offset `r`, a SIMD block's worth of it selects
/// the last `r` lanes (the tail masks of the overlapping last blocks).
#[cfg(target_arch = "x86_64")]
const fn upper_half_set<const N: usize>() -> [u8; N] {
    let mut t = [0u8; N];
    let mut k = N / 2;
    while k < N {
        t[k] = 0xFF;
        k += 1;
    }
    t
}

/// Index of the first byte of `bytes` that is not ASCII (`bytes.len()` if none), eight bytes
/// at a time.
#[inline]
fn ascii_run(bytes: &[u8]) -> usize {
    let mut chunks = bytes.chunks_exact(8);
    let mut at = 0usize;
    for chunk in &mut chunks {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let high = u64::from_le_bytes(word) & 0x8080_8080_8080_8080;
        if high != 0 {
            return at + (high.trailing_zeros() / 8) as usize;
        }
        at += 8;
    }
    let tail = chunks.remainder();
    at + tail.iter().position(|&b| b >= 0x80).unwrap_or(tail.len())
}

/// Continuation bytes (10xxxxxx, below -64 as i8): each character has exactly one other byte.
#[inline]
fn continuation_bytes(bytes: &[u8]) -> usize {
    // Whole 64-byte chunks with byte-wide accumulators (the compiler keeps them in SIMD
    // lanes); the rest with SSE2 sixteen at a time, where the compiler's remainder loops
    // would go four bytes or one at a time.
    let whole = bytes.len() - bytes.len() % 64;
    let mut continuation = 0usize;
    for chunk in bytes[..whole].chunks_exact(64) {
        let c = chunk.iter().fold(0u8, |c, &b| c + ((b as i8) < -64) as u8);
        continuation += c as usize;
    }
    if whole == bytes.len() {
        return continuation;
    }
    #[cfg(target_arch = "x86_64")]
    if bytes.len() >= 16 {
        return continuation + sse2::continuation_bytes_from(bytes, whole);
    }
    continuation + bytes[whole..].iter().filter(|&&b| (b as i8) < -64).count()
}

/// Writes validated UTF-8 as one byte per character: ASCII is one copy, Latin-1 decoded.
#[inline]
pub fn utf8_write_ucs1(bytes: &[u8], kind: TextKind, out: &mut [u8]) {
    if kind == TextKind::Ascii {
        out[..bytes.len()].copy_from_slice(bytes);
        return;
    }
    utf8_write_latin1(bytes, out)
}

/// Latin-1 text as one byte per character: with AVX-512 VBMI2 64 bytes a step, else
/// `utf8_write_latin1_blocks`.
fn utf8_write_latin1(bytes: &[u8], out: &mut [u8]) {
    #[cfg(target_arch = "x86_64")]
    if avx512::available() {
        // SAFETY: the CPU supports the module.
        unsafe { avx512::write_latin1(bytes, out) };
        return;
    }
    utf8_write_latin1_blocks(bytes, out)
}

/// Latin-1 text as one byte per character: on x86-64 the bulk in blocks (`sse2::write_latin1`),
/// the rest one character at a time.
fn utf8_write_latin1_blocks(bytes: &[u8], out: &mut [u8]) {
    // The leading ASCII as one copy: memcpy loads ahead of its stores, where the block loop's
    // store-then-load steps stalled in some placements of input and output (4K aliasing:
    // 127 ASCII + 1 Latin-1 character took 50 ns in one process in three, 34 ns in the others).
    let prefix = match bytes.first() {
        Some(&b) if b < 0x80 => ascii_run(bytes).min(out.len()),
        _ => 0,
    };
    if prefix > 0 {
        out[..prefix].copy_from_slice(&bytes[..prefix]);
    }
    #[cfg(target_arch = "x86_64")]
    let (mut i, mut o) = {
        let (i, o) = sse2::write_latin1(&bytes[prefix..], &mut out[prefix..]);
        (prefix + i, prefix + o)
    };
    #[cfg(not(target_arch = "x86_64"))]
    let (mut i, mut o) = (prefix, prefix);
    // A short `out` gets the first characters, as from the other writers.
    while i < bytes.len() && o < out.len() {
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

mod sealed {
    pub trait Sealed {}
    impl Sealed for u16 {}
    impl Sealed for u32 {}
}

/// The code units of CPython's two wide kinds: UCS-2 (`u16`) and UCS-4 (`u32`). Sealed: the
/// SIMD stores rely on `Self` being exactly one of the two.
pub trait WideUnit: Copy + sealed::Sealed {
    /// The unit holding character `c` (UCS-2 is only chosen when every `c` is below U+10000).
    fn from_code(c: u32) -> Self;

    /// The AVX-512 writer of this width.
    ///
    /// SAFETY: the CPU supports `avx512` (`avx512::available()`).
    #[cfg(target_arch = "x86_64")]
    #[doc(hidden)]
    unsafe fn write_avx512(bytes: &[u8], out: &mut [Self]);
}

impl WideUnit for u16 {
    #[inline(always)]
    fn from_code(c: u32) -> Self {
        c as u16
    }

    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn write_avx512(bytes: &[u8], out: &mut [Self]) {
        avx512::write_ucs2(bytes, out)
    }
}

impl WideUnit for u32 {
    #[inline(always)]
    fn from_code(c: u32) -> Self {
        c
    }

    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn write_avx512(bytes: &[u8], out: &mut [Self]) {
        avx512::write_ucs4(bytes, out)
    }
}

/// Writes UTF-8 as UCS-2 or UCS-4 code points: with AVX-512 VBMI2 up to 32 characters a
/// step, else `utf8_write_wide_blocks`.
pub fn utf8_write_wide<T: WideUnit>(s: &str, out: &mut [T]) {
    #[cfg(target_arch = "x86_64")]
    if avx512::available() {
        // SAFETY: the CPU supports the module.
        unsafe { T::write_avx512(s.as_bytes(), out) };
        return;
    }
    utf8_write_wide_blocks(s, out)
}

/// `utf8_write_wide` without AVX-512. On x86-64 the bulk goes through `sse2::write_wide`
/// (blocks of characters of one length); the rest, and everything on other targets, one
/// character at a time.
fn utf8_write_wide_blocks<T: WideUnit>(s: &str, out: &mut [T]) {
    let bytes = s.as_bytes();
    #[cfg(target_arch = "x86_64")]
    let (mut i, mut o) = sse2::write_wide(s, out);
    #[cfg(not(target_arch = "x86_64"))]
    let (mut i, mut o) = (0usize, 0usize);
    while o < out.len() {
        // Four bytes hold the longest character; the last three at most go to std below.
        let Some(&[a, b, c, d]) = bytes.get(i..i + 4) else {
            break;
        };
        let (code, n) = decode_word(u32::from_le_bytes([a, b, c, d]));
        out[o] = T::from_code(code);
        i += n;
        o += 1;
    }
    // The last three bytes at most, through std's decoder.
    if let Some(rest) = s.get(i..) {
        for (d, c) in out[o..].iter_mut().zip(rest.chars()) {
            *d = T::from_code(c as u32);
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod avx512;

/// The SSE2 decoder (SSE2 is part of x86-64: no feature detection).
#[cfg(target_arch = "x86_64")]
mod sse2;

/// The one-pass UTF-8 shape for CPUs with AVX2 (detected at run time by the caller).
#[cfg(target_arch = "x86_64")]
mod avx2;

/// One character from the four bytes `w` (little-endian) starting at its lead byte: the code
/// point and its length in bytes.
#[inline(always)]
fn decode_word(w: u32) -> (u32, usize) {
    let b = w & 0xFF;
    let (c1, c2, c3) = ((w >> 8) & 0x3F, (w >> 16) & 0x3F, w >> 24 & 0x3F);
    if b < 0x80 {
        (b, 1)
    } else if b < 0xE0 {
        (((b & 0x1F) << 6) | c1, 2)
    } else if b < 0xF0 {
        (((b & 0x0F) << 12) | (c1 << 6) | c2, 3)
    } else {
        (((b & 0x07) << 18) | (c1 << 12) | (c2 << 6) | c3, 4)
    }
}

#[cfg(test)]
mod tests;
