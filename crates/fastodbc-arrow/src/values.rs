//! One column of a batch being built: rows of blocks appended (`append`), then finished as an
//! Arrow array. Hand-written rather than arrow's builders: values come from the driver's strided
//! elements a column at a time, each checked once (range, UTF-8, date fields) as it is copied,
//! with no per-value dispatch on the type.

use std::ops::Range;
use std::sync::Arc;

use arrow_array::types::{
    Date32Type, Decimal128Type, DurationMicrosecondType, Float32Type, Float64Type, Int16Type,
    Int32Type, Int64Type, Int8Type, Time64MicrosecondType, TimestampMicrosecondType, UInt16Type,
    UInt32Type, UInt64Type, UInt8Type,
};
use arrow_array::{ArrayRef, ArrowPrimitiveType, BinaryArray, BooleanArray, PrimitiveArray};
use arrow_array::{RecordBatch, StringArray};
use arrow_buffer::{BooleanBufferBuilder, Buffer, NullBufferBuilder, OffsetBuffer, ScalarBuffer};
use fastodbc_core::{ColumnValues, Error, Result};

use crate::convert::{self, Located};
use crate::schema::{ArrowColumn, Conversion, IntType, INSTANT_ZONE};

/// The largest offset of `string` and `binary` arrays: a batch ends before a column's values
/// pass it (`Column::room_for`), so `large_string` is never needed.
pub const MAX_OFFSET: usize = i32::MAX as usize;

/// The values a column has gathered so far, in the layout of its Arrow type.
enum Store {
    I8(Vec<i8>),
    I16(Vec<i16>),
    I32(Vec<i32>),
    I64(Vec<i64>),
    U8(Vec<u8>),
    U16(Vec<u16>),
    U32(Vec<u32>),
    U64(Vec<u64>),
    F32(Vec<f32>),
    F64(Vec<f64>),
    I128(Vec<i128>),
    Bool(BooleanBufferBuilder),
    /// Date32 days, Time64 and Timestamp microseconds.
    Days(Vec<i32>),
    Micros(Vec<i64>),
    /// Text (valid UTF-8, each value checked) and binary values, with their offsets.
    Var {
        offsets: Vec<i32>,
        bytes: Vec<u8>,
    },
}

/// A column of the batch being built.
pub struct Column {
    arrow: ArrowColumn,
    store: Store,
    nulls: NullBufferBuilder,
}

impl Column {
    pub fn new(arrow: &ArrowColumn, rows: usize) -> Column {
        use Conversion::*;
        let store = match &arrow.conversion {
            Int(IntType::I8) | IntText(IntType::I8) => Store::I8(Vec::with_capacity(rows)),
            Int(IntType::I16) | IntText(IntType::I16) => Store::I16(Vec::with_capacity(rows)),
            Int(IntType::I32) | IntText(IntType::I32) => Store::I32(Vec::with_capacity(rows)),
            Int(IntType::I64) | IntText(IntType::I64) => Store::I64(Vec::with_capacity(rows)),
            Int(IntType::U8) | IntText(IntType::U8) => Store::U8(Vec::with_capacity(rows)),
            Int(IntType::U16) | IntText(IntType::U16) => Store::U16(Vec::with_capacity(rows)),
            Int(IntType::U32) | IntText(IntType::U32) => Store::U32(Vec::with_capacity(rows)),
            Int(IntType::U64) | IntText(IntType::U64) | UInt64 => {
                Store::U64(Vec::with_capacity(rows))
            }
            Float32 => Store::F32(Vec::with_capacity(rows)),
            Float64 | Float64Text => Store::F64(Vec::with_capacity(rows)),
            Decimal { .. } => Store::I128(Vec::with_capacity(rows)),
            Bool => Store::Bool(BooleanBufferBuilder::new(rows)),
            Date => Store::Days(Vec::with_capacity(rows)),
            Time | Duration | Timestamp | ZonedTimestamp(_) => {
                Store::Micros(Vec::with_capacity(rows))
            }
            Utf8 | Utf16 | Narrow(..) | Binary | GuidText => {
                let mut offsets = Vec::with_capacity(rows + 1);
                offsets.push(0);
                Store::Var {
                    offsets,
                    bytes: Vec::new(),
                }
            }
        };
        Column {
            arrow: arrow.clone(),
            store,
            nulls: NullBufferBuilder::new(rows),
        }
    }

