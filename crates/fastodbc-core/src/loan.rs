//! A statement lent by its owner (a cursor) to a reader that outlives the call that made it: an
//! Arrow stream handed to pyarrow, DuckDB or polars, read on their threads. While the loan runs
//! the owner cannot use the statement (it is the reader's), yet the owner's `close` (or its
//! connection's) must still free the statement before the connection goes: so the statement
//! lives behind a lock both sides take, and whoever is last decides what becomes of it.
//!
//! The owner's side never blocks (`try_reclaim`, `try_close`): its caller may hold a lock a
//! reader waits for (the GIL), so it retries with that lock released instead.

use std::sync::{Mutex, TryLockError};

use crate::stream::{BlockStream, Blocking};

/// The statement of one loan.
pub struct StatementLoan {
    slot: Mutex<Slot>,
}

struct Slot {
    /// The statement; `None` once the owner closed it.
    reader: Option<BlockStream>,
    /// The reader still holds the loan.
    lent: bool,
    /// How the reader ended, once it has.
    end: LoanEnd,
}

/// How a reader left the statement it was lent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoanEnd {
    /// It read the result to the end: the owner's next fetch finds nothing more.
    Drained,
    /// It read nothing: the result is where the owner left it (a consumer that opens a stream
    /// only for its schema, as DuckDB does before it scans).
    Unread,
    /// It stopped part way, or failed: the result was closed.
    Abandoned,
}

/// What the owner finds when it asks for its statement back.
pub enum Reclaim {
    /// A reader still holds it.
    Lent,
    /// The reader is done: the statement, and how the reader left its result.
    Back {
        reader: Box<BlockStream>,
        end: LoanEnd,
    },
    /// The statement was freed (the owner closed it meanwhile).
    Gone,
}

impl StatementLoan {
    pub fn new(reader: BlockStream) -> StatementLoan {
        StatementLoan {
            slot: Mutex::new(Slot {
                reader: Some(reader),
                lent: true,
                end: LoanEnd::Abandoned,
            }),
        }
    }

    /// The reader's use of the statement, waiting for the owner's `try_*` to finish; `None`
    /// when the owner closed it.
    pub fn with<R>(&self, f: impl FnOnce(&mut BlockStream) -> R) -> Option<R> {
        let mut slot = self.slot.lock().unwrap_or_else(|p| p.into_inner());
        slot.reader.as_mut().map(f)
    }

    /// The reader is done with the statement, as `end` says; a result it abandoned is closed
    /// here, so the owner gets a statement with no open cursor.
    pub fn end(&self, end: LoanEnd) {
        let mut slot = self.slot.lock().unwrap_or_else(|p| p.into_inner());
        if let (LoanEnd::Abandoned, Some(reader)) = (end, slot.reader.as_mut()) {
            reader.statement(&Blocking).close_cursor();
        }
        slot.lent = false;
        slot.end = end;
    }

    /// The statement back, if the reader is done. `None` when the slot is busy (a reader is
    /// fetching): the caller retries, or treats it as lent.
    pub fn try_reclaim(&self) -> Option<Reclaim> {
        let mut slot = match self.slot.try_lock() {
            Ok(slot) => slot,
            Err(TryLockError::Poisoned(p)) => p.into_inner(),
            Err(TryLockError::WouldBlock) => return None,
        };
        if slot.lent {
            return Some(Reclaim::Lent);
        }
        Some(match slot.reader.take() {
            Some(reader) => Reclaim::Back {
                reader: Box::new(reader),
                end: slot.end,
            },
            None => Reclaim::Gone,
        })
    }

    /// Frees the statement (the owner closes): the reader finds it gone at its next batch.
    /// `false` when the slot is busy: the caller retries.
    pub fn try_close(&self) -> bool {
        let mut slot = match self.slot.try_lock() {
            Ok(slot) => slot,
            Err(TryLockError::Poisoned(p)) => p.into_inner(),
            Err(TryLockError::WouldBlock) => return false,
        };
        slot.reader = None;
        true
    }
}
