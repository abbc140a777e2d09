//! fastodbc-core: ODBC connections, statements, per-column fetch plans, block fetch and
//! parameter arrays. No Python here: blocks (`RowBlock`) are read by consumers
//! (`consumer::BlockConsumer`): `fastodbc-py` turns them into Python rows, and an Arrow
//! consumer reads the same blocks. docs/architecture.md has the map.

pub mod array_insert;
pub mod block;
pub mod budget;
pub mod compiled_insert;
pub mod connection;
pub mod connstr;
pub mod consumer;
pub mod diagnostics;
pub mod driver;
pub mod executemany;
pub mod fetch_thread;
pub mod ffi;
pub mod link;
pub mod loan;
pub mod params;
pub mod plan;
pub mod read_ahead;
pub mod redact;
pub mod sqlscan;
pub mod statement;
pub mod stream;
pub mod types;

pub use block::{Cell, ColumnValues, RowBlock};
pub use budget::MemoryBudget;
pub use connection::{AttrValue, Connection};
pub use consumer::{BlockConsumer, BlockNotes};
pub use diagnostics::{ConnectionFailure, DiagRecord, Diagnostics, Error, Result};
pub use driver::{DeadAnswer, InsertStrategy, Liveness, NarrowText, Quirks, Strategy};
pub use executemany::{Encoded, Encoder, ExecuteMany, ExecutionGate};
pub use link::{CallKind, Link};
pub use loan::{LoanEnd, Reclaim, StatementLoan};
pub use params::{BindOptions, ParamBatch, ParamValue, TextEncoding};
pub use plan::{ColumnDescription, ColumnPlan, Decoding, ResultPlan, TextCodec, ValueKind};
pub use read_ahead::ReadAhead;
pub use statement::{CatalogFunction, Reader, ResultSet, Statement, StatementHandle};
pub use stream::{BlockStream, Blocking, Rows, Waiting, Want};