    /// Bytes the column holds so far (for the batch's byte budget).
    pub fn bytes(&self) -> usize {
        let n = self.nulls.len();
        let values = match &self.store {
            Store::I8(_) | Store::U8(_) => n,
            Store::I16(_) | Store::U16(_) => 2 * n,
            Store::I32(_) | Store::U32(_) | Store::F32(_) | Store::Days(_) => 4 * n,
            Store::I64(_) | Store::U64(_) | Store::F64(_) | Store::Micros(_) => 8 * n,
            Store::I128(_) => 16 * n,
            Store::Bool(_) => n.div_ceil(8),
            Store::Var { bytes, .. } => bytes.len() + 4 * n,
        };
        values + n.div_ceil(8)
    }

    /// How many of `rows` of `values` fit in the column before its offsets would pass
    /// `MAX_OFFSET` (all of them, but for values of gigabytes).
    pub fn room_for(&self, values: &ColumnValues<'_>, rows: Range<usize>) -> usize {
        let Store::Var { bytes, .. } = &self.store else {
            return rows.len();
        };
        // UTF-8 from UTF-16 takes at most 3 bytes for 2; other texts keep their length (a
        // GUID's 16 bytes become 36 characters).
        let grow = |len: usize| match self.arrow.conversion {
            Conversion::Utf16 => len / 2 * 3,
            Conversion::Narrow(..) => len * 3,
            Conversion::GuidText => 36,
            _ => len,
        };
        let mut total = bytes.len();
        for (n, row) in rows.clone().enumerate() {
            total += values.value(row).map_or(0, |v| grow(v.len()));
            if total > MAX_OFFSET {
                return n;
            }
        }
        rows.len()
    }

