//! UTF-8 writers for CPUs with AVX-512 VBMI2 (Ice Lake, Zen 4 and later), detected at run
//! time by the caller: validated UTF-8 into CPython's 1-, 2- or 4-byte storage, up to 64 input
//! bytes a step and no character-at-a-time tail (the last bytes are a masked load).
//!
//! Each step loads up to 64 bytes and marks where characters start (every byte but a
//! continuation byte). `vpcompressb` packs the start positions; `vpermb` gathers the lead byte
//! and the next one to three bytes of each character into lanes of their own; the code point
//! is then lane arithmetic on those bytes, chosen per lane by the lead byte's range. A
//! character is only taken if all its bytes are inside the step's 64, so the next step starts
//! on the first character not taken.
//!
//! The input must be valid UTF-8 (the shape pass checked it) of the kind the writer is for,
//! and `out` as long as its characters. Other input writes wrong characters but never outside
//! `out`: a step stores no more than the room left (a short `out` gets the first characters,
//! as the other writers do), and the loads never read outside `bytes`.

use std::arch::x86_64::*;
use std::sync::atomic::{AtomicU8, Ordering};

/// Byte `i` holds `i`: compressed by the start mask, the start positions.
static POSITIONS: [u8; 64] = {
    let mut t = [0u8; 64];
    let mut i = 0;
    while i < 64 {
        t[i] = i as u8;
        i += 1;
    }
    t
};

/// 0 not yet known, 1 no, 2 yes.
static AVAILABLE: AtomicU8 = AtomicU8::new(0);

/// Whether the CPU (and the OS, which must save the registers) supports everything this
/// module uses: AVX-512 F/BW (masked byte and word operations), VBMI (`vpermb`), VBMI2
/// (`vpcompressb`) and BMI2 (`pdep`). One load once known: it is asked once per value.
#[inline(always)]
pub(super) fn available() -> bool {
    match AVAILABLE.load(Ordering::Relaxed) {
        2 => true,
        1 => false,
        _ => detect(),
    }
}

/// The first `available()` of the process: asks the CPU and keeps the answer.
#[cold]
#[inline(never)]
fn detect() -> bool {
    let yes = is_x86_feature_detected!("avx512f")
        && is_x86_feature_detected!("avx512bw")
        && is_x86_feature_detected!("avx512vbmi")
        && is_x86_feature_detected!("avx512vbmi2")
        && is_x86_feature_detected!("bmi2");
    AVAILABLE.store(if yes { 2 } else { 1 }, Ordering::Relaxed);
    yes
}

/// One step's input: the bytes at `at` (zeros past the end of `bytes`), where characters
/// start among them, and how many bytes remain from `at`.
struct Step {
    v: __m512i,
    starts: u64,
    rem: usize,
}

/// Loads the step at `at` (`at < bytes.len()`); the masked load reads nothing past the end.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn load(bytes: &[u8], at: usize) -> Step {
    let rem = bytes.len() - at;
    let inside = if rem >= 64 {
        u64::MAX
    } else {
        (1u64 << rem) - 1
    };
    let v = _mm512_maskz_loadu_epi8(inside, bytes.as_ptr().add(at).cast());
    // Continuation bytes are 0x80..0xBF, below -64 as i8; the zeros past the end are starts
    // and are masked off.
    let starts = _mm512_cmpge_epi8_mask(v, _mm512_set1_epi8(-64)) & inside;
    Step { v, starts, rem }
}

impl Step {
    /// The starts whose characters (at most `longest` bytes) end inside the step: all of them
    /// in the last step, else those below `64 - longest + 1`.
    #[inline(always)]
    fn complete(&self, longest: u32) -> u64 {
        if self.rem <= 64 {
            self.starts
        } else {
            self.starts & (u64::MAX >> (longest - 1))
        }
    }

    /// Whether the step is 64 ASCII bytes and `room` holds them: the writers then store or
    /// widen them with no character arithmetic and, more to the point, advance by a constant,
    /// so the next step's load need not wait for this one's start positions (127 ASCII and
    /// one Cyrillic character took 44 ns through the general steps, 29 ns this way, 33 ns with
    /// the SSE2 block writer).
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw")]
    fn all_ascii(&self, room: usize) -> bool {
        self.rem >= 64 && room >= 64 && _mm512_movepi8_mask(self.v) == 0
    }

    /// Bytes consumed when the characters at `taken` were written: up to the first start
    /// after them, or the whole step. (Valid input always takes the start at 0.)
    #[inline(always)]
    fn consumed(&self, taken: u64) -> usize {
        let through_last = u64::MAX.checked_shr(taken.leading_zeros()).unwrap_or(0);
        let after = self.starts & !through_last;
        if after != 0 {
            after.trailing_zeros() as usize
        } else {
            self.rem.min(64)
        }
    }
}

