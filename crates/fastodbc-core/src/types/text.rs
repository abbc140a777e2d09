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
mod sse2 {
    use super::{decode_word, WideUnit};
    use std::arch::x86_64::*;

    /// Stores the low `N` lanes of `v` (`N` units of `T`'s width, already narrowed or widened
    /// by the caller) at `out[o..]`.
    ///
    /// SAFETY: `o + N <= out.len()`; `T` is `u16` or `u32` (sealed) and `v` holds units of
    /// its width.
    #[inline(always)]
    unsafe fn store<T: WideUnit>(out: &mut [T], o: usize, v: __m128i) {
        _mm_storeu_si128(out.as_mut_ptr().add(o).cast::<__m128i>(), v);
    }

    /// Eight 16-bit lanes as `T` units: 16 bytes for `u16`, 32 for `u32`.
    ///
    /// SAFETY: `o + 8 <= out.len()`.
    #[inline(always)]
    unsafe fn store_u16x8<T: WideUnit>(out: &mut [T], o: usize, v: __m128i) {
        if size_of::<T>() == 2 {
            store(out, o, v);
        } else {
            let zero = _mm_setzero_si128();
            store(out, o, _mm_unpacklo_epi16(v, zero));
            store(out, o + 4, _mm_unpackhi_epi16(v, zero));
        }
    }

    /// Four 32-bit lanes (code points) as `T` units: 8 bytes for `u16` (truncated: UCS-2
    /// text has no character above U+FFFF), 16 for `u32`.
    ///
    /// SAFETY: `o + 4 <= out.len()`.
    #[inline(always)]
    unsafe fn store_u32x4<T: WideUnit>(out: &mut [T], o: usize, v: __m128i) {
        if size_of::<T>() == 2 {
            // Sign-extend the low halves so the signed pack keeps them exactly.
            let low = _mm_srai_epi32(_mm_slli_epi32(v, 16), 16);
            _mm_storel_epi64(
                out.as_mut_ptr().add(o).cast::<__m128i>(),
                _mm_packs_epi32(low, low),
            );
        } else {
            store(out, o, v);
        }
    }

    /// Eight units at `i`. Callers loop only while `i + 8 <= units.len()`.
    #[inline(always)]
    fn units8(units: &[u16], i: usize) -> __m128i {
        assert!(i + 8 <= units.len());
        // SAFETY: in bounds (asserted; the callers' loop conditions let the compiler drop the
        // check); SSE2 is part of x86-64.
        unsafe { _mm_loadu_si128(units.as_ptr().add(i).cast::<__m128i>()) }
    }

    /// All-ones in the 16-bit lanes of `v` that hold a unit `u` with `u & 0xFC00 == tag`.
    #[inline(always)]
    fn tagged(v: __m128i, tag: u16) -> __m128i {
        // SAFETY: SSE2 is part of x86-64.
        unsafe {
            _mm_cmpeq_epi16(
                _mm_and_si128(v, _mm_set1_epi16(0xFC00u16 as i16)),
                _mm_set1_epi16(tag as i16),
            )
        }
    }

    /// Eight lanes from `r` (0..=8) of this table select the last `r` of eight 16-bit lanes.
    static LAST_U16_LANES: [u16; 16] = [0, 0, 0, 0, 0, 0, 0, 0, !0, !0, !0, !0, !0, !0, !0, !0];

    /// Blocks per counting round of `utf16_pairs`: each 16-bit counter lane stays below
    /// 0x8000 (one more block comes from the tail).
    const PAIR_COUNT_BLOCKS: usize = 0x7FF0;