    /// Appends rows `rows` of the block column `values`; `first_row` is the result's row number
    /// of the block's row 0, for messages.
    pub fn append(
        &mut self,
        values: &ColumnValues<'_>,
        rows: Range<usize>,
        first_row: usize,
    ) -> Result<()> {
        let at = Located {
            column: self.arrow.field.name(),
            first_row,
        };
        let nulls = &mut self.nulls;
        let text = matches!(self.arrow.conversion, Conversion::IntText(_));
        match (&self.arrow.conversion, &mut self.store) {
            (Conversion::Int(t) | Conversion::IntText(t), Store::I8(v)) => {
                ints(v, nulls, values, rows, &at, *t, text)
            }
            (Conversion::Int(t) | Conversion::IntText(t), Store::I16(v)) => {
                ints(v, nulls, values, rows, &at, *t, text)
            }
            (Conversion::Int(t) | Conversion::IntText(t), Store::I32(v)) => {
                ints(v, nulls, values, rows, &at, *t, text)
            }
            (Conversion::Int(t) | Conversion::IntText(t), Store::I64(v)) => {
                ints(v, nulls, values, rows, &at, *t, text)
            }
            (Conversion::Int(t) | Conversion::IntText(t), Store::U8(v)) => {
                ints(v, nulls, values, rows, &at, *t, text)
            }
            (Conversion::Int(t) | Conversion::IntText(t), Store::U16(v)) => {
                ints(v, nulls, values, rows, &at, *t, text)
            }
            (Conversion::Int(t) | Conversion::IntText(t), Store::U32(v)) => {
                ints(v, nulls, values, rows, &at, *t, text)
            }
            (Conversion::Int(t) | Conversion::IntText(t), Store::U64(v)) => {
                ints(v, nulls, values, rows, &at, *t, text)
            }
            (Conversion::UInt64, Store::U64(v)) => {
                fill(v, nulls, values, rows, |b, r| convert::uint64(b, r, &at))
            }
            (Conversion::Float32, Store::F32(v)) => fill(v, nulls, values, rows, |b, r| {
                Ok(convert::float(b, r, &at)? as f32)
            }),
            (Conversion::Float64, Store::F64(v)) => {
                fill(v, nulls, values, rows, |b, r| convert::float(b, r, &at))
            }
            (Conversion::Float64Text, Store::F64(v)) => fill(v, nulls, values, rows, |b, r| {
                convert::float_text(b, r, &at)
            }),
            (Conversion::Decimal { precision, scale }, Store::I128(v)) => {
                fill(v, nulls, values, rows, |b, r| {
                    convert::decimal(b, *precision, *scale, r, &at)
                })
            }
            (Conversion::Bool, Store::Bool(v)) => {
                for row in rows {
                    match values.value(row) {
                        Some(b) => {
                            v.append(convert::bit(b, row, &at)?);
                            nulls.append_non_null();
                        }
                        None => {
                            v.append(false);
                            nulls.append_null();
                        }
                    }
                }
                Ok(())
            }
            (Conversion::Date, Store::Days(v)) => {
                fill(v, nulls, values, rows, |b, r| convert::date(b, r, &at))
            }
            (Conversion::Time, Store::Micros(v)) => {
                fill(v, nulls, values, rows, |b, r| convert::time(b, r, &at))
            }
            (Conversion::Duration, Store::Micros(v)) => {
                fill(v, nulls, values, rows, |b, r| convert::duration(b, r, &at))
            }
            (Conversion::Timestamp, Store::Micros(v)) => {
                fill(v, nulls, values, rows, |b, r| convert::timestamp(b, r, &at))
            }
            (Conversion::ZonedTimestamp(zone), Store::Micros(v)) => {
                let zone = *zone;
                fill(v, nulls, values, rows, |b, r| {
                    convert::zoned_timestamp(b, zone, r, &at)
                })
            }
            (conversion, Store::Var { offsets, bytes }) => {
                for row in rows {
                    match values.value(row) {
                        Some(b) => {
                            convert::var(conversion, b, bytes, row, &at)?;
                            offsets.push(offset(bytes.len(), row, &at)?);
                            nulls.append_non_null();
                        }
                        None => {
                            offsets.push(offset(bytes.len(), row, &at)?);
                            nulls.append_null();
                        }
                    }
                }
                Ok(())
            }
            _ => Err(Error::Interface(format!(
                "column {:?}: its Arrow store does not match its conversion",
                self.arrow.field.name()
            ))),
        }
    }

    /// The column as an Arrow array.
    pub fn finish(self) -> Result<ArrayRef> {
        let Column {
            arrow,
            store,
            mut nulls,
        } = self;
        let nulls = nulls.finish();
        Ok(match store {
            Store::I8(v) => primitive::<Int8Type>(v, nulls),
            Store::I16(v) => primitive::<Int16Type>(v, nulls),
            Store::I32(v) => primitive::<Int32Type>(v, nulls),
            Store::I64(v) => primitive::<Int64Type>(v, nulls),
            Store::U8(v) => primitive::<UInt8Type>(v, nulls),
            Store::U16(v) => primitive::<UInt16Type>(v, nulls),
            Store::U32(v) => primitive::<UInt32Type>(v, nulls),
            Store::U64(v) => primitive::<UInt64Type>(v, nulls),
            Store::F32(v) => primitive::<Float32Type>(v, nulls),
            Store::F64(v) => primitive::<Float64Type>(v, nulls),
            Store::Days(v) => primitive::<Date32Type>(v, nulls),
            Store::Micros(v) => match arrow.conversion {
                Conversion::Time => primitive::<Time64MicrosecondType>(v, nulls),
                Conversion::Duration => primitive::<DurationMicrosecondType>(v, nulls),
                Conversion::ZonedTimestamp(_) => Arc::new(
                    PrimitiveArray::<TimestampMicrosecondType>::new(ScalarBuffer::from(v), nulls)
                        .with_timezone(INSTANT_ZONE),
                ),
                _ => primitive::<TimestampMicrosecondType>(v, nulls),
            },
            Store::I128(v) => {
                let Conversion::Decimal { precision, scale } = arrow.conversion else {
                    return Err(Error::Interface("decimal store without a scale".into()));
                };
                Arc::new(
                    PrimitiveArray::<Decimal128Type>::new(ScalarBuffer::from(v), nulls)
                        .with_precision_and_scale(precision, scale)
                        .map_err(|e| Error::Interface(e.to_string()))?,
                )
            }
            Store::Bool(mut v) => Arc::new(BooleanArray::new(v.finish(), nulls)),
            Store::Var { offsets, bytes } => {
                let offsets = OffsetBuffer::new(ScalarBuffer::from(offsets));
                let bytes = Buffer::from_vec(bytes);
                if let Conversion::Binary = arrow.conversion {
                    Arc::new(BinaryArray::new(offsets, bytes, nulls))
                } else {
                    // SAFETY: every value appended was checked as UTF-8 (`convert::var`), so
                    // the bytes are valid UTF-8 and every offset lies on a character boundary.
                    Arc::new(unsafe { StringArray::new_unchecked(offsets, bytes, nulls) })
                }
            }
        })
    }
}

