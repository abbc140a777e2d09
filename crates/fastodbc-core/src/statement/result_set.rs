//! A result set: its plan, chosen once from the description (`ColumnPlan::choose_with`), its
//! block buffers (allocated and bound at the first fetch, grown, kept bound for the next result
//! when small: `KeptBuffers`), and how far fetching went. The fetches are `fetch`'s.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use super::{Calls, Statement};
use crate::block::{buffers_fit, column_buffers, ColumnBuffer, RowBlock};
use crate::budget::MemoryBudget;
use crate::consumer::BlockConsumer;
use crate::diagnostics::{check, Result};
use crate::driver::Strategy;
use crate::ffi;
use crate::plan::{ColumnPlan, Decoding, PlanOptions, ResultPlan, TextCodec, ValueKind};

/// The current result set: its plan, its block buffers, and how far fetching went.
pub struct ResultSet {
    pub plan: ResultPlan,
    /// The memory the result's blocks take (`MemoryBudget::block_bytes`, `streamed_bytes`).
    pub budget: MemoryBudget,
    /// The block the consumer reads.
    pub block: RowBlock,
    pub exhausted: bool,
    /// Rows the next block holds: starts small and grows to the plan's size.
    pub(crate) block_rows: usize,
    /// Blocks fetched so far (read ahead included).
    pub(crate) fetches: usize,
    /// Rows of the blocks fetched before the one being filled: a value's row in the result.
    pub(crate) rows_before: usize,
    /// Tells this result from every other of the process (`ReadAhead` keeps blocks per
    /// result).
    pub serial: u64,
    /// The consumer that prepares blocks on the fetch thread (`set_consumer`).
    pub(crate) consumer: Option<Arc<dyn BlockConsumer>>,
    /// The one-row buffers the driver fills when the plan fetches row at a time (each row is
    /// then copied into the block being filled).
    pub(crate) staging: Vec<ColumnBuffer>,
    /// The buffers bound now (`RowBlock::address`): a block filled next is bound first.
    pub(crate) bound_to: Option<*const u64>,
    /// Buffers are allocated and bound (at the first fetch).
    pub(crate) bound: bool,
    /// The plan fetches row at a time only so that long text in number columns is read whole
    /// (`plan_for`).
    rows_for_long_numbers: bool,
    /// The driver's plan options, for planning again (`plan_for`).
    options: PlanOptions,
    /// The columns as planned for `Reader::Rows`, while those of `Reader::TypedColumns` differ.
    rows_columns: Option<Vec<ColumnPlan>>,
}

/// Who reads a result's blocks, as far as its plan goes (`ResultSet::plan_for`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reader {
    /// Values as the database holds them (Python rows): a number column's text is kept whole
    /// whatever it holds (SQLite), and integers are read from text where the driver would
    /// convert them from text anyway (they are parsed on the fetch thread then).
    Rows,
    /// Columns of one type each (Arrow): a value its column's type can't hold is refused.
    TypedColumns,
}

impl ResultSet {
    /// A result set of these planned columns, its blocks sized by `budget`. Buffers are
    /// allocated and bound at the first fetch: a caller that only reads the description (or
    /// executes and moves on) costs the driver no bindings.
    fn new(columns: Vec<ColumnPlan>, budget: MemoryBudget, strategy: &Strategy) -> ResultSet {
        let mut plan = ResultPlan::new(columns, budget.block_bytes());
        // The driver can re-read a truncated value only on the current row: fetch row by row
        // and assemble blocks.
        let truncating = |numbers: bool| {
            !strategy.getdata_in_block
                && plan
                    .columns
                    .iter()
                    .any(|c| c.may_truncate && c.number_text() == numbers)
        };
        let rows_for_long_numbers = !plan.row_at_a_time && truncating(true) && !truncating(false);
        plan.row_at_a_time |= truncating(true) || truncating(false);
        ResultSet {
            plan,
            budget,
            block: RowBlock::default(),
            exhausted: false,
            block_rows: 0,
            fetches: 0,
            rows_before: 0,
            serial: RESULTS.fetch_add(1, Ordering::Relaxed),
            consumer: None,
            staging: Vec::new(),
            bound_to: None,
            bound: false,
            rows_for_long_numbers,
            options: strategy.plan,
            rows_columns: None,
        }
    }