    /// The number of surrogate pairs in `units` if every surrogate is paired (a high one
    /// directly followed by a low one), `None` if one is not or if there are fewer than nine
    /// units. Pairing is valid exactly when, for every position `i`, `u[i]` is a high
    /// surrogate if and only if `u[i + 1]` is a low one (with no high surrogate before the
    /// first unit and no low one after the last): a branch-free compare of each block of
    /// eight units with the block one unit further, the high-surrogate lanes summed in
    /// 16-bit counters.
    pub(super) fn utf16_pairs(units: &[u16]) -> Option<usize> {
        let n = units.len();
        if n < 9 {
            return None;
        }
        let (first, last) = (units[0], units[n - 1]);
        if first & 0xFC00 == 0xDC00 || last & 0xFC00 == 0xD800 {
            return None;
        }
        // SAFETY: SSE2 is part of x86-64 (as for every intrinsic below).
        unsafe {
            let mut bad = _mm_setzero_si128();
            let mut count = _mm_setzero_si128();
            let mut pairs = 0usize;
            let mut i = 0usize;
            loop {
                let stop = (n - 8).min(i + 8 * PAIR_COUNT_BLOCKS);
                // Pairs (i + k, i + k + 1) for k < 8, while i + 9 <= n.
                while i < stop {
                    let high = tagged(units8(units, i), 0xD800);
                    let low = tagged(units8(units, i + 1), 0xDC00);
                    bad = _mm_or_si128(bad, _mm_xor_si128(high, low));
                    count = _mm_sub_epi16(count, high);
                    i += 8;
                }
                if i >= n - 8 {
                    break;
                }
                pairs += hsum_u16(count);
                count = _mm_setzero_si128();
            }
            // The r = n - 1 - i (0..=7) positions left: the last eight, the ones already
            // compared masked off in the count (comparing them again changes nothing).
            let r = n - 1 - i;
            let high = tagged(units8(units, n - 9), 0xD800);
            let low = tagged(units8(units, n - 8), 0xDC00);
            bad = _mm_or_si128(bad, _mm_xor_si128(high, low));
            let fresh = _mm_loadu_si128(LAST_U16_LANES.as_ptr().add(r).cast::<__m128i>());
            count = _mm_sub_epi16(count, _mm_and_si128(high, fresh));
            if _mm_movemask_epi8(bad) != 0 {
                return None;
            }
            Some(pairs + hsum_u16(count))
        }
    }

    /// The sum of the eight 16-bit lanes of `v` (each below 0x8000).
    #[inline(always)]
    unsafe fn hsum_u16(v: __m128i) -> usize {
        let s = _mm_madd_epi16(v, _mm_set1_epi16(1));
        let s = _mm_add_epi32(s, _mm_srli_si128(s, 8));
        let s = _mm_add_epi32(s, _mm_srli_si128(s, 4));
        _mm_cvtsi128_si32(s) as usize
    }

    /// `super::utf16_write_ucs4` a block of eight units at a time: a block without
    /// surrogates is widened whole; one starting with a run of pairs decodes its four
    /// 32-bit lanes as pairs and keeps the leading ones that are; otherwise the units before
    /// the first surrogate are kept of the widened block. The output stores need room for
    /// all their lanes (what lies past the characters kept is overwritten later). The last
    /// units, if they and the seven before hold no surrogate, are widened as the last eight.
    /// Returns the input and output positions reached. On unvalidated input a block whose
    /// first unit does not start a pair decodes one unit, so every step advances.
    pub(super) fn utf16_write_ucs4(units: &[u16], out: &mut [u32]) -> (usize, usize) {
        let n = units.len();
        let mut i = 0usize;
        let mut o = 0usize;
        // SAFETY (the stores): a block of n lanes is stored only when o + n <= out.len();
        // SSE2 is part of x86-64 (as for every intrinsic here).
        unsafe {
            while i + 8 <= n && o + 4 <= out.len() {
                let v = units8(units, i);
                let sur = _mm_cmpeq_epi16(
                    _mm_and_si128(v, _mm_set1_epi16(0xF800u16 as i16)),
                    _mm_set1_epi16(0xD800u16 as i16),
                );
                let m = _mm_movemask_epi8(sur) as u32;
                if m & 1 == 0 {
                    if o + 8 > out.len() {
                        break;
                    }
                    // Units up to the first surrogate (all eight if none).
                    store_u16x8(out, o, v);
                    let k = (m | 0x1_0000).trailing_zeros() as usize / 2;
                    i += k;
                    o += k;
                    continue;
                }
                // A (high, low) pair per 32-bit lane: with signed 16-bit halves h - 0x10000
                // and l - 0x10000, (h << 10) + l is 1024 * h' + l' + 1025 * 0x10000, and the
                // code point is that minus (0xD800 << 10) + 0xDC00 - 0x10000 (mod 2^32).
                let pair = _mm_cmpeq_epi32(
                    _mm_and_si128(v, _mm_set1_epi32(0xFC00_FC00u32 as i32)),
                    _mm_set1_epi32(0xDC00_D800u32 as i32),
                );
                let p = (!_mm_movemask_ps(_mm_castsi128_ps(pair)) as u32 | 0x10).trailing_zeros()
                    as usize;
                if p == 0 {
                    break;
                }
                let c = _mm_add_epi32(
                    _mm_madd_epi16(v, _mm_set1_epi32(0x0001_0400)),
                    _mm_set1_epi32(
                        (1025u32 << 16)
                            .wrapping_sub(0xD800 << 10)
                            .wrapping_sub(0xDC00)
                            .wrapping_add(0x10000) as i32,
                    ),
                );
                store(out, o, c);
                i += 2 * p;
                o += p;
            }
            // The tail: the last eight units widened if none is a surrogate.
            let r = n - i;
            if 0 < r && r < 8 && n >= 8 && o + r >= 8 && o + r <= out.len() {
                let v = units8(units, n - 8);
                let sur = _mm_cmpeq_epi16(
                    _mm_and_si128(v, _mm_set1_epi16(0xF800u16 as i16)),
                    _mm_set1_epi16(0xD800u16 as i16),
                );
                if _mm_movemask_epi8(sur) == 0 {
                    store_u16x8(out, o + r - 8, v);
                    return (n, o + r);
                }
            }
        }
        (i, o)
    }

