//! The cases of fastodbc's codec micro-benchmarks: fastodbc-core's codecs over fixed inputs,
//! no database, for the `codec-bench` binary (instruction counts under callgrind, run by
//! bench/instructions.py) and any other bench that should measure the same work on the same
//! inputs.
//!
//! Groups of cases (`GROUPS`):
//! - `utf16`, `utf8`: the text decoders, one value a run: the shape pass, then the write pass
//!   into preallocated storage of the selected kind (`text`).
//!
//! A case is prepared once: its inputs are built and its results checked against a reference
//! (the input text), so a case that converts wrongly is refused
//! rather than timed. Then `Work::run` converts the inputs again each time, every input read
//! through `std::hint::black_box` and every result passed to it, so that nothing is hoisted
//! out of the loop or dropped as dead code.

pub mod text;

/// The groups and their cases, in the order they are listed and reported.
pub const GROUPS: &[(&str, &[&str])] = &[("utf16", text::CATEGORIES), ("utf8", text::CATEGORIES)];

/// One prepared case.
pub trait Work {
    /// Values converted by one `run`.
    fn values(&self) -> usize;
    /// Allocations one value may make in `run`; `None` where the count is not checked.
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
