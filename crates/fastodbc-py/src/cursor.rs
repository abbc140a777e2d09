//! `Cursor`: execute with parameters, then serve rows from fetched blocks. Rows for
//! `fetchone`, iteration, `fetchmany` and `fetchall` all come from the same block, so iterating
//! costs what `fetchall` costs.

use std::collections::VecDeque;
use std::sync::atomic::Ordering;
use std::sync::{Arc, MutexGuard, TryLockError, Weak};

use fastodbc_core::driver::direct_count::direct_count;
use fastodbc_core::sqlscan::count_markers;
use fastodbc_core::statement::overread_unit;
use fastodbc_core::types::text::to_utf16;
use fastodbc_core::{
    BindOptions, BlockStream, Blocking, CatalogFunction, LoanEnd, ParamBatch, Reader, Reclaim,
    Statement, StatementLoan, Waiting, Want,
};
use fastodbc_pystr::{PreparedRows, RowsPreparation};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};

use crate::connection::{Connection, Settings};
use crate::errors::{self, IntoPyResult};
use crate::flags::ModuleFlags;
use crate::gil_turns;
use crate::lock::lock;
use crate::params::to_param;
use crate::rows::{convert_rows, make_row, ResultView};

mod arrow;
mod executemany;
mod held;
mod ingest;
mod shared;

pub use arrow::ArrowReader;
pub use ingest::{
    column_name_limit, ColumnNameLimit, CreateColumn, IngestField, IngestRequest, IngestSource,
};

use shared::{closed_cursor, CursorShared};

pub struct CursorState {
    /// The statement and where its result is served from (`BlockStream`, which reads long
    /// results ahead).
    stmt: Option<BlockStream>,
    /// The statement lent to an Arrow reader (`fetch_record_batch`): `stmt` is `None` until
    /// the reader is done and the statement is taken back (`Cursor::state`).
    loan: Option<Arc<StatementLoan>>,
    result: Option<ResultView>,
    rowcount: i64,
    arraysize: usize,
    fast_executemany: bool,
    noscan: bool,
    timeout_applied: u32,
    messages: Vec<(String, String)>,
}

impl CursorState {
    /// Frees the statement, after taking it back from a fetch thread (`CursorShared::close`).
    pub(crate) fn free(&mut self, py: Python<'_>) {
        self.take_back(py);
        self.result = None;
        // Freeing may wait on the server (psqlODBC's SQLFreeHandle sends Close and waits for
        // its answer): never with the GIL, which a dead link would keep from every thread.
        let stmt = self.stmt.take();
        gil_turns::detached(py, move || drop(stmt));
        // A reader fetching holds the loan for its batch, and may wait for the GIL meanwhile.
        if let Some(loan) = self.loan.take() {
            while !loan.try_close() {
                // A wait for another thread, not a driver call: not counted (`gil_turns`).
                py.allow_threads(|| std::thread::sleep(std::time::Duration::from_micros(200)));
            }
        }
    }

    /// Takes the statement back from an Arrow reader that is done with it; `ProgrammingError`
    /// while one reads it.
    fn reclaim(&mut self, py: Python<'_>) -> PyResult<()> {
        let Some(loan) = self.loan.as_ref() else {
            return Ok(());
        };
        match loan.try_reclaim() {
            None | Some(Reclaim::Lent) => Err(errors::programming(
                py,
                "The cursor's result is being read by an Arrow reader (fetch_record_batch); \
                 read it to the end or close it first.",
            )),
            Some(Reclaim::Back { mut reader, end }) => {
                // The stream is where the reader left it: at the end when it drained the
                // result, where it would have started when it read nothing.
                match (end, self.result.as_mut()) {
                    (LoanEnd::Drained, Some(_)) => {}
                    // A consumer that only wanted the schema: rows are served again.
                    (LoanEnd::Unread, Some(_)) => {
                        if let Some(rs) = reader.statement(&Blocking).result.as_mut() {
                            rs.set_consumer(Arc::new(RowsPreparation));
                            rs.plan_for(Reader::Rows);
                        }
                    }
                    // Closed part way: no rows left to serve.
                    _ => self.result = None,
                }
                self.stmt = Some(*reader);
                self.loan = None;
                Ok(())
            }
            Some(Reclaim::Gone) => {
                self.loan = None;
                self.result = None;
                Ok(())
            }
        }
    }