    /// Mask for the last, overlapping block of `continuation_bytes`: sixteen bytes from
    /// offset `r` (the bytes not yet counted) select lanes `16 - r ..`.
    static TAIL_LANES: [u8; 32] = super::upper_half_set::<32>();

    /// Continuation bytes in `bytes[start..]` (`bytes` of at least sixteen bytes, `start`
    /// at most its length): sixteen at a time into byte counters (fewer than 255 blocks per
    /// call: `super::continuation_bytes` passes less than 64 bytes), then the last partial
    /// block as the final sixteen bytes of `bytes` with the lanes already counted masked off.
    pub(super) fn continuation_bytes_from(bytes: &[u8], start: usize) -> usize {
        let len = bytes.len();
        debug_assert!(len >= 16 && start <= len && len - start < 255 * 16);
        let mut total = 0usize;
        let mut i = start;
        // SAFETY: every load is of sixteen bytes below `len` (i + 16 <= len, or the last
        // sixteen of at least sixteen), and of TAIL_LANES at r <= 15, below its 32.
        unsafe {
            let limit = _mm_set1_epi8(-64);
            let zero = _mm_setzero_si128();
            let sum = |acc: __m128i| {
                let s = _mm_sad_epu8(acc, zero);
                (_mm_cvtsi128_si64(s) + _mm_cvtsi128_si64(_mm_unpackhi_epi64(s, s))) as usize
            };
            let mut acc = zero;
            while i + 16 <= len {
                let v = _mm_loadu_si128(bytes.as_ptr().add(i).cast::<__m128i>());
                acc = _mm_sub_epi8(acc, _mm_cmplt_epi8(v, limit));
                i += 16;
            }
            let r = len - i;
            if r > 0 {
                let v = _mm_loadu_si128(bytes.as_ptr().add(len - 16).cast::<__m128i>());
                let lanes = _mm_loadu_si128(TAIL_LANES.as_ptr().add(r).cast::<__m128i>());
                acc = _mm_sub_epi8(acc, _mm_and_si128(_mm_cmplt_epi8(v, limit), lanes));
            }
            total += sum(acc);
        }
        total
    }

    /// The four bytes at `i` as a little-endian word, zeros past the end.
    #[inline(always)]
    fn word_at(bytes: &[u8], i: usize) -> u32 {
        match bytes.get(i..i + 4) {
            Some(&[a, b, c, d]) => u32::from_le_bytes([a, b, c, d]),
            _ => (i..i + 4)
                .rev()
                .fold(0, |w, k| (w << 8) | *bytes.get(k).unwrap_or(&0) as u32),
        }
    }

    /// The sixteen bytes at `i`. Callers loop only while `i + 16 <= bytes.len()`.
    #[inline(always)]
    fn block(bytes: &[u8], i: usize) -> __m128i {
        assert!(i + 16 <= bytes.len());
        // SAFETY: in bounds (asserted; the callers' loop condition lets the compiler drop the
        // check); SSE2 is part of x86-64.
        unsafe { _mm_loadu_si128(bytes.as_ptr().add(i).cast::<__m128i>()) }
    }

