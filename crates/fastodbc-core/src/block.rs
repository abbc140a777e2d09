//! `RowBlock`: the columnar buffers one `SQLFetch` fills, laid out from a `ResultPlan`.

use crate::ffi;
use crate::plan::{ColumnPlan, ResultPlan};

/// Indicator values at or below this mark a value recovered whole after truncation: the
/// bytes live in `RowBlock::overflow[MARK - ind]`.
const OVERFLOW_MARK: isize = -1000;

/// One bound column: `rows` elements of `elem` bytes and their length indicators.
pub struct ColumnBuffer {
    /// `u64` storage keeps every element 8-byte aligned (element widths are multiples of 8).
    data: Vec<u64>,
    pub elem: usize,
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
            ind: vec![0; rows],
            capacity: elem.saturating_sub(terminator),
            variable: plan.variable(),
        }
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

#[derive(Default)]
pub struct RowBlock {
    pub bound: Vec<ColumnBuffer>,
    /// Streamed (long) values: one list per column after the bound prefix, one slot per row.
    pub streamed: Vec<Vec<Option<Vec<u8>>>>,
    /// Values recovered whole with `SQLGetData` after the driver truncated them in the block.
    pub overflow: Vec<Vec<u8>>,
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
            overflow: Vec::new(),
            rows: 0,
            capacity_rows: rows,
        }
    }

    /// Replaces the bound buffers with buffers for `rows` rows (their contents were consumed).
    pub fn resize(&mut self, plan: &ResultPlan, rows: usize) {
        self.bound = column_buffers(plan, rows);
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
            if ind >= 0 {
                let start = row * buf.elem;
                let len = (ind as usize).min(buf.capacity);
                Cell::Value(&buf.bytes()[start..start + len])
            } else if ind <= OVERFLOW_MARK {
                Cell::Value(&self.overflow[(OVERFLOW_MARK - ind) as usize])
            } else if ind == ffi::SQL_NULL_DATA {
                Cell::Null
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
        if ind < 0 {
            return None;
        }
        let start = row * buf.elem;
        let element = buf.bytes().get(start..start + buf.elem)?;
        Some((element, (ind as usize).min(buf.capacity)))
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

    /// Records a value recovered after truncation and points the indicator at it.
    pub fn store_overflow(&mut self, col: usize, row: usize, value: Vec<u8>) {
        let idx = self.overflow.len() as isize;
        self.overflow.push(value);
        self.bound[col].ind[row] = OVERFLOW_MARK - idx;
    }
}
