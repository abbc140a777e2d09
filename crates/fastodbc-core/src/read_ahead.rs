//! Reading ahead, as a wrapper around a statement (odbc-api's `ConcurrentBlockCursor` is the
//! model): while the consumer converts one block, a fetch thread (`fetch_thread`) fills the next,
//! so on two cores a long fetch takes about the longer of the driver's work and the consumer's
//! instead of their sum. `ReadAhead` owns the statement, the fetch thread's job, the block
//! fetched ahead and the spare block of the pair. It works for any consumer: a `consume` closure
//! reads each block, and the result's `BlockConsumer` prepares the blocks fetched ahead when the
//! fetch thread has time to spare. The statement knows nothing of it.

use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::block::RowBlock;
use crate::diagnostics::{Error, Result};
use crate::fetch_thread;
use crate::statement::Statement;

/// Blocks a result must have filled before the next ones are read ahead: a short result
/// (the first three blocks hold 1,168 rows at most) costs no thread.
const READ_AHEAD_AFTER: usize = 3;

/// Runs the wait for a fetch thread: the Python layer releases the GIL there.
pub type Wait<'a> = Box<dyn FnOnce() -> Result<usize> + Send + 'a>;

/// A statement whose results may be read ahead.
pub struct ReadAhead {
    /// The statement; a stand-in without a handle while a fetch thread has it (`lent`).
    stmt: Statement,
    /// The fetch running ahead, if one is.
    lent: Option<Lent>,
    /// The block fetched ahead, not yet served.
    ahead: Option<Fetched>,
    /// The other block of the pair read ahead into, and the result it was laid out for.
    spare: RowBlock,
    spare_result: u64,
    /// The last block read ahead was in before the consumer was done with its own: the next
    /// one is also prepared for the consumer on the fetch thread (`BlockConsumer::prepare`),
    /// work taken off the consumer's thread. When the fetch is the slower side, it is not.
    prepare_next: bool,
}

/// A fetch running on a fetch thread: the statement is there, filling the next block, and the
/// consumer reads `current` meanwhile.
struct Lent {
    pending: fetch_thread::Pending<(Statement, Result<usize>)>,
    current: RowBlock,
    /// The result being read (`ResultSet::serial`).
    result: u64,
    /// The process that lent it: a forked child cannot take it back.
    pid: u32,
}

/// A block fetched ahead for result `result` and the outcome of its fetch, reported when the
/// consumer gets there.
struct Fetched {
    block: RowBlock,
    outcome: Result<usize>,
    result: u64,
}

impl ReadAhead {
    pub fn new(stmt: Statement) -> ReadAhead {
        ReadAhead {
            stmt,
            lent: None,
            ahead: None,
            spare: RowBlock::default(),
            spare_result: 0,
            prepare_next: true,
        }
    }

