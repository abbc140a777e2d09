//! fastodbc-core: ODBC connections, statements, per-column fetch plans, block fetch and
//! parameter arrays. No Python here: `fastodbc-py` turns blocks into Python objects, and an
//! Arrow consumer can read the same blocks.

pub mod array_insert;
pub mod block;
pub mod compiled_insert;
pub mod connection;
pub mod connstr;
pub mod diagnostics;
pub mod driver;
pub mod executemany;
pub mod fetch_thread;
pub mod ffi;
pub mod params;
pub mod plan;
pub mod redact;
pub mod sqlscan;
pub mod statement;
pub mod types;

pub use block::{Cell, RowBlock};
pub use connection::{AttrValue, Connection};
pub use diagnostics::{ConnectionFailure, DiagRecord, Diagnostics, Error, Result};
pub use driver::{InsertStrategy, NarrowText, Quirks, Strategy};
pub use executemany::{ExecuteMany, ExecutionGate};
pub use params::{BindOptions, ParamBatch, ParamValue, TextEncoding};
pub use plan::{ColumnDescription, ColumnPlan, Decoding, ResultPlan, TextCodec, ValueKind};
pub use statement::{CatalogFunction, LentFetch, Statement, StatementHandle};
