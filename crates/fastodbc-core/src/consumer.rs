//! What core asks of a consumer of blocks (Python rows today, Arrow arrays next).
//!
//! Data flows one way: the driver fills a `RowBlock` (on a fetch thread when the result reads
//! ahead, `ReadAhead`), the consumer converts it on the caller's thread. A consumer may do part
//! of its work on the fetch thread, while the caller still converts the block before: that is
//! `BlockConsumer::prepare`, and what it finds travels with the block (`RowBlock::notes`).
//! Core never looks inside the notes.

use std::any::Any;

use crate::block::RowBlock;
use crate::plan::ResultPlan;

/// A consumer's work on a fetched block that needs no caller's resources (no GIL, no output
/// buffers): it runs on the thread that fetched the block, when that thread would otherwise
/// wait for the caller (`ReadAhead`).
pub trait BlockConsumer: Send + Sync {
    /// Examines the `block.len()` rows of `block`, laid out by `plan`, and records what it found
    /// in `notes` (reusing what they hold from an earlier block).
    fn prepare(&self, plan: &ResultPlan, block: &RowBlock, notes: &mut BlockNotes);
}

/// What a consumer found about one block (`BlockConsumer::prepare`); empty when the block was
/// not prepared, which a consumer must handle by doing the work itself.
#[derive(Default)]
pub struct BlockNotes {
    notes: Option<Box<dyn Any + Send>>,
    /// The notes describe the block's current rows (cleared by each fill that does not prepare).
    valid: bool,
}

impl BlockNotes {
    /// The consumer's notes, if they describe the block's current rows and are of type `T`.
    #[inline]
    pub fn get<T: 'static>(&self) -> Option<&T> {
        if !self.valid {
            return None;
        }
        self.notes.as_ref()?.downcast_ref()
    }

    /// Fills the notes of type `T` for the current rows with `f`, given the earlier ones (for
    /// their allocations) or new ones.
    pub fn fill<T: Default + Send + 'static, R>(&mut self, f: impl FnOnce(&mut T) -> R) -> R {
        let mut notes: Box<T> = match self.notes.take().map(|n| n.downcast::<T>()) {
            Some(Ok(notes)) => notes,
            _ => Box::default(),
        };
        let out = f(&mut notes);
        self.notes = Some(notes);
        self.valid = true;
        out
    }

    /// The block was filled again without being prepared: the notes no longer describe it.
    pub fn invalidate(&mut self) {
        self.valid = false;
    }
}
