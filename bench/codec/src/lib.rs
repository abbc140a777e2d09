//! The cases of fastodbc's codec micro-benchmarks: fastodbc-core's codecs over fixed inputs,
//! no database. Shared by the `codec-bench` binary (instruction counts under callgrind, run by
//! bench/instructions.py) and the Criterion benches (bench/criterion), so that both layers
//! measure the same work on the same inputs.
//!
//! Groups of cases (`GROUPS`):
//! - `utf16`, `utf8`: the text decoders, one value a run: the shape pass, then the write pass
//!   into preallocated storage of the selected kind (`text`);
//! - `numeric`, `temporal`, `guid`: the converters of the fetch path and the value writers of
//!   the bind path, one value a converter call (`convert`);
//! - `params`: parameter encoding, a value being one row of the `mixed` dataset's shape
//!   (`params`), and the Decimal parameter's text.
//!
//! A case is prepared once: its inputs are built and its results checked against a reference
//! (std's parsers and formatters, the input text), so a case that converts wrongly is refused
//! rather than timed. Then `Work::run` converts the inputs again each time, every input read
//! through `std::hint::black_box` and every result passed to it, so that nothing is hoisted
//! out of the loop or dropped as dead code.

use std::hint::black_box;

mod convert;
mod params;
pub mod text;

/// The groups and their cases, in the order they are listed and reported.
pub const GROUPS: &[(&str, &[&str])] = &[
    ("utf16", text::CATEGORIES),
    ("utf8", text::CATEGORIES),
    ("numeric", convert::NUMERIC),
    ("temporal", convert::TEMPORAL),
    ("guid", convert::GUID),
    ("params", params::CASES),
];

/// One prepared case.
pub trait Work {
    /// Values converted by one `run` (for the parameter batches, a value is one row).
    fn values(&self) -> usize;
    /// Allocations one value may make in `run`; `None` where the count is not checked (the
    /// parameter batches allocate their arrays).
    fn allocation_budget(&self) -> Option<usize>;
    /// Converts the case's inputs once.
    fn run(&mut self);
}

/// What to do with a prepared case: `visit` is generic over the case's type, so the loop that
/// runs it is compiled for each case, with no indirect call per run.
pub trait Visit {
    type Out;
    fn visit<W: Work>(self, work: W) -> Self::Out;
}

/// Prepares case `name` of `group` and hands it to `visitor`; an error for an unknown case or
/// one whose results are wrong.
pub fn visit_case<V: Visit>(group: &str, name: &str, visitor: V) -> Result<V::Out, String> {
    match group {
        "utf16" => text::visit(true, name, visitor),
        "utf8" => text::visit(false, name, visitor),
        "numeric" => convert::numeric(name, visitor),
        "temporal" => convert::temporal(name, visitor),
        "guid" => convert::guid(name, visitor),
        "params" => params::visit(name, visitor),
        _ => Err(format!("unknown group {group}")),
    }
}

/// A case made of its state and the function converting the state's inputs once.
struct Case<S, F> {
    state: S,
    run: F,
    values: usize,
    budget: Option<usize>,
}

impl<S, F: FnMut(&mut S)> Work for Case<S, F> {
    fn values(&self) -> usize {
        self.values
    }
    fn allocation_budget(&self) -> Option<usize> {
        self.budget
    }
    #[inline(always)]
    fn run(&mut self) {
        (self.run)(&mut self.state)
    }
}

fn case<S, F: FnMut(&mut S)>(state: S, values: usize, budget: Option<usize>, run: F) -> Case<S, F> {
    Case {
        state,
        run,
        values,
        budget,
    }
}

/// A converter case: `run` maps every input through `convert`, each input and result through
/// `black_box`; prepared only if every result equals `expected`'s. No allocation allowed.
fn converter<I, O, F, V>(
    inputs: Vec<I>,
    convert: F,
    expected: impl Fn(&I) -> O,
    v: V,
) -> Result<V::Out, String>
where
    O: PartialEq + std::fmt::Debug,
    F: Fn(&I) -> O,
    V: Visit,
{
    for input in &inputs {
        let (got, want) = (convert(input), expected(input));
        if got != want {
            return Err(format!("converted to {got:?}, expected {want:?}"));
        }
    }
    let values = inputs.len();
    Ok(
        v.visit(case(inputs, values, Some(0), move |inputs: &mut Vec<I>| {
            for input in black_box(&*inputs) {
                black_box(convert(black_box(input)));
            }
        })),
    )
}

/// A small fixed-seed generator (splitmix64) for the inputs that vary.
pub(crate) struct Rng(u64);

impl Rng {
    pub(crate) fn new(seed: u64) -> Rng {
        Rng(seed)
    }
    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in `lo..=hi` (the modulo bias is irrelevant here).
    pub(crate) fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.next() % (hi - lo + 1)
    }
    /// True with probability `p`.
    pub(crate) fn chance(&mut self, p: f64) -> bool {
        ((self.next() >> 11) as f64 / (1u64 << 53) as f64) < p
    }
}