    /// Plans the blocks fetched from now on for `reader` (`Reader::Rows` at first). Only
    /// before the first fetch: the buffers are bound then, and the plan stays. For
    /// `Reader::TypedColumns`:
    /// - integers a driver would convert from text anyway (`PlanOptions::integers_as_text`:
    ///   psqlODBC) are bound as `SQL_C_SBIGINT`: its binary path is the shorter one, and
    ///   nothing is parsed after it;
    /// - a number column's text longer than its element (`NUMBER_TEXT_BYTES`) is refused at the
    ///   fetch (`Error::Value`, naming its column and row). SQLite keeps text in any column, but
    ///   no int64 or double it writes is that long and a typed column can't hold the text, so
    ///   such columns no longer force the row-at-a-time fetch that reads long values whole.
    pub fn plan_for(&mut self, reader: Reader) {
        if self.bound {
            return;
        }
        let typed = reader == Reader::TypedColumns;
        if self.rows_for_long_numbers {
            self.plan.row_at_a_time = !typed;
        }
        let opts = self.options;
        match (typed, self.rows_columns.take()) {
            (false, Some(columns)) => self.plan.columns = columns,
            (true, None) if opts.integers_as_text && !opts.numbers_as_text => {
                let binary = PlanOptions {
                    integers_as_text: false,
                    ..opts
                };
                // An integer's carrier is fixed: no text decoding is read for it.
                let decoding = Decoding {
                    char: TextCodec::Utf8,
                    wchar: TextCodec::Utf8,
                };
                let mut columns = self.plan.columns.clone();
                for c in columns
                    .iter_mut()
                    .filter(|c| c.kind == ValueKind::Int && c.number_text())
                {
                    *c = ColumnPlan::choose_with(c.desc.clone(), &decoding, binary);
                }
                self.rows_columns = Some(std::mem::replace(&mut self.plan.columns, columns));
            }
            (_, kept) => self.rows_columns = kept,
        }
    }

    /// Forces the rows of every block from now on (benchmarks of rowset sizes), before the
    /// first fetch; a plan that fetches row at a time keeps its blocks.
    pub fn set_block_rows(&mut self, rows: usize) {
        if !self.plan.row_at_a_time {
            self.plan.block_rows = rows.max(1);
        }
    }

    /// A consumer that prepares each block read ahead on the fetch thread
    /// (`BlockConsumer::prepare`), for the blocks fetched from now on.
    pub fn set_consumer(&mut self, consumer: Arc<dyn BlockConsumer>) {
        self.consumer = Some(consumer);
    }

    /// No consumer prepares the blocks fetched from now on (one that reads them column by
    /// column, with nothing to do ahead).
    pub fn clear_consumer(&mut self) {
        self.consumer = None;
    }

    /// The buffers this result leaves bound when it closes, if a later result may fetch into
    /// them (`KeptBuffers`): it never outgrew its first block (nor `KEPT_BYTES`; a result read
    /// ahead always has), and the driver's bindings point to this block's buffers, whole (a
    /// block filled ahead elsewhere, or a failed bind, which unbinds and clears `bound`, leaves
    /// them unbound instead).
    pub(crate) fn into_kept(self) -> Option<KeptBuffers> {
        let bindings_here = if self.plan.row_at_a_time {
            !self.staging.is_empty()
        } else {
            self.bound_to.is_some() && self.bound_to == self.block.address()
        };
        (self.bound
            && bindings_here
            && self.block.capacity_rows <= FIRST_ROWSET
            && self.block.buffer_bytes() <= KEPT_BYTES)
            .then_some(KeptBuffers {
                block: self.block,
                staging: self.staging,
            })
    }

