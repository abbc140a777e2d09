//! The Python-rows consumer: what a result set needs to turn blocks into rows (`ResultView`:
//! description, one converter per column), and the rows built from a block. Its work on the
//! fetch thread is `fastodbc_pystr::RowsPreparation`; the cursor (`cursor.rs`) decides when
//! blocks are fetched and rows served.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

use fastodbc_core::{ResultSet, RowBlock};
use fastodbc_pystr::{PreparedRows, RowsPreparation};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyString, PyTuple};

use crate::convert::{type_code, Converter};
use crate::flags::ModuleFlags;
use crate::gil_turns;
use crate::row::{new_row, ColumnMap};

/// What the current result set needs to turn block cells into rows.
pub struct ResultView {
    pub description: Py<PyTuple>,
    columns: Py<ColumnMap>,
    converters: Vec<Converter>,
    names: Vec<String>,
    /// No user output converter: row tuples hold only atomic values (see `make_row`).
    untrack: bool,
    /// No converter runs Python code (no output converter, codec or `uuid.UUID`): the cyclic
    /// collector can pause while a block's rows are built (`CollectorPaused`).
    pause_collector: bool,
    /// Rows converted ahead of the consumer, served before the stream's next row (see
    /// `next_row`).
    pub ready: VecDeque<PyObject>,
    /// The error converting the row after `ready`'s raised while rows were converted ahead:
    /// raised when the consumer gets to that row.
    pub failed: Option<PyErr>,
    /// Rows the last `Cursor::read_held` handed out that may still be handed back (see
    /// cursor/held.rs); any other fetch ends that.
    pub held: usize,
}

impl ResultView {
    /// The next row converted ahead, or the error that stopped converting ahead.
    pub fn take_ready(&mut self) -> PyResult<Option<PyObject>> {
        match self.ready.pop_front() {
            Some(row) => Ok(Some(row)),
            None => self.failed.take().map_or(Ok(None), Err),
        }
    }

    /// Converters and description for a freshly described result set, whose blocks read ahead
    /// are prepared for these rows on the fetch thread from now on (`RowsPreparation`).
    pub fn new(
        py: Python<'_>,
        rs: &mut ResultSet,
        user: &HashMap<i16, PyObject>,
        flags: ModuleFlags,
    ) -> PyResult<ResultView> {
        rs.set_consumer(Arc::new(RowsPreparation));
        let mut converters = Vec::with_capacity(rs.plan.columns.len());
        let mut names = Vec::with_capacity(rs.plan.columns.len());
        let mut desc = Vec::with_capacity(rs.plan.columns.len());
        for c in &rs.plan.columns {
            let user_fn = user.get(&c.desc.sql_type).map(|f| f.clone_ref(py));
            converters.push(Converter::for_column(c, user_fn, flags.native_uuid));
            names.push(c.desc.name.clone());
            let d = &c.desc;
            desc.push(PyTuple::new(
                py,
                [
                    PyString::new(py, &d.name).into_any(),
                    type_code(py, c.kind, flags.native_uuid)?.into_any(),
                    py.None().into_bound(py),
                    d.size.into_pyobject(py)?.into_any(),
                    d.size.into_pyobject(py)?.into_any(),
                    d.digits.into_pyobject(py)?.into_any(),
                    PyBool::new(py, d.nullable).to_owned().into_any(),
                ],
            )?);
        }
        let description = PyTuple::new(py, desc)?.unbind();
        let columns = Py::new(py, ColumnMap::new(description.clone_ref(py)))?;
        let untrack = !converters.iter().any(|c| matches!(c, Converter::User(_)));
        let pause_collector = !converters.iter().any(Converter::runs_python);
        Ok(ResultView {
            description,
            columns,
            untrack,
            pause_collector,
            converters,
            names,
            ready: VecDeque::new(),
            failed: None,
            held: 0,
        })
    }
}

/// Rows converted between two looks for a thread waiting to take the GIL back
/// (`gil_turns`): some tens of microseconds of conversion.
const YIELD_ROWS: usize = 64;

