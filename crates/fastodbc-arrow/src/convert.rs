//! One value's bytes, as the driver wrote them, to its Arrow value: the same readings as the
//! rows path (`fastodbc-py`'s `Converter`), and the same refusals, so that a value either comes
//! out equal through both or raises the same `DataError` through both. One module per type
//! family (`numbers`, `datetimes`, `text`); `Located` names a value in their messages.

use fastodbc_core::{Error, Result};

use crate::schema::IntType;

/// Where a value is, for messages: its column, and the result's row of the block's row 0.
pub struct Located<'a> {
    pub column: &'a str,
    pub first_row: usize,
}

impl Located<'_> {
    /// A `DataError` with `sqlstate` about the value of block row `row` (rows counted from 1 in
    /// the result): the rows path's SQLSTATE for the same value.
    pub fn error(&self, row: usize, sqlstate: &'static str, what: String) -> Error {
        Error::Value {
            sqlstate,
            message: format!(
                "column {:?}, row {}: {what}",
                self.column,
                self.first_row + row + 1
            ),
        }
    }

    /// `v` in the column's integer type, or a `DataError` naming the value.
    #[inline]
    pub fn narrow<T: TryFrom<i64>>(&self, v: i64, row: usize, t: IntType) -> Result<T> {
        T::try_from(v)
            .map_err(|_| self.error(row, "22003", format!("{v} does not fit the column's {t:?}")))
    }
}

mod datetimes;
mod numbers;
mod text;

pub use datetimes::*;
pub use numbers::*;
pub use text::*;