    /// Closes this result: its buffers stay bound for the next result if it may fetch into
    /// them (`into_kept`), or are unbound before they are freed.
    pub(crate) fn close(self, calls: &mut Calls<'_>) {
        if !self.bound {
            return;
        }
        // A bound result took the kept buffers in `bind`: nothing bound is replaced here.
        match self.into_kept() {
            Some(kept) => calls.rows.kept = Some(kept),
            None => calls.unbind(),
        }
    }

    /// Allocates the first block and binds it (see `Statement::open_result`), or takes the
    /// buffers an earlier result left bound when they fit this one (`KeptBuffers`).
    pub(crate) fn bind(&mut self, calls: &mut Calls<'_>) -> Result<()> {
        // Small first, grown when the result turns out longer: `SELECT 1` must not allocate
        // and clear a block of thousands of rows.
        let first_rows = self.plan.block_rows.min(FIRST_ROWSET);
        let driver_rows = if self.plan.row_at_a_time {
            1
        } else {
            first_rows
        };
        match calls.rows.kept.take() {
            Some(kept) if kept.fit(&self.plan, first_rows) => {
                // The same buffers with the same C types and sizes: the driver's bindings
                // are already these. Values the last result left in them are never read.
                self.block = kept.block;
                self.block.rows = 0;
                self.staging = kept.staging;
                self.block_rows = first_rows;
                self.bound_to = self.block.address().filter(|_| !self.plan.row_at_a_time);
                self.bound = true;
                return calls.set_array_size(driver_rows);
            }
            Some(other) => {
                // Its bindings may reach columns this result lacks or bind other C types: the
                // driver forgets them before the buffers go.
                calls.rows.kept = Some(other);
                calls.unbind();
            }
            None => {}
        }
        let bound = self.bind_new(calls, first_rows, driver_rows);
        if bound.is_err() {
            // Part of the block may be bound: none of it is, and the next fetch tries again.
            calls.unbind();
            self.bound = false;
            self.bound_to = None;
        }
        bound
    }

    /// Allocates the first block of `first_rows` rows and binds it (or its staging row).
    fn bind_new(
        &mut self,
        calls: &mut Calls<'_>,
        first_rows: usize,
        driver_rows: usize,
    ) -> Result<()> {
        self.block = RowBlock::new(&self.plan, first_rows);
        self.block_rows = first_rows;
        self.bound = true;
        if !calls.rows.by_column {
            calls.set_attr_usize(ffi::SQL_ATTR_ROW_BIND_TYPE, ffi::SQL_BIND_BY_COLUMN)?;
            calls.rows.by_column = true;
        }
        calls.set_array_size(driver_rows)?;
        let buffers = if self.plan.row_at_a_time {
            self.staging = column_buffers(&self.plan, 1);
            &mut self.staging
        } else {
            self.bound_to = self.block.address();
            &mut self.block.bound
        };
        bind_columns(calls.h, &self.plan.columns, buffers)
    }

    /// Sizes the block about to be filled and returns its rows: after a full first block the
    /// result is longer than a first glance, and blocks grow 8-fold up to the plan's size.
    /// After a block that came back short (the end, usually: the next fetch says so) they keep
    /// their size, so a short result keeps its first block (`into_kept`).
    /// A block resized has new buffers (`bound_to` no longer matches it).
    pub(crate) fn grow_block(&mut self) -> usize {
        let was_full = self.block.rows >= self.block.capacity_rows;
        if self.fetches > 0 && was_full && self.block_rows < self.plan.block_rows {
            self.block_rows = (self.block_rows * 8).min(self.plan.block_rows);
        }
        if self.block.capacity_rows != self.block_rows {
            self.block.resize(&self.plan, self.block_rows);
            self.bound_to = None;
        }
        self.block_rows
    }
}

/// The next `ResultSet::serial` (0 is no result's).
static RESULTS: AtomicU64 = AtomicU64::new(1);

