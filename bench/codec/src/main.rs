//! `codec-bench`: runs one case of fastodbc's codecs (the cases of this crate's library: text
//! decoders, numeric and temporal converters, GUIDs, parameter encoding) for
//! bench/instructions.py to count instructions under `valgrind --tool=callgrind`.
//!
//! Usage: codec-bench GROUP CASE ITERATIONS
//!        codec-bench --list          (lines of "GROUP CASE VALUES-PER-ITERATION"; every case
//!                                     is prepared, so its results are checked, on the way)
//!
//! Each iteration converts the case's prepared inputs once (`Work::run`; the text groups keep
//! the loop of `text_loop`). For the text groups that is what the fetch path does for one value
//! (fastodbc-py's text.rs): the shape pass, then the write pass into storage of the selected
//! kind, allocated once as `PyUnicode_New` would allocate it; no Python is involved.
//! bench/instructions.py runs each case with ITERATIONS = 0 and = N and divides the difference
//! by N times the values per iteration: instructions per value, with process start-up and
//! input construction cancelled out. A counting allocator checks that the loop stays within
//! the case's allocations per value (none for the decoders and converters); the program fails
//! if it does not.

use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};

use codec_bench::text::{self, category};
use codec_bench::{visit_case, Visit, Work, GROUPS};

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

/// Values per iteration of a case.
struct Values;

impl Visit for Values {
    type Out = usize;
    fn visit<W: Work>(self, work: W) -> usize {
        work.values()
    }
}

/// Runs a case `iterations` times: (values converted, allocations, allocation budget).
struct Measure {
    iterations: usize,
}

impl Visit for Measure {
    type Out = (usize, usize, Option<usize>);
    fn visit<W: Work>(self, mut work: W) -> Self::Out {
        let before = ALLOCATIONS.load(Ordering::Relaxed);
        for _ in 0..self.iterations {
            work.run();
        }
        let allocations = ALLOCATIONS.load(Ordering::Relaxed) - before;
        (
            self.iterations * work.values(),
            allocations,
            work.allocation_budget(),
        )
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--list") {
        for (group, cases) in GROUPS {
            for case in *cases {
                match visit_case(group, case, Values) {
                    Ok(values) => println!("{group} {case} {values}"),
                    Err(e) => {
                        eprintln!("codec-bench: {group} {case}: {e}");
                        return ExitCode::FAILURE;
                    }
                }
            }
        }
        return ExitCode::SUCCESS;
    }
    let [group, case, iters] = &args[..] else {
        eprintln!("usage: codec-bench GROUP CASE ITERATIONS | --list");
        return ExitCode::from(2);
    };
    let Ok(iterations) = iters.parse::<usize>() else {
        eprintln!("codec-bench: bad iteration count {iters}");
        return ExitCode::from(2);
    };
    if group == "utf16" || group == "utf8" {
        return text_loop(group, case, iterations);
    }
    let (values, allocations, budget) = match visit_case(group, case, Measure { iterations }) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("codec-bench: {group} {case}: {e}");
            return ExitCode::from(2);
        }
    };
    if let Some(per_value) = budget {
        if allocations > per_value * values {
            eprintln!(
                "codec-bench: {group} {case}: {allocations} allocations for {values} values \
                 (at most {per_value} a value)"
            );
            return ExitCode::FAILURE;
        }
    }
    println!("{{\"group\": \"{group}\", \"case\": \"{case}\", \"iterations\": {iterations}, \"values\": {values}, \"allocations\": {allocations}}}");
    ExitCode::SUCCESS
}

/// The text groups: the loop their baseline (bench/baseline/instructions.json) was measured
/// with, kept as it was so that the counts stay comparable: the decoder is chosen by name in
/// every iteration, which is 10-18 instructions of each count (`Work::run` of the same case,
/// as the Criterion benches time it, has no such choice).
fn text_loop(codec: &str, cat: &str, iters: usize) -> ExitCode {
    let Some(text) = category(cat) else {
        eprintln!("codec-bench: unknown category {cat}");
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
        chars = match codec {
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
    println!("{{\"group\": \"{codec}\", \"case\": \"{cat}\", \"iterations\": {iters}, \"values\": {iters}, \"allocations\": {allocations}}}");
    ExitCode::SUCCESS
}

#[inline(never)]
fn decode_utf16(units: &[u16], ucs1: &mut [u8], ucs2: &mut [u16], ucs4: &mut [u32]) -> usize {
    text::decode_utf16(units, ucs1, ucs2, ucs4)
}

#[inline(never)]
fn decode_utf8(bytes: &[u8], ucs1: &mut [u8], ucs2: &mut [u16], ucs4: &mut [u32]) -> usize {
    text::decode_utf8(bytes, ucs1, ucs2, ucs4)
}
