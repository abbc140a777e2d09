//! A statement lent by its owner (a cursor) to a reader that outlives the call that made it: an
//! Arrow stream handed to pyarrow, DuckDB or polars, read on their threads. While the loan runs
//! the owner cannot use the statement (it is the reader's), yet the owner's `close` (or its
//! connection's) must still free the statement before the connection goes: so the statement
//! lives behind a lock both sides take, and whoever is last decides what becomes of it.
//!
//! The owner's side never blocks (`try_reclaim`, `try_close`): its caller may hold a lock a
//! reader waits for (the GIL), so it retries with that lock released instead.

use std::sync::{Mutex, TryLockError};

use crate::read_ahead::ReadAhead;

/// The statement of one loan.
pub struct StatementLoan {
    slot: Mutex<Slot>,
}

struct Slot {
    /// The statement; `None` once the owner closed it.
    reader: Option<ReadAhead>,
    /// The reader still holds the loan.
    lent: bool,
    /// The reader read its result to the end (the owner's next `fetch` finds nothing more).
    drained: bool,
}

/// What the owner finds when it asks for its statement back.
pub enum Reclaim {
    /// A reader still holds it.
    Lent,
    /// The reader is done: the statement, and whether its result was read to the end (else
    /// the reader closed the result).
    Back {
        reader: Box<ReadAhead>,
        drained: bool,
    },
    /// The statement was freed (the owner closed it meanwhile).
    Gone,
}

impl StatementLoan {
    pub fn new(reader: ReadAhead) -> StatementLoan {
        StatementLoan {
            slot: Mutex::new(Slot {
                reader: Some(reader),
                lent: true,
                drained: false,
            }),
        }
    }

    /// The reader's use of the statement, waiting for the owner's `try_*` to finish; `None`
    /// when the owner closed it.
    pub fn with<R>(&self, f: impl FnOnce(&mut ReadAhead) -> R) -> Option<R> {
        let mut slot = self.slot.lock().unwrap_or_else(|p| p.into_inner());
        slot.reader.as_mut().map(f)
    }

    /// The reader is done with the statement: `drained` when it read the result to the end;
    /// otherwise the result is closed here, so the owner gets a statement with no open cursor.
    pub fn end(&self, drained: bool) {
        let mut slot = self.slot.lock().unwrap_or_else(|p| p.into_inner());
        if let (false, Some(reader)) = (drained, slot.reader.as_mut()) {
            reader.statement(|join| join()).close_cursor();
        }
        slot.lent = false;
        slot.drained = drained;
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
                drained: slot.drained,
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