    /// Takes the statement back from the fetch `next_row` left running, waiting for it with
    /// the GIL released: before any other use of the statement, and before it is dropped.
    fn take_back(&mut self, py: Python<'_>) {
        if let Some(stream) = self.stmt.as_mut() {
            stream.take_back(&ReleaseGil(py));
        }
    }
}

#[pyclass(subclass, frozen, weakref, module = "fastodbc._native")]
pub struct Cursor {
    connection: Py<Connection>,
    shared: Arc<CursorShared>,
}

fn message_tuples(records: &[fastodbc_core::DiagRecord]) -> Vec<(String, String)> {
    records
        .iter()
        .map(|r| {
            (
                format!("[{}] ({})", r.sqlstate, r.native),
                r.message.clone(),
            )
        })
        .collect()
}

/// Parameters given as varargs, or as one list/tuple (pyodbc accepts both).
fn param_sequence<'py>(params: &Bound<'py, PyTuple>) -> PyResult<Bound<'py, PyAny>> {
    if params.len() == 1 {
        let first = params.get_item(0)?;
        if first.downcast::<PyTuple>().is_ok() || first.downcast::<PyList>().is_ok() {
            return Ok(first);
        }
    }
    Ok(params.clone().into_any())
}

impl Cursor {
    fn conn(&self) -> &Connection {
        self.connection.get()
    }

