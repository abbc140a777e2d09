//! `cancel()` and `close()` from another thread than the one using the cursor: when SQLCancel
//! may be sent (`CancelGate`).
//!
//! SQLCancel is sent only while a call that executes a statement runs (`Executing`). On a
//! statement that is not executing, sqliteodbc and MariaDB Connector/ODBC 3.1 close its
//! cursor (`SQLFreeStmt(SQL_CLOSE)`, the ODBC 2 behaviour) with nothing holding back a fetch
//! running at the same time, and unixODBC marks the statement closed: a cancel during a fetch
//! returned rows of NULLs (sqliteodbc), crashed the process (MariaDB) or failed the next fetch
//! with HY010 (psqlODBC). Outside an execution the cancel is recorded instead, and the result
//! being read stops at its next block (`requested`).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use fastodbc_core::{
    CallKind, DiagRecord, Diagnostics, Error, ExecutionGate, Link, StatementHandle,
};
use pyo3::prelude::*;

use crate::gil_turns;

use crate::errors::IntoPyResult;
use crate::lock::lock;

/// What `cancel` may interrupt, and whether it may send SQLCancel now.
pub struct CancelGate {
    target: Mutex<Target>,
    /// `cancel` came while no execution ran, since the cursor's statement began.
    requested: AtomicBool,
    /// The connection's link: SQLCancel talks to the server (psqlODBC and MariaDB over a new
    /// connection), so it is bounded there, and not sent on a broken link.
    link: Arc<Link>,
}

struct Target {
    /// None before the statement handle exists and once the cursor is closed.
    handle: Option<StatementHandle>,
    /// A call that executes runs on `handle` (an `Executing` is alive).
    executing: bool,
    /// SQLCancel was sent during the current execution.
    sent: bool,
}

impl CancelGate {
    pub fn new(link: Arc<Link>) -> CancelGate {
        CancelGate {
            link,
            target: Mutex::new(Target {
                handle: None,
                executing: false,
                sent: false,
            }),
            requested: AtomicBool::new(false),
        }
    }

    /// The statement handle `cancel` interrupts (set when the cursor creates it).
    pub fn set_handle(&self, py: Python<'_>, handle: StatementHandle) {
        lock(py, &self.target).handle = Some(handle);
    }

    /// `Cursor.cancel()`: interrupts the execution running now, or stops the result being read
    /// at its next block (`requested`).
    pub fn cancel(&self, py: Python<'_>) -> PyResult<()> {
        let mut target = lock(py, &self.target);
        let Some(handle) = target.handle else {
            return Ok(());
        };
        if target.executing {
            target.sent = true;
            // The lock is held through SQLCancel: the execution cannot end, and a fetch start,
            // until the driver is done cancelling.
            let link = &self.link;
            gil_turns::detached(py, || send_cancel(link, handle)).py(py)?;
        } else {
            self.requested.store(true, Ordering::Release);
        }
        Ok(())
    }

    /// For `close`: interrupts the execution running now, and forgets the handle (about to be
    /// freed), so no execution starts on it (`executing` fails).
    pub fn close(&self, py: Python<'_>) {
        let mut target = lock(py, &self.target);
        if let (true, Some(handle)) = (target.executing, target.handle) {
            target.sent = true;
            // An error cancelling changes nothing: the statement is freed next.
            let link = &self.link;
            let _ = gil_turns::detached(py, || send_cancel(link, handle));
        }
        target.handle = None;
    }

    /// As `close`, when the cursor is dropped. `close` and `cancel` hold the target across a
    /// detached SQLCancel: waited for detached too.
    pub fn forget(&self, py: Python<'_>) {
        crate::lock::lock(py, &self.target).handle = None;
    }

    /// A new statement begins: a cancel that came before it is not its own.
    pub fn clear_request(&self) {
        self.requested.store(false, Ordering::Release);
    }

    /// `cancel` was called since the statement began, while no execution ran.
    pub fn requested(&self) -> bool {
        self.requested.load(Ordering::Acquire)
    }

    /// Opens the window in which `cancel` sends SQLCancel, for a call that executes (made
    /// without the GIL). Fails when the cursor was closed or cancelled meanwhile.
    pub fn executing(&self) -> fastodbc_core::Result<Executing<'_>> {
        let mut target = self.target.lock().unwrap_or_else(|p| p.into_inner());
        if target.handle.is_none() {
            return Err(Error::Programming("Attempt to use a closed cursor.".into()));
        }
        if self.requested() {
            return Err(cancelled());
        }
        target.executing = true;
        target.sent = false;
        Ok(Executing { gate: self })
    }
}

/// Each execution of an executemany runs in the window `cancel` may interrupt.
impl ExecutionGate for CancelGate {
    fn execute<T>(
        &self,
        execute: impl FnOnce() -> fastodbc_core::Result<T>,
    ) -> fastodbc_core::Result<T> {
        self.executing()?.finish(execute())
    }
}

/// An execution `cancel` may interrupt with SQLCancel (`CancelGate::executing`).
pub struct Executing<'a> {
    gate: &'a CancelGate,
}

impl Executing<'_> {
    /// Closes the window; an execution that succeeded while SQLCancel was sent counts as
    /// cancelled: a driver may have closed its cursor as it finished.
    pub fn finish<T>(self, outcome: fastodbc_core::Result<T>) -> fastodbc_core::Result<T> {
        let sent = self.end();
        match outcome {
            Ok(_) if sent => Err(cancelled()),
            other => other,
        }
    }

    /// Waits for a SQLCancel in progress; whether one was sent.
    fn end(&self) -> bool {
        let mut target = self.gate.target.lock().unwrap_or_else(|p| p.into_inner());
        target.executing = false;
        std::mem::take(&mut target.sent)
    }
}

impl Drop for Executing<'_> {
    fn drop(&mut self) {
        self.end();
    }
}

/// SQLCancel on `link`: nothing on a broken link (its calls are over or being given up). A
/// cancel that cannot reach the server is given up, and so is the call it was to stop
/// (`CallKind::Cancel`): that call then fails, which is what the cancel asked.
fn send_cancel(link: &Arc<Link>, handle: StatementHandle) -> fastodbc_core::Result<()> {
    if link.is_broken() {
        return Ok(());
    }
    match link.call(CallKind::Cancel, || handle.cancel()) {
        Err(_) if link.is_broken() => Ok(()),
        other => other,
    }
}

/// The error of a statement cancelled by `cancel()` (ODBC's SQLSTATE for it).
pub fn cancelled() -> Error {
    Error::Odbc {
        function: "SQLCancel",
        diagnostics: Diagnostics {
            records: vec![DiagRecord {
                sqlstate: "HY008".into(),
                native: 0,
                message: "Operation canceled by cancel()".into(),
            }],
            connection_failure: None,
        },
    }
}
