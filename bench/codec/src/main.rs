//! `codec-bench`: runs one of fastodbc's text decoders over one input category, for
//! bench/instructions.py to count instructions under `valgrind --tool=callgrind`.
//!
//! Usage: codec-bench utf16|utf8 CATEGORY ITERATIONS
//!        codec-bench --list
//!
//! Each iteration does what the fetch path does for one value (fastodbc-py's text.rs): the shape
//! pass, then the write pass into storage of the selected kind. Storage is allocated once, as
//! `PyUnicode_New` would allocate it; no Python is involved. bench/instructions.py runs each case
//! with ITERATIONS = 0 and = N and divides the difference by N: instructions per value, with
//! process start-up and input construction cancelled out. The decode loop must not allocate: a
//! counting allocator checks it and the program fails if it does.

use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};

use fastodbc_core::types::text::{
    utf16_shape, utf16_write_ucs1, utf16_write_ucs2, utf16_write_ucs4, utf8_shape, utf8_write_ucs1,
    utf8_write_wide, TextKind,
};

struct Counting;
static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        System.alloc(layout)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// The text categories of issue 3 and `mixed42`, one value shaped like the `unicode3`
/// dataset's (emoji, ASCII runs, CJK, Latin-1 and Cyrillic share a value, so it is UCS-4 with
/// runs of every width inside); bench/codec_py.py builds the same strings.
const CATEGORIES: &[&str] = &[
    "ascii8",
    "ascii32",
    "ascii128",
    "ascii2048",
    "ascii127_nonascii1",
    "latin1_32",
    "cyrillic32",
    "cjk32",
    "emoji16",
    "mixed42",
];

/// 42 characters, 83 bytes of UTF-8: 6 emoji, 20 ASCII in runs, 7 CJK, 3 Latin-1, 6 Cyrillic.
const MIXED42: &str = "🌰🌯🌽😹yOUaIzlEjdZg6v6 2m🌰🙃侁乫乁佔伭付伻 íëø Привет";

fn cycle(alphabet: &[char], n: usize) -> String {
    alphabet.iter().cycle().take(n).collect()
}

fn category(name: &str) -> Option<String> {
    let ascii: Vec<char> = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 "
        .chars()
        .collect();
    let latin1: Vec<char> = "àáâãäåæçèéêëìíîïñòóôõöøùúûüýÿ".chars().collect();
    let cyrillic: Vec<char> = (0x410..0x450).filter_map(char::from_u32).collect();
    let cjk: Vec<char> = (0x4E00..0x4E00 + 64).filter_map(char::from_u32).collect();
    let emoji: Vec<char> = (0x1F600..0x1F640).filter_map(char::from_u32).collect();
    Some(match name {
        "ascii8" => cycle(&ascii, 8),
        "ascii32" => cycle(&ascii, 32),
        "ascii128" => cycle(&ascii, 128),
        "ascii2048" => cycle(&ascii, 2048),
        "ascii127_nonascii1" => cycle(&ascii, 127) + "é",
        "latin1_32" => cycle(&latin1, 32),
        "cyrillic32" => cycle(&cyrillic, 32),
        "cjk32" => cycle(&cjk, 32),
        "emoji16" => cycle(&emoji, 16),
        "mixed42" => MIXED42.to_string(),
        _ => return None,
    })
}

#[inline(never)]
fn decode_utf16(units: &[u16], ucs1: &mut [u8], ucs2: &mut [u16], ucs4: &mut [u32]) -> usize {
    let shape = match utf16_shape(units) {
        Ok(s) => s,
        Err(_) => return usize::MAX,
    };
    let n = shape.chars;
    match shape.kind {
        TextKind::Ascii | TextKind::Latin1 => utf16_write_ucs1(units, &mut ucs1[..n]),
        TextKind::Ucs2 => utf16_write_ucs2(units, &mut ucs2[..n]),
        TextKind::Ucs4 => utf16_write_ucs4(units, &mut ucs4[..n]),
    }
    n
}

#[inline(never)]
fn decode_utf8(bytes: &[u8], ucs1: &mut [u8], ucs2: &mut [u16], ucs4: &mut [u32]) -> usize {
    let shape = match utf8_shape(bytes) {
        Ok(s) => s,
        Err(_) => return usize::MAX,
    };
    let n = shape.chars;
    match shape.kind {
        TextKind::Ascii | TextKind::Latin1 => utf8_write_ucs1(bytes, shape.kind, &mut ucs1[..n]),
        // SAFETY: utf8_shape validated the bytes.
        TextKind::Ucs2 => utf8_write_wide::<u16>(
            unsafe { std::str::from_utf8_unchecked(bytes) },
            &mut ucs2[..n],
        ),
        TextKind::Ucs4 => utf8_write_wide::<u32>(
            unsafe { std::str::from_utf8_unchecked(bytes) },
            &mut ucs4[..n],
        ),
    }
    n
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--list") {
        for c in CATEGORIES {
            println!("{c}");
        }
        return ExitCode::SUCCESS;
    }
    let [codec, cat, iters] = &args[..] else {
        eprintln!("usage: codec-bench utf16|utf8 CATEGORY ITERATIONS | --list");
        return ExitCode::from(2);
    };
    let Some(text) = category(cat) else {
        eprintln!("codec-bench: unknown category {cat}");
        return ExitCode::from(2);
    };
    let Ok(iters) = iters.parse::<usize>() else {
        eprintln!("codec-bench: bad iteration count {iters}");
        return ExitCode::from(2);
    };
    let units: Vec<u16> = text.encode_utf16().collect();
    let bytes: Vec<u8> = text.as_bytes().to_vec();
    let cap = units.len().max(bytes.len());
    let (mut ucs1, mut ucs2, mut ucs4) = (vec![0u8; cap], vec![0u16; cap], vec![0u32; cap]);
    let expected = text.chars().count();
    let before = ALLOCATIONS.load(Ordering::Relaxed);
    let mut chars = 0usize;
    for _ in 0..iters {
        chars = match codec.as_str() {
            "utf16" => decode_utf16(black_box(&units), &mut ucs1, &mut ucs2, &mut ucs4),
            "utf8" => decode_utf8(black_box(&bytes), &mut ucs1, &mut ucs2, &mut ucs4),
            _ => {
                eprintln!("codec-bench: unknown codec {codec}");
                return ExitCode::from(2);
            }
        };
        black_box((&ucs1, &ucs2, &ucs4));
    }
    let allocations = ALLOCATIONS.load(Ordering::Relaxed) - before;
    if iters > 0 && chars != expected {
        eprintln!("codec-bench: {codec} {cat}: decoded {chars} characters, expected {expected}");
        return ExitCode::FAILURE;
    }
    if allocations != 0 {
        eprintln!("codec-bench: {codec} {cat}: the decode loop allocated {allocations} times");
        return ExitCode::FAILURE;
    }
    println!("{{\"codec\": \"{codec}\", \"category\": \"{cat}\", \"iterations\": {iters}, \"chars\": {expected}, \"allocations\": {allocations}}}");
    ExitCode::SUCCESS
}
