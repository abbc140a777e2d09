//! Statements: execute with bound parameter arrays, describe the result once, bind the block,
//! fetch blocks, stream long values, move to the next result set.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr::null_mut;

use crate::block::{buffers_fit, column_buffers, ColumnBuffer, RowBlock};
use crate::connection::Connection;
use crate::diagnostics::{check, DiagRecord, Error, Result};
use crate::driver::Strategy;
use crate::fetch_thread;
use crate::ffi;
use crate::params::ParamBatch;
use crate::plan::{ColumnDescription, ColumnPlan, Decoding, ResultPlan, DEFAULT_BLOCK_BYTES};

mod catalog;
mod execute;
mod getdata;
pub use catalog::CatalogFunction;
pub use execute::overread_unit;
use getdata::{check_indicator, get_data, get_wide_checked, reread_truncated};

/// The raw statement handle, shared with a canceller on another thread.
#[derive(Debug, Clone, Copy)]
pub struct StatementHandle(pub ffi::Handle);

// SAFETY: ODBC statement handles may be used from any thread; `SQLCancel` is explicitly meant
// to be called from another thread than the one executing.
unsafe impl Send for StatementHandle {}
unsafe impl Sync for StatementHandle {}

impl StatementHandle {
    pub fn cancel(&self) -> Result<()> {
        // SAFETY: a valid statement handle (the owner frees it only after clearing this copy).
        let ret = unsafe { ffi::SQLCancel(self.0) };
        check(ret, ffi::SQL_HANDLE_STMT, self.0, "SQLCancel", None).map(|_| ())
    }
}

/// The current result set: its plan, its block buffers, and how far fetching went.
pub struct ResultSet {
    pub plan: ResultPlan,
    /// The block the consumer reads.
    pub block: RowBlock,
    pub exhausted: bool,
    /// Rows the next block holds: starts small and grows to the plan's size.
    block_rows: usize,
    /// Blocks fetched so far (read ahead included).
    fetches: usize,
    /// The block fetched ahead while the consumer read `block` (`Statement::read_ahead`), and
    /// the outcome of that fetch, reported when the consumer gets there.
    ahead: Option<(RowBlock, Result<usize>)>,
    /// The other block of the pair read ahead into; empty until reading ahead starts.
    spare: RowBlock,
    /// The last block read ahead was in before the consumer was done with its own: the next
    /// one also finds the shapes of its text values and reads its numbers fetched as text
    /// (`RowBlock::describe`), work taken off the consumer's thread. When the fetch is the
    /// slower side, it does not.
    describe_ahead: bool,
    /// The one-row buffers the driver fills when the plan fetches row at a time (each row is
    /// then copied into the block being filled).
    staging: Vec<ColumnBuffer>,
    /// The buffers bound now (`RowBlock::address`): a block filled next is bound first.
    bound_to: Option<*const u64>,
    /// Buffers are allocated and bound (at the first fetch).
    bound: bool,
}

impl ResultSet {
    /// The result has proved long (`READ_AHEAD_AFTER` blocks, the current one full: a block
    /// cut short is usually the last), is not over, and nothing is read ahead yet.
    fn reads_ahead(&self) -> bool {
        self.bound
            && !self.exhausted
            && self.ahead.is_none()
            && self.fetches >= READ_AHEAD_AFTER
            && self.block.rows == self.block.capacity_rows
    }

    /// The buffers this result leaves bound when it closes, if a later result may fetch into
    /// them (`KeptBuffers`): it never outgrew its first block (nor `KEPT_BYTES`), nothing is
    /// read ahead, and the buffers its bindings point to are whole (a failed bind unbinds and
    /// clears `bound`).
    fn into_kept(self) -> Option<KeptBuffers> {
        let bindings_here = if self.plan.row_at_a_time {
            !self.staging.is_empty()
        } else {
            self.bound_to.is_some() && self.bound_to == self.block.address()
        };
        (self.bound
            && bindings_here
            && self.ahead.is_none()
            && self.block.capacity_rows <= FIRST_ROWSET
            && self.block.buffer_bytes() <= KEPT_BYTES)
            .then_some(KeptBuffers {
                block: self.block,
                staging: self.staging,
            })
    }

