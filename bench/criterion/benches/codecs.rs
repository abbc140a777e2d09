//! Criterion timings of the codec cases of bench/codec (`codec_bench::GROUPS`), on the same
//! inputs as the instruction counts of bench/instructions.py: the UTF-16 and UTF-8 decoders
//! (shape, then write into preallocated storage) over the text categories, the numeric,
//! temporal and GUID converters, and parameter encoding. One Criterion iteration is one
//! `Work::run`: `Throughput::Elements` is its number of values (a row for the parameter
//! batches), so time / elements is the time per value.
//!
//! ```text
//! make bench-criterion                          # short warm-up and measurement: ~1.5 min
//! cargo bench -p codec-criterion -- 'numeric/'  # one group, with Criterion's defaults
//! ```

use codec_bench::{visit_case, Visit, Work, GROUPS};
use criterion::measurement::WallTime;
use criterion::{criterion_group, criterion_main, BenchmarkGroup, Criterion, Throughput};

/// Registers a prepared case as a benchmark of `group`.
struct Register<'g, 'c> {
    group: &'g mut BenchmarkGroup<'c, WallTime>,
    name: &'g str,
}

impl Visit for Register<'_, '_> {
    type Out = ();
    fn visit<W: Work>(self, mut work: W) {
        self.group
            .throughput(Throughput::Elements(work.values() as u64));
        self.group
            .bench_function(self.name, |b| b.iter(|| work.run()));
    }
}

fn codecs(c: &mut Criterion) {
    for (group, cases) in GROUPS {
        let mut g = c.benchmark_group(*group);
        for case in *cases {
            let register = Register {
                group: &mut g,
                name: case,
            };
            if let Err(e) = visit_case(group, case, register) {
                panic!("{group} {case}: {e}");
            }
        }
        g.finish();
    }
}

criterion_group!(benches, codecs);
criterion_main!(benches);
