//! Statements: the handle and its attributes, execution with bound parameter arrays
//! (`execute`), catalog calls (`catalog`), moving between result sets. A result set's plan and
//! buffers are `result_set`'s, its fetches `fetch`'s and `getdata`'s; reading ahead wraps the
//! statement (`crate::read_ahead::ReadAhead`).

use std::ptr::null_mut;
use std::sync::Arc;

use crate::connection::Connection;
use crate::diagnostics::{check, DiagRecord, Error, Result};
use crate::driver::Strategy;
use crate::ffi;
use crate::link::{CallKind, Link};
use crate::params::ParamBatch;
use crate::plan::ColumnDescription;

mod calls;
mod catalog;
mod execute;
mod fetch;
mod getdata;
mod result_set;
pub(crate) use calls::Calls;
use calls::RowAttributes;
pub use catalog::CatalogFunction;
pub use execute::overread_unit;
pub use result_set::{Reader, ResultSet};

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
    /// The process that allocated the handle: a forked child leaves it alone (freeing it may
    /// close a server-side cursor on the parent's socket).
    owner: u32,
    /// Its connection's link: calls that may wait on the server run through it, and none
    /// once it is broken but those that free (`crate::link`). None for a stand-in.
    link: Option<Arc<Link>>,
    /// The fetch attributes set on the handle and the buffers they point to.
    rows: RowAttributes,
    /// The last execute answered SQL_NO_DATA: no result to describe, whatever
    /// `SQLNumResultCols` says (psqlODBC: a DELETE ... RETURNING of no rows counts its
    /// columns, and the driver manager refuses to describe them, HY010).
    pub(crate) no_data: bool,
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
        let link = conn.link();
        if link.is_broken() {
            return Err(link.broken_error());
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
        stmt.link = Some(link);
        let fetched = &mut *stmt.rows.fetched as *mut ffi::ULen as *mut _;
        stmt.calls()
            .set_attr_ptr(ffi::SQL_ATTR_ROWS_FETCHED_PTR, fetched)?;
        Ok(stmt)
    }

    /// A statement without a handle: `new` gives it one; `ReadAhead` puts one in the place of
    /// the statement it lends to a fetch thread.
    pub(crate) fn without_handle(strategy: Strategy) -> Statement {
        Statement {
            h: null_mut(),
            dbc: null_mut(),
            strategy,
            params: None,
            result: None,
            messages: Vec::new(),
            bound_paramset: 1,
            params_bound: false,
            owner: std::process::id(),
            link: None,
            rows: RowAttributes::default(),
            no_data: false,
        }
    }

    pub fn handle(&self) -> StatementHandle {
        StatementHandle(self.h)
    }

    /// What fastodbc does with this statement's driver (`driver::Strategy`).
    pub fn strategy(&self) -> Strategy {
        self.strategy
    }

    /// Runs `f`, driver calls that may wait on the server, on the connection's link
    /// (`Link::call`: refused once it is broken, given up past its timeout).
    pub(crate) fn on_link<T>(
        &mut self,
        kind: CallKind,
        f: impl FnOnce(&mut Statement) -> Result<T>,
    ) -> Result<T> {
        match self.link.clone() {
            Some(link) => link.call(kind, || f(self)),
            None => f(self),
        }
    }

    /// `SQLFreeStmt(SQL_CLOSE)`, which may talk to the server (psqlODBC closes a server-side
    /// cursor): bounded on the link, and skipped once it is broken.
    fn close_on_server(&mut self) {
        let h = self.h;
        let close = || {
            // SAFETY: valid handle; an error closing changes nothing for the caller.
            let _ = unsafe { ffi::SQLFreeStmt(h, ffi::SQL_CLOSE) };
            Ok(())
        };
        match &self.link {
            Some(link) if link.is_broken() => {}
            Some(link) => {
                let _ = link.call(CallKind::Closing, close);
            }
            None => {
                let _ = close();
            }
        }
    }

    /// The handle and what goes with it, for one call (`Calls`).
    pub(crate) fn calls(&mut self) -> Calls<'_> {
        self.result_and_calls().1
    }

    /// The current result set and the calls it fetches with, borrowed together.
    pub(crate) fn result_and_calls(&mut self) -> (Option<&mut ResultSet>, Calls<'_>) {
        let calls = Calls {
            h: self.h,
            dbc: self.dbc,
            strategy: self.strategy,
            link: self.link.as_ref(),
            messages: &mut self.messages,
            rows: &mut self.rows,
        };
        (self.result.as_mut(), calls)
    }

    /// Closes any open cursor and forgets bindings, so the handle can run another statement.
    pub fn reset(&mut self) {
        self.drop_result();
        self.close_on_server();
        // SAFETY: valid handle; these calls cannot fail in a way that matters here.
        unsafe {
            if self.params_bound {
                let _ = ffi::SQLFreeStmt(self.h, ffi::SQL_RESET_PARAMS);
            }
        }
        self.params_bound = false;
        if self.bound_paramset != 1 {
            // The array attributes outlive SQL_RESET_PARAMS: point them away from the batch
            // about to be freed, or the next execute writes into freed memory.
            let mut calls = self.calls();
            let _ = calls.set_attr_usize(ffi::SQL_ATTR_PARAMSET_SIZE, 1);
            let _ = calls.set_attr_ptr(ffi::SQL_ATTR_PARAM_STATUS_PTR, null_mut());
            let _ = calls.set_attr_ptr(ffi::SQL_ATTR_PARAMS_PROCESSED_PTR, null_mut());
            self.bound_paramset = 1;
        }
        self.params = None;
        self.messages.clear();
    }

    /// Forgets the current result set. Its buffers are unbound before they are freed, or stay
    /// bound for the next result (`ResultSet::close`).
    pub(crate) fn drop_result(&mut self) {
        if let Some(rs) = self.result.take() {
            rs.close(&mut self.calls());
        }
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
        self.calls().check(ret, "SQLSetStmtAttr").map(|_| ())
    }

    /// `SQLRowCount`; -1 when the driver says nothing (psqlODBC after DROP or ALTER TABLE
    /// returns success without writing the count).
    pub fn row_count(&mut self) -> Result<i64> {
        let mut n: ffi::Len = -1;
        // SAFETY: output pointer valid.
        let ret = unsafe { ffi::SQLRowCount(self.h, &mut n) };
        self.calls().check(ret, "SQLRowCount")?;
        Ok(n as i64)
    }

    pub fn num_result_cols(&mut self) -> Result<usize> {
        let mut n = 0i16;
        // SAFETY: output pointer valid.
        let ret = unsafe { ffi::SQLNumResultCols(self.h, &mut n) };
        self.calls().check(ret, "SQLNumResultCols")?;
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
            self.calls().check(ret, "SQLDescribeColW")?;
            let len = name_len.max(0) as usize;
            if len >= name.len() {
                long = vec![0u16; len + 1];
                continue;
            }
            // A name that filled the buffer may have been cut there: sqliteodbc reports the
            // length it copied (127), not the name's. Asked again with twice the room.
            if len + 1 == name.len() && name.len() < i16::MAX as usize / 2 {
                long = vec![0u16; name.len() * 2];
                continue;
            }
            let mut units = &name[..len];
            if self.strategy.names_end_at_nul {
                // The length counted UTF-8 bytes: what follows the name is its terminator.
                if let Some(end) = units.iter().position(|&u| u == 0) {
                    units = &units[..end];
                }
            }
            return Ok(ColumnDescription {
                name: String::from_utf16_lossy(units),
                sql_type: t,
                size,
                digits,
                nullable: nullable != 0,
            });
        }
    }

    /// Moves to the next result set (`SQLMoreResults`). Returns false when there is none.
    pub fn more_results(&mut self) -> Result<bool> {
        self.drop_result();
        self.on_link(CallKind::Query, |s| {
            // SAFETY: valid handle.
            let ret = unsafe { ffi::SQLMoreResults(s.h) };
            s.calls().check(ret, "SQLMoreResults")
        })
    }

    /// Whether result column `col` holds unsigned numbers (`SQL_DESC_UNSIGNED`): asked only by
    /// consumers that type integers by their width (Arrow), so the rows path pays no call for it.
    pub fn column_unsigned(&mut self, col: usize) -> Result<bool> {
        let mut value: ffi::Len = 0;
        // SAFETY: a numeric field: only `num_attr` is written, and it is valid.
        let ret = unsafe {
            ffi::SQLColAttributeW(
                self.h,
                (col + 1) as u16,
                ffi::SQL_DESC_UNSIGNED,
                std::ptr::null_mut(),
                0,
                std::ptr::null_mut(),
                &mut value,
            )
        };
        self.calls().check(ret, "SQLColAttributeW")?;
        // SQL_TRUE is 1; drivers that write only the low 32 bits leave the rest as it was (0).
        Ok(value as i32 != 0)
    }

    /// The database's name of result column `col`'s type (`SQL_DESC_TYPE_NAME`): `timestamptz`,
    /// `DATETIME`, ...; empty where the driver gives none.
    pub fn column_type_name(&mut self, col: usize) -> Result<String> {
        self.column_text(col, ffi::SQL_DESC_TYPE_NAME)
    }

    /// A character field of result column `col` (`SQLColAttribute`: `SQL_DESC_TYPE_NAME`,
    /// `SQL_DESC_BASE_TABLE_NAME`...); empty where the driver gives none.
    pub fn column_text(&mut self, col: usize, field: u16) -> Result<String> {
        let mut buf = [0u16; 256];
        let mut len: i16 = 0;
        // SAFETY: a character field: at most `buf`'s size in bytes is written, and its length.
        let ret = unsafe {
            ffi::SQLColAttributeW(
                self.h,
                (col + 1) as u16,
                field,
                buf.as_mut_ptr() as *mut std::ffi::c_void,
                (buf.len() * 2) as i16,
                &mut len,
                std::ptr::null_mut(),
            )
        };
        self.calls().check(ret, "SQLColAttributeW")?;
        let units = (len.max(0) as usize / 2).min(buf.len());
        Ok(String::from_utf16_lossy(&buf[..units])
            .trim_end_matches('\0')
            .to_string())
    }

    /// Closes the open cursor, keeping the handle.
    pub fn close_cursor(&mut self) {
        self.drop_result();
        self.close_on_server();
    }
}

impl Drop for Statement {
    fn drop(&mut self) {
        if self.h.is_null() {
            return; // a stand-in (`ReadAhead::lend`)
        }
        if std::process::id() != self.owner {
            return;
        }
        // Our buffers go first (unbound), then the driver's copy of the result. In the other
        // order, the driver frees its values (one malloc'd chunk each: 1,000,000 for a
        // 200,000 x 5 result) and then freeing a block buffer, a large chunk, makes glibc
        // consolidate all of them at once inside the close (~0.1 s for varchar5 on SQLite);
        // left alone, the driver's next execute reuses those chunks as they are.
        self.drop_result();
        // Kept buffers too: the handle and its bindings go next, with no fetch in between.
        self.rows.kept = None;
        self.close_on_server();
        let h = self.h;
        let free = || {
            // SAFETY: we own the handle, freed once.
            unsafe { ffi::SQLFreeHandle(ffi::SQL_HANDLE_STMT, h) };
            Ok(())
        };
        let _ = match &self.link {
            Some(link) => link.call(CallKind::Closing, free),
            None => free(),
        };
    }
}