/// The characters at `taken` (`k`) and how many of them fit in `room` (`n`): only a short
/// `out` makes `n < k`, and the writer stops after storing them.
#[inline(always)]
fn fitting(taken: u64, room: usize) -> (u32, u32) {
    let k = taken.count_ones();
    (k, k.min(room.min(64) as u32))
}

/// The store mask of the first `k` lanes (`k <= 64`).
#[inline(always)]
fn first_lanes(k: u32) -> u64 {
    if k >= 64 {
        u64::MAX
    } else {
        (1u64 << k) - 1
    }
}

/// Latin-1 text (ASCII and the two-byte sequences C2/C3 xx) as one byte per character.
///
/// SAFETY: the CPU supports this module (`available()`).
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,avx512vbmi2")]
pub(super) unsafe fn write_latin1(bytes: &[u8], out: &mut [u8]) {
    let positions = _mm512_loadu_si512(POSITIONS.as_ptr().cast());
    let next_index = _mm512_add_epi8(positions, _mm512_set1_epi8(1));
    let (mut i, mut o) = (0usize, 0usize);
    while i < bytes.len() {
        let step = load(bytes, i);
        if step.all_ascii(out.len() - o) {
            // SAFETY: 64 bytes fit in `out` (`all_ascii`).
            _mm512_storeu_si512(out.as_mut_ptr().add(o).cast(), step.v);
            (i, o) = (i + 64, o + 64);
            continue;
        }
        let taken = step.complete(2);
        // Each lead byte becomes its character, ((lead & 3) << 6) | (next & 0x3F): the
        // 16-bit shift keeps the two bits inside their byte. Every other start is ASCII.
        let next = _mm512_permutexvar_epi8(next_index, step.v);
        let lead = _mm512_cmpge_epu8_mask(step.v, _mm512_set1_epi8(0xC0u8 as i8));
        let two = _mm512_or_si512(
            _mm512_slli_epi16::<6>(_mm512_and_si512(step.v, _mm512_set1_epi8(3))),
            _mm512_and_si512(next, _mm512_set1_epi8(0x3F)),
        );
        let chars = _mm512_maskz_compress_epi8(taken, _mm512_mask_mov_epi8(step.v, lead, two));
        let (k, n) = fitting(taken, out.len() - o);
        // SAFETY: the `n` stored bytes fit in `out`.
        _mm512_mask_storeu_epi8(out.as_mut_ptr().add(o).cast(), first_lanes(n), chars);
        if n < k {
            return;
        }
        o += n as usize;
        // Every start but one in the last byte of a full step was taken: the short form of
        // `consumed`, for a shorter wait before the next load.
        i += if step.rem > 64 {
            64 - (step.starts >> 63) as usize
        } else {
            step.rem
        };
    }
}

/// The lead byte and the next three bytes of the characters at `taken`, in the order of their
/// starts (lane `j` for the `j`-th character).
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,avx512vbmi2")]
unsafe fn gather(step: &Step, taken: u64, positions: __m512i) -> [__m512i; 4] {
    let at = _mm512_maskz_compress_epi8(taken, positions);
    // `vpermb` reads the low six bits of each index: positions past the step wrap around,
    // only for bytes that belong to no taken character.
    let byte = |k: i8| _mm512_permutexvar_epi8(_mm512_add_epi8(at, _mm512_set1_epi8(k)), step.v);
    [byte(0), byte(1), byte(2), byte(3)]
}

/// Text without astral characters (one- to three-byte sequences) as UCS-2, 32 characters a
/// step.
///
/// SAFETY: the CPU supports this module (`available()`).
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,avx512vbmi2,bmi2")]
pub(super) unsafe fn write_ucs2(bytes: &[u8], out: &mut [u16]) {
    let positions = _mm512_loadu_si512(POSITIONS.as_ptr().cast());
    let (mut i, mut o) = (0usize, 0usize);
    while i < bytes.len() {
        let step = load(bytes, i);
        if step.all_ascii(out.len() - o) {
            // SAFETY: 64 units fit in `out` (`all_ascii`).
            for half in 0..2 {
                let quarter = if half == 0 {
                    _mm512_castsi512_si256(step.v)
                } else {
                    _mm512_extracti64x4_epi64::<1>(step.v)
                };
                let units = _mm512_cvtepu8_epi16(quarter);
                _mm512_storeu_si512(out.as_mut_ptr().add(o + 32 * half).cast(), units);
            }
            (i, o) = (i + 64, o + 64);
            continue;
        }
        // The first 32 complete characters: one vector of 16-bit lanes.
        let taken = _pdep_u64(0xFFFF_FFFF, step.complete(3));
        let [b0, b1, b2, _] = gather(&step, taken, positions);
        let widen = |b: __m512i| _mm512_cvtepu8_epi16(_mm512_castsi512_si256(b));
        let (lead, c1, c2) = (widen(b0), widen(b1), widen(b2));
        let low6 = _mm512_set1_epi16(0x3F);
        let (c1, c2) = (_mm512_and_si512(c1, low6), _mm512_and_si512(c2, low6));
        let two = _mm512_or_si512(
            _mm512_slli_epi16::<6>(_mm512_and_si512(lead, _mm512_set1_epi16(0x1F))),
            c1,
        );
        // The shift by 12 keeps the lead's low four bits only.
        let three = _mm512_or_si512(
            _mm512_or_si512(_mm512_slli_epi16::<12>(lead), _mm512_slli_epi16::<6>(c1)),
            c2,
        );
        let is_two = _mm512_cmpge_epu16_mask(lead, _mm512_set1_epi16(0xC0));
        let is_three = _mm512_cmpge_epu16_mask(lead, _mm512_set1_epi16(0xE0));
        let units =
            _mm512_mask_mov_epi16(_mm512_mask_mov_epi16(lead, is_two, two), is_three, three);
        let (k, n) = fitting(taken, out.len() - o);
        // SAFETY: the `n` stored units fit in `out`.
        _mm512_mask_storeu_epi16(out.as_mut_ptr().add(o).cast(), first_lanes(n) as u32, units);
        if n < k {
            return;
        }
        o += n as usize;
        i += step.consumed(taken);
    }
}

