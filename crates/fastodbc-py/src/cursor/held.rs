//! Rows read with an execute, for the asyncio cursor (python/fastodbc/aio/cursor.py): the
//! first rows of a result come back in the same trip to the connection's thread as the
//! execute, so `await cur.execute(...)` then `await cur.fetchone()` costs one thread hop, not
//! two. Rows it does not serve go back (`unread_held`) before the cursor's next call, which
//! then finds them where they were: served first by a fetch, or read again as Arrow.

use fastodbc_core::Want;
use pyo3::prelude::*;
use pyo3::types::PyList;

use super::{Cursor, ReleaseGil};
use crate::errors::{self, IntoPyResult};
use crate::rows::convert_rows;

impl Cursor {
    /// Up to `limit` rows of the current block of the result (its first block, fetched if
    /// none is), and nothing fetched ahead (`Want::Held`): every row handed out stays in the
    /// block, so it can be handed back. Empty for a statement without a result or with rows
    /// converted ahead already. A row that fails to convert ends the list; its error waits for
    /// the fetch that reaches it, as a row converted ahead for iteration does. A fetch error
    /// is raised.
    pub(super) fn read_held<'py>(
        &self,
        py: Python<'py>,
        limit: usize,
    ) -> PyResult<Bound<'py, PyList>> {
        let mut guard = self.state(py)?;
        let st = &mut *guard;
        let out = PyList::empty(py);
        let (Some(view), Some(stream)) = (st.result.as_mut(), st.stmt.as_mut()) else {
            return Ok(out);
        };
        if limit == 0 || !view.ready.is_empty() || view.failed.is_some() {
            return Ok(out);
        }
        let waiting = ReleaseGil(py);
        if !stream.has_rows(&waiting).py(py)? {
            return Ok(out);
        }
        self.shared.interrupted(py)?;
        let failed = stream.serve(Want::Held(limit), &waiting, |rows| {
            let (at, done) = convert_rows(py, view, rows.block, rows.range.clone(), |row| {
                out.append(row)
            });
            (at - rows.range.start, done.err())
        });
        view.held = out.len();
        view.failed = failed;
        Ok(out)
    }

    /// `rows`, the last of the rows `read_held` handed out, back: they are served before the
    /// stream's next row (`ResultView::ready`), or read again by an Arrow reader. Refused once
    /// anything else fetched from the result since, or for more rows than it handed out.
    pub(super) fn unread_held(&self, py: Python<'_>, rows: &Bound<'_, PyList>) -> PyResult<()> {
        let mut guard = self.state(py)?;
        let Some(view) = guard.result.as_mut() else {
            return Err(errors::programming(
                py,
                "No results.  Previous SQL was not a query.",
            ));
        };
        if rows.len() > view.held || !view.ready.is_empty() {
            return Err(errors::programming(
                py,
                "rows handed back that are not the last ones read with the execute",
            ));
        }
        view.held = 0;
        for row in rows.iter().rev() {
            view.ready.push_front(row.unbind());
        }
        Ok(())
    }
}
