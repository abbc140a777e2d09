//! `Cursor.executemany`: Python rows converted to parameters a chunk at a time, each chunk
//! sent by core's `ExecuteMany` (which chooses how) with the GIL released, every execution
//! inside the cursor's cancel window (`CancelGate`).

use std::sync::atomic::Ordering;

use fastodbc_core::executemany::approx_bytes;
use fastodbc_core::sqlscan::count_markers;
use fastodbc_core::{BindOptions, ExecuteMany, ParamValue};
use pyo3::prelude::*;

use crate::gil_turns;
use pyo3::types::PyIterator;

use super::{message_tuples, Cursor};
use crate::errors::{self, IntoPyResult};
use crate::params::{check_param_row, to_param, Refuse};

/// Where the conversion of an executemany's rows stands.
struct RowSource<'py> {
    rows: Bound<'py, PyIterator>,
    /// A row taken from `rows` ahead of the others (`first_row`).
    first: Option<Bound<'py, PyAny>>,
    /// The statement's markers, when scanned: each row must hold that many values.
    markers: Option<usize>,
    refuse: Refuse,
    /// Converted bytes a chunk holds at most (`MemoryBudget::param_chunk_bytes`).
    chunk_bytes: usize,
    /// The index of the next row.
    next: usize,
}

impl<'py> RowSource<'py> {
    /// The next rows converted, up to `max_rows` or `chunk_bytes`; none at the end.
    fn chunk(&mut self, py: Python<'py>, max_rows: usize) -> PyResult<Vec<Vec<ParamValue>>> {
        let mut rows: Vec<Vec<ParamValue>> = Vec::new();
        let mut bytes = 0usize;
        let first = self.first.take().map(Ok);
        for item in first.into_iter().chain(self.rows.by_ref()) {
            let item = item?;
            let row_index = self.next;
            check_param_row(py, &item, row_index)?;
            let mut row = Vec::new();
            for (i, p) in item.try_iter()?.enumerate() {
                let v = to_param(py, &p?, i, self.refuse)?;
                bytes += approx_bytes(&v);
                row.push(v);
            }
            let expected = self
                .markers
                .unwrap_or_else(|| rows.first().map_or(row.len(), |r| r.len()));
            if row.len() != expected {
                return Err(errors::programming(
                    py,
                    format!(
                        "The SQL contains {expected} parameter markers, but row {row_index} has {} parameters",
                        row.len()
                    ),
                ));
            }
            self.next += 1;
            rows.push(row);
            if rows.len() >= max_rows || bytes >= self.chunk_bytes {
                break;
            }
        }
        Ok(rows)
    }
}

/// The first row of `rows`, None when there is none. As pyodbc: an empty sequence of rows is
/// refused (ProgrammingError), an empty iterator or generator runs nothing.
fn first_row<'py>(
    py: Python<'py>,
    seq: &Bound<'py, PyAny>,
    rows: &Bound<'py, PyIterator>,
) -> PyResult<Option<Bound<'py, PyAny>>> {
    match rows.clone().next().transpose()? {
        Some(row) => Ok(Some(row)),
        // SAFETY: a plain type check on a live object, attached.
        None if unsafe { pyo3::ffi::PyIter_Check(seq.as_ptr()) } == 1 => Ok(None),
        None => Err(errors::programming(
            py,
            "The second parameter to executemany must not be empty.",
        )),
    }
}

impl Cursor {
    pub(super) fn executemany_impl(
        &self,
        py: Python<'_>,
        sql: &str,
        seq: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        let (settings, mut guard) = self.begin_statement(py)?;
        let st = &mut *guard;
        let rows = seq.try_iter()?;
        // Nothing is prepared or executed for no rows: the row count stays -1.
        let Some(first) = first_row(py, seq, &rows)? else {
            return Ok(());
        };
        let gate = &self.shared.cancel;
        let fast = st.fast_executemany;
        let markers = if st.noscan {
            None
        } else {
            Some(count_markers(sql, settings.brackets))
        };
        self.apply_timeout(py, st)?;
        let stmt = self.statement(py, st)?;
        let rows_hint = seq.len().ok();
        let opts = BindOptions::for_driver(settings.encoding, &stmt.strategy());
        let mut run = gil_turns::detached(py, || {
            ExecuteMany::start(stmt, sql, markers, opts, fast, rows_hint)
        })
        .py(py)?;
        let chunk_rows = run.chunk_rows();
        let mut source = RowSource {
            rows,
            first: Some(first),
            markers,
            refuse: settings.refuse,
            chunk_bytes: settings.budget.param_chunk_bytes(),
            next: 0,
        };
        loop {
            let rows = source.chunk(py, chunk_rows)?;
            if rows.is_empty() {
                break;
            }
            gil_turns::detached(py, || run.send(&rows, gate)).py(py)?;
        }
        if self.conn().in_manual_commit() {
            self.conn().shared.txn_dirty.store(true, Ordering::Release);
        }
        let messages = message_tuples(run.messages());
        let rowcount = gil_turns::detached(py, || run.finish());
        st.messages = messages;
        st.rowcount = rowcount;
        Ok(())
    }
}
