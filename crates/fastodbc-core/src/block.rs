//! `RowBlock`: the columnar buffers one `SQLFetch` fills, laid out from a `ResultPlan`.

use crate::ffi;
use crate::plan::{ColumnPlan, ResultPlan, TextCodec, ValueKind};
use crate::types::numeric::NumberText;
use fastodbc_pystr::{utf16_shape, utf16_units, utf8_shape, TextKind, TextShape};

/// Indicator values at or below this mark a value recovered whole after truncation: the
/// bytes live in `RowBlock::overflow[MARK - ind]`.
const OVERFLOW_MARK: isize = -1000;

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

/// A text value's `TextShape` in one word: characters << 3 | kind + 1; 0 when unknown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct ShapeCell(u64);

impl ShapeCell {
    const UNKNOWN: ShapeCell = ShapeCell(0);

    #[inline]
    fn of(shape: Option<TextShape>) -> ShapeCell {
        match shape {
            Some(s) => ShapeCell(((s.chars as u64) << 3) | (s.kind as u64 + 1)),
            None => ShapeCell::UNKNOWN,
        }
    }

    #[inline]
    fn shape(self) -> Option<TextShape> {
        let kind = match self.0 & 7 {
            1 => TextKind::Ascii,
            2 => TextKind::Latin1,
            3 => TextKind::Ucs2,
            4 => TextKind::Ucs4,
            _ => return None,
        };
        Some(TextShape {
            kind,
            chars: (self.0 >> 3) as usize,
        })
    }
}

/// What `RowBlock::describe` found about the values of one bound column.
#[derive(Default)]
enum Described {
    #[default]
    Nothing,
    /// The shape of each text value (`ShapeCell::UNKNOWN` for NULL or invalid text).
    Text(Vec<ShapeCell>),
    /// Each number read from its text (`Strategy::plan`: `numbers_as_text`, `integers_as_text`):
    /// `kinds` says what `bits` hold (`NUMBER_INT`, `NUMBER_FLOAT`, or `NUMBER_UNKNOWN` for
    /// NULL and text that is no number), so the consumer only builds the object.
    Numbers { kinds: Vec<u8>, bits: Vec<u64> },
}

