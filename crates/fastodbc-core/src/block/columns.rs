//! Column-wise views of a `RowBlock`, for consumers that build whole columns (Arrow arrays):
//! the validity of each row, the values of fixed-width C types as one run of elements, and the
//! bytes and lengths of variable-length values, long ones included.

use crate::ffi;

/// Values longer than their element, read again whole after the fetch: `rows` ascending.
#[derive(Debug, Clone, Default)]
pub struct LongValues {
    rows: Vec<usize>,
    values: Vec<Vec<u8>>,
}

impl LongValues {
    pub(crate) fn push(&mut self, row: usize, value: Vec<u8>) {
        self.rows.push(row);
        self.values.push(value);
    }

    pub(crate) fn clear(&mut self) {
        self.rows.clear();
        self.values.clear();
    }

    /// The whole value of `row`, if it was long.
    #[inline]
    pub fn get(&self, row: usize) -> Option<&[u8]> {
        let at = self.rows.binary_search(&row).ok()?;
        self.values.get(at).map(Vec::as_slice)
    }

    /// Rows of the block whose values were long.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }
}

/// The bound elements of a column: `elem` bytes a row and the driver's length indicators.
#[derive(Debug, Clone, Copy)]
pub struct Elements<'a> {
    /// `rows x elem` bytes, row after row.
    pub data: &'a [u8],
    pub elem: usize,
    pub indicators: &'a [ffi::Len],
}

impl<'a> Elements<'a> {
    pub fn len(&self) -> usize {
        self.indicators.len()
    }

    pub fn is_empty(&self) -> bool {
        self.indicators.is_empty()
    }

    #[inline]
    pub fn is_null(&self, row: usize) -> bool {
        self.indicators.get(row) == Some(&ffi::SQL_NULL_DATA)
    }

    /// The first `len` bytes of row `row`'s element.
    #[inline]
    fn bytes(&self, row: usize, len: usize) -> Option<&'a [u8]> {
        let start = row * self.elem;
        self.data.get(start..start + len.min(self.elem))
    }
}

/// A column of one fixed-size C type (integers, doubles, date and timestamp structs, GUIDs):
/// whole elements whatever the indicator says unless it says NULL.
#[derive(Debug, Clone, Copy)]
pub struct FixedColumn<'a>(pub Elements<'a>);

impl<'a> FixedColumn<'a> {
    /// The value of `row`: its element, or as many bytes of it as the indicator says where a
    /// driver wrote a narrower type and said so (MariaDB's SMALLINT catalog columns); `None`
    /// for NULL. A length of 0 is no length: the whole element.
    #[inline]
    pub fn value(&self, row: usize) -> Option<&'a [u8]> {
        let ind = *self.0.indicators.get(row)?;
        match ind {
            ffi::SQL_NULL_DATA => None,
            // Never empty: MariaDB reports 0 for the SQL_C_BIT of a BIT(1) column.
            1.. => self.0.bytes(row, ind as usize),
            _ => self.0.bytes(row, self.0.elem),
        }
    }
}

/// A column of text or binary values: each row's bytes lie in its element when they fit, and
/// in `long` when the driver cut them there and they were read again.
#[derive(Debug, Clone, Copy)]
pub struct VariableColumn<'a> {
    pub elements: Elements<'a>,
    /// Bytes a value can occupy in its element (the element less the text terminator).
    pub capacity: usize,
    pub long: &'a LongValues,
}

impl<'a> VariableColumn<'a> {
    /// The bytes of `row`; `None` for NULL (and for a row past the block).
    #[inline]
    pub fn value(&self, row: usize) -> Option<&'a [u8]> {
        let ind = *self.elements.indicators.get(row)?;
        if ind >= 0 && ind as usize <= self.capacity {
            return self.elements.bytes(row, ind as usize);
        }
        if ind == ffi::SQL_NULL_DATA {
            return None;
        }
        // A fetch reads every long value again (`store_long`): the element's bytes are only
        // what a block filled by hand without them holds.
        self.long
            .get(row)
            .or_else(|| self.elements.bytes(row, self.capacity))
    }

    /// Total bytes of the column's values: what a consumer allocates for them at once.
    pub fn value_bytes(&self) -> usize {
        (0..self.elements.len())
            .map(|row| self.value(row).map_or(0, <[u8]>::len))
            .sum()
    }
}

/// The values of one column of a block (`RowBlock::column`).
#[derive(Debug, Clone, Copy)]
pub enum ColumnValues<'a> {
    Fixed(FixedColumn<'a>),
    Variable(VariableColumn<'a>),
    /// Read with `SQLGetData` after the bound columns, one value a row.
    Streamed(&'a [Option<Vec<u8>>]),
}

impl<'a> ColumnValues<'a> {
    pub fn len(&self) -> usize {
        match self {
            ColumnValues::Fixed(c) => c.0.len(),
            ColumnValues::Variable(c) => c.elements.len(),
            ColumnValues::Streamed(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The value of `row`, `None` for NULL: what `RowBlock::cell` gives, column-wise.
    #[inline]
    pub fn value(&self, row: usize) -> Option<&'a [u8]> {
        match self {
            ColumnValues::Fixed(c) => c.value(row),
            ColumnValues::Variable(c) => c.value(row),
            ColumnValues::Streamed(v) => v.get(row)?.as_deref(),
        }
    }

    /// Whether each row holds a value (Arrow's validity), in row order.
    pub fn validity(&self) -> impl Iterator<Item = bool> + '_ {
        (0..self.len()).map(move |row| match self {
            ColumnValues::Fixed(c) => !c.0.is_null(row),
            ColumnValues::Variable(c) => !c.elements.is_null(row),
            ColumnValues::Streamed(v) => matches!(v.get(row), Some(Some(_))),
        })
    }
}