    /// The state, for one operation. A cursor is used by one thread at a time; a second thread
    /// gets an error instead of a deadlock with the GIL.
    fn state(&self, py: Python<'_>) -> PyResult<MutexGuard<'_, CursorState>> {
        let st = match self.shared.state.try_lock() {
            Ok(g) => g,
            Err(TryLockError::Poisoned(p)) => p.into_inner(),
            // `close` (the cursor's or the connection's) holds the state while it frees the
            // statement.
            Err(TryLockError::WouldBlock) if self.shared.is_closed() => {
                return Err(closed_cursor(py))
            }
            Err(TryLockError::WouldBlock) if self.conn().check_open(py).is_err() => {
                return Err(errors::programming(
                    py,
                    "Attempt to use a closed connection.",
                ))
            }
            Err(TryLockError::WouldBlock) => {
                return Err(errors::programming(
                    py,
                    "The cursor is in use by another thread.",
                ))
            }
        };
        if self.shared.is_closed() {
            return Err(closed_cursor(py));
        }
        self.conn().check_open(py)?;
        let mut st = st;
        st.reclaim(py)?;
        Ok(st)
    }

    /// Creates the statement handle on first use.
    fn statement<'a>(
        &self,
        py: Python<'_>,
        st: &'a mut CursorState,
    ) -> PyResult<&'a mut Statement> {
        st.take_back(py);
        if st.stmt.is_none() {
            let guard = lock(py, &self.conn().shared.conn);
            let Some(conn) = guard.as_ref() else {
                return Err(errors::programming(
                    py,
                    "Attempt to use a closed connection.",
                ));
            };
            let stmt = Statement::new(conn).py(py)?;
            self.shared.cancel.set_handle(py, stmt.handle());
            st.stmt = Some(BlockStream::new(stmt));
        }
        match st.stmt.as_mut() {
            Some(stream) => Ok(stream.statement(&ReleaseGil(py))),
            None => Err(closed_cursor(py)),
        }
    }

    fn settings(&self, py: Python<'_>) -> Settings {
        lock(py, &self.conn().shared.settings).clone()
    }

    /// After an execute: row count, then describe and bind the result set if there is one.
    fn open_result(
        &self,
        py: Python<'_>,
        st: &mut CursorState,
        settings: &Settings,
        lowercase: bool,
    ) -> PyResult<()> {
        st.result = None;
        let stmt = self.statement(py, st)?;
        let rowcount = stmt.row_count().unwrap_or(-1);
        let decoding = &settings.decoding;
        let flags = ModuleFlags::read(py);
        let lowercase = lowercase || flags.lowercase;
        let has_result = gil_turns::detached(py, || {
            stmt.open_result(decoding, settings.budget, lowercase)
        })
        .py(py)?;
        let messages = message_tuples(&stmt.messages);
        let float_digits = stmt.strategy().float_digits;
        if let (true, Some(rs), 1..) = (has_result, stmt.result.as_ref(), float_digits) {
            warn_float_digits(py, rs, float_digits)?;
        }
        let view = match (has_result, stmt.result.as_mut()) {
            (true, Some(rs)) => {
                let user = lock(py, &self.conn().shared.converters);
                Some(ResultView::new(py, rs, &user, flags)?)
            }
            _ => None,
        };
        if let Some(stream) = st.stmt.as_mut() {
            stream.start(settings.read_ahead);
        }
        st.messages = messages;
        st.rowcount = rowcount;
        st.result = view;
        Ok(())
    }

    fn apply_timeout(&self, py: Python<'_>, st: &mut CursorState) -> PyResult<()> {
        let timeout = self.conn().timeout_value();
        if timeout != st.timeout_applied {
            self.statement(py, st)?.set_query_timeout(timeout).py(py)?;
            st.timeout_applied = timeout;
        }
        Ok(())
    }

    /// The connection's settings and the cursor's state, for a statement about to run: the
    /// last result, its messages and row count forgotten, no cancel request pending.
    fn begin_statement(&self, py: Python<'_>) -> PyResult<(Settings, MutexGuard<'_, CursorState>)> {
        let settings = self.settings(py);
        let mut st = self.state(py)?;
        st.result = None;
        st.messages.clear();
        st.rowcount = -1;
        self.shared.cancel.clear_request();
        let conn = self.conn();
        if conn.in_manual_commit() {
            conn.shared.txn_begun.store(true, Ordering::Release);
        }
        Ok((settings, st))
    }

    fn execute_impl(&self, py: Python<'_>, sql: &str, params: &Bound<'_, PyAny>) -> PyResult<()> {
        let (settings, mut guard) = self.begin_statement(py)?;
        let st = &mut *guard;
        let mut values = Vec::new();
        for (i, p) in params.try_iter()?.enumerate() {
            values.push(to_param(py, &p?, i, settings.refuse)?);
        }
        if !st.noscan {
            let markers = count_markers(sql, settings.brackets);
            if markers != values.len() {
                return Err(errors::programming(
                    py,
                    format!(
                        "The SQL contains {markers} parameter markers, but {} parameters were supplied",
                        values.len()
                    ),
                ));
            }
        }
        self.apply_timeout(py, st)?;
        let stmt = self.statement(py, st)?;
        let sql16 = to_utf16(sql);
        let opts = BindOptions::for_driver(settings.encoding, &stmt.strategy());
        // Direct execution (one round trip), unless the transaction holds changes and the
        // driver would lose them to a syntax error in a direct statement
        // (`Strategy::prepare_after_changes`, psqlODBC).
        let conn = self.conn();
        let manual = conn.in_manual_commit();
        let strategy = stmt.strategy();
        let prepare = strategy.prepare_after_changes
            && manual
            && conn.shared.txn_dirty.load(Ordering::Acquire);
        let gate = &self.shared.cancel;
        let r = gil_turns::detached(py, || {
            stmt.reset();
            if !values.is_empty() {
                stmt.bind_params(ParamBatch::build(&[values], opts, &[])?)?;
            }
            if prepare {
                stmt.prepare(&sql16)?;
            }
            let executing = gate.executing()?;
            executing.finish(if prepare {
                stmt.execute()
            } else {
                stmt.exec_direct(&sql16)
            })
        });
        st.messages = message_tuples(&stmt.messages);
        if r.is_err() && self.shared.is_closed() {
            return Err(closed_cursor(py));
        }
        r.py(py)?;
        self.open_result(py, st, &settings, false)?;
        if manual && st.result.is_none() {
            conn.shared.txn_dirty.store(true, Ordering::Release);
        }
        // The count the driver gives the statement run directly, as pyodbc runs it.
        if prepare
            && st.result.is_none()
            && st.rowcount == -1
            && strategy.direct_count_after_prepare
        {
            st.rowcount = direct_count(sql);
        }
        Ok(())
    }

    /// Serves the next row, fetching a new block when the current one is used up.
    ///
    /// Rows are converted one per call, except in a long result (`Want::Iterate`): there the
    /// stream hands out the rest of the block at once and fetches the next one on a fetch
    /// thread until these rows are served, so iterating overlaps the driver's work with the
    /// conversion and the caller's loop alike. Those rows wait in `ready`; an error converting
    /// one of them waits in `failed` until the rows before it are served.
    fn next_row(&self, py: Python<'_>, st: &mut CursorState) -> PyResult<Option<PyObject>> {
        let no_results = || errors::programming(py, "No results.  Previous SQL was not a query.");
        let Some(view) = st.result.as_mut() else {
            return Err(no_results());
        };
        view.held = 0;
        gil_turns::yield_to_returning(py);
        if let Some(row) = view.take_ready()? {
            return Ok(Some(row));
        }
        let (Some(view), Some(stream)) = (st.result.as_mut(), st.stmt.as_mut()) else {
            return Err(no_results());
        };
        let waiting = ReleaseGil(py);
        if !stream.has_rows(&waiting).py(py)? {
            return Ok(None);
        }
        // Closed or cancelled from another thread while this one waited for a block: its rows
        // are not served.
        self.shared.interrupted(py)?;
        stream.serve(Want::Iterate, &waiting, |rows| {
            if rows.range.len() == 1 {
                // A row that raises is consumed, as in pyodbc: the next call goes on after it.
                let prepared = rows.block.notes.get::<PreparedRows>();
                let row = make_row(py, view, rows.block, prepared, rows.range.start);
                return (1, row.map(|row| Some(row.unbind())));
            }
            let mut ready = VecDeque::new();
            let (at, done) = convert_rows(py, view, rows.block, rows.range.clone(), |row| {
                ready.push_back(row.unbind());
                Ok(())
            });
            (view.ready, view.failed) = (ready, done.err());
            (at - rows.range.start, view.take_ready())
        })
    }

    /// Up to `limit` rows (all when None), converted block by block. An error converting a
    /// row is raised with that row and the rows before it consumed, as in pyodbc.
    fn fetch_rows<'py>(
        &self,
        py: Python<'py>,
        limit: Option<usize>,
    ) -> PyResult<Bound<'py, PyList>> {
        let mut guard = self.state(py)?;
        let st = &mut *guard;
        let no_results = || errors::programming(py, "No results.  Previous SQL was not a query.");
        let Some(view) = st.result.as_mut() else {
            return Err(no_results());
        };
        view.held = 0;
        let out = PyList::empty(py);
        let mut left = limit.unwrap_or(usize::MAX);
        // Rows `next_row` converted ahead come first, then the error that stopped it, if any.
        let ready = view.ready.len().min(left);
        for row in view.ready.drain(..ready) {
            out.append(row)?;
        }
        left -= ready;
        if left == 0 {
            return Ok(out);
        }
        if let Some(e) = view.failed.take() {
            return Err(e);
        }
        let (Some(view), Some(stream)) = (st.result.as_mut(), st.stmt.as_mut()) else {
            return Err(no_results());
        };
        let waiting = ReleaseGil(py);
        while left > 0 {
            self.shared.interrupted(py)?;
            if !stream.has_rows(&waiting).py(py)? {
                break;
            }
            // More rows wanted than the block holds: the stream fetches the next block while
            // this one is converted (the GIL released only for the wait at the end).
            let (taken, done) = stream.serve(Want::Rows(left), &waiting, |rows| {
                let (at, done) = convert_rows(py, view, rows.block, rows.range.clone(), |row| {
                    out.append(row)
                });
                let taken = at - rows.range.start;
                (taken, (taken, done))
            });
            left -= taken;
            done?;
        }
        Ok(out)
    }
}

