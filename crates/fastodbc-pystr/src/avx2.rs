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
