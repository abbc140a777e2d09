//! `ArrowBatches`: a result's rows as Arrow record batches, built from the blocks the statement
//! fetches (read ahead on a fetch thread in a long result, so the driver fetches the next block
//! while this one is converted). It holds its statement on loan (`StatementLoan`) and gives it
//! back when the result is read to the end, or closes the result when dropped before that.
//! Needs no Python: pyarrow, DuckDB or polars may read it on their own threads.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use arrow_array::{RecordBatch, RecordBatchReader};
use arrow_schema::{ArrowError, SchemaRef};
use fastodbc_core::{
    BlockStream, Blocking, Error, LoanEnd, MemoryBudget, Result, StatementLoan, Want,
};

use crate::schema::{schema_of, ArrowColumn};
use crate::values::Batch;

/// How large a batch grows: it ends at `rows` rows, or once its buffers hold `bytes` (checked
/// after each block's rows are appended, so a batch passes `bytes` by one block at most: the
/// block budget plus the long values of its rows).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BatchLimits {
    pub rows: usize,
    pub bytes: usize,
}

impl BatchLimits {
    /// 65,536 rows, or the budget's share for a batch (`MemoryBudget::arrow_batch_bytes`):
    /// batches large enough that a consumer's per-batch work is noise, small enough that a
    /// stream's memory stays far below a whole result's.
    pub fn for_budget(budget: MemoryBudget) -> BatchLimits {
        BatchLimits {
            rows: 65_536,
            bytes: budget.arrow_batch_bytes(),
        }
    }
}

impl Default for BatchLimits {
    fn default() -> Self {
        BatchLimits::for_budget(MemoryBudget::DEFAULT)
    }
}

/// Asked at each block whether the reader must stop (its cursor closed or cancelled from another
/// thread): the error to stop with.
pub type Interrupt = Box<dyn Fn() -> Option<Error> + Send>;

/// Rows the first batch's columns are allocated for (a block's worth, at most).
const FIRST_BATCH_ROWS: usize = 4096;
/// Rows a later batch's columns are allocated for at most, whatever `BatchLimits::rows` says.
const MAX_PRESIZED_ROWS: usize = 1 << 20;

/// A result read as record batches.
pub struct ArrowBatches {
    loan: Arc<StatementLoan>,
    columns: Vec<ArrowColumn>,
    schema: SchemaRef,
    limits: BatchLimits,
    /// The statement went back to its owner (`StatementLoan::end`): drained, failed or closed.
    ended: bool,
    /// A batch was asked for: dropped before that, the reader leaves the result unread.
    started: bool,
    /// Batches that ended at the row limit.
    full_batches: usize,
    interrupt: Option<Interrupt>,
    /// Rows converted so far, the batch being filled's among them: read by another thread
    /// (a progress display) while a batch of many rows is built.
    rows_read: Arc<AtomicUsize>,
}

impl ArrowBatches {
    /// Reads the result of the statement on `loan` from where its stream is.
    pub fn new(
        loan: Arc<StatementLoan>,
        columns: Vec<ArrowColumn>,
        limits: BatchLimits,
    ) -> ArrowBatches {
        let schema = Arc::new(schema_of(&columns));
        ArrowBatches {
            loan,
            columns,
            schema,
            limits: BatchLimits {
                rows: limits.rows.max(1),
                bytes: limits.bytes.max(1),
            },
            ended: false,
            started: false,
            full_batches: 0,
            interrupt: None,
            rows_read: Arc::new(AtomicUsize::new(0)),
        }
    }

    /// Stops at the next block with the error `interrupt` returns, if it returns one.
    pub fn with_interrupt(mut self, interrupt: Interrupt) -> ArrowBatches {
        self.interrupt = Some(interrupt);
        self
    }

    pub fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    /// The count of rows converted so far, as it grows (block by block, within a batch).
    pub fn rows_read(&self) -> Arc<AtomicUsize> {
        self.rows_read.clone()
    }