/// Converts `rows` of `block` in order into `sink`, stopping at the first error: returns the
/// row after the last one converted (the failing row included: as in pyodbc, a row that
/// raises is consumed) and the error.
pub fn convert_rows<'py>(
    py: Python<'py>,
    view: &ResultView,
    block: &RowBlock,
    rows: std::ops::Range<usize>,
    mut sink: impl FnMut(Bound<'py, PyAny>) -> PyResult<()>,
) -> (usize, PyResult<()>) {
    let mut paused = view.pause_collector.then(|| CollectorPaused::new(py));
    let prepared = block.notes.get::<PreparedRows>();
    for r in rows.clone() {
        if r % YIELD_ROWS == 0 && gil_turns::others_returning() {
            // Other threads run meanwhile: with the collector on, as they left it (dropping
            // the pause turns it back on).
            let resume = paused.take().is_some();
            gil_turns::yield_to_returning(py);
            if resume {
                paused = Some(CollectorPaused::new(py));
            }
        }
        if let Err(e) = make_row(py, view, block, prepared, r).and_then(&mut sink) {
            return (r + 1, Err(e));
        }
    }
    (rows.end, Ok(()))
}

/// The cyclic garbage collector, off while a block's rows are built. Every row is a tuple, an
/// object the collector counts: 700 of them start a collection, and the collections of older
/// generations walk the growing result list too, ~7% of a fetchall of 200,000 three-column
/// rows (pyodbc's rows are not such objects). The rows of the built-in converters cannot
/// form cycles, and while converters that run no Python code build them no other thread runs
/// (`ResultView::pause_collector`) but when this one gives the GIL up (`convert_rows` resumes
/// the collector then); it is back on, if it was on, after each block. A free-threaded
/// CPython needs it more: its collections are full ones that stop every thread (an event
/// loop waited 102 ms during a 300,000-row fetchall without the pause). There threads that
/// pause at once share the switch, so one may resume it early: slower, never wrong.
struct CollectorPaused(bool);

impl CollectorPaused {
    fn new(_py: Python<'_>) -> CollectorPaused {
        // SAFETY: attached (`_py`).
        CollectorPaused(unsafe { pyo3::ffi::PyGC_Disable() } != 0)
    }
}

impl Drop for CollectorPaused {
    fn drop(&mut self) {
        if self.0 {
            // SAFETY: dropped where it was made, attached.
            unsafe { pyo3::ffi::PyGC_Enable() };
        }
    }
}

/// Row `row` of `block` as a Python row; `prepared` is `block`'s notes (`RowsPreparation`).
#[inline]
pub fn make_row<'py>(
    py: Python<'py>,
    view: &ResultView,
    block: &RowBlock,
    prepared: Option<&PreparedRows>,
    row: usize,
) -> PyResult<Bound<'py, PyAny>> {
    let out = new_row(py, view.converters.len(), &view.columns)?;
    for (c, (conv, name)) in view.converters.iter().zip(&view.names).enumerate() {
        let v = conv.convert_at(py, block, prepared, c, row, name)?;
        // SAFETY: `out` is a new row (a tuple) with a NULL slot `c`, which steals `v`; on an
        // error above, the partly filled row deallocates and skips the NULL slots.
        unsafe {
            pyo3::ffi::PyTuple_SET_ITEM(out.as_ptr(), c as pyo3::ffi::Py_ssize_t, v.into_ptr());
        }
    }
    if !view.untrack {
        // A user's converter may return anything, even an object referring back to the row.
        // Rows of the built-in converters (str, int, Decimal, datetime, ...) cannot be part of
        // a cycle and stay untracked, so a large fetchall does not make the cyclic GC walk
        // every row again and again.
        // SAFETY: a fully initialised GC object not yet tracked.
        unsafe { pyo3::ffi::PyObject_GC_Track(out.as_ptr().cast()) };
    }
    Ok(out)
}
