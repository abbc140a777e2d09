//! What a result set's fetches use of their statement: its handle, the driver's strategy, where
//! diagnostics go, the link, and the row attributes set on the handle (`RowAttributes`).
//! Borrowed for one call (`Statement::calls`), so a result set fetches and binds
//! (`ResultSet::fill`) without reaching into the statement.

use std::sync::Arc;

use super::result_set::KeptBuffers;
use crate::diagnostics::{check, DiagRecord, Result};
use crate::driver::Strategy;
use crate::ffi;
use crate::link::{CallKind, Link};

/// The statement attributes that concern fetching rows, as last set on the handle, and the
/// buffers they may still point to.
pub(crate) struct RowAttributes {
    /// `SQL_ATTR_ROWS_FETCHED_PTR` target, set once per handle: boxed so it never moves.
    pub(super) fetched: Box<ffi::ULen>,
    /// The `SQL_ATTR_ROW_ARRAY_SIZE` last set (1 is the ODBC default).
    array_size: usize,
    /// `SQL_ATTR_ROW_BIND_TYPE` is column-wise (set at the first bind).
    pub(super) by_column: bool,
    /// Buffers still bound from an earlier result (`KeptBuffers`). Whenever this holds some,
    /// the driver's bindings point into them: they are unbound before anything else is bound
    /// and before a fetch that reads no bindings (`text_rows`).
    pub(super) kept: Option<KeptBuffers>,
}

impl Default for RowAttributes {
    fn default() -> RowAttributes {
        RowAttributes {
            fetched: Box::new(0),
            array_size: 1,
            by_column: false,
            kept: None,
        }
    }
}

/// A statement's handle and what goes with it, borrowed for one call.
pub(crate) struct Calls<'a> {
    pub(crate) h: ffi::Handle,
    /// The connection's handle, asked whether it is dead after a general error.
    pub(super) dbc: ffi::Handle,
    pub(crate) strategy: Strategy,
    pub(super) link: Option<&'a Arc<Link>>,
    /// Where SQL_SUCCESS_WITH_INFO records go.
    pub(crate) messages: &'a mut Vec<DiagRecord>,
    pub(super) rows: &'a mut RowAttributes,
}

impl Calls<'_> {
    /// Reads the outcome of `function` on the handle: diagnostics into `messages`, an error
    /// marked as the connection's when the connection is dead (`Error::on_connection`).
    pub(crate) fn check(&mut self, ret: ffi::SqlReturn, function: &'static str) -> Result<bool> {
        check(
            ret,
            ffi::SQL_HANDLE_STMT,
            self.h,
            function,
            Some(&mut *self.messages),
        )
        .map_err(|e| e.on_connection(self.dbc))
    }

    /// Runs `f`, driver calls that may wait on the server, on the connection's link
    /// (`Link::call`: refused once it is broken, given up past its timeout).
    pub(super) fn on_link<T>(
        &mut self,
        kind: CallKind,
        f: impl FnOnce(&mut Self) -> Result<T>,
    ) -> Result<T> {
        match self.link {
            Some(link) => link.call(kind, || f(self)),
            None => f(self),
        }
    }

    pub(crate) fn set_attr_usize(&mut self, attr: i32, value: usize) -> Result<()> {
        // SAFETY: integer attribute by value.
        let ret = unsafe { ffi::SQLSetStmtAttrW(self.h, attr, value as *mut _, 0) };
        self.check(ret, "SQLSetStmtAttr").map(|_| ())
    }

    pub(super) fn set_attr_ptr(&mut self, attr: i32, ptr: *mut std::ffi::c_void) -> Result<()> {
        // SAFETY: the pointer targets memory owned by the statement for as long as it is bound.
        let ret = unsafe { ffi::SQLSetStmtAttrW(self.h, attr, ptr, 0) };
        self.check(ret, "SQLSetStmtAttr").map(|_| ())
    }

    /// Sets `SQL_ATTR_ROW_ARRAY_SIZE` unless it already has this value.
    pub(super) fn set_array_size(&mut self, rows: usize) -> Result<()> {
        if self.rows.array_size != rows {
            self.set_attr_usize(ffi::SQL_ATTR_ROW_ARRAY_SIZE, rows)?;
            self.rows.array_size = rows;
        }
        Ok(())
    }

    /// The rows the last `SQLFetch` wrote (`SQL_ATTR_ROWS_FETCHED_PTR`).
    pub(super) fn rows_fetched(&self) -> usize {
        *self.rows.fetched
    }

    /// Unbinds every column and frees the buffers kept bound (`RowAttributes::kept`).
    pub(super) fn unbind(&mut self) {
        // SAFETY: valid handle; the buffers are dropped only after the driver forgot them.
        unsafe {
            let _ = ffi::SQLFreeStmt(self.h, ffi::SQL_UNBIND);
        }
        self.rows.kept = None;
    }
}
