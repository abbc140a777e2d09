//! Conversions between ODBC buffers and plain values, one file per type family.
pub mod guid;
pub mod numeric;
pub mod registry;
pub mod temporal;
pub mod text;