    /// Sizes the block about to be filled and returns its rows: after a full first block the
    /// result is longer than a first glance, and blocks grow 8-fold up to the plan's size.
    /// After a block that came back short (the end, usually: the next fetch says so) they keep
    /// their size, so a short result keeps its first block (`into_kept`).
    /// A block resized has new buffers (`bound_to` no longer matches it).
    fn grow_block(&mut self) -> usize {
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

/// Rows of the first `SQLFetch` of a result. Small results (a `SELECT 1`) then cost the driver
/// no per-row bookkeeping for thousands of rows; later fetches grow 8-fold to the full block.
const FIRST_ROWSET: usize = 16;

/// The buffers of a short result, left bound when it closed: the next result laid out the same
/// way (a loop of `SELECT 1`, of look-ups by key) fetches into them without allocating or
/// binding anything. Only a result that never outgrew its first block leaves them, so between
/// results a statement keeps one small block at most.
struct KeptBuffers {
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

pub struct Statement {
    h: ffi::Handle,
    /// The connection's handle, asked whether it is dead after a general error
    /// (`Error::on_connection`); it outlives the statement.
    dbc: ffi::Handle,
    strategy: Strategy,
    /// Parameters stay alive until the execution that reads them is over.
    params: Option<ParamBatch>,
    pub result: Option<ResultSet>,
    /// SQL_SUCCESS_WITH_INFO records of the last execute / fetch / next result.
    pub messages: Vec<DiagRecord>,
    bound_paramset: usize,
    /// Parameters may be bound (so `reset` must unbind them before their buffers go).
    params_bound: bool,
    /// `SQL_ATTR_ROWS_FETCHED_PTR` target, set once per handle: boxed so it never moves.
    fetched: Box<ffi::ULen>,
    /// The `SQL_ATTR_ROW_ARRAY_SIZE` last set (1 is the ODBC default).
    array_size: usize,
    /// `SQL_ATTR_ROW_BIND_TYPE` is column-wise (set at the first bind).
    bind_by_column: bool,
    /// Buffers still bound from an earlier result (`KeptBuffers`). Whenever this holds some,
    /// the driver's bindings point into them: they are unbound before anything else is bound
    /// and before a fetch that reads no bindings (`text_rows`).
    kept: Option<KeptBuffers>,
}

// SAFETY: see `StatementHandle`; all bound buffers are owned by the statement and move with it.
unsafe impl Send for Statement {}

impl Statement {
    pub fn new(conn: &Connection) -> Result<Statement> {
        if !conn.is_open() {
            return Err(Error::Programming(
                "Attempt to use a closed connection.".into(),
            ));
        }
        let mut h: ffi::Handle = null_mut();
        // SAFETY: allocation from a live connection handle.
        let ret = unsafe { ffi::SQLAllocHandle(ffi::SQL_HANDLE_STMT, conn.handle(), &mut h) };
        check(
            ret,
            ffi::SQL_HANDLE_DBC,
            conn.handle(),
            "SQLAllocHandle",
            None,
        )?;
        let mut stmt = Statement::without_handle(conn.strategy);
        stmt.h = h;
        stmt.dbc = conn.handle();
        let fetched = &mut *stmt.fetched as *mut ffi::ULen as *mut _;
        stmt.set_attr_ptr(ffi::SQL_ATTR_ROWS_FETCHED_PTR, fetched)?;
        Ok(stmt)
    }

    /// A statement without a handle: `new` gives it one; `read_ahead` puts one in the place
    /// of the statement it lends to a fetch thread.
    fn without_handle(strategy: Strategy) -> Statement {
        Statement {
            h: null_mut(),
            dbc: null_mut(),
            strategy,
            params: None,
            result: None,
            messages: Vec::new(),
            bound_paramset: 1,
            params_bound: false,
            fetched: Box::new(0),
            array_size: 1,
            bind_by_column: false,
            kept: None,
        }
    }

    pub fn handle(&self) -> StatementHandle {
        StatementHandle(self.h)
    }

    /// What fastodbc does with this statement's driver (`driver::Strategy`).
    pub fn strategy(&self) -> Strategy {
        self.strategy
    }

    fn check(&mut self, ret: ffi::SqlReturn, function: &'static str) -> Result<bool> {
        let dbc = self.dbc;
        check(
            ret,
            ffi::SQL_HANDLE_STMT,
            self.h,
            function,
            Some(&mut self.messages),
        )
        .map_err(|e| e.on_connection(dbc))
    }

    /// Closes any open cursor and forgets bindings, so the handle can run another statement.
    pub fn reset(&mut self) {
        self.drop_result();
        // SAFETY: valid handle; these calls cannot fail in a way that matters here.
        unsafe {
            let _ = ffi::SQLFreeStmt(self.h, ffi::SQL_CLOSE);
            if self.params_bound {
                let _ = ffi::SQLFreeStmt(self.h, ffi::SQL_RESET_PARAMS);
            }
        }
        self.params_bound = false;
        if self.bound_paramset != 1 {
            // The array attributes outlive SQL_RESET_PARAMS: point them away from the batch
            // about to be freed, or the next execute writes into freed memory.
            let _ = self.set_attr_usize(ffi::SQL_ATTR_PARAMSET_SIZE, 1);
            let _ = self.set_attr_ptr(ffi::SQL_ATTR_PARAM_STATUS_PTR, null_mut());
            let _ = self.set_attr_ptr(ffi::SQL_ATTR_PARAMS_PROCESSED_PTR, null_mut());
            self.bound_paramset = 1;
        }
        self.params = None;
        self.messages.clear();
    }

    /// Forgets the current result set. Its buffers are unbound before they are freed, or stay
    /// bound in `kept` for the next result.
    fn drop_result(&mut self) {
        let Some(rs) = self.result.take() else {
            return;
        };
        if !rs.bound {
            return;
        }
        // A bound result took `kept` in `bind_block`: nothing bound is replaced here.
        match rs.into_kept() {
            Some(kept) => self.kept = Some(kept),
            None => self.unbind(),
        }
    }

    /// Unbinds every column and frees the buffers kept bound (`kept`).
    fn unbind(&mut self) {
        // SAFETY: valid handle; the buffers are dropped only after the driver forgot them.
        unsafe {
            let _ = ffi::SQLFreeStmt(self.h, ffi::SQL_UNBIND);
        }
        self.kept = None;
    }

    pub fn set_query_timeout(&mut self, seconds: u32) -> Result<()> {
        // SAFETY: integer attribute by value.
        let ret = unsafe {
            ffi::SQLSetStmtAttrW(
                self.h,
                ffi::SQL_ATTR_QUERY_TIMEOUT,
                seconds as usize as *mut _,
                0,
            )
        };
        // Drivers that cannot time out (SQLite) answer 01S02 "option value changed": not an error.
        self.check(ret, "SQLSetStmtAttr").map(|_| ())
    }

    fn set_attr_usize(&mut self, attr: i32, value: usize) -> Result<()> {
        // SAFETY: integer attribute by value.
        let ret = unsafe { ffi::SQLSetStmtAttrW(self.h, attr, value as *mut _, 0) };
        self.check(ret, "SQLSetStmtAttr").map(|_| ())
    }

    fn set_attr_ptr(&mut self, attr: i32, ptr: *mut std::ffi::c_void) -> Result<()> {
        // SAFETY: the pointer targets memory owned by this statement for as long as it is bound.
        let ret = unsafe { ffi::SQLSetStmtAttrW(self.h, attr, ptr, 0) };
        self.check(ret, "SQLSetStmtAttr").map(|_| ())
    }

    /// `SQLRowCount`; -1 when the driver says nothing (psqlODBC after DROP or ALTER TABLE
    /// returns success without writing the count).
    pub fn row_count(&mut self) -> Result<i64> {
        let mut n: ffi::Len = -1;
        // SAFETY: output pointer valid.
        let ret = unsafe { ffi::SQLRowCount(self.h, &mut n) };
        self.check(ret, "SQLRowCount")?;
        Ok(n as i64)
    }

    pub fn num_result_cols(&mut self) -> Result<usize> {
        let mut n = 0i16;
        // SAFETY: output pointer valid.
        let ret = unsafe { ffi::SQLNumResultCols(self.h, &mut n) };
        self.check(ret, "SQLNumResultCols")?;
        Ok(n.max(0) as usize)
    }

    pub fn describe_col(&mut self, col: usize) -> Result<ColumnDescription> {
        // Names fit this stack buffer almost always; a longer one is asked for again.
        let mut short = [0u16; 128];
        let mut long = Vec::new();
        loop {
            let name: &mut [u16] = if long.is_empty() {
                &mut short
            } else {
                &mut long
            };
            let (mut name_len, mut t, mut size, mut digits, mut nullable) =
                (0i16, 0i16, 0usize, 0i16, 0i16);
            // SAFETY: buffers valid for the lengths passed (name length in characters).
            let ret = unsafe {
                ffi::SQLDescribeColW(
                    self.h,
                    (col + 1) as u16,
                    name.as_mut_ptr(),
                    name.len() as i16,
                    &mut name_len,
                    &mut t,
                    &mut size,
                    &mut digits,
                    &mut nullable,
                )
            };
            self.check(ret, "SQLDescribeColW")?;
            let len = name_len.max(0) as usize;
            if len >= name.len() {
                long = vec![0u16; len + 1];
                continue;
            }
            return Ok(ColumnDescription {
                name: String::from_utf16_lossy(&name[..len]),
                sql_type: t,
                size,
                digits,
                nullable: nullable != 0,
            });
        }
    }

    /// Describes the current result set (if any), plans it and binds its block.
    /// `lowercase_names` lowercases column names (pyodbc does so for catalog results, whose
    /// ODBC names are upper case).
    pub fn open_result(
        &mut self,
        decoding: &Decoding,
        block_bytes: usize,
        lowercase_names: bool,
    ) -> Result<bool> {
        self.open_result_sized(decoding, block_bytes, None, lowercase_names)
    }

    /// `open_result` with the rows per block forced (benchmarks of rowset sizes).
    pub fn open_result_with_rows(
        &mut self,
        decoding: &Decoding,
        block_bytes: usize,
        rows: Option<usize>,
    ) -> Result<bool> {
        self.open_result_sized(decoding, block_bytes, rows, false)
    }

    fn open_result_sized(
        &mut self,
        decoding: &Decoding,
        block_bytes: usize,
        rows: Option<usize>,
        lowercase_names: bool,
    ) -> Result<bool> {
        self.drop_result();
        let n = self.num_result_cols()?;
        if n == 0 {
            return Ok(false);
        }
        let mut columns = Vec::with_capacity(n);
        for i in 0..n {
            let mut desc = self.describe_col(i)?;
            if lowercase_names {
                desc.name = desc.name.to_lowercase();
            }
            columns.push(ColumnPlan::choose_with(desc, decoding, self.strategy.plan));
        }
        let mut plan = ResultPlan::new(columns, block_bytes);
        if !self.strategy.getdata_in_block && plan.columns.iter().any(|c| c.may_truncate) {
            // The driver can re-read a truncated value only on the current row: fetch row by
            // row and assemble blocks (SQLite's driver steps through its result anyway, so this
            // costs it nothing measurable).
            plan.row_at_a_time = true;
        }
        if let (Some(rows), false) = (rows, plan.row_at_a_time) {
            plan.block_rows = rows.max(1);
        }
        // Buffers are allocated and bound at the first fetch: a caller that only reads the
        // description (or executes and moves on) costs the driver no bindings.
        let block = RowBlock::default();
        self.result = Some(ResultSet {
            plan,
            block,
            exhausted: false,
            block_rows: 0,
            fetches: 0,
            ahead: None,
            spare: RowBlock::default(),
            describe_ahead: true,
            staging: Vec::new(),
            bound_to: None,
            bound: false,
        });
        Ok(true)
    }

    /// Allocates the first block and binds it (see `open_result_sized`), or takes the buffers
    /// an earlier result left bound when they fit this one (`KeptBuffers`).
    fn bind_block(&mut self) -> Result<()> {
        let kept = self.kept.take();
        let Some(rs) = self.result.as_mut() else {
            self.kept = kept;
            return Ok(());
        };
        // Small first, grown when the result turns out longer: `SELECT 1` must not allocate
        // and clear a block of thousands of rows.
        let first_rows = rs.plan.block_rows.min(FIRST_ROWSET);
        let driver_rows = if rs.plan.row_at_a_time { 1 } else { first_rows };
        match kept {
            Some(kept) if kept.fit(&rs.plan, first_rows) => {
                // The same buffers with the same C types and sizes: the driver's bindings
                // are already these. Values the last result left in them are never read.
                rs.block = kept.block;
                rs.block.rows = 0;
                rs.staging = kept.staging;
                rs.block_rows = first_rows;
                rs.bound_to = rs.block.address().filter(|_| !rs.plan.row_at_a_time);
                rs.bound = true;
                return self.set_array_size(driver_rows);
            }
            Some(other) => {
                // Its bindings may reach columns this result lacks or bind other C types.
                self.kept = Some(other);
                self.unbind();
            }
            None => {}
        }
        let bound = self.bind_new_block(first_rows, driver_rows);
        if bound.is_err() {
            // Part of the block may be bound: none of it is, and the next fetch tries again.
            self.unbind();
            if let Some(rs) = self.result.as_mut() {
                rs.bound = false;
                rs.bound_to = None;
            }
        }
        bound
    }

    /// Allocates the first block of `first_rows` rows and binds it (or its staging row).
    fn bind_new_block(&mut self, first_rows: usize, driver_rows: usize) -> Result<()> {
        let Some(rs) = self.result.as_mut() else {
            return Ok(());
        };
        rs.block = RowBlock::new(&rs.plan, first_rows);
        rs.block_rows = first_rows;
        rs.bound = true;
        if !self.bind_by_column {
            self.set_attr_usize(ffi::SQL_ATTR_ROW_BIND_TYPE, ffi::SQL_BIND_BY_COLUMN)?;
            self.bind_by_column = true;
        }
        self.set_array_size(driver_rows)?;
        let h = self.h;
        let Some(rs) = self.result.as_mut() else {
            return Ok(());
        };
        let buffers = if rs.plan.row_at_a_time {
            rs.staging = column_buffers(&rs.plan, 1);
            &mut rs.staging
        } else {
            rs.bound_to = rs.block.address();
            &mut rs.block.bound
        };
        bind_columns(h, &rs.plan.columns, buffers)
    }

    /// Sets `SQL_ATTR_ROW_ARRAY_SIZE` unless it already has this value.
    fn set_array_size(&mut self, rows: usize) -> Result<()> {
        if self.array_size != rows {
            self.set_attr_usize(ffi::SQL_ATTR_ROW_ARRAY_SIZE, rows)?;
            self.array_size = rows;
        }
        Ok(())
    }

    /// Fetches the next block. Returns the number of rows in it (0 at the end).
    pub fn fetch_block(&mut self) -> Result<usize> {
        let Some(rs) = self.result.as_mut() else {
            return Err(Error::Programming(
                "No results.  Previous SQL was not a query.".into(),
            ));
        };
        if let Some((next, fetched)) = rs.ahead.take() {
            // The block read ahead becomes the consumer's; the one it read is the spare.
            rs.spare = std::mem::replace(&mut rs.block, next);
            return fetched;
        }
        self.fill_block(false)
    }

    /// Runs `consume` on the current block while another thread fetches the next one, which
    /// `fetch_block` then returns. The driver's work and the consumer's overlap: on two cores
    /// a long fetch takes about the longer of the two instead of their sum. `wait` runs the
    /// wait for the fetch when `consume` is done (the Python layer releases the GIL there).
    ///
    /// Reads ahead only in a long result (`ResultSet::reads_ahead`); otherwise `consume` just
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
        if !rs.reads_ahead() {
            return None;
        }
        // The consumer's block steps out; the spare takes its place as the block filled next.
        let spare = std::mem::take(&mut rs.spare);
        let current = std::mem::replace(&mut rs.block, spare);
        let describe = rs.describe_ahead;
        // The statement itself goes to the fetch thread and comes back with the block filled;
        // a stand-in without a handle holds its place meanwhile.
        let lent = std::mem::replace(self, Statement::without_handle(self.strategy));
        let pending = fetch_thread::run(move || {
            let mut stmt = lent;
            let fetched = catch_unwind(AssertUnwindSafe(|| stmt.fill_block(describe)))
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
            rs.ahead = Some((next, fetched));
            rs.describe_ahead = fetch_first;
        }
    }

    /// Fetches the next block into `result.block`; with `describe`, describes its values too
    /// (`RowBlock::describe`).
    fn fill_block(&mut self, describe: bool) -> Result<usize> {
        let Some(rs) = self.result.as_mut() else {
            return Ok(0);
        };
        if rs.exhausted {
            return Ok(0);
        }
        if !rs.bound {
            self.bind_block()?;
        }
        let Some(rs) = self.result.as_mut() else {
            return Ok(0);
        };
        rs.block.overflow.clear();
        let row_at_a_time = rs.plan.row_at_a_time;
        let fetched = if row_at_a_time {
            self.assemble_block()
        } else {
            self.fetch_rowset()
        };
        let Some(rs) = self.result.as_mut() else {
            return fetched;
        };
        let rows = match fetched {
            Ok(rows) => rows,
            Err(e) => {
                // Nothing of this block is served (it may be the spare, holding rows of an
                // earlier block); a retry fetches again.
                rs.block.rows = 0;
                return Err(e.on_connection(self.dbc));
            }
        };
        rs.fetches += 1;
        if rows == 0 {
            rs.exhausted = true;
            rs.block.rows = 0;
        }
        if describe {
            rs.block.describe(&rs.plan);
        } else {
            rs.block.forget_described();
        }
        Ok(rows)
    }

    /// One `SQLFetch` fills the whole block; truncated values are re-read with SQLSetPos +
    /// SQLGetData where the driver allows it.
    fn fetch_rowset(&mut self) -> Result<usize> {
        let h = self.h;
        if let Some(rs) = self.result.as_mut() {
            let rows = rs.grow_block();
            if rs.bound_to != rs.block.address() {
                bind_columns(h, &rs.plan.columns, &mut rs.block.bound)?;
                rs.bound_to = rs.block.address();
            }
            self.set_array_size(rows)?;
        }
        // SAFETY (of fetch_next): buffers bound by open_result are alive in self.result.
        if !fetch_next(h, &mut self.messages)? {
            return Ok(0);
        }
        let strategy = self.strategy;
        let Some(rs) = self.result.as_mut() else {
            return Ok(0);
        };
        rs.block.rows = (*self.fetched).min(rs.block.capacity_rows);
        let rows = rs.block.len();
        // Truncation is never silent: any variable-length value longer than its element is
        // read again whole or reported.
        for col in 0..rs.block.bound.len() {
            let buf = &rs.block.bound[col];
            if !buf.variable {
                continue;
            }
            let cap = buf.capacity as ffi::Len;
            for row in 0..rows {
                let ind = rs.block.bound[col].ind[row];
                if ind > cap || ind < ffi::SQL_NULL_DATA {
                    check_indicator(ind, &rs.plan.columns[col], row)?;
                    let positioned = strategy.getdata_in_block && {
                        // SAFETY: positions the cursor on a fetched row of the current rowset.
                        let ret = unsafe {
                            ffi::SQLSetPos(
                                h,
                                (row + 1) as ffi::ULen,
                                ffi::SQL_POSITION,
                                ffi::SQL_LOCK_NO_CHANGE,
                            )
                        };
                        ret == ffi::SQL_SUCCESS || ret == ffi::SQL_SUCCESS_WITH_INFO
                    };
                    let plan = &rs.plan.columns[col];
                    let v = reread_truncated(h, positioned, plan, col, row, &mut self.messages)?;
                    rs.block.store_overflow(col, row, v);
                }
            }
        }
        Ok(rows)
    }

    /// Fetches rows one at a time into the staging buffers and copies each into the block;
    /// long values are read with SQLGetData on the current row (streamed columns, and bound
    /// values the driver truncated). Stops at the block's rows or its byte budget.
    fn assemble_block(&mut self) -> Result<usize> {
        let h = self.h;
        let strategy = self.strategy;
        let Some(rs) = self.result.as_mut() else {
            return Ok(0);
        };
        let capacity = rs.grow_block();
        let bound = rs.plan.bound;
        for values in rs.block.streamed.iter_mut() {
            values.clear();
        }
        let mut streamed_bytes = 0usize;
        let mut n = 0usize;
        while n < capacity && streamed_bytes <= DEFAULT_BLOCK_BYTES {
            // SAFETY (of fetch_next): the staging buffers are alive in self.result.
            if !fetch_next(h, &mut self.messages)? {
                break;
            }
            rs.block.copy_staged(&rs.staging, n);
            for col in 0..bound {
                let staged = &rs.staging[col];
                let ind = staged.ind[0];
                if staged.variable
                    && (ind > staged.capacity as ffi::Len || ind < ffi::SQL_NULL_DATA)
                {
                    check_indicator(ind, &rs.plan.columns[col], n)?;
                    let plan = &rs.plan.columns[col];
                    let v = reread_truncated(
                        h,
                        strategy.getdata_bound,
                        plan,
                        col,
                        n,
                        &mut self.messages,
                    )?;
                    streamed_bytes += v.len();
                    rs.block.store_overflow(col, n, v);
                }
            }
            for (i, values) in rs.block.streamed.iter_mut().enumerate() {
                let col = bound + i;
                let Some(plan) = rs.plan.columns.get(col) else {
                    return Err(Error::Interface(format!(
                        "fastodbc: the block holds a streamed column {col} the plan lacks"
                    )));
                };
                let v = if strategy.check_wide_getdata && plan.c_type == ffi::SQL_C_WCHAR {
                    get_wide_checked(h, col, strategy.narrow_text, plan, &mut self.messages)?
                } else {
                    get_data(h, col, plan.c_type, &mut self.messages)?
                };
                streamed_bytes += v.as_ref().map_or(0, |v| v.len());
                values.push(v);
            }
            n += 1;
        }
        rs.block.rows = n;
        Ok(n)
    }

    /// Moves to the next result set (`SQLMoreResults`). Returns false when there is none.
    pub fn more_results(&mut self) -> Result<bool> {
        self.drop_result();
        // SAFETY: valid handle.
        let ret = unsafe { ffi::SQLMoreResults(self.h) };
        self.check(ret, "SQLMoreResults")
    }

    /// Closes the open cursor, keeping the handle.
    pub fn close_cursor(&mut self) {
        self.drop_result();
        // SAFETY: valid handle.
        unsafe {
            let _ = ffi::SQLFreeStmt(self.h, ffi::SQL_CLOSE);
        }
    }
}

impl Drop for Statement {
    fn drop(&mut self) {
        if self.h.is_null() {
            return; // a stand-in (`read_ahead`)
        }
        // Our buffers go first (unbound), then the driver's copy of the result. In the other
        // order, the driver frees its values (one malloc'd chunk each: 1,000,000 for a
        // 200,000 x 5 result) and then freeing a block buffer, a large chunk, makes glibc
        // consolidate all of them at once inside the close (~0.1 s for varchar5 on SQLite);
        // left alone, the driver's next execute reuses those chunks as they are.
        self.drop_result();
        // Kept buffers too: the handle and its bindings go next, with no fetch in between.
        self.kept = None;
        // SAFETY: we own the handle.
        unsafe {
            let _ = ffi::SQLFreeStmt(self.h, ffi::SQL_CLOSE);
            let _ = ffi::SQLFreeHandle(ffi::SQL_HANDLE_STMT, self.h);
        }
    }
}

/// The error a fetch thread's panic (a bug) becomes.
fn panicked() -> Error {
    Error::Interface("the fetch reading ahead panicked".into())
}

/// Binds `buffers` to the first columns of the result (column-wise).
fn bind_columns(
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

/// `SQLFetch` into whatever is bound; false at the end of the result. The caller keeps the
/// bound buffers alive.
fn fetch_next(h: ffi::Handle, messages: &mut Vec<DiagRecord>) -> Result<bool> {
    // SAFETY: valid handle; bindings are the caller's (see above).
    let ret = unsafe { ffi::SQLFetch(h) };
    check(ret, ffi::SQL_HANDLE_STMT, h, "SQLFetch", Some(messages))
}
