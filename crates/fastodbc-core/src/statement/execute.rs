//! Statement text and parameters: prepare, bind a parameter batch, execute.

use std::borrow::Cow;
use std::ptr::null_mut;

use super::Statement;
use crate::diagnostics::{Error, Result};
use crate::ffi;
use crate::link::CallKind;
use crate::params::{NullType, ParamBatch};

/// A UTF-16 code unit that MariaDB Connector/ODBC 3.1 takes for the first of a surrogate pair
/// (its low byte is 0xD8-0xDB), reading the unit after it as the pair's second
/// (`Quirks::overreads_wide_input`).
pub fn overread_unit(unit: u16) -> bool {
    (unit & 0xFC) == 0xD8
}

impl Statement {
    /// `SQLPrepareW`.
    pub fn prepare(&mut self, sql: &[u16]) -> Result<()> {
        self.on_link(CallKind::Query, |s| {
            let text = s.wide_text(sql);
            // SAFETY: the text buffer outlives the call (its length is the caller's text's).
            let ret = unsafe { ffi::SQLPrepareW(s.h, text.as_ptr(), sql.len() as i32) };
            s.calls().check(ret, "SQLPrepareW").map(|_| ())
        })
    }

    /// The statement text as the driver must be given it: followed by spaces where it would
    /// read past its end (`Strategy::pad_statements`).
    fn wide_text<'a>(&self, sql: &'a [u16]) -> Cow<'a, [u16]> {
        let pad = match self.strategy.pad_statements {
            true => sql.iter().filter(|&&u| overread_unit(u)).count(),
            false => 0,
        };
        if pad == 0 {
            return Cow::Borrowed(sql);
        }
        // The length passed stays the text's own: the driver reads at most `pad` units past
        // it, spaces that end the statement as it would end without them.
        let mut padded = Vec::with_capacity(sql.len() + pad);
        padded.extend_from_slice(sql);
        padded.resize(sql.len() + pad, u16::from(b' '));
        Cow::Owned(padded)
    }

    pub fn num_params(&mut self) -> Result<usize> {
        let mut n = 0i16;
        // SAFETY: output pointer valid.
        let ret = unsafe { ffi::SQLNumParams(self.h, &mut n) };
        self.calls().check(ret, "SQLNumParams")?;
        Ok(n.max(0) as usize)
    }

    /// The driver's description of parameter `i` (0-based), when it can give one.
    pub fn describe_param(&mut self, i: usize) -> NullType {
        let (mut t, mut size, mut digits, mut nullable) = (0i16, 0usize, 0i16, 0i16);
        // SAFETY: output pointers valid.
        let ret = unsafe {
            ffi::SQLDescribeParam(
                self.h,
                (i + 1) as u16,
                &mut t,
                &mut size,
                &mut digits,
                &mut nullable,
            )
        };
        if ret == ffi::SQL_SUCCESS || ret == ffi::SQL_SUCCESS_WITH_INFO {
            if t == ffi::SQL_UNKNOWN_TYPE {
                None
            } else {
                Some((t, size, digits))
            }
        } else {
            // Not every driver describes parameters; the caller falls back to VARCHAR. Drain the
            // diagnostics so they are not reported for a later call.
            let _ = crate::diagnostics::Diagnostics::read(ffi::SQL_HANDLE_STMT, self.h);
            None
        }
    }

    /// Binds a parameter batch (it is kept until the next reset or bind).
    pub fn bind_params(&mut self, mut batch: ParamBatch) -> Result<()> {
        // SAFETY: column-wise binding of buffers owned by `batch`, which this statement keeps
        // alive (self.params) until reset; the Box and Vec storage never moves while bound.
        unsafe {
            let _ = ffi::SQLFreeStmt(self.h, ffi::SQL_RESET_PARAMS);
        }
        self.params_bound = true;
        if batch.rows != self.bound_paramset {
            self.calls()
                .set_attr_usize(ffi::SQL_ATTR_PARAM_BIND_TYPE, ffi::SQL_BIND_BY_COLUMN)?;
            self.calls()
                .set_attr_usize(ffi::SQL_ATTR_PARAMSET_SIZE, batch.rows)?;
            self.bound_paramset = batch.rows;
        }
        if batch.rows > 1 {
            let status = batch.status.as_mut_ptr() as *mut _;
            self.calls()
                .set_attr_ptr(ffi::SQL_ATTR_PARAM_STATUS_PTR, status)?;
            let processed = &mut *batch.processed as *mut ffi::ULen as *mut _;
            self.calls()
                .set_attr_ptr(ffi::SQL_ATTR_PARAMS_PROCESSED_PTR, processed)?;
        } else {
            self.calls()
                .set_attr_ptr(ffi::SQL_ATTR_PARAM_STATUS_PTR, null_mut())?;
            self.calls()
                .set_attr_ptr(ffi::SQL_ATTR_PARAMS_PROCESSED_PTR, null_mut())?;
        }
        for (i, col) in batch.columns.iter_mut().enumerate() {
            let ptr = col.data_ptr() as *mut _;
            // SAFETY: see above.
            let ret = unsafe {
                ffi::SQLBindParameter(
                    self.h,
                    (i + 1) as u16,
                    ffi::SQL_PARAM_INPUT,
                    col.c_type,
                    col.sql_type,
                    col.col_size,
                    col.digits,
                    ptr,
                    col.elem as ffi::Len,
                    col.ind.as_mut_ptr(),
                )
            };
            self.calls().check(ret, "SQLBindParameter")?;
        }
        self.params = Some(batch);
        Ok(())
    }

    /// Binds a batch, executes the prepared statement and discards any result set it produced.
    /// Returns the affected row count, -1 where the driver doesn't report one.
    pub fn execute_batch(&mut self, batch: ParamBatch) -> Result<i64> {
        self.bind_params(batch)?;
        self.execute()?;
        let n = self.row_count().unwrap_or(-1);
        self.close_cursor();
        Ok(n)
    }

    /// Executes the prepared statement with the bound parameters. Returns whether the
    /// statement produced a result (`false` for `SQL_NO_DATA`, e.g. an UPDATE of no rows).
    pub fn execute(&mut self) -> Result<bool> {
        self.drop_result();
        let r = self.on_link(CallKind::Query, |s| {
            // SAFETY: valid handle; bound buffers are alive (self.params).
            let ret = unsafe { ffi::SQLExecute(s.h) };
            s.calls().check(ret, "SQLExecute")
        });
        self.after_execute(r)
    }

    /// `SQLExecDirectW` with the bound parameters.
    pub fn exec_direct(&mut self, sql: &[u16]) -> Result<bool> {
        self.drop_result();
        let r = self.on_link(CallKind::Query, |s| {
            let text = s.wide_text(sql);
            // SAFETY: text outlives the call (its length is the caller's text's); bound
            // buffers are alive (self.params).
            let ret = unsafe { ffi::SQLExecDirectW(s.h, text.as_ptr(), sql.len() as i32) };
            s.calls().check(ret, "SQLExecDirectW")
        });
        self.after_execute(r)
    }

    fn after_execute(&mut self, r: Result<bool>) -> Result<bool> {
        self.no_data = matches!(r, Ok(false));
        match (&self.params, r) {
            (Some(p), Ok(more)) if p.rows > 1 => {
                array_outcome(p.rows, *p.processed, &p.status).map(|_| more)
            }
            (_, r) => r,
        }
    }
}

