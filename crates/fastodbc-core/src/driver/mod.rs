//! What fastodbc knows about the driver of a connection, in two tables:
//!
//! - `Quirks`: what the driver does, observed on the drivers fastodbc is tested with, each
//!   entry with its evidence. Detected once per connection from the driver's file name and
//!   `SQLGetInfo` answers (`Quirks::detect`).
//! - `Strategy`: what fastodbc does about it (text C types, numbers fetched as text,
//!   parameters bound as text, insert strategy of `executemany`...), derived from the quirks
//!   alone (`Strategy::for_quirks`), never from the driver's name.
//!
//! - `Server`: what the database behind the driver has (native types, the real limit of a
//!   column name), from `SQL_DBMS_NAME` / `SQL_DBMS_VER`.
//!
//! docs/driver-quirks.md lists both tables per driver.

pub mod direct_count;
pub mod quirks;
pub mod server;
pub mod strategy;

pub use quirks::{names_zoned_timestamp, DeadAnswer, NarrowText, Quirks};
pub use server::{Dbms, NameLimit, NameUnit, NativeType, Server};
pub use strategy::{InsertStrategy, Liveness, Strategy};
