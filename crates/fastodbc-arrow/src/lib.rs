//! fastodbc's Arrow consumer: the blocks core fetches (`RowBlock`, read column by column) become
//! Arrow record batches, with no Python and no GIL, so that pyarrow, DuckDB or polars can read
//! them on threads of their own through the Arrow C stream interface.
//!
//! - `schema`: the type table (SQL type and block layout -> Arrow type and conversion);
//! - `convert`: one value's bytes to its Arrow value, checked as the rows path checks it;
//! - `values`: a batch's columns being built, finished as Arrow arrays;
//! - `reader`: `ArrowBatches`, a result as a stream of batches over a lent statement;
//! - `zone`: the session's time zone, for zoned timestamps given as wall times;
//! - `source`: what a fetched column was in its database, in its field's metadata.

mod convert;
pub mod ingest;
pub mod reader;
pub mod schema;
pub mod source;
mod values;
pub mod zone;

pub use reader::{ArrowBatches, BatchLimits, Interrupt};
pub use schema::{schema_of, ArrowColumn, Conversion, IntType, NarrowDecoder, TypeOptions};
pub use zone::SessionZone;

#[cfg(test)]
mod tests;