/// The Python consumer's wait for the driver: with the GIL released, so other threads run.
pub(crate) struct ReleaseGil<'py>(pub(crate) Python<'py>);

impl Waiting for ReleaseGil<'_> {
    fn wait<R: Send>(&self, f: impl FnOnce() -> R + Send) -> R {
        gil_turns::detached(self.0, f)
    }
}

impl Drop for Cursor {
    fn drop(&mut self) {
        // Free the statement before the connection reference (a field) is released: freeing
        // the connection first would leave a dangling statement handle.
        // The locks are waited for detached: `Connection.close` may hold this cursor's state
        // across a driver call, and the thread that waits attached would stop the GIL's next
        // holder (or, without a GIL, a stop-the-world pause) until it ends.
        let mut st = Python::with_gil(|py| {
            self.shared.cancel.forget(py);
            lock(py, &self.shared.state)
        });
        st.result = None;
        // A fetch running ahead is waited for as the statement drops (it needs no GIL), and
        // the free may wait on the server: the GIL is released meanwhile (`CursorState::free`).
        let stmt = st.stmt.take();
        Python::with_gil(|py| gil_turns::detached(py, move || drop(stmt)));
        // A statement an Arrow reader is done with is freed here too; one a reader still
        // reads stays with it (the reader keeps the connection alive, and frees it last).
        if let Some(loan) = st.loan.take() {
            match loan.try_reclaim() {
                Some(Reclaim::Back { reader, .. }) => drop(reader),
                Some(Reclaim::Gone) => {}
                Some(Reclaim::Lent) | None => st.loan = Some(loan),
            }
        }
    }
}