    /// ASCII from `i` up to the first other byte, sixteen bytes at a time in a tight loop:
    /// each block is handed to `store` with its output position (all sixteen lanes; the
    /// lanes past a non-ASCII byte are overwritten by what follows). Stops when a block holds
    /// another byte or the next one would not fit the input or `out_len - o` lanes of output.
    ///
    /// SAFETY: `i + 16 <= bytes.len()` and `o + 16 <= out_len` on entry; `store(o, v)` may
    /// write 16 lanes at `o`.
    #[inline(always)]
    unsafe fn ascii_blocks(
        bytes: &[u8],
        i: &mut usize,
        o: &mut usize,
        out_len: usize,
        mut store: impl FnMut(usize, __m128i),
    ) {
        loop {
            let v = block(bytes, *i);
            let other = _mm_movemask_epi8(v) as u32;
            store(*o, v);
            let m = (other | 0x1_0000).trailing_zeros() as usize;
            *i += m;
            *o += m;
            if other != 0 || *i + 16 > bytes.len() || out_len - *o < 16 {
                break;
            }
        }
    }

    /// `write_wide` for Latin-1 text into one byte per character: blocks of sixteen ASCII
    /// bytes or eight two-byte characters (C2/C3 xx), the same way. Returns the input and
    /// output positions reached (nothing done below sixteen bytes). The bytes are not
    /// known valid here: a lead whose block does not match decodes one character, so every
    /// step advances.
    pub(super) fn write_latin1(bytes: &[u8], out: &mut [u8]) -> (usize, usize) {
        let len = bytes.len();
        let mut i = 0usize;
        let mut o = 0usize;
        while i + 16 <= len && o < out.len() {
            let room = out.len() - o;
            let b = bytes[i];
            // SAFETY (the stores): a block of n lanes is stored only when room >= n; SSE2 is
            // part of x86-64 (as for every intrinsic of this module).
            unsafe {
                if b < 0x80 {
                    if room >= 16 {
                        let n = out.len();
                        ascii_blocks(bytes, &mut i, &mut o, n, |o, v| {
                            _mm_storeu_si128(out.as_mut_ptr().add(o).cast::<__m128i>(), v)
                        });
                        continue;
                    }
                } else if room >= 8 {
                    let v = block(bytes, i);
                    let ok = _mm_cmpeq_epi16(
                        _mm_and_si128(v, _mm_set1_epi16(0xC0E0u16 as i16)),
                        _mm_set1_epi16(0x80C0u16 as i16),
                    );
                    let bad = !_mm_movemask_epi8(ok) as u32 | 0x1_0000;
                    let m = bad.trailing_zeros() as usize / 2;
                    if m > 0 {
                        let c = _mm_or_si128(
                            _mm_slli_epi16(_mm_and_si128(v, _mm_set1_epi16(0x03)), 6),
                            _mm_and_si128(_mm_srli_epi16(v, 8), _mm_set1_epi16(0x3F)),
                        );
                        _mm_storel_epi64(
                            out.as_mut_ptr().add(o).cast::<__m128i>(),
                            _mm_packus_epi16(c, c),
                        );
                        i += 2 * m;
                        o += m;
                        continue;
                    }
                }
            }
            // One character.
            let (c, n) = if b < 0x80 {
                (b, 1)
            } else {
                ((b << 6) | (word_at(bytes, i + 1) as u8 & 0x3F), 2)
            };
            out[o] = c;
            i += n;
            o += 1;
        }
        (i, o)
    }