    /// The next batch, `None` at the end of the result. The first error ends the stream: the
    /// statement's result is closed and the error returned (then `None`).
    pub fn next_batch(&mut self) -> Result<Option<RecordBatch>> {
        if self.ended {
            return Ok(None);
        }
        self.started = true;
        // After a batch full by its row limit the next is likely full too: its columns are
        // allocated whole at once, not grown by doubling (copies and page faults of a batch's
        // size again); the first batch starts small, for short results.
        let rows = if self.full_batches > 0 {
            self.limits.rows.min(MAX_PRESIZED_ROWS)
        } else {
            self.limits.rows.min(FIRST_BATCH_ROWS)
        };
        let mut batch = Batch::new(&self.columns, rows);
        let filled = {
            let loan = self.loan.clone();
            loan.with(|reader| self.fill(reader, &mut batch))
        };
        let drained = match filled {
            Some(Ok(drained)) => drained,
            Some(Err(e)) => {
                self.end(LoanEnd::Abandoned);
                return Err(e);
            }
            None => {
                self.end(LoanEnd::Abandoned);
                return Err(Error::Programming("Attempt to use a closed cursor.".into()));
            }
        };
        if drained {
            self.end(LoanEnd::Drained);
        }
        if batch.rows == 0 {
            return Ok(None);
        }
        if batch.rows >= self.limits.rows {
            self.full_batches += 1;
        }
        batch.finish(self.schema.clone()).map(Some)
    }

    /// Appends rows to `batch` until it is full or the result ends; true at the end.
    fn fill(&mut self, stream: &mut BlockStream, batch: &mut Batch) -> Result<bool> {
        loop {
            self.check_interrupt()?;
            if !stream.has_rows(&Blocking)? {
                return Ok(true);
            }
            self.check_interrupt()?;
            let room = self.limits.rows - batch.rows;
            let (wanted, appended) = stream.serve(Want::Stream(room), &Blocking, |rows| {
                let wanted = rows.range.len();
                match append_rows(batch, rows.block, rows.range, rows.block_start) {
                    Ok(appended) => (appended, Ok((wanted, appended))),
                    Err(e) => (0, Err(e)),
                }
            })?;
            self.rows_read.fetch_add(appended, Ordering::Relaxed);
            if appended < wanted
                || batch.rows >= self.limits.rows
                || batch.bytes() >= self.limits.bytes
            {
                return Ok(false);
            }
        }
    }

    /// The error to stop with, if the cursor was closed or cancelled from another thread.
    fn check_interrupt(&self) -> Result<()> {
        match self.interrupt.as_ref().and_then(|stop| stop()) {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Stops reading: the result is closed, whether a batch was read or not (an explicit close;
    /// a reader merely dropped before its first batch leaves the result unread).
    pub fn close(&mut self) {
        self.end(LoanEnd::Abandoned);
    }

    /// Gives the statement back; a result abandoned part way is closed.
    fn end(&mut self, end: LoanEnd) {
        if !self.ended {
            self.ended = true;
            self.loan.end(end);
        }
    }
}

/// Appends rows `rows` of `block` to every column of `batch`, as many as fit its offsets
/// (`Column::room_for`); returns how many. `first_row`: the result's row of the block's row 0.
fn append_rows(
    batch: &mut Batch,
    block: &fastodbc_core::RowBlock,
    rows: std::ops::Range<usize>,
    first_row: usize,
) -> Result<usize> {
    let mut take = rows.len();
    let column = |i: usize| {
        block
            .column(i)
            .ok_or_else(|| Error::Interface(format!("the block has no column {i}")))
    };
    for (i, col) in batch.columns.iter().enumerate() {
        take = take.min(col.room_for(&column(i)?, rows.start..rows.start + take));
    }
    if take == 0 && batch.rows == 0 && !rows.is_empty() {
        return Err(Error::Data(format!(
            "row {}: a value passes 2 GiB, more than an Arrow string or binary array holds",
            first_row + rows.start + 1
        )));
    }
    let range = rows.start..rows.start + take;
    for (i, col) in batch.columns.iter_mut().enumerate() {
        col.append(&column(i)?, range.clone(), first_row)?;
    }
    batch.rows += take;
    Ok(take)
}

impl Drop for ArrowBatches {
    fn drop(&mut self) {
        self.end(if self.started {
            LoanEnd::Abandoned
        } else {
            LoanEnd::Unread
        });
    }
}

impl Iterator for ArrowBatches {
    type Item = std::result::Result<RecordBatch, ArrowError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.next_batch()
            .map_err(|e| ArrowError::ExternalError(Box::new(e)))
            .transpose()
    }
}

impl RecordBatchReader for ArrowBatches {
    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }
}