#[pymethods]
impl Cursor {
    #[new]
    fn new(py: Python<'_>, connection: &Bound<'_, Connection>) -> PyResult<Self> {
        let conn = connection.get();
        conn.check_open(py)?;
        let shared = Arc::new(CursorShared::new(
            CursorState {
                stmt: None,
                loan: None,
                result: None,
                rowcount: -1,
                arraysize: 1,
                fast_executemany: true,
                noscan: false,
                timeout_applied: 0,
                messages: Vec::new(),
            },
            conn.shared.link.clone(),
        ));
        let weak: Weak<CursorShared> = Arc::downgrade(&shared);
        conn.register_cursor(py, weak);
        Ok(Cursor {
            connection: connection.clone().unbind(),
            shared,
        })
    }

    /// Executes `sql` with parameters given as varargs or as one sequence; returns the cursor.
    #[pyo3(signature = (sql, *params))]
    fn execute<'py>(
        slf: &Bound<'py, Self>,
        sql: &str,
        params: &Bound<'py, PyTuple>,
    ) -> PyResult<Bound<'py, Self>> {
        let py = slf.py();
        let params = param_sequence(params)?;
        slf.get().execute_impl(py, sql, &params)?;
        Ok(slf.clone())
    }

    /// Executes `sql` once per parameter row, as parameter arrays when `fast_executemany`
    /// (a statement without markers: one execution per row). An array the driver reports not
    /// run whole raises `InterfaceError`; an empty sequence of rows `ProgrammingError`, as in
    /// pyodbc, and an empty iterator or generator runs nothing.
    fn executemany(
        &self,
        py: Python<'_>,
        sql: &str,
        seq_of_parameters: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        crate::params::check_param_rows(py, seq_of_parameters)?;
        self.executemany_impl(py, sql, seq_of_parameters)
    }

    /// Loads a table as `request` says (`fastodbc.ingest` builds it): see
    /// `ingest::ingest_impl`.
    fn _ingest(&self, py: Python<'_>, request: PyRef<'_, IngestRequest>) -> PyResult<usize> {
        self.ingest_impl(py, &request)
    }

    /// The next row, or None when the result set is exhausted.
    fn fetchone(&self, py: Python<'_>) -> PyResult<Option<PyObject>> {
        let mut st = self.state(py)?;
        self.next_row(py, &mut st)
    }

    /// Up to `size` rows (default `arraysize`).
    #[pyo3(signature = (size=None))]
    fn fetchmany<'py>(&self, py: Python<'py>, size: Option<usize>) -> PyResult<Bound<'py, PyList>> {
        let size = match size {
            Some(s) => s,
            None => self.state(py)?.arraysize,
        };
        self.fetch_rows(py, Some(size))
    }

    /// All remaining rows.
    fn fetchall<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.fetch_rows(py, None)
    }

    /// The first column of the next row, or None if there is no row.
    fn fetchval(&self, py: Python<'_>) -> PyResult<PyObject> {
        let mut st = self.state(py)?;
        match self.next_row(py, &mut st)? {
            Some(row) => {
                // A row is a tuple (see `row`).
                let values = row.bind(py).downcast::<PyTuple>()?;
                Ok(if values.is_empty() {
                    py.None()
                } else {
                    values.get_item(0)?.unbind()
                })
            }
            None => Ok(py.None()),
        }
    }

    /// `held::read_held`: for the asyncio cursor, rows read with its execute.
    fn _read_held<'py>(&self, py: Python<'py>, limit: usize) -> PyResult<Bound<'py, PyList>> {
        self.read_held(py, limit)
    }

    /// `held::unread_held`: the rows of `_read_held` the asyncio cursor did not serve.
    fn _unread_held(&self, py: Python<'_>, rows: &Bound<'_, PyList>) -> PyResult<()> {
        self.unread_held(py, rows)
    }

    /// Skips `count` rows.
    fn skip(&self, py: Python<'_>, count: usize) -> PyResult<()> {
        let mut st = self.state(py)?;
        for _ in 0..count {
            if self.next_row(py, &mut st)?.is_none() {
                break;
            }
        }
        Ok(())
    }

    fn __iter__(slf: Bound<'_, Self>) -> Bound<'_, Self> {
        slf
    }

    fn __next__(&self, py: Python<'_>) -> PyResult<Option<PyObject>> {
        let mut st = self.state(py)?;
        self.next_row(py, &mut st)
    }

    /// Moves to the next result set; False when there is none.
    fn nextset(&self, py: Python<'_>) -> PyResult<bool> {
        let settings = self.settings(py);
        let mut guard = self.state(py)?;
        let st = &mut *guard;
        st.result = None;
        let stmt = self.statement(py, st)?;
        let more = gil_turns::detached(py, || stmt.more_results()).py(py)?;
        if !more {
            st.rowcount = -1;
            return Ok(false);
        }
        self.open_result(py, st, &settings, false)?;
        Ok(true)
    }

    /// Closes the cursor and frees its statement handle. A thread using the cursor meanwhile
    /// gets ProgrammingError at its next row or block, an execution in progress is cancelled.
    fn close(&self, py: Python<'_>) -> PyResult<()> {
        self.shared.close(py, None);
        Ok(())
    }

    /// Cancels the statement this cursor runs, from another thread: an execution in progress
    /// fails with the driver's error for a cancel; a result being read raises OperationalError
    /// HY008 at its next block.
    fn cancel(&self, py: Python<'_>) -> PyResult<()> {
        self.shared.cancel.cancel(py)
    }

    /// Runs the catalog function of pyodbc's cursor method `kind` ("tables", "statistics",
    /// ...): text arguments in ODBC's order, integer `options` in the method's
    /// (`CatalogFunction::from_method`).
    #[pyo3(signature = (kind, *args, options=Vec::new()))]
    fn _catalog<'py>(
        slf: &Bound<'py, Self>,
        kind: &str,
        args: Vec<Option<String>>,
        options: Vec<i64>,
    ) -> PyResult<Bound<'py, Self>> {
        let py = slf.py();
        let this = slf.get();
        let Some(function) = CatalogFunction::from_method(kind, &options) else {
            return Err(errors::programming(
                py,
                format!("unknown catalog function {kind} or options {options:?}"),
            ));
        };
        let settings = this.settings(py);
        let mut guard = this.state(py)?;
        let st = &mut *guard;
        st.result = None;
        st.messages.clear();
        this.shared.cancel.clear_request();
        let stmt = this.statement(py, st)?;
        let wide: Vec<Option<Vec<u16>>> = args.iter().map(|a| a.as_deref().map(to_utf16)).collect();
        // A name the driver would read past (`Strategy::refuse_overread_catalog_names`) would
        // be looked up with one more character per such unit: nothing, or another object,
        // found.
        if stmt.strategy().refuse_overread_catalog_names
            && wide.iter().flatten().flatten().any(|&u| overread_unit(u))
        {
            return Err(errors::db_error(
                py,
                "NotSupportedError",
                "HYC00",
                "this driver misreads catalog names holding the characters U+xxD8-U+xxDB \
                 (MariaDB Connector/ODBC 3.1); query information_schema instead"
                    .into(),
            ));
        }
        gil_turns::detached(py, || {
            stmt.reset();
            stmt.catalog(function, &wide)
        })
        .py(py)?;
        this.open_result(py, st, &settings, true)?;
        Ok(slf.clone())
    }

    /// The rest of the current result as Arrow record batches of up to `batch_rows` rows or
    /// about `batch_bytes` bytes: a `RecordBatchReader` (Arrow C stream, iteration over
    /// `pyarrow.RecordBatch`). Until it is read to its end or closed, other use of the cursor
    /// raises ProgrammingError.
    #[pyo3(signature = (batch_rows=None, batch_bytes=None))]
    fn fetch_record_batch(
        &self,
        py: Python<'_>,
        batch_rows: Option<usize>,
        batch_bytes: Option<usize>,
    ) -> PyResult<ArrowReader> {
        let limits = arrow::limits(py, batch_rows, batch_bytes, self.settings(py).budget)?;
        self.arrow_reader(py, limits)
    }

    /// The rest of the current result as an Arrow C stream (the Arrow PyCapsule interface):
    /// `pyarrow.table(cursor)`, `polars.DataFrame(cursor)`, DuckDB.
    #[pyo3(signature = (requested_schema=None))]
    fn __arrow_c_stream__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let reader = Bound::new(
            py,
            self.arrow_reader(
                py,
                fastodbc_arrow::BatchLimits::for_budget(self.settings(py).budget),
            )?,
        )?;
        reader.call_method1("__arrow_c_stream__", (requested_schema,))
    }

    /// Accepted for DB-API compatibility; parameter sizes come from the values.
    fn setinputsizes(&self, _sizes: &Bound<'_, PyAny>) {}

    /// Accepted for DB-API compatibility; long columns are always read whole.
    #[pyo3(signature = (size, column=None))]
    fn setoutputsize(&self, size: isize, column: Option<isize>) {
        let _ = (size, column);
    }

    /// 7-item tuples (name, type_code, None, size, size, scale, nullable), or None.
    #[getter]
    fn description(&self, py: Python<'_>) -> PyResult<Option<Py<PyTuple>>> {
        // Also while an Arrow reader reads the result (the description stays the result's).
        let st = lock(py, &self.shared.state);
        Ok(st.result.as_ref().map(|v| v.description.clone_ref(py)))
    }

    /// Rows affected by the last execute (or -1 when unknown).
    #[getter]
    fn rowcount(&self, py: Python<'_>) -> PyResult<i64> {
        Ok(self
            .shared
            .state
            .try_lock()
            .map(|s| s.rowcount)
            .unwrap_or_else(|_| {
                let _ = py;
                -1
            }))
    }

    #[getter]
    fn get_arraysize(&self, py: Python<'_>) -> PyResult<usize> {
        Ok(lock(py, &self.shared.state).arraysize)
    }

    #[setter]
    fn set_arraysize(&self, py: Python<'_>, value: usize) {
        lock(py, &self.shared.state).arraysize = value.max(1);
    }

    #[getter]
    fn get_fast_executemany(&self, py: Python<'_>) -> bool {
        lock(py, &self.shared.state).fast_executemany
    }

    #[setter]
    fn set_fast_executemany(&self, py: Python<'_>, value: bool) {
        lock(py, &self.shared.state).fast_executemany = value;
    }

    /// When True, the SQL is not scanned for parameter markers before execution.
    #[getter]
    fn get_noscan(&self, py: Python<'_>) -> bool {
        lock(py, &self.shared.state).noscan
    }

    #[setter]
    fn set_noscan(&self, py: Python<'_>, value: bool) {
        lock(py, &self.shared.state).noscan = value;
    }

    /// Informational messages (SQL_SUCCESS_WITH_INFO) of the last operation.
    #[getter]
    fn messages(&self, py: Python<'_>) -> Vec<(String, String)> {
        lock(py, &self.shared.state).messages.clone()
    }

    /// The connection this cursor belongs to.
    #[getter]
    fn connection(&self, py: Python<'_>) -> Py<Connection> {
        self.connection.clone_ref(py)
    }

    /// True once closed (or its connection closed).
    #[getter]
    fn closed(&self) -> bool {
        self.shared.is_closed() || self.conn().shared.closed.load(Ordering::Acquire)
    }
}

