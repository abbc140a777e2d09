//! `BlockStream`: a statement's current result as a stream of row ranges, for any consumer
//! (Python rows, Arrow batches). The stream owns where the consumer is (the current block, the
//! next row of it, the rows before it) and when the next block is read ahead (`ReadAhead`): a
//! consumer says how many rows it wants (`Want`), converts the range it is handed and says how
//! many it took. It keeps no position and never lends the statement itself, so every consumer
//! reads ahead the same way and a result can pass from one consumer to another (rows served,
//! then the rest as Arrow, then rows again) without either one knowing the other's place.

use std::ops::Range;

use crate::block::RowBlock;
use crate::diagnostics::Result;
use crate::read_ahead::{ReadAhead, Wait};
use crate::statement::Statement;

/// How the consumer's thread waits for the driver: the Python consumer releases the GIL
/// meanwhile, so other threads run while a block is fetched.
pub trait Waiting {
    fn wait<R: Send>(&self, f: impl FnOnce() -> R + Send) -> R;
}

/// Waits on the calling thread, holding nothing another thread needs (a consumer without
/// Python: Arrow batches read by pyarrow's or DuckDB's threads).
pub struct Blocking;

impl Waiting for Blocking {
    fn wait<R: Send>(&self, f: impl FnOnce() -> R + Send) -> R {
        f()
    }
}

/// How many rows a consumer wants from the current block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Want {
    /// Up to this many rows in all (`fetchmany`, `fetchall`): the next block is read ahead
    /// while these are converted when more are wanted than the current block holds.
    Rows(usize),
    /// Up to this many rows now, and the rest of the result in later calls (a stream of
    /// batches): the next block is read ahead while the rest of this one is converted.
    Stream(usize),
    /// One row per call (iteration, `fetchone`); in a long result, the rest of the block at
    /// once, served by the consumer over its next calls while the next block is fetched.
    Iterate,
    /// Up to this many rows of the current block and nothing fetched ahead: rows a consumer
    /// converts early and may hand back (`unread`), so the statement must stay where it is.
    Held(usize),
}

/// Rows handed to a consumer: `range` of `block`, whose row 0 is row `block_start` of the
/// result (counted from 0, for messages that name a row).
pub struct Rows<'a> {
    pub block: &'a RowBlock,
    pub range: Range<usize>,
    pub block_start: usize,
}

/// A statement and where its current result's consumer is.
pub struct BlockStream {
    reader: ReadAhead,
    /// Next row of the current block to hand out.
    pos: usize,
    /// Rows of the result before the current block.
    rows_before: usize,
    /// Blocks are read ahead in a long result (the connection's `read_ahead` setting).
    read_ahead: bool,
}

impl BlockStream {
    pub fn new(stmt: Statement) -> BlockStream {
        BlockStream {
            reader: ReadAhead::new(stmt),
            pos: 0,
            rows_before: 0,
            read_ahead: true,
        }
    }

    /// The statement, for any use: a fetch running ahead is waited for first.
    pub fn statement(&mut self, waiting: &impl Waiting) -> &mut Statement {
        self.reader.statement(|join| waiting.wait(join))
    }

    /// The statement's current result was just opened: it is served from its first row.
    pub fn start(&mut self, read_ahead: bool) {
        self.pos = 0;
        self.rows_before = 0;
        self.read_ahead = read_ahead;
    }

    /// Waits for a fetch running ahead, if one runs, and puts the statement back: before any
    /// other use of it, and before it is dropped.
    pub fn take_back(&mut self, waiting: &impl Waiting) {
        self.reader.take_back(|join| waiting.wait(join));
    }

    /// Whether the current block has rows left to hand out, after fetching the next block if
    /// it has none; false at the end of the result. A fetch error is returned in order, after
    /// the rows before its block, and the next call tries the fetch again.
    pub fn has_rows(&mut self, waiting: &impl Waiting) -> Result<bool> {
        let len = self.block_len();
        if self.pos < len {
            return Ok(true);
        }
        let reader = &mut self.reader;
        let fetched = waiting.wait(|| reader.fetch_block(|join| join()))?;
        self.rows_before += len;
        self.pos = 0;
        Ok(fetched > 0 && self.block_len() > 0)
    }

    /// Hands rows of the current block to `consume`, as many as `want` asks and the block
    /// holds (`has_rows` first); `consume` returns how many of them it took (the rest are
    /// handed out again) and its outcome, which `serve` returns. Decides whether the next block
    /// is fetched meanwhile; `waiting` waits for that fetch when `consume` is done.
    pub fn serve<R>(
        &mut self,
        want: Want,
        waiting: &impl Waiting,
        consume: impl FnOnce(Rows<'_>) -> (usize, R),
    ) -> R {
        let len = self.block_len();
        let start = self.pos.min(len);
        let (end, fetch_meanwhile) = match want {
            // Lent, the statement fetches on its thread until `take_back`: the consumer
            // serves these rows meanwhile.
            Want::Iterate if self.read_ahead && self.reader.lend() => (len, false),
            Want::Iterate => ((start + 1).min(len), false),
            Want::Rows(n) => {
                let end = len.min(start.saturating_add(n));
                (end, self.read_ahead && end == len && n > end - start)
            }
            Want::Stream(n) => {
                let end = len.min(start.saturating_add(n));
                (end, self.read_ahead && end == len)
            }
            Want::Held(n) => (len.min(start.saturating_add(n)), false),
        };
        let block_start = self.rows_before;
        let handed = |block: &RowBlock| {
            consume(Rows {
                block,
                range: start..end,
                block_start,
            })
        };
        let (taken, out) = if fetch_meanwhile {
            self.reader
                .read_ahead(handed, |join: Wait<'_>| waiting.wait(join))
        } else {
            match self.reader.block() {
                Some(block) => handed(block),
                None => handed(&RowBlock::default()),
            }
        };
        self.pos = start + taken.min(end - start);
        out
    }

    /// The last `rows` rows handed out were not used (rows converted ahead that a consumer
    /// passing the result to another never served): they are handed out again. Only rows of
    /// the current block go back.
    pub fn unread(&mut self, rows: usize) {
        self.pos = self.pos.saturating_sub(rows);
    }

    fn block_len(&self) -> usize {
        self.reader.block().map_or(0, RowBlock::len)
    }
}
