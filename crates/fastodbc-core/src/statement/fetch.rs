//! Filling a result set's block: one `SQLFetch` for a whole rowset (`fetch_rowset`), or rows
//! fetched one at a time and assembled (`assemble_block`) where long values can only be read
//! on the current row. Truncation is never silent: every variable-length value longer than its
//! element is read again whole (`getdata`) or reported.

use super::getdata::{check_indicator, get_data, get_wide_checked, reread_truncated};
use super::result_set::bind_columns;
use super::{Calls, ResultSet, Statement};
use crate::diagnostics::{check, DiagRecord, Error, Result};
use crate::ffi;
use crate::link::CallKind;

impl Statement {
    /// Fetches the next block. Returns the number of rows in it (0 at the end).
    pub fn fetch_block(&mut self) -> Result<usize> {
        if self.result.is_none() {
            return Err(Error::Programming(
                "No results.  Previous SQL was not a query.".into(),
            ));
        }
        self.fill_block(false)
    }

    /// Fetches the next block into `result.block`; with `prepare`, the result's consumer
    /// prepares it too (`BlockConsumer::prepare`: this runs on the fetch thread).
    pub(crate) fn fill_block(&mut self, prepare: bool) -> Result<usize> {
        match self.result_and_calls() {
            (Some(rs), mut calls) => rs.fill(&mut calls, prepare),
            (None, _) => Ok(0),
        }
    }
}

impl ResultSet {
    /// Fetches the next block into `block` (binding the buffers at the first); with `prepare`,
    /// the consumer prepares it too.
    pub(crate) fn fill(&mut self, calls: &mut Calls<'_>, prepare: bool) -> Result<usize> {
        if self.exhausted {
            return Ok(0);
        }
        if !self.bound {
            self.bind(calls)?;
        }
        self.block.clear_long();
        let fetched = calls.on_link(CallKind::Query, |calls| match self.plan.row_at_a_time {
            true => self.assemble_block(calls),
            false => self.fetch_rowset(calls),
        });
        let rows = match fetched {
            Ok(rows) => rows,
            Err(e) => {
                // Nothing of this block is served (it may be the spare, holding rows of an
                // earlier block); a retry fetches again.
                self.block.rows = 0;
                return Err(e.on_connection(calls.dbc));
            }
        };
        self.fetches += 1;
        self.rows_before += rows;
        if rows == 0 {
            self.exhausted = true;
            self.block.rows = 0;
        }
        let mut notes = std::mem::take(&mut self.block.notes);
        match self.consumer.as_ref().filter(|_| prepare) {
            Some(consumer) => consumer.prepare(&self.plan, &self.block, &mut notes),
            None => notes.invalidate(),
        }
        self.block.notes = notes;
        Ok(rows)
    }

    /// One `SQLFetch` fills the whole block; truncated values are re-read with SQLSetPos +
    /// SQLGetData where the driver allows it.
    fn fetch_rowset(&mut self, calls: &mut Calls<'_>) -> Result<usize> {
        let h = calls.h;
        let rs = self;
        let rows = rs.grow_block();
        if rs.bound_to != rs.block.address() {
            bind_columns(h, &rs.plan.columns, &mut rs.block.bound)?;
            rs.bound_to = rs.block.address();
        }
        clear_fixed_indicators(&mut rs.block.bound, rows);
        calls.set_array_size(rows)?;
        // SAFETY (of fetch_next): the buffers just bound are this result's block.
        if !fetch_next(h, calls.messages)? {
            return Ok(0);
        }
        let strategy = calls.strategy;
        rs.block.rows = calls.rows_fetched().min(rs.block.capacity_rows);
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
                    if !positioned && plan.number_text() {
                        return Err(long_number(plan, rs.rows_before + row, cap));
                    }
                    let v = reread_truncated(h, positioned, plan, col, row, calls.messages)?;
                    rs.block.store_long(col, row, v);
                }
            }
        }
        Ok(rows)
    }

    /// Fetches rows one at a time into the staging buffers and copies each into the block;
    /// long values are read with SQLGetData on the current row (streamed columns, and bound
    /// values the driver truncated). Stops at the block's rows or its byte budget.
    fn assemble_block(&mut self, calls: &mut Calls<'_>) -> Result<usize> {
        let h = calls.h;
        let strategy = calls.strategy;
        let rs = self;
        let capacity = rs.grow_block();
        let bound = rs.plan.bound;
        for values in rs.block.streamed.iter_mut() {
            values.clear();
        }
        let mut streamed_bytes = 0usize;
        let streamed_budget = rs.budget.streamed_bytes();
        let mut n = 0usize;
        while n < capacity && streamed_bytes <= streamed_budget {
            clear_fixed_indicators(&mut rs.staging, 1);
            // SAFETY (of fetch_next): the staging buffers bound are this result's.
            if !fetch_next(h, calls.messages)? {
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
                    let v =
                        reread_truncated(h, strategy.getdata_bound, plan, col, n, calls.messages)?;
                    streamed_bytes += v.len();
                    rs.block.store_long(col, n, v);
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
                    get_wide_checked(h, col, strategy.narrow_text, plan, calls.messages)?
                } else {
                    get_data(h, col, plan.c_type, calls.messages)?
                };
                streamed_bytes += v.as_ref().map_or(0, |v| v.len());
                values.push(v);
            }
            n += 1;
        }
        rs.block.rows = n;
        Ok(n)
    }
}

/// A number column's value whose text is longer than its element, fetched in a rowset for a
/// consumer that refuses such values (`ResultSet::refuse_long_numbers`): no integer or double
/// has that much text, so it is stored text (SQLite), the consumer's `DataError`. `row` counts
/// from 0 in the result; the message counts from 1, as the consumers' do.
fn long_number(plan: &crate::plan::ColumnPlan, row: usize, capacity: ffi::Len) -> Error {
    Error::Value {
        sqlstate: "22018",
        message: format!(
            "column {:?}, row {}: text of more than {capacity} bytes is stored in this number \
             column, and no number is that long; CAST it in the query",
            plan.desc.name,
            row + 1
        ),
    }
}

/// Sets the indicators of fixed-size columns to 0 ("the whole element") before a fetch:
/// MariaDB Connector/ODBC 3.1 writes no indicator for a non-NULL `SQL_C_BIT`, so one left
/// at SQL_NULL_DATA by an earlier row would turn every later value of the column into NULL.
fn clear_fixed_indicators(columns: &mut [crate::block::ColumnBuffer], rows: usize) {
    for c in columns.iter_mut().filter(|c| !c.variable) {
        let n = rows.min(c.ind.len());
        c.ind[..n].fill(0);
    }
}

/// `SQLFetch` into whatever is bound; false at the end of the result. The caller keeps the
/// bound buffers alive.
fn fetch_next(h: ffi::Handle, messages: &mut Vec<DiagRecord>) -> Result<bool> {
    // SAFETY: valid handle; bindings are the caller's (see above).
    let ret = unsafe { ffi::SQLFetch(h) };
    check(ret, ffi::SQL_HANDLE_STMT, h, "SQLFetch", Some(messages))
}
