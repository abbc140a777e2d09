//! Blocks filled by hand as a driver would fill them, for the unit tests of core and of
//! consumers (the `testing` feature; never part of a release build).

use super::RowBlock;
use crate::ffi;
use crate::plan::{ColumnDescription, ColumnPlan, Decoding, TextCodec};

/// The plan of a column of `sql_type` and declared size 20, its text fetched as `codec` says.
pub fn column(sql_type: i16, codec: TextCodec) -> ColumnPlan {
    let desc = ColumnDescription {
        name: "c".into(),
        sql_type,
        size: 20,
        digits: 0,
        nullable: true,
    };
    ColumnPlan::choose(
        desc,
        &Decoding {
            char: codec.clone(),
            wchar: codec,
        },
    )
}

/// Writes `values` into bound column `col` as the driver would (None: NULL).
pub fn fill(block: &mut RowBlock, col: usize, values: &[Option<Vec<u8>>]) {
    let buf = &mut block.bound[col];
    for (row, v) in values.iter().enumerate() {
        match v {
            Some(b) => {
                // SAFETY: row < capacity and the value fits the element (checked below).
                assert!(b.len() <= buf.capacity);
                unsafe {
                    let at = buf.data_ptr().add(row * buf.elem);
                    std::ptr::copy_nonoverlapping(b.as_ptr(), at, b.len());
                }
                buf.ind[row] = b.len() as ffi::Len;
            }
            None => buf.ind[row] = ffi::SQL_NULL_DATA,
        }
    }
    block.rows = values.len();
}

/// Stores `value` as a long value of bound column `col`, row `row`, with the indicator a
/// driver reports for a value longer than its element.
pub fn store_long(block: &mut RowBlock, col: usize, row: usize, value: Vec<u8>) {
    block.bound[col].ind[row] = value.len().max(block.bound[col].capacity + 1) as ffi::Len;
    block.store_long(col, row, value);
}