/// Any text as UCS-4, 32 characters a step in two vectors of 32-bit lanes.
///
/// SAFETY: the CPU supports this module (`available()`).
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,avx512vbmi2,bmi2")]
pub(super) unsafe fn write_ucs4(bytes: &[u8], out: &mut [u32]) {
    let positions = _mm512_loadu_si512(POSITIONS.as_ptr().cast());
    let (mut i, mut o) = (0usize, 0usize);
    while i < bytes.len() {
        let step = load(bytes, i);
        if step.all_ascii(out.len() - o) {
            // SAFETY: 64 units fit in `out` (`all_ascii`).
            for quarter in 0..4 {
                let bytes16 = match quarter {
                    0 => _mm512_castsi512_si128(step.v),
                    1 => _mm512_extracti32x4_epi32::<1>(step.v),
                    2 => _mm512_extracti32x4_epi32::<2>(step.v),
                    _ => _mm512_extracti32x4_epi32::<3>(step.v),
                };
                let units = _mm512_cvtepu8_epi32(bytes16);
                _mm512_storeu_si512(out.as_mut_ptr().add(o + 16 * quarter).cast(), units);
            }
            (i, o) = (i + 64, o + 64);
            continue;
        }
        let taken = _pdep_u64(0xFFFF_FFFF, step.complete(4));
        let (k, n) = fitting(taken, out.len() - o);
        let bytes4 = gather(&step, taken, positions);
        // Characters 0-15 from the first 16 lanes of each byte vector, 16-31 from the next.
        for (half, lanes) in [(0usize, n.min(16)), (1, n.saturating_sub(16))] {
            if lanes == 0 {
                break;
            }
            let widen = |b: __m512i| {
                let quarter = if half == 0 {
                    _mm512_castsi512_si128(b)
                } else {
                    _mm512_extracti32x4_epi32::<1>(b)
                };
                _mm512_cvtepu8_epi32(quarter)
            };
            let lead = widen(bytes4[0]);
            let low6 = _mm512_set1_epi32(0x3F);
            let c = |j: usize| _mm512_and_si512(widen(bytes4[j]), low6);
            let (c1, c2, c3) = (c(1), c(2), c(3));
            let two = _mm512_or_si512(
                _mm512_slli_epi32::<6>(_mm512_and_si512(lead, _mm512_set1_epi32(0x1F))),
                c1,
            );
            let three = _mm512_or_si512(
                _mm512_or_si512(
                    _mm512_slli_epi32::<12>(_mm512_and_si512(lead, _mm512_set1_epi32(0x0F))),
                    _mm512_slli_epi32::<6>(c1),
                ),
                c2,
            );
            let four = _mm512_or_si512(
                _mm512_or_si512(
                    _mm512_slli_epi32::<18>(_mm512_and_si512(lead, _mm512_set1_epi32(0x07))),
                    _mm512_slli_epi32::<12>(c1),
                ),
                _mm512_or_si512(_mm512_slli_epi32::<6>(c2), c3),
            );
            let at_least = |b: i32| _mm512_cmpge_epu32_mask(lead, _mm512_set1_epi32(b));
            let code = _mm512_mask_mov_epi32(lead, at_least(0xC0), two);
            let code = _mm512_mask_mov_epi32(code, at_least(0xE0), three);
            let code = _mm512_mask_mov_epi32(code, at_least(0xF0), four);
            // SAFETY: `o + 16 * half + lanes <= o + n`, which fits in `out`.
            _mm512_mask_storeu_epi32(
                out.as_mut_ptr().add(o + 16 * half).cast(),
                first_lanes(lanes) as u16,
                code,
            );
        }
        if n < k {
            return;
        }
        o += n as usize;
        i += step.consumed(taken);
    }
}
