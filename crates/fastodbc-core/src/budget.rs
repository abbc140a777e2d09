//! `MemoryBudget`: the one figure that sizes every buffer fastodbc fills as data flows, with
//! one default and one user setting (a connection's `fetch_buffer_bytes`, the bytes of one
//! block). Each consumer takes a share of it, written here with the reason, so the memory a
//! cursor, a batch or a load holds is read in one place and scales with one setting.

/// The bytes of one block of bound buffers, and the shares of it every other buffer takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemoryBudget {
    block_bytes: usize,
}

impl MemoryBudget {
    /// One block: 2 MiB. Both Debian drivers convert UTF-8 to UTF-16 per rowset and slow down
    /// sharply past a few MiB of buffers (docs/driver-notes), and a block this size already
    /// amortises each `SQLFetch` over hundreds of rows.
    pub const DEFAULT_BLOCK_BYTES: usize = 2 * 1024 * 1024;
    pub const DEFAULT: MemoryBudget = MemoryBudget {
        block_bytes: Self::DEFAULT_BLOCK_BYTES,
    };
    /// The largest piece one `SQLGetData` call reads of a long value (pieces double up to it).
    /// Not a share: a value is read whole whatever the budget (never cut), so this bounds only
    /// how much is asked of the driver at once.
    pub const LONG_VALUE_PIECE: usize = 64 << 20;

    /// A budget whose block holds `block_bytes` (at least 1).
    pub const fn new(block_bytes: usize) -> MemoryBudget {
        MemoryBudget {
            block_bytes: if block_bytes == 0 { 1 } else { block_bytes },
        }
    }

    /// One block's bound buffers (data and indicators of every column): rows and Arrow batches
    /// are built from the same blocks. A cursor reading ahead holds two.
    pub const fn block_bytes(self) -> usize {
        self.block_bytes
    }

    /// Long values gathered into one block fetched row by row before the block is handed out
    /// (a block of long values ends early when they pass this): one block's worth.
    pub const fn streamed_bytes(self) -> usize {
        self.block_bytes
    }

    /// An Arrow record batch ends once its buffers pass this (checked after each block's rows
    /// are appended, so by one block at most): 32 blocks (64 MiB by default), large enough
    /// that a consumer's per-batch work is noise, far below a whole result.
    pub const fn arrow_batch_bytes(self) -> usize {
        self.block_bytes.saturating_mul(32)
    }

    /// A file written by the CLI's export in row groups (Parquet): a batch per group ends at 16
    /// blocks (32 MiB by default), where readers of the file find groups easiest to skip and
    /// scan in parallel.
    pub const fn export_batch_bytes(self) -> usize {
        self.block_bytes.saturating_mul(16)
    }

    /// Parameter values converted for one execution of `executemany` or a load (`ingest`, the
    /// CLI's import): 8 blocks (16 MiB by default). A load converts the next chunk while one is
    /// sent, so it holds two.
    pub const fn param_chunk_bytes(self) -> usize {
        self.block_bytes.saturating_mul(8)
    }
}

impl Default for MemoryBudget {
    fn default() -> MemoryBudget {
        MemoryBudget::DEFAULT
    }
}

#[cfg(test)]
mod tests {
    use super::MemoryBudget;

    #[test]
    fn the_default_shares_are_the_figures_each_consumer_had() {
        let b = MemoryBudget::default();
        assert_eq!(b.block_bytes(), 2 << 20);
        assert_eq!(b.streamed_bytes(), 2 << 20);
        assert_eq!(b.arrow_batch_bytes(), 64 << 20);
        assert_eq!(b.export_batch_bytes(), 32 << 20);
        assert_eq!(b.param_chunk_bytes(), 16 << 20);
    }

    #[test]
    fn every_share_follows_the_one_setting_and_none_is_zero() {
        let small = MemoryBudget::new(0);
        assert_eq!(small.block_bytes(), 1);
        assert!(small.param_chunk_bytes() >= 1 && small.arrow_batch_bytes() >= 1);
        let big = MemoryBudget::new(usize::MAX / 4);
        assert_eq!(
            big.arrow_batch_bytes(),
            usize::MAX,
            "saturates, never wraps"
        );
        let b = MemoryBudget::new(1 << 20);
        assert_eq!(b.arrow_batch_bytes(), 32 << 20);
        assert_eq!(b.param_chunk_bytes(), 8 << 20);
    }
}