    /// Decodes a block at a time (from sixteen bytes on): at a lead byte of length n, the
    /// next 16 (ASCII), 8 (two-byte) or 4 (three- and four-byte) lanes of n bytes are checked
    /// and decoded together and stored whole; the output moves past the leading lanes that
    /// do hold characters of length n (at least the first), and the lanes after them are
    /// overwritten by the characters that follow. A block needs room for all its lanes;
    /// without it, one character is decoded. Returns the input and output positions reached
    /// (nothing done below sixteen bytes). Valid UTF-8 makes every step advance: the first
    /// lane always matches.
    pub(super) fn write_wide<T: WideUnit>(s: &str, out: &mut [T]) -> (usize, usize) {
        let bytes = s.as_bytes();
        let len = bytes.len();
        let mut i = 0usize;
        let mut o = 0usize;
        while i + 16 <= len && o < out.len() {
            let room = out.len() - o;
            let b = bytes[i];
            // SAFETY (the stores): a block of n lanes is stored only when room >= n; SSE2 is
            // part of x86-64 (as for every intrinsic of this module).
            unsafe {
                if b < 0x80 {
                    if room >= 16 {
                        let n = out.len();
                        ascii_blocks(bytes, &mut i, &mut o, n, |o, v| {
                            let zero = _mm_setzero_si128();
                            store_u16x8(out, o, _mm_unpacklo_epi8(v, zero));
                            store_u16x8(out, o + 8, _mm_unpackhi_epi8(v, zero));
                        });
                        continue;
                    }
                } else if b < 0xE0 {
                    if room >= 8 {
                        // 110xxxxx 10xxxxxx in 16-bit lanes.
                        let v = block(bytes, i);
                        let ok = _mm_cmpeq_epi16(
                            _mm_and_si128(v, _mm_set1_epi16(0xC0E0u16 as i16)),
                            _mm_set1_epi16(0x80C0u16 as i16),
                        );
                        let bad = !_mm_movemask_epi8(ok) as u32 | 0x1_0000;
                        let m = bad.trailing_zeros() as usize / 2;
                        let c = _mm_or_si128(
                            _mm_slli_epi16(_mm_and_si128(v, _mm_set1_epi16(0x1F)), 6),
                            _mm_and_si128(_mm_srli_epi16(v, 8), _mm_set1_epi16(0x3F)),
                        );
                        store_u16x8(out, o, c);
                        i += 2 * m;
                        o += m;
                        continue;
                    }
                } else if b < 0xF0 {
                    if room >= 4 {
                        // 1110xxxx 10xxxxxx 10xxxxxx: bytes 3k..3k+3 into 32-bit lane k.
                        let v = block(bytes, i);
                        let g = _mm_unpacklo_epi64(
                            _mm_unpacklo_epi32(v, _mm_srli_si128(v, 3)),
                            _mm_unpacklo_epi32(_mm_srli_si128(v, 6), _mm_srli_si128(v, 9)),
                        );
                        let ok = _mm_cmpeq_epi32(
                            _mm_and_si128(g, _mm_set1_epi32(0x00C0_C0F0)),
                            _mm_set1_epi32(0x0080_80E0),
                        );
                        let bad = !_mm_movemask_ps(_mm_castsi128_ps(ok)) as u32 | 0x10;
                        let m = bad.trailing_zeros() as usize;
                        let c = _mm_or_si128(
                            _mm_or_si128(
                                _mm_slli_epi32(_mm_and_si128(g, _mm_set1_epi32(0x0F)), 12),
                                _mm_and_si128(_mm_srli_epi32(g, 2), _mm_set1_epi32(0xFC0)),
                            ),
                            _mm_and_si128(_mm_srli_epi32(g, 16), _mm_set1_epi32(0x3F)),
                        );
                        store_u32x4(out, o, c);
                        i += 3 * m;
                        o += m;
                        continue;
                    }
                } else if room >= 4 {
                    // 11110xxx 10xxxxxx 10xxxxxx 10xxxxxx in 32-bit lanes.
                    let v = block(bytes, i);
                    let ok = _mm_cmpeq_epi32(
                        _mm_and_si128(v, _mm_set1_epi32(0xC0C0_C0F8u32 as i32)),
                        _mm_set1_epi32(0x8080_80F0u32 as i32),
                    );
                    let bad = !_mm_movemask_ps(_mm_castsi128_ps(ok)) as u32 | 0x10;
                    let m = bad.trailing_zeros() as usize;
                    let c = _mm_or_si128(
                        _mm_or_si128(
                            _mm_slli_epi32(_mm_and_si128(v, _mm_set1_epi32(0x07)), 18),
                            _mm_slli_epi32(_mm_and_si128(v, _mm_set1_epi32(0x3F00)), 4),
                        ),
                        _mm_or_si128(
                            _mm_and_si128(_mm_srli_epi32(v, 10), _mm_set1_epi32(0xFC0)),
                            _mm_srli_epi32(_mm_slli_epi32(v, 2), 26),
                        ),
                    );
                    store_u32x4(out, o, c);
                    i += 4 * m;
                    o += m;
                    continue;
                }
            }
            // One character.
            let (c, n) = decode_word(word_at(bytes, i));
            out[o] = T::from_code(c);
            i += n;
            o += 1;
        }
        (i, o)
    }
}

