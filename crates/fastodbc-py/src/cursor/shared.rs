//! What the threads using a cursor share (`CursorShared`): its state, and what another thread
//! may do meanwhile, `cancel()` and `close()`, its connection's `close()` included.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use fastodbc_core::Link;

use pyo3::prelude::*;

use super::CursorState;
use crate::cancel::{cancelled, CancelGate};
use crate::connection::OpenCursor;
use crate::errors;
use crate::lock::{lock, lock_within};

/// What the threads using a cursor share: its state, used by one thread at a time, and what
/// another thread may do meanwhile (`cancel`, `close`).
pub struct CursorShared {
    pub(crate) state: Mutex<CursorState>,
    pub(crate) cancel: CancelGate,
    /// Set first thing by `close`, read without the state's lock: a thread iterating (or in
    /// `fetchall`) stops at its next row or block instead of holding `state` to the end of
    /// the result. `close` could not take the lock otherwise: the GIL reaches it mostly while
    /// the iterating thread is inside a fetch, holding `state`.
    closed: AtomicBool,
    link: Arc<Link>,
}

impl CursorShared {
    pub fn new(state: CursorState, link: Arc<Link>) -> CursorShared {
        CursorShared {
            state: Mutex::new(state),
            cancel: CancelGate::new(link.clone()),
            closed: AtomicBool::new(false),
            link,
        }
    }

    /// Frees the statement handle; the cursor answers ProgrammingError afterwards, also to a
    /// thread using it now. An execution running on another thread is cancelled; a fetch
    /// finishes its block first (see `cancel`'s module note). With `give_up_after`, a call
    /// still holding the cursor then (waiting on a stalled link) is given up: the link's
    /// socket is shut down, the call returns, and the statement is freed after it.
    pub fn close(&self, py: Python<'_>, give_up_after: Option<Duration>) {
        self.closed.store(true, Ordering::Release);
        self.cancel.close(py);
        let mut state = match give_up_after {
            Some(wait) => lock_within(py, &self.state, wait).unwrap_or_else(|| {
                self.link.give_up_all();
                lock(py, &self.state)
            }),
            None => lock(py, &self.state),
        };
        state.free(py);
    }

    pub(crate) fn is_closed(&self) -> bool {
        self.closed.load(Ordering::Acquire)
    }

    /// Why a thread reading a result must stop at this block: the cursor was closed or
    /// cancelled from another thread.
    pub(crate) fn interrupted(&self, py: Python<'_>) -> PyResult<()> {
        if self.is_closed() {
            return Err(closed_cursor(py));
        }
        if self.cancel.requested() {
            return Err(errors::to_py(py, cancelled()));
        }
        Ok(())
    }
}

/// What a cursor closed from another thread answers, also to the thread using it then.
pub(crate) fn closed_cursor(py: Python<'_>) -> PyErr {
    errors::programming(py, "Attempt to use a closed cursor.")
}

/// The connection closes its cursors through this (`Connection::register_cursor`).
impl OpenCursor for CursorShared {
    fn close(&self, py: Python<'_>, give_up_after: Option<Duration>) {
        CursorShared::close(self, py, give_up_after);
    }
}