    /// The statement, for any use: a fetch running ahead is waited for first (`wait` runs the
    /// wait), its block kept for `fetch_block`.
    pub fn statement(&mut self, wait: impl FnOnce(Wait<'_>) -> Result<usize>) -> &mut Statement {
        self.take_back(wait);
        &mut self.stmt
    }

    /// The block the consumer reads now: the one it kept while the next is fetched, or the
    /// current result's.
    pub fn block(&self) -> Option<&RowBlock> {
        match &self.lent {
            Some(lent) => Some(&lent.current),
            None => self.stmt.result.as_ref().map(|rs| &rs.block),
        }
    }

    /// A fetch is running ahead (`lend`).
    pub fn is_lent(&self) -> bool {
        self.lent.is_some()
    }

    /// Fetches the next block of the current result: the one read ahead, if it was read for
    /// this result. Returns its rows (0 at the end), or the error its fetch met, in order.
    pub fn fetch_block(&mut self, wait: impl FnOnce(Wait<'_>) -> Result<usize>) -> Result<usize> {
        self.take_back(wait);
        if let (Some(ahead), Some(rs)) = (self.ahead.take(), self.stmt.result.as_mut()) {
            // A block read for an earlier result (closed, or followed by another) is dropped.
            if ahead.result == rs.serial {
                self.spare = std::mem::replace(&mut rs.block, ahead.block);
                self.spare_result = rs.serial;
                return ahead.outcome;
            }
        }
        self.stmt.fetch_block()
    }

    /// Runs `consume` on the current block while the fetch thread fetches the next one, which
    /// `fetch_block` then returns; `wait` runs the wait for the fetch when `consume` is done.
    /// Reads ahead only in a long result (`lend`); otherwise `consume` just runs.
    pub fn read_ahead<R>(
        &mut self,
        consume: impl FnOnce(&RowBlock) -> R,
        wait: impl FnOnce(Wait<'_>) -> Result<usize>,
    ) -> R {
        self.take_back(|join| join());
        self.lend();
        let out = match self.block() {
            Some(block) => consume(block),
            None => consume(&RowBlock::default()),
        };
        self.take_back(wait);
        out
    }

    /// Starts fetching the next block on a fetch thread, for a consumer that reads the current
    /// one over several calls (iteration serves its rows one `__next__` at a time): `block` is
    /// the consumer's meanwhile, and any other use of the statement waits for the fetch first.
    /// Only in a result that has proved long (`READ_AHEAD_AFTER` blocks, the current one full:
    /// a block cut short is usually the last), is not over, and has nothing read ahead yet.
    /// Returns whether a fetch runs ahead now.
    pub fn lend(&mut self) -> bool {
        if self.lent.is_some() {
            return true;
        }
        let Some(rs) = self.stmt.result.as_mut() else {
            return false;
        };
        let long = rs.bound
            && !rs.exhausted
            && self.ahead.is_none()
            && rs.fetches >= READ_AHEAD_AFTER
            && rs.block.rows == rs.block.capacity_rows;
        if !long {
            return false;
        }
        // The consumer's block steps out; the spare takes its place as the block filled next
        // (a spare of another result has another layout: an empty one is laid out afresh).
        let spare = std::mem::take(&mut self.spare);
        let spare = if self.spare_result == rs.serial {
            spare
        } else {
            RowBlock::default()
        };
        let current = std::mem::replace(&mut rs.block, spare);
        let result = rs.serial;
        let prepare = self.prepare_next;
        // The statement itself goes to the fetch thread and comes back with the block filled;
        // a stand-in without a handle holds its place meanwhile.
        let stand_in = Statement::without_handle(self.stmt.strategy());
        let lent = std::mem::replace(&mut self.stmt, stand_in);
        let pending = fetch_thread::run(move || {
            let mut stmt = lent;
            let fetched = catch_unwind(AssertUnwindSafe(|| stmt.fill_block(prepare)))
                .unwrap_or_else(|_| Err(panicked()));
            (stmt, fetched)
        });
        self.lent = Some(Lent {
            pending,
            current,
            result,
            pid: std::process::id(),
        });
        true
    }

    /// Waits for the fetch `lend` started, if one runs (`wait` runs the wait), and puts the
    /// statement back, the block it fetched kept for `fetch_block`.
    pub fn take_back(&mut self, wait: impl FnOnce(Wait<'_>) -> Result<usize>) {
        let Some(Lent {
            mut pending,
            current,
            result,
            pid,
        }) = self.lent.take()
        else {
            return;
        };
        if pid != std::process::id() {
            // A forked child: the fetch thread, and the statement with it, stayed in the
            // parent. Waiting would never end; the child keeps the stand-in (no handle).
            std::mem::forget(pending);
            return;
        }
        let fetch_first = pending.is_finished();
        let mut back = None;
        let outcome = wait(Box::new(|| match pending.wait() {
            Some((stmt, fetched)) => {
                back = Some(stmt);
                fetched
            }
            None => Err(panicked()),
        }));
        if let Some(stmt) = back {
            self.stmt = stmt;
        }
        if let Some(rs) = self.stmt.result.as_mut() {
            let block = std::mem::replace(&mut rs.block, current);
            self.ahead = Some(Fetched {
                block,
                outcome,
                result,
            });
            self.prepare_next = fetch_first;
        }
    }
}

impl Drop for ReadAhead {
    fn drop(&mut self) {
        // The fetch thread needs no GIL to finish: a plain wait.
        self.take_back(|join| join());
    }
}

/// The error a fetch thread's panic (a bug) becomes.
fn panicked() -> Error {
    Error::Interface("the fetch reading ahead panicked".into())
}