fn primitive<T: ArrowPrimitiveType>(
    v: Vec<T::Native>,
    nulls: Option<arrow_buffer::NullBuffer>,
) -> ArrayRef {
    Arc::new(PrimitiveArray::<T>::new(ScalarBuffer::from(v), nulls))
}

/// Appends `rows` of `values`, each through `f` (given the bytes and the block row), NULLs
/// as the type's default behind a cleared validity bit.
#[inline]
fn fill<T: Default>(
    v: &mut Vec<T>,
    nulls: &mut NullBufferBuilder,
    values: &ColumnValues<'_>,
    rows: Range<usize>,
    mut f: impl FnMut(&[u8], usize) -> Result<T>,
) -> Result<()> {
    v.reserve(rows.len());
    for row in rows {
        match values.value(row) {
            Some(b) => {
                v.push(f(b, row)?);
                nulls.append_non_null();
            }
            None => {
                v.push(T::default());
                nulls.append_null();
            }
        }
    }
    Ok(())
}

/// Appends integers: elements, or text (`text`), each checked against the column's type.
fn ints<T: Default + TryFrom<i64>>(
    v: &mut Vec<T>,
    nulls: &mut NullBufferBuilder,
    values: &ColumnValues<'_>,
    rows: Range<usize>,
    at: &Located<'_>,
    t: IntType,
    text: bool,
) -> Result<()> {
    if text {
        convert::int_texts(v, nulls, values, rows, at, t)
    } else if let Some(run) = convert::bigint_run(values, &rows) {
        convert::int_run(v, nulls, run, rows.start, at, t)
    } else {
        fill(v, nulls, values, rows, |b, r| {
            at.narrow(convert::int(b, r, at)?, r, t)
        })
    }
}

fn offset(len: usize, row: usize, at: &Located<'_>) -> Result<i32> {
    i32::try_from(len)
        .map_err(|_| at.error(row, "22001", "its values pass 2 GiB in one batch".into()))
}

/// A batch under construction: one `Column` per result column.
pub struct Batch {
    pub columns: Vec<Column>,
    pub rows: usize,
}

impl Batch {
    pub fn new(columns: &[ArrowColumn], rows: usize) -> Batch {
        Batch {
            columns: columns.iter().map(|c| Column::new(c, rows)).collect(),
            rows: 0,
        }
    }

    pub fn bytes(&self) -> usize {
        self.columns.iter().map(Column::bytes).sum()
    }

    pub fn finish(self, schema: arrow_schema::SchemaRef) -> Result<RecordBatch> {
        let rows = self.rows;
        let arrays = self
            .columns
            .into_iter()
            .map(Column::finish)
            .collect::<Result<Vec<_>>>()?;
        let options = arrow_array::RecordBatchOptions::new().with_row_count(Some(rows));
        RecordBatch::try_new_with_options(schema, arrays, &options)
            .map_err(|e| Error::Interface(e.to_string()))
    }
}