/// The one-pass UTF-8 shape for CPUs with AVX2 (detected at run time by the caller).
#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::{utf8_error, InvalidText, TextKind, TextShape};
    use std::arch::x86_64::*;

    // The error classes of the lookup-table validator of Keiser and Lemire ("Validating
    // UTF-8 in less than one instruction per byte", 2021), as simdjson and simdutf8 use it:
    // each class is a bit set by the three tables below for the (previous byte, byte) pairs
    // that may show it, so a pair is invalid exactly when a bit survives the AND of its
    // three lookups. The 2nd to 4th bytes of three- and four-byte sequences, which a
    // table of byte pairs cannot see, are checked by `must_be_2_3_continuation`.
    const TOO_SHORT: u8 = 1 << 0; // a lead not followed by a continuation byte
    const TOO_LONG: u8 = 1 << 1; // ASCII followed by a continuation byte
    const OVERLONG_3: u8 = 1 << 2; // E0 80..9F
    const TOO_LARGE: u8 = 1 << 3; // F4 90..BF, F5..FF 80..BF
    const SURROGATE: u8 = 1 << 4; // ED A0..BF
    const OVERLONG_2: u8 = 1 << 5; // C0 / C1 80..BF
    const TOO_LARGE_1000: u8 = 1 << 6; // F5..FF 80..8F
    const OVERLONG_4: u8 = 1 << 6; // F0 80..8F
    const TWO_CONTS: u8 = 1 << 7; // a continuation byte after another (checked again below)
    const CARRY: u8 = TOO_SHORT | TOO_LONG | TWO_CONTS;

    /// Classes by the high nibble of the previous byte.
    static PREV_HIGH: [u8; 16] = [
        TOO_LONG,
        TOO_LONG,
        TOO_LONG,
        TOO_LONG,
        TOO_LONG,
        TOO_LONG,
        TOO_LONG,
        TOO_LONG,
        TWO_CONTS,
        TWO_CONTS,
        TWO_CONTS,
        TWO_CONTS,
        TOO_SHORT | OVERLONG_2,
        TOO_SHORT,
        TOO_SHORT | OVERLONG_3 | SURROGATE,
        TOO_SHORT | TOO_LARGE | TOO_LARGE_1000 | OVERLONG_4,
    ];

    /// Classes by the low nibble of the previous byte.
    static PREV_LOW: [u8; 16] = [
        CARRY | OVERLONG_3 | OVERLONG_2 | OVERLONG_4,
        CARRY | OVERLONG_2,
        CARRY,
        CARRY,
        CARRY | TOO_LARGE,
        CARRY | TOO_LARGE | TOO_LARGE_1000,
        CARRY | TOO_LARGE | TOO_LARGE_1000,
        CARRY | TOO_LARGE | TOO_LARGE_1000,
        CARRY | TOO_LARGE | TOO_LARGE_1000,
        CARRY | TOO_LARGE | TOO_LARGE_1000,
        CARRY | TOO_LARGE | TOO_LARGE_1000,
        CARRY | TOO_LARGE | TOO_LARGE_1000,
        CARRY | TOO_LARGE | TOO_LARGE_1000,
        CARRY | TOO_LARGE | TOO_LARGE_1000 | SURROGATE,
        CARRY | TOO_LARGE | TOO_LARGE_1000,
        CARRY | TOO_LARGE | TOO_LARGE_1000,
    ];

    /// Classes by the high nibble of the byte itself.
    static HIGH: [u8; 16] = [
        TOO_SHORT,
        TOO_SHORT,
        TOO_SHORT,
        TOO_SHORT,
        TOO_SHORT,
        TOO_SHORT,
        TOO_SHORT,
        TOO_SHORT,
        TOO_LONG | OVERLONG_2 | TWO_CONTS | OVERLONG_3 | TOO_LARGE_1000 | OVERLONG_4,
        TOO_LONG | OVERLONG_2 | TWO_CONTS | OVERLONG_3 | TOO_LARGE,
        TOO_LONG | OVERLONG_2 | TWO_CONTS | SURROGATE | TOO_LARGE,
        TOO_LONG | OVERLONG_2 | TWO_CONTS | SURROGATE | TOO_LARGE,
        TOO_SHORT,
        TOO_SHORT,
        TOO_SHORT,
        TOO_SHORT,
    ];

    /// Per lane, the largest byte that may end a value there (the last three lanes of the
    /// last block): a lead byte needing more bytes than are left is a truncated sequence.
    static LAST_MAX: [u8; 32] = {
        let mut t = [0xFFu8; 32];
        t[29] = 0xEF;
        t[30] = 0xDF;
        t[31] = 0xBF;
        t
    };

    /// Mask for the last, overlapping block: 32 bytes from offset `r` (the bytes not yet
    /// counted, below 32) select lanes `32 - r ..`.
    static TAIL_LANES: [u8; 64] = super::upper_half_set::<64>();

    /// Blocks per counting round: each byte counter lane stays below 256 (the first and
    /// the last block of a value may add two more).
    const COUNT_BLOCKS: usize = 250;

    /// Bytes of one block.
    const B: usize = 32;

    /// A 16-byte table in both 128-bit lanes (`_mm256_shuffle_epi8` looks up within each).
    #[target_feature(enable = "avx2")]
    #[inline]
    fn table(t: &[u8; 16]) -> __m256i {
        // SAFETY: sixteen bytes in bounds.
        _mm256_broadcastsi128_si256(unsafe { _mm_loadu_si128(t.as_ptr().cast::<__m128i>()) })
    }

    /// The running state of one pass: the error bits, the largest byte of every lane and the
    /// continuation bytes counted in byte lanes.
    struct Pass {
        tables: [__m256i; 3],
        error: __m256i,
        max: __m256i,
        count: __m256i,
    }

    impl Pass {
        #[target_feature(enable = "avx2")]
        #[inline]
        fn new() -> Self {
            Pass {
                tables: [table(&PREV_HIGH), table(&PREV_LOW), table(&HIGH)],
                error: _mm256_setzero_si256(),
                max: _mm256_setzero_si256(),
                count: _mm256_setzero_si256(),
            }
        }

        /// Checks block `v`, whose three preceding bytes (in the lanes of the same index)
        /// are `p1`, `p2` and `p3`, and counts its continuation bytes in the lanes of
        /// `fresh` (all ones, or those of the last block not counted before).
        #[target_feature(enable = "avx2")]
        #[inline]
        fn block(&mut self, v: __m256i, p1: __m256i, p2: __m256i, p3: __m256i, fresh: __m256i) {
            let nibble = _mm256_set1_epi8(0x0F);
            let prev_high = _mm256_and_si256(_mm256_srli_epi16(p1, 4), nibble);
            let high = _mm256_and_si256(_mm256_srli_epi16(v, 4), nibble);
            let special = _mm256_and_si256(
                _mm256_and_si256(
                    _mm256_shuffle_epi8(self.tables[0], prev_high),
                    _mm256_shuffle_epi8(self.tables[1], _mm256_and_si256(p1, nibble)),
                ),
                _mm256_shuffle_epi8(self.tables[2], high),
            );
            // The 3rd byte of a three- or four-byte sequence and the 4th of a four-byte one
            // must be continuation bytes (bit 7 of the saturated differences), and only
            // those and the 2nd bytes (the tables' TWO_CONTS) may be.
            let must_continue = _mm256_and_si256(
                _mm256_or_si256(
                    _mm256_subs_epu8(p2, _mm256_set1_epi8(0xE0u8.wrapping_sub(0x80) as i8)),
                    _mm256_subs_epu8(p3, _mm256_set1_epi8(0xF0u8.wrapping_sub(0x80) as i8)),
                ),
                _mm256_set1_epi8(0x80u8 as i8),
            );
            self.error = _mm256_or_si256(self.error, _mm256_xor_si256(must_continue, special));
            self.max = _mm256_max_epu8(self.max, v);
            // Continuation bytes are 80..BF: below -64 as i8.
            let continuation = _mm256_cmpgt_epi8(_mm256_set1_epi8(-64), v);
            self.count = _mm256_sub_epi8(self.count, _mm256_and_si256(continuation, fresh));
        }

        /// `block` for the 32 bytes at `at`, their three preceding bytes loaded from the input;
        /// returns the block.
        ///
        /// SAFETY: `3 <= at` and `at + 32 <= bytes.len()`.
        #[target_feature(enable = "avx2")]
        #[inline]
        unsafe fn block_at(&mut self, bytes: &[u8], at: usize, fresh: __m256i) -> __m256i {
            let v = load(bytes, at);
            self.block(
                v,
                load(bytes, at - 1),
                load(bytes, at - 2),
                load(bytes, at - 3),
                fresh,
            );
            v
        }

        /// Counts gathered so far, the byte lanes cleared.
        #[target_feature(enable = "avx2")]
        #[inline]
        fn take_count(&mut self) -> usize {
            let s = _mm256_sad_epu8(self.count, _mm256_setzero_si256());
            self.count = _mm256_setzero_si256();
            let s = _mm_add_epi64(_mm256_castsi256_si128(s), _mm256_extracti128_si256(s, 1));
            (_mm_cvtsi128_si64(s) + _mm_cvtsi128_si64(_mm_unpackhi_epi64(s, s))) as usize
        }
    }

    /// 32 bytes at `at`.
    ///
    /// SAFETY: `at + 32 <= bytes.len()`.
    #[target_feature(enable = "avx2")]
    #[inline]
    unsafe fn load(bytes: &[u8], at: usize) -> __m256i {
        debug_assert!(at + B <= bytes.len());
        _mm256_loadu_si256(bytes.as_ptr().add(at).cast::<__m256i>())
    }

    /// `super::utf8_shape` of text that is not ASCII, in one pass of 32 bytes at a time:
    /// the Keiser-Lemire validation, the largest byte and the count of continuation bytes
    /// together. The leading ASCII is skipped first; the first block checked has only
    /// ASCII before it, so its preceding bytes are zeros shifted in; the others load
    /// theirs. A last partial block is the last 32 bytes, its lanes counted before masked
    /// off. Values of fewer than 35 bytes (and not 32) are copied to the end of a zeroed
    /// buffer first. Invalid input goes to `utf8_error` for the offset.
    ///
    /// SAFETY: the CPU supports AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn utf8_shape(bytes: &[u8]) -> Result<TextShape, InvalidText> {
        let len = bytes.len();
        let mut buf;
        let blocks = if len < B + 3 && len != B {
            buf = [0u8; 2 * B];
            buf[2 * B - len..].copy_from_slice(bytes);
            // Zeros before the text: ASCII, nothing counted.
            if len < B {
                &buf[B..]
            } else {
                &buf[..]
            }
        } else {
            bytes
        };
        match shape_blocks(blocks) {
            Some((kind, continuation)) => Ok(TextShape {
                kind,
                chars: len - continuation,
            }),
            None => utf8_error(bytes),
        }
    }

    /// The kind and the number of continuation bytes of `bytes` (32 or at least 35 bytes,
    /// not all ASCII), `None` if it is not valid UTF-8.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn shape_blocks(bytes: &[u8]) -> Option<(TextKind, usize)> {
        let len = bytes.len();
        debug_assert!(len == B || len >= B + 3);
        let last = len - B;
        let mut pass = Pass::new();
        let all = _mm256_set1_epi8(-1);
        // SAFETY: every load is of 32 bytes at most at `last` (and at least at 0: the block
        // loads at i - 3 have i >= 32, the last block's at last - 3 has last >= 3 when it
        // runs: len >= 35); TAIL_LANES is loaded at r < 32, below its 64.
        unsafe {
            // Skip the leading ASCII: the first block to check starts at the first other
            // byte, or is the last block.
            let mut i = 0usize;
            let first = loop {
                if i >= last {
                    break last;
                }
                let m = _mm256_movemask_epi8(load(bytes, i));
                if m != 0 {
                    break (i + m.trailing_zeros() as usize).min(last);
                }
                i += B;
            };
            let v = load(bytes, first);
            // The bytes before `v`: its lanes moved up, zeros (ASCII) shifted in.
            let low = _mm256_permute2x128_si256::<0x08>(v, v);
            pass.block(
                v,
                _mm256_alignr_epi8::<15>(v, low),
                _mm256_alignr_epi8::<14>(v, low),
                _mm256_alignr_epi8::<13>(v, low),
                all,
            );
            let mut tail = v;
            let mut i = first + B;
            let mut continuation = 0usize;
            loop {
                let stop = last.min(i + B * COUNT_BLOCKS);
                while i <= stop {
                    tail = pass.block_at(bytes, i, all);
                    i += B;
                }
                if i > last {
                    break;
                }
                continuation += pass.take_count();
            }
            if i < len {
                let fresh = _mm256_loadu_si256(TAIL_LANES.as_ptr().add(len - i).cast::<__m256i>());
                tail = pass.block_at(bytes, last, fresh);
            }
            continuation += pass.take_count();
            let truncated = _mm256_subs_epu8(
                tail,
                _mm256_loadu_si256(LAST_MAX.as_ptr().cast::<__m256i>()),
            );
            let error = _mm256_or_si256(pass.error, truncated);
            if _mm256_testz_si256(error, error) == 0 {
                return None;
            }
            // The largest lead byte gives the kind of valid text (see `kind_of_max_byte`).
            let at_least = |b: u8| {
                let floor = _mm256_max_epu8(pass.max, _mm256_set1_epi8(b as i8));
                _mm256_movemask_epi8(_mm256_cmpeq_epi8(floor, pass.max)) != 0
            };
            let kind = if at_least(0xF0) {
                TextKind::Ucs4
            } else if at_least(0xC4) {
                TextKind::Ucs2
            } else {
                TextKind::Latin1
            };
            Some((kind, continuation))
        }
    }
}

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
}
