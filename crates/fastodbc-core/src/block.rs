//! `RowBlock`: the columnar buffers one `SQLFetch` fills, laid out from a `ResultPlan`, and
//! read by any consumer: cell by cell (`cell`) or column by column (`column`: validity,
//! fixed-width values, variable-length values with their lengths, long values recovered whole).
//! Nothing here knows what a consumer builds (`consumer::BlockConsumer`).

use crate::consumer::BlockNotes;
use crate::ffi;
use crate::plan::{ColumnPlan, ResultPlan};

mod columns;
#[cfg(any(test, feature = "testing"))]
pub mod testing;
pub use columns::{ColumnValues, Elements, FixedColumn, LongValues, VariableColumn};

/// One bound column: `rows` elements of `elem` bytes and their length indicators.
pub struct ColumnBuffer {
    /// `u64` storage keeps every element 8-byte aligned (element widths are multiples of 8).
    data: Vec<u64>,
    pub elem: usize,
    /// The C type the buffer was laid out (and is bound) for.
    c_type: i16,
    pub ind: Vec<ffi::Len>,
    /// Bytes a complete value may occupy (element minus the text terminator).
    pub capacity: usize,
    /// Length indicators can exceed `capacity`: text, binary and text-fetched values.
    pub variable: bool,
}

impl ColumnBuffer {
    fn new(plan: &ColumnPlan, rows: usize) -> ColumnBuffer {
        let elem = plan.elem_bytes;
        let terminator = match plan.c_type {
            ffi::SQL_C_WCHAR => 2,
            ffi::SQL_C_CHAR => 1,
            _ => 0,
        };
        ColumnBuffer {
            data: vec![0u64; (elem * rows).div_ceil(8)],
            elem,
            c_type: plan.c_type,
            ind: vec![0; rows],
            capacity: elem.saturating_sub(terminator),
            variable: plan.variable(),
        }
    }

    /// Laid out as `plan` would lay it out: the same C type and element size (the rest of a
    /// buffer follows from those two).
    fn fits(&self, plan: &ColumnPlan) -> bool {
        self.c_type == plan.c_type && self.elem == plan.elem_bytes
    }

    pub fn data_ptr(&mut self) -> *mut u8 {
        self.data.as_mut_ptr() as *mut u8
    }

    pub fn bytes(&self) -> &[u8] {
        // SAFETY: reinterpreting initialised u64 storage as bytes; length in bytes is exact.
        unsafe { std::slice::from_raw_parts(self.data.as_ptr() as *const u8, self.data.len() * 8) }
    }

    /// Element `row` as raw bytes (the full element; use the indicator for the length).
    #[inline]
    pub fn element(&self, row: usize) -> &[u8] {
        let start = row * self.elem;
        &self.bytes()[start..start + self.elem]
    }
}

/// A value as the consumer sees it: NULL, or the bytes the driver wrote (C type of the plan).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cell<'a> {
    Null,
    Value(&'a [u8]),
}

/// Buffers of `rows` rows for the plan's bound columns: a block, or with one row the staging
/// row the driver fills when the plan fetches row at a time.
pub fn column_buffers(plan: &ResultPlan, rows: usize) -> Vec<ColumnBuffer> {
    plan.columns[..plan.bound]
        .iter()
        .map(|c| ColumnBuffer::new(c, rows))
        .collect()
}

/// `buffers` are what `column_buffers(plan, rows)` would allocate.
pub fn buffers_fit(buffers: &[ColumnBuffer], plan: &ResultPlan, rows: usize) -> bool {
    buffers.len() == plan.bound
        && buffers
            .iter()
            .zip(&plan.columns)
            .all(|(b, c)| b.ind.len() == rows && b.fits(c))
}

#[derive(Default)]
pub struct RowBlock {
    pub bound: Vec<ColumnBuffer>,
    /// Streamed (long) values: one list per column after the bound prefix, one slot per row.
    pub streamed: Vec<Vec<Option<Vec<u8>>>>,
    /// Per bound column, the values longer than their element, read again whole with
    /// `SQLGetData`: their indicators stay as the driver wrote them (a length past the
    /// element's capacity, or `SQL_NO_TOTAL`).
    pub long: Vec<LongValues>,
    /// What a consumer found about this block on the thread that fetched it
    /// (`BlockConsumer::prepare`).
    pub notes: BlockNotes,
    /// Rows of the block the last fetch filled.
    pub rows: usize,
    pub capacity_rows: usize,
}

impl RowBlock {
    /// Buffers for `rows` rows of the plan's bound columns.
    pub fn new(plan: &ResultPlan, rows: usize) -> RowBlock {
        RowBlock {
            bound: column_buffers(plan, rows),
            streamed: vec![Vec::new(); plan.columns.len() - plan.bound],
            long: vec![LongValues::default(); plan.bound],
            notes: BlockNotes::default(),
            rows: 0,
            capacity_rows: rows,
        }
    }

    /// The block `RowBlock::new(plan, rows)` would make, with whatever the last fetch left in
    /// its elements.
    pub fn fits(&self, plan: &ResultPlan, rows: usize) -> bool {
        self.capacity_rows == rows
            && self.streamed.len() == plan.columns.len() - plan.bound
            && buffers_fit(&self.bound, plan, rows)
    }

