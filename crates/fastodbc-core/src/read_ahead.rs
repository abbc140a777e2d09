//! Reading ahead: while the consumer converts one block, a fetch thread (`fetch_thread`) fills
//! the next, so on two cores a long fetch takes about the longer of the driver's work and the
//! consumer's instead of their sum. `ReadAhead` owns the second block of the pair and the
//! block fetched ahead; the statement itself goes to the fetch thread and comes back
//! (`Statement::lend` / `take_back`). It works for any consumer: the block comes back prepared
//! by the result's `BlockConsumer` when the fetch thread had time to spare.

use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::block::RowBlock;
use crate::diagnostics::{Error, Result};
use crate::fetch_thread;
use crate::statement::Statement;

/// A fetch `Statement::lend` started: the statement on a fetch thread filling the next block,
/// and the block the caller reads meanwhile.
pub struct LentFetch {
    pending: fetch_thread::Pending<(Statement, Result<usize>)>,
    current: RowBlock,
    /// The process that lent it: a forked child cannot take it back.
    pid: u32,
}

impl LentFetch {
    /// The block the caller reads while the next one is fetched.
    pub fn block(&self) -> &RowBlock {
        &self.current
    }
}

/// Blocks a result must have filled before the next ones are read ahead: a short result
/// (the first three blocks hold 1,168 rows at most) costs no thread.
const READ_AHEAD_AFTER: usize = 3;

/// The blocks of a result beside the one its consumer reads.
pub struct ReadAhead {
    /// The block fetched ahead while the consumer read the current one, and the outcome of
    /// that fetch, reported when the consumer gets there (`take`).
    ahead: Option<(RowBlock, Result<usize>)>,
    /// The other block of the pair read ahead into; empty until reading ahead starts.
    spare: RowBlock,
    /// The last block read ahead was in before the consumer was done with its own: the next
    /// one is also prepared for the consumer on the fetch thread (`BlockConsumer::prepare`),
    /// work taken off the consumer's thread. When the fetch is the slower side, it is not.
    prepare_next: bool,
}

impl Default for ReadAhead {
    fn default() -> ReadAhead {
        ReadAhead {
            ahead: None,
            spare: RowBlock::default(),
            prepare_next: true,
        }
    }
}

impl ReadAhead {
    /// Nothing is read ahead (or waiting to be served).
    pub fn is_idle(&self) -> bool {
        self.ahead.is_none()
    }

    /// The block read ahead and its fetch's outcome, becoming the consumer's: `current`, the
    /// block the consumer is done with, becomes the spare.
    pub(crate) fn take(&mut self, current: &mut RowBlock) -> Option<Result<usize>> {
        let (next, fetched) = self.ahead.take()?;
        self.spare = std::mem::replace(current, next);
        Some(fetched)
    }
}

impl Statement {
    /// Runs `consume` on the current block while another thread fetches the next one, which
    /// `fetch_block` then returns. The driver's work and the consumer's overlap: on two cores
    /// a long fetch takes about the longer of the two instead of their sum. `wait` runs the
    /// wait for the fetch when `consume` is done (the Python layer releases the GIL there).
    ///
    /// Reads ahead only in a long result (`reads_ahead`); otherwise `consume` just
    /// runs. A block read ahead holds its own error, if the fetch failed, for `fetch_block` to
    /// report in order.
    pub fn read_ahead<R>(
        &mut self,
        consume: impl FnOnce(&RowBlock) -> R,
        wait: impl FnOnce(Box<dyn FnOnce() -> Result<usize> + Send + '_>) -> Result<usize>,
    ) -> R {
        let Some(lent) = self.lend() else {
            return match self.result.as_ref() {
                Some(rs) => consume(&rs.block),
                None => consume(&RowBlock::default()),
            };
        };
        let out = consume(lent.block());
        self.take_back(lent, wait);
        out
    }

    /// `read_ahead` in two halves, for a consumer that reads the current block over several
    /// calls (iteration serves its rows one `__next__` at a time): the next block is fetched on
    /// a fetch thread from now until `take_back`, and the current block is the caller's
    /// meanwhile (`LentFetch::block`). `None` when the result does not read ahead.
    ///
    /// Until `take_back`, this statement is a stand-in without a handle or result: the caller
    /// must take it back before any other use of the statement, and before dropping it.
    pub fn lend(&mut self) -> Option<LentFetch> {
        let rs = self.result.as_mut()?;
        // The result has proved long (`READ_AHEAD_AFTER` blocks, the current one full: a block
        // cut short is usually the last), is not over, and nothing is read ahead yet.
        let long = rs.bound
            && !rs.exhausted
            && rs.read_ahead.is_idle()
            && rs.fetches >= READ_AHEAD_AFTER
            && rs.block.rows == rs.block.capacity_rows;
        if !long {
            return None;
        }
        // The consumer's block steps out; the spare takes its place as the block filled next.
        let spare = std::mem::take(&mut rs.read_ahead.spare);
        let current = std::mem::replace(&mut rs.block, spare);
        let prepare = rs.read_ahead.prepare_next;
        // The statement itself goes to the fetch thread and comes back with the block filled;
        // a stand-in without a handle holds its place meanwhile.
        let lent = std::mem::replace(self, Statement::without_handle(self.strategy()));
        let pending = fetch_thread::run(move || {
            let mut stmt = lent;
            let fetched = catch_unwind(AssertUnwindSafe(|| stmt.fill_block(prepare)))
                .unwrap_or_else(|_| Err(panicked()));
            (stmt, fetched)
        });
        Some(LentFetch {
            pending,
            current,
            pid: std::process::id(),
        })
    }

    /// Waits for the fetch `lend` started (`wait` runs the wait: the Python layer releases the
    /// GIL there) and puts the statement back, the block it fetched kept for `fetch_block`.
    pub fn take_back(
        &mut self,
        lent: LentFetch,
        wait: impl FnOnce(Box<dyn FnOnce() -> Result<usize> + Send + '_>) -> Result<usize>,
    ) {
        let LentFetch {
            mut pending,
            current,
            pid,
        } = lent;
        if pid != std::process::id() {
            // A forked child: the fetch thread, and the statement with it, stayed in the
            // parent. Waiting would never end; the child keeps the stand-in (no handle).
            std::mem::forget(pending);
            return;
        }
        let fetch_first = pending.is_finished();
        let mut back = None;
        let fetched = wait(Box::new(|| match pending.wait() {
            Some((stmt, fetched)) => {
                back = Some(stmt);
                fetched
            }
            None => Err(panicked()),
        }));
        if let Some(stmt) = back {
            *self = stmt;
        }
        if let Some(rs) = self.result.as_mut() {
            let next = std::mem::replace(&mut rs.block, current);
            rs.read_ahead.ahead = Some((next, fetched));
            rs.read_ahead.prepare_next = fetch_first;
        }
    }
}

/// The error a fetch thread's panic (a bug) becomes.
fn panicked() -> Error {
    Error::Interface("the fetch reading ahead panicked".into())
}