/// Rows of the first `SQLFetch` of a result. Small results (a `SELECT 1`) then cost the driver
/// no per-row bookkeeping for thousands of rows; later fetches grow 8-fold to the full block.
const FIRST_ROWSET: usize = 16;

/// The buffers of a short result, left bound when it closed: the next result laid out the same
/// way (a loop of `SELECT 1`, of look-ups by key) fetches into them without allocating or
/// binding anything. Only a result that never outgrew its first block leaves them, so between
/// results a statement keeps one small block at most.
pub(crate) struct KeptBuffers {
    block: RowBlock,
    /// The staging row, bound instead of `block` when the plan fetches row at a time.
    staging: Vec<ColumnBuffer>,
}

/// The most a statement keeps bound between results (`KeptBuffers`): a first block of wide
/// rows (16 x 64 KiB values) is not worth holding for a result that may never come.
const KEPT_BYTES: usize = 64 * 1024;

impl KeptBuffers {
    /// The buffers `bind_block` would allocate for `plan`'s first block of `rows` rows.
    fn fit(&self, plan: &ResultPlan, rows: usize) -> bool {
        self.block.fits(plan, rows)
            && if plan.row_at_a_time {
                buffers_fit(&self.staging, plan, 1)
            } else {
                self.staging.is_empty()
            }
    }
}

impl Statement {
    /// Describes the current result set (if any) and plans it; its block is bound at the first
    /// fetch. `lowercase_names` lowercases column names (pyodbc does so for catalog results,
    /// whose ODBC names are upper case).
    pub fn open_result(
        &mut self,
        decoding: &Decoding,
        budget: MemoryBudget,
        lowercase_names: bool,
    ) -> Result<bool> {
        self.drop_result();
        if std::mem::take(&mut self.no_data) {
            return Ok(false);
        }
        let n = self.num_result_cols()?;
        if n == 0 {
            return Ok(false);
        }
        let strategy = self.strategy();
        let mut columns = Vec::with_capacity(n);
        for i in 0..n {
            let mut desc = self.describe_col(i)?;
            if lowercase_names {
                desc.name = desc.name.to_lowercase();
            }
            let mut plan = ColumnPlan::choose_with(desc, decoding, strategy.plan);
            // An unsigned BIGINT passes i64::MAX: fetched as SQL_C_UBIGINT, or the driver
            // wraps it (MariaDB gave -1 for 18446744073709551615). One call per such column.
            if plan.c_type == ffi::SQL_C_SBIGINT
                && plan.desc.sql_type == ffi::SQL_BIGINT
                && self.column_unsigned(i).unwrap_or(false)
            {
                plan.c_type = ffi::SQL_C_UBIGINT;
            }
            // A zoned timestamp arrives as a wall time: marked so that Arrow reads its
            // instant. One call per timestamp column, on such drivers only.
            if strategy.session_zone_sql.is_some() && plan.kind == ValueKind::Timestamp {
                plan.zoned = self
                    .column_type_name(i)
                    .is_ok_and(|n| crate::driver::names_zoned_timestamp(&n));
            }
            columns.push(plan);
        }
        self.result = Some(ResultSet::new(columns, budget, &strategy));
        Ok(true)
    }
}

/// Binds `buffers` to the first columns of the result (column-wise).
pub(crate) fn bind_columns(
    h: ffi::Handle,
    columns: &[ColumnPlan],
    buffers: &mut [crate::block::ColumnBuffer],
) -> Result<()> {
    for (i, buf) in buffers.iter_mut().enumerate() {
        let ptr = buf.data_ptr() as *mut _;
        // SAFETY: the buffers live in the statement's result set with the binding; they are
        // unbound (SQL_UNBIND) or rebound before being dropped or replaced.
        let ret = unsafe {
            ffi::SQLBindCol(
                h,
                (i + 1) as u16,
                columns[i].c_type,
                ptr,
                buf.elem as ffi::Len,
                buf.ind.as_mut_ptr(),
            )
        };
        check(ret, ffi::SQL_HANDLE_STMT, h, "SQLBindCol", None)?;
    }
    Ok(())
}
