//! Bulk load: Arrow record batches into a table, through the same parameter paths as
//! `executemany`, with no Python object per value.
//!
//! - `target`: the table's columns as the driver describes them;
//! - `types`: the write direction's type table (Arrow type x SQL type -> `Writer`, or a refusal);
//! - `rows`: input values to parameter rows, each checked against its column;
//! - `create`: the SQL types `create` mode asks for;
//! - `import`: record batches from the Arrow C interfaces, their buffers aligned;
//! - `load`: `Load`, the batches sent in chunks through core's `ExecuteMany`.

pub mod create;
mod import;
mod load;
mod rows;
pub mod target;
pub mod types;

pub use create::{create_column, create_type, CreateType};
pub use import::{batch_from_c_array, AlignedStream};
pub use load::{plan_columns, Load, LoadColumn, CHUNK_BYTES};
pub use target::{describe_target, TargetColumn};
pub use types::{arrow_type_text, Nan, WriteOptions, Writer};

#[cfg(test)]
mod tests;