    /// Bytes of its bound buffers (values and indicators).
    pub fn buffer_bytes(&self) -> usize {
        self.bound
            .iter()
            .map(|b| b.data.len() * 8 + std::mem::size_of_val(&b.ind[..]))
            .sum()
    }

    /// Replaces the bound buffers with buffers for `rows` rows (their contents were consumed).
    /// A block made by `Default` (the spare of a pair read ahead into) gains the plan's
    /// streamed columns here too.
    pub fn resize(&mut self, plan: &ResultPlan, rows: usize) {
        self.bound = column_buffers(plan, rows);
        self.long.resize_with(plan.bound, LongValues::default);
        self.streamed
            .resize_with(plan.columns.len() - plan.bound, Vec::new);
        self.capacity_rows = rows;
    }

    /// Where the driver writes when this block's buffers are bound: the first column's data
    /// (a block is bound again when another one, or a resized one, is filled next).
    pub fn address(&self) -> Option<*const u64> {
        self.bound.first().map(|b| b.data.as_ptr())
    }

    /// Rows in the block after the last fetch.
    #[inline]
    pub fn len(&self) -> usize {
        self.rows.min(self.capacity_rows)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The value of column `col` in row `row` of the block.
    #[inline]
    pub fn cell(&self, col: usize, row: usize) -> Cell<'_> {
        if let Some(buf) = self.bound.get(col) {
            let ind = buf.ind[row];
            // A fixed-size value is never empty: MariaDB Connector/ODBC 3.1 reports a length of
            // 0 for the SQL_C_BIT of a BIT(1) column, whose element holds the bit.
            if ind >= 0 && ind as usize <= buf.capacity && (ind > 0 || buf.variable) {
                let start = row * buf.elem;
                Cell::Value(&buf.bytes()[start..start + ind as usize])
            } else if ind == ffi::SQL_NULL_DATA {
                Cell::Null
            } else if buf.variable {
                // Longer than its element (or of no total): the fetch read it again whole.
                match self.long.get(col).and_then(|l| l.get(row)) {
                    Some(v) => Cell::Value(v),
                    None => Cell::Value(&buf.element(row)[..buf.capacity]),
                }
            } else {
                // Fixed-size C types may report SQL_NO_TOTAL-like values; the element is whole.
                Cell::Value(buf.element(row))
            }
        } else {
            match &self.streamed[col - self.bound.len()][row] {
                Some(v) => Cell::Value(v),
                None => Cell::Null,
            }
        }
    }

    /// A value of bound column `col` that lies in its element, as a parser reading whole
    /// words wants it: the element (the value, its terminator, and whatever an earlier value
    /// left after it) and the value's length. `None` for NULL and for any value `cell` finds
    /// elsewhere (recovered after truncation, streamed, or a fixed-size C type).
    #[inline]
    pub fn value_in_element(&self, col: usize, row: usize) -> Option<(&[u8], usize)> {
        let buf = self.bound.get(col)?;
        let ind = *buf.ind.get(row)?;
        if ind < 0 || ind as usize > buf.capacity {
            return None;
        }
        let start = row * buf.elem;
        let element = buf.bytes().get(start..start + buf.elem)?;
        Some((element, ind as usize))
    }

    /// Copies the staged row (as the driver wrote it in `staging`) into row `row` of the block.
    pub fn copy_staged(&mut self, staging: &[ColumnBuffer], row: usize) {
        for (dst, src) in self.bound.iter_mut().zip(staging) {
            let ind = src.ind[0];
            dst.ind[row] = ind;
            let len = if !dst.variable {
                dst.elem
            } else if ind > 0 {
                (ind as usize).min(dst.capacity)
            } else {
                0
            };
            if len > 0 {
                let start = row * dst.elem;
                // SAFETY: both ranges lie inside their u64-backed storage (len <= elem).
                unsafe {
                    std::ptr::copy_nonoverlapping(
                        src.data.as_ptr() as *const u8,
                        (dst.data.as_mut_ptr() as *mut u8).add(start),
                        len,
                    );
                }
            }
        }
    }

    /// Records the whole value of bound column `col`, row `row`, read again after the driver
    /// cut it in the block (rows in increasing order per column, as a fetch reads them).
    pub fn store_long(&mut self, col: usize, row: usize, value: Vec<u8>) {
        if let Some(long) = self.long.get_mut(col) {
            long.push(row, value);
        }
    }

    /// Forgets the long values of the last fill, before the block is filled again.
    pub fn clear_long(&mut self) {
        for long in &mut self.long {
            long.clear();
        }
    }

    /// The values of column `col`, column-wise (`None` past the plan's columns).
    pub fn column(&self, col: usize) -> Option<ColumnValues<'_>> {
        let rows = self.len();
        if let Some(buf) = self.bound.get(col) {
            let indicators = buf.ind.get(..rows)?;
            let data = buf.bytes().get(..rows * buf.elem)?;
            let elements = Elements {
                data,
                elem: buf.elem,
                indicators,
            };
            return Some(if buf.variable {
                ColumnValues::Variable(VariableColumn {
                    elements,
                    capacity: buf.capacity,
                    long: self.long.get(col)?,
                })
            } else {
                ColumnValues::Fixed(FixedColumn(elements))
            });
        }
        let values = self.streamed.get(col - self.bound.len())?;
        Some(ColumnValues::Streamed(
            values.get(..rows.min(values.len()))?,
        ))
    }
}

#[cfg(test)]
mod tests;