/// Warns (`fastodbc.PrecisionWarning`) that the floating-point columns of result `rs` arrive
/// with `digits` significant digits (`Strategy::float_digits`): once per result that has any.
fn warn_float_digits(py: Python<'_>, rs: &fastodbc_core::ResultSet, digits: u8) -> PyResult<()> {
    use fastodbc_core::ffi;
    let names: Vec<String> = rs
        .plan
        .columns
        .iter()
        .filter(|c| {
            matches!(
                c.desc.sql_type,
                ffi::SQL_REAL | ffi::SQL_FLOAT | ffi::SQL_DOUBLE
            )
        })
        .map(|c| format!("{:?}", c.desc.name))
        .collect();
    if names.is_empty() {
        return Ok(());
    }
    let message = format!(
        "column {} of this result: the driver returns doubles with {digits} significant digits \
         (sqliteodbc reads SQLite's text of them: 1.0/3 arrives as 0.333333333333333); \
         printf('%!.17g', column) in the query returns 17 as text",
        names.join(", ")
    );
    // Not linked (`_native` used alone): Python's UserWarning.
    let category = crate::linked::precision_warning(py)
        .unwrap_or_else(|| py.get_type::<pyo3::exceptions::PyUserWarning>().into_any());
    let message = std::ffi::CString::new(message.replace('\0', ""))
        .map_err(|e| errors::programming(py, e.to_string()))?;
    PyErr::warn(py, &category, &message, 1)
}