/// Whether a parameter array of `rows` sets ran whole, from what the driver wrote to
/// `SQL_ATTR_PARAMS_PROCESSED_PTR` (`processed`, 0 until written) and the status array
/// (`SQL_PARAM_SUCCESS` until written: sqliteodbc writes none). Some drivers report a failed
/// set only in the status array; a driver that runs fewer sets than it was given (MariaDB
/// Connector/ODBC with a statement without markers: `Quirks::ignores_paramset_without_markers`)
/// must not leave a shorter table behind a success.
pub fn array_outcome(rows: usize, processed: ffi::ULen, status: &[u16]) -> Result<()> {
    if let Some(row) = status.iter().position(|&s| s == ffi::SQL_PARAM_ERROR) {
        return Err(Error::Data(format!(
            "row {row} of the parameter array failed; the driver gave no diagnostics"
        )));
    }
    let unused = status
        .iter()
        .filter(|&&s| s == ffi::SQL_PARAM_UNUSED)
        .count();
    if processed != rows || unused > 0 {
        return Err(Error::Interface(format!(
            "the driver reported {processed} of {rows} parameter sets processed ({unused} \
             unused) and no error: the other rows were not executed"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_parameter_array_runs_whole_or_fails() {
        assert!(array_outcome(3, 3, &[0, 0, 0]).is_ok());
        // SQL_PARAM_SUCCESS_WITH_INFO and SQL_PARAM_DIAG_UNAVAILABLE are processed sets.
        assert!(array_outcome(3, 3, &[6, 1, 0]).is_ok());
        let fewer = array_outcome(3, 1, &[0, 0, 0]).unwrap_err();
        assert!(
            matches!(&fewer, Error::Interface(m) if m.contains("1 of 3")),
            "{fewer:?}"
        );
        // Never written (MariaDB without markers): 0 of 3.
        let unwritten = array_outcome(3, 0, &[0, 0, 0]).unwrap_err();
        assert!(matches!(&unwritten, Error::Interface(m) if m.contains("0 of 3")));
        let unused = array_outcome(3, 3, &[0, 7, 7]).unwrap_err();
        assert!(matches!(&unused, Error::Interface(m) if m.contains("(2 unused)")));
        let failed = array_outcome(3, 3, &[0, 5, 0]).unwrap_err();
        assert!(matches!(&failed, Error::Data(m) if m.starts_with("row 1 ")));
    }
}