const NUMBER_UNKNOWN: u8 = 0;
const NUMBER_INT: u8 = 1;
const NUMBER_FLOAT: u8 = 2;

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
    /// Values recovered whole with `SQLGetData` after the driver truncated them in the block.
    pub overflow: Vec<Vec<u8>>,
    /// What was found about the values while the block was read ahead (`describe`): one
    /// entry per bound column; see `text_shape` and `number`.
    described: Vec<Described>,
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
            described: Vec::new(),
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
            if ind >= 0 {
                let start = row * buf.elem;
                let len = (ind as usize).min(buf.capacity);
                Cell::Value(&buf.bytes()[start..start + len])
            } else if ind <= OVERFLOW_MARK {
                // Variable-length values' indicators are checked as fetched; a fixed-size
                // element is whole whatever its indicator says.
                match self.overflow.get((OVERFLOW_MARK - ind) as usize) {
                    Some(v) => Cell::Value(v),
                    None => Cell::Value(buf.element(row)),
                }
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

    /// Does ahead what the consumer would do first with each value: finds the shape of every
    /// UTF-8 and UTF-16 text value (valid text only), so the consumer allocates its string
    /// without a shape pass of its own, and reads the numbers of columns fetched as text. The
    /// thread that read the block ahead does this when it has time to spare
    /// (`Statement::read_ahead`).
    pub fn describe(&mut self, plan: &ResultPlan) {
        let rows = self.len();
        let mut described = std::mem::take(&mut self.described);
        described.resize_with(self.bound.len(), Described::default);
        for (col, (column, described)) in plan.columns.iter().zip(&mut described).enumerate() {
            let utf8 = match (column.kind, &column.codec) {
                (ValueKind::Text, Some(TextCodec::Utf8)) => true,
                (ValueKind::Text, Some(TextCodec::Utf16)) => false,
                (ValueKind::Int | ValueKind::Float, Some(TextCodec::Utf8)) => {
                    self.describe_numbers(col, column.kind == ValueKind::Int, described);
                    continue;
                }
                _ => {
                    *described = Described::Nothing;
                    continue;
                }
            };
            if !matches!(described, Described::Text(_)) {
                *described = Described::Text(Vec::new());
            }
            let Described::Text(shapes) = described else {
                continue;
            };
            shapes.clear();
            shapes.extend((0..rows).map(|row| match self.cell(col, row) {
                Cell::Value(b) if utf8 => ShapeCell::of(utf8_shape(b).ok()),
                Cell::Value(b) => ShapeCell::of(utf16_units(b).and_then(|u| utf16_shape(u).ok())),
                Cell::Null => ShapeCell::UNKNOWN,
            }));
        }
        self.described = described;
    }

    /// Reads the numbers of text-fetched column `col` as the consumer would
    /// (`NumberText::integer_in_element` / `NumberText::float`).
    fn describe_numbers(&self, col: usize, int: bool, described: &mut Described) {
        if !matches!(described, Described::Numbers { .. }) {
            *described = Described::Numbers {
                kinds: Vec::new(),
                bits: Vec::new(),
            };
        }
        let Described::Numbers { kinds, bits } = described else {
            return;
        };
        kinds.clear();
        bits.clear();
        for row in 0..self.len() {
            let n = match self.value_in_element(col, row) {
                Some((element, len)) if int => NumberText::integer_in_element(element, len),
                _ => match self.cell(col, row) {
                    Cell::Value(b) if int => NumberText::integer(b),
                    Cell::Value(b) => NumberText::float(b),
                    Cell::Null => NumberText::Text,
                },
            };
            let (kind, value) = match n {
                NumberText::Int(v) => (NUMBER_INT, v as u64),
                NumberText::Float(v) => (NUMBER_FLOAT, v.to_bits()),
                NumberText::Text => (NUMBER_UNKNOWN, 0),
            };
            kinds.push(kind);
            bits.push(value);
        }
    }

    /// Forgets what was found about the block's previous rows (a fill that does not describe
    /// them).
    pub fn forget_described(&mut self) {
        for described in &mut self.described {
            match described {
                Described::Nothing => {}
                Described::Text(shapes) => shapes.clear(),
                Described::Numbers { kinds, bits } => {
                    kinds.clear();
                    bits.clear();
                }
            }
        }
    }

    /// The shape `describe` found for the text value of bound column `col`, row `row`: the
    /// value (`cell`) is valid text of that shape.
    #[inline]
    pub fn text_shape(&self, col: usize, row: usize) -> Option<TextShape> {
        match self.described.get(col)? {
            Described::Text(shapes) => shapes.get(row)?.shape(),
            _ => None,
        }
    }

    /// The number `describe` read from the text of bound column `col`, row `row`: an integer
    /// or a float, never `NumberText::Text` (`None` then, as for NULL or not described).
    #[inline]
    pub fn number(&self, col: usize, row: usize) -> Option<NumberText> {
        let Described::Numbers { kinds, bits } = self.described.get(col)? else {
            return None;
        };
        let bits = *bits.get(row)?;
        match *kinds.get(row)? {
            NUMBER_INT => Some(NumberText::Int(bits as i64)),
            NUMBER_FLOAT => Some(NumberText::Float(f64::from_bits(bits))),
            _ => None,
        }
    }

    /// Records a value recovered after truncation and points the indicator at it.
    pub fn store_overflow(&mut self, col: usize, row: usize, value: Vec<u8>) {
        let idx = self.overflow.len() as isize;
        self.overflow.push(value);
        self.bound[col].ind[row] = OVERFLOW_MARK - idx;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::{ColumnDescription, Decoding, PlanOptions, TextCodec};

    fn column(sql_type: i16, codec: TextCodec) -> ColumnPlan {
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
    fn fill(block: &mut RowBlock, col: usize, values: &[Option<Vec<u8>>]) {
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

    #[test]
    fn a_block_fits_only_the_layout_it_was_made_for() {
        let plan = |types: &[i16]| {
            let columns = types.iter().map(|&t| column(t, TextCodec::Utf8)).collect();
            ResultPlan::new(columns, 1 << 20)
        };
        let stamp_text = plan(&[ffi::SQL_TYPE_TIMESTAMP, ffi::SQL_VARCHAR]);
        let block = RowBlock::new(&stamp_text, 16);
        assert!(block.fits(&stamp_text, 16));
        assert!(!block.fits(&stamp_text, 128), "other rows");
        // A GUID is as wide as a TIMESTAMP_STRUCT: the C type tells them apart.
        let guid_text = plan(&[ffi::SQL_GUID, ffi::SQL_VARCHAR]);
        assert_eq!(
            guid_text.columns[0].elem_bytes,
            stamp_text.columns[0].elem_bytes
        );
        assert!(!block.fits(&guid_text, 16), "other C type, same size");
        assert!(
            !block.fits(&plan(&[ffi::SQL_TYPE_TIMESTAMP]), 16),
            "fewer columns"
        );
        let stamp = plan(&[ffi::SQL_TYPE_TIMESTAMP]);
        assert!(
            !RowBlock::new(&stamp, 16).fits(&stamp_text, 16),
            "more columns"
        );
        assert!(!block.fits(&plan(&[ffi::SQL_TYPE_TIMESTAMP, ffi::SQL_TYPE_DATE]), 16));
        assert!(buffers_fit(&column_buffers(&stamp_text, 1), &stamp_text, 1));
        assert!(!buffers_fit(&column_buffers(&stamp_text, 1), &guid_text, 1));
    }

    #[test]
    fn described_shapes_are_the_decoders_and_forgotten_on_request() {
        let utf16 = |s: &str| -> Vec<u8> { s.encode_utf16().flat_map(u16::to_le_bytes).collect() };
        let texts = ["", "ascii", "café", "Добрый", "😀x", "日本語"];
        let mut utf8_values: Vec<Option<Vec<u8>>> =
            texts.iter().map(|t| Some(t.as_bytes().to_vec())).collect();
        utf8_values.push(None);
        utf8_values.push(Some(b"a\xffb".to_vec())); // invalid: no shape
        let mut utf16_values: Vec<Option<Vec<u8>>> = texts.iter().map(|t| Some(utf16(t))).collect();
        utf16_values.push(None);
        utf16_values.push(Some(vec![0x00, 0xD8, 0x41, 0x00])); // unpaired surrogate: no shape
        let plan = ResultPlan::new(
            vec![
                column(ffi::SQL_VARCHAR, TextCodec::Utf8),
                column(ffi::SQL_WVARCHAR, TextCodec::Utf16),
                column(ffi::SQL_INTEGER, TextCodec::Utf8),
            ],
            1 << 16,
        );
        let mut block = RowBlock::new(&plan, 16);
        fill(&mut block, 0, &utf8_values);
        fill(&mut block, 1, &utf16_values);
        block.describe(&plan);
        for (row, t) in texts.iter().enumerate() {
            let want8 = utf8_shape(t.as_bytes()).ok();
            let units: Vec<u16> = t.encode_utf16().collect();
            let want16 = utf16_shape(&units).ok();
            assert_eq!(block.text_shape(0, row), want8, "{t:?}");
            assert_eq!(block.text_shape(1, row), want16, "{t:?}");
            assert_eq!(want8, want16);
        }
        for row in [texts.len(), texts.len() + 1] {
            assert_eq!(block.text_shape(0, row), None);
            assert_eq!(block.text_shape(1, row), None);
        }
        // Not text: never described.
        assert_eq!(block.text_shape(2, 0), None);
        // Past the block's rows.
        assert_eq!(block.text_shape(0, texts.len() + 2), None);
        block.forget_described();
        assert_eq!(block.text_shape(0, 2), None);
    }

    #[test]
    fn described_numbers_are_what_the_consumer_reads() {
        // What an INTEGER or REAL column of SQLite can hold, as its driver writes the text.
        let texts: [&[u8]; 13] = [
            b"0",
            b"-17",
            b"9223372036854775807",
            b"-9223372036854775808",
            b"9223372036854775808", // past i64: text
            b"007",                 // stored text: stays text
            b"3.7",
            b"-2.5e-07",
            b"1e+20",
            b"abc",
            b"12abc",
            b"Inf",
            b"",
        ];
        let mut values: Vec<Option<Vec<u8>>> = texts.iter().map(|t| Some(t.to_vec())).collect();
        values.push(None);
        let opts = PlanOptions {
            sizes_unreliable: true,
            recoverable: true,
            numbers_as_text: true,
            integers_as_text: false,
            wide_text_via_getdata: false,
            wide_text_as_utf8: false,
        };
        let utf8 = Decoding {
            char: TextCodec::Utf8,
            wchar: TextCodec::Utf8,
        };
        let number_column = |sql_type| {
            let desc = ColumnDescription {
                name: "n".into(),
                sql_type,
                size: 10,
                digits: 0,
                nullable: true,
            };
            ColumnPlan::choose_with(desc, &utf8, opts)
        };
        let plan = ResultPlan::new(
            vec![
                number_column(ffi::SQL_INTEGER),
                number_column(ffi::SQL_DOUBLE),
            ],
            1 << 16,
        );
        let mut block = RowBlock::new(&plan, 16);
        fill(&mut block, 0, &values);
        fill(&mut block, 1, &values);
        // A value longer than its element, as recovered after truncation.
        let long = b"123456789012345678901234567890".to_vec();
        block.store_overflow(0, 13, long.clone());
        block.store_overflow(1, 13, b"1.5".to_vec());
        block.rows = 14;
        block.describe(&plan);
        let read = |n: NumberText| match n {
            NumberText::Text => None,
            n => Some(n),
        };
        for (row, t) in texts.iter().enumerate() {
            let int = NumberText::integer(t);
            assert_eq!(block.number(0, row), read(int), "{:?}", t);
            let float = NumberText::float(t);
            assert_eq!(block.number(1, row), read(float), "{:?}", t);
        }
        assert_eq!(block.number(0, 2), Some(NumberText::Int(i64::MAX)));
        assert_eq!(block.number(0, 6), Some(NumberText::Float(3.7)));
        assert_eq!(block.number(0, 5), None);
        assert_eq!(block.number(1, 5), Some(NumberText::Float(7.0)));
        assert_eq!(block.number(0, 13), read(NumberText::integer(&long)));
        assert_eq!(block.number(1, 13), Some(NumberText::Float(1.5)));
        // NULL, then past the block's rows.
        block.rows = 15;
        block.bound[0].ind[14] = ffi::SQL_NULL_DATA;
        block.describe(&plan);
        assert_eq!(block.number(0, 14), None);
        assert_eq!(block.number(0, 15), None);
        // Numbers are not text shapes, and forgotten on request.
        assert_eq!(block.text_shape(0, 0), None);
        block.forget_described();
        assert_eq!(block.number(0, 1), None);
    }
}
