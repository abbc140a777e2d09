//! What fastodbc knows about the driver of a connection, in two tables:
//!
//! - `Quirks`: what the driver does, observed on the drivers fastodbc is tested with, each
//!   entry with its evidence. Detected once per connection from the driver's file name and
//!   `SQLGetInfo` answers (`Quirks::detect`).
//! - `Strategy`: what fastodbc does about it (text C types, numbers fetched as text,
//!   parameters bound as text, insert strategy of `executemany`...), derived from the quirks
//!   alone (`Strategy::for_quirks`), never from the driver's name.
//!
//! docs/driver-quirks.md lists both tables per driver.

pub mod quirks;
pub mod strategy;

pub use quirks::{DeadAnswer, NarrowText, Quirks};
pub use strategy::{InsertStrategy, Liveness, Strategy};
