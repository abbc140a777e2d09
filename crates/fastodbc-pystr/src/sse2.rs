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
            let p =
                (!_mm_movemask_ps(_mm_castsi128_ps(pair)) as u32 | 0x10).trailing_zeros() as usize;
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
