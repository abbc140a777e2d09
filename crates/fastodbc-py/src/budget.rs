//! `MemoryBudget` as Python sees it (`Connection.memory_budget`): the shares of the one
//! setting, `fetch_buffer_bytes`, read-only, so Python code that sizes buffers of its own (the
//! CLI's export batches) takes its share from the same place as native code.

use fastodbc_core::MemoryBudget as Budget;
use pyo3::prelude::*;

/// The bytes each buffer of a connection's cursors takes, each a share of `fetch_buffer_bytes`.
#[pyclass(frozen, module = "fastodbc._native", name = "MemoryBudget")]
pub struct MemoryBudget(Budget);

impl From<Budget> for MemoryBudget {
    fn from(budget: Budget) -> MemoryBudget {
        MemoryBudget(budget)
    }
}

#[pymethods]
impl MemoryBudget {
    /// One fetched block's bound buffers (a cursor reading ahead holds two).
    #[getter]
    fn block_bytes(&self) -> usize {
        self.0.block_bytes()
    }

    /// Long values gathered into one block fetched row by row.
    #[getter]
    fn streamed_bytes(&self) -> usize {
        self.0.streamed_bytes()
    }

    /// An Arrow record batch's buffers, unless `batch_bytes` is given.
    #[getter]
    fn arrow_batch_bytes(&self) -> usize {
        self.0.arrow_batch_bytes()
    }

    /// A batch (row group) of a file the CLI exports in row groups (Parquet).
    #[getter]
    fn export_batch_bytes(&self) -> usize {
        self.0.export_batch_bytes()
    }

    /// Parameter values converted for one execution of `executemany` or a load.
    #[getter]
    fn param_chunk_bytes(&self) -> usize {
        self.0.param_chunk_bytes()
    }

    fn __repr__(&self) -> String {
        format!(
            "MemoryBudget(block_bytes={}, streamed_bytes={}, arrow_batch_bytes={}, \
             export_batch_bytes={}, param_chunk_bytes={})",
            self.0.block_bytes(),
            self.0.streamed_bytes(),
            self.0.arrow_batch_bytes(),
            self.0.export_batch_bytes(),
            self.0.param_chunk_bytes()
        )
    }
}
