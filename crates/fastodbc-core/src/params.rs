//! Parameters: the bind type table (value kind -> C type, SQL type, size) and column-wise
//! parameter arrays. `execute` binds a batch of one row and `executemany` batches of many: one
//! code path for both. The families whose binding depends on the values (text and bytes by
//! their longest, exact numerics by their digits, times by their fraction) size it in a module
//! of their own (`text`, `numbers`, `temporal`).

use std::ops::Range;

use crate::diagnostics::{Error, Result};
use crate::driver::Strategy;
use crate::ffi;
use crate::plan::ValueKind;
use crate::types::guid;
use crate::types::registry;
use crate::types::temporal::{format_date, format_time, format_timestamp};

mod numbers;
mod temporal;
mod text;

/// The C type, SQL type, column size, decimal digits and element bytes a parameter column is
/// bound with (each family's `*_binding`).
type Binding = (i16, i16, usize, i16, usize);

/// A parameter value, already converted from the caller's object.
#[derive(Debug, Clone, PartialEq)]
pub enum ParamValue {
    Null,
    /// A NULL bound as binary (pyodbc's `BinaryNull`), for drivers that refuse a text NULL in
    /// a binary column and cannot describe the parameter.
    NullBinary,
    Bool(bool),
    Int(i64),
    Float(f64),
    /// Plain decimal text (`-123.4500`), its precision and scale.
    Decimal {
        text: String,
        precision: u16,
        scale: i16,
    },
    Text(String),
    Bytes(Vec<u8>),
    Date(ffi::SqlDate),
    /// Hour, minute, second, microsecond.
    Time(u8, u8, u8, u32),
    Timestamp(ffi::SqlTimestamp),
    Guid(ffi::SqlGuid),
}

impl ParamValue {
    /// Its value kind (the registry's row for it says how it binds); NULL fits any kind, so
    /// values of one kind and NULLs share one parameter array.
    pub fn kind(&self) -> Option<ValueKind> {
        Some(match self {
            ParamValue::Null | ParamValue::NullBinary => return None,
            ParamValue::Bool(_) => ValueKind::Bool,
            ParamValue::Int(_) => ValueKind::Int,
            ParamValue::Float(_) => ValueKind::Float,
            ParamValue::Decimal { .. } => ValueKind::Decimal,
            ParamValue::Text(_) => ValueKind::Text,
            ParamValue::Bytes(_) => ValueKind::Binary,
            ParamValue::Date(_) => ValueKind::Date,
            ParamValue::Time(..) => ValueKind::Time,
            ParamValue::Timestamp(_) => ValueKind::Timestamp,
            ParamValue::Guid(_) => ValueKind::Guid,
        })
    }
}

/// How str parameters are sent (pyodbc's `setencoding`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextEncoding {
    Utf16,
    Utf8,
}

/// Per-connection choices of how values are bound.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BindOptions {
    pub text: TextEncoding,
    /// Send timestamps as `YYYY-MM-DD HH:MM:SS.ffffff` text (`Strategy::timestamp_as_text`).
    pub timestamp_as_text: bool,
    /// Describe time parameters (always text) as SQL_VARCHAR, not SQL_TYPE_TIME
    /// (`Strategy::time_as_varchar`).
    pub time_as_varchar: bool,
    /// Refuse UTF-16 text holding a code unit the driver would read past the value's end
    /// (`Strategy::refuse_overread_utf16`).
    pub refuse_misread_utf16: bool,
    /// Send GUIDs as their 36-character text (`Strategy::guid_as_text`).
    pub guid_as_text: bool,
    /// Send dates and timestamps as text described as SQL_VARCHAR: set by `ExecuteMany` for
    /// parameter arrays where `Strategy::temporal_arrays_as_text`.
    pub temporal_as_varchar: bool,
}

impl BindOptions {
    /// The options for a driver, with str parameters encoded as `text` asks (setencoding),
    /// except where the driver misreads UTF-16 and its narrow text is UTF-8: UTF-8 then
    /// (`Strategy::params_as_utf8`).
    pub fn for_driver(text: TextEncoding, strategy: &Strategy) -> BindOptions {
        let text = if strategy.params_as_utf8 {
            TextEncoding::Utf8
        } else {
            text
        };
        BindOptions {
            text,
            timestamp_as_text: strategy.timestamp_as_text,
            time_as_varchar: strategy.time_as_varchar,
            refuse_misread_utf16: strategy.refuse_overread_utf16 && text == TextEncoding::Utf16,
            guid_as_text: strategy.guid_as_text,
            temporal_as_varchar: false,
        }
    }
}

/// Longest text (characters) or binary (bytes) bound as VARCHAR/VARBINARY; longer values are
/// sent as the LONG types, which every driver accepts without a size limit.
const LONG_PARAM: usize = 4000;

/// SQL type for a parameter column that is NULL in every row: the driver's description of the
/// marker if it has one, VARCHAR otherwise.
pub type NullType = Option<(i16, usize, i16)>;

/// One parameter position of a batch.
pub struct ParamColumn {
    pub c_type: i16,
    pub sql_type: i16,
    pub col_size: usize,
    pub digits: i16,
    pub elem: usize,
    data: Vec<u64>,
    pub ind: Vec<ffi::Len>,
}

impl ParamColumn {
    pub fn data_ptr(&mut self) -> *mut u8 {
        self.data.as_mut_ptr() as *mut u8
    }

    fn bytes_mut(&mut self) -> &mut [u8] {
        // SAFETY: reinterpreting owned u64 storage as bytes of the same total length.
        unsafe {
            std::slice::from_raw_parts_mut(self.data.as_mut_ptr() as *mut u8, self.data.len() * 8)
        }
    }
}

/// Column-wise parameter arrays for `rows` rows (`SQL_ATTR_PARAMSET_SIZE`).
pub struct ParamBatch {
    pub columns: Vec<ParamColumn>,
    pub rows: usize,
    pub status: Vec<u16>,
    pub processed: Box<ffi::ULen>,
}

/// Splits rows into runs whose columns each hold one kind (NULLs join any run), so every run
/// binds as one typed array. Mixed types down a column start a new run instead of being coerced.
pub fn split_runs(rows: &[Vec<ParamValue>], max_rows: usize) -> Vec<Range<usize>> {
    let mut runs = Vec::new();
    let width = rows.first().map_or(0, |r| r.len());
    let mut kinds: Vec<Option<ValueKind>> = vec![None; width];
    let mut start = 0usize;
    for (i, row) in rows.iter().enumerate() {
        let conflict = i - start >= max_rows
            || row.iter().zip(&kinds).any(|(v, k)| match (v.kind(), k) {
                (Some(a), Some(b)) => a != *b,
                _ => false,
            });
        if conflict {
            runs.push(start..i);
            start = i;
            kinds.iter_mut().for_each(|k| *k = None);
        }
        for (v, k) in row.iter().zip(kinds.iter_mut()) {
            if k.is_none() {
                *k = v.kind();
            }
        }
    }
    if start < rows.len() {
        runs.push(start..rows.len());
    }
    runs
}

impl ParamBatch {
    /// Lays out `rows` (all of one width, kinds consistent per column: see `split_runs`).
    pub fn build(
        rows: &[Vec<ParamValue>],
        opts: BindOptions,
        null_types: &[NullType],
    ) -> Result<ParamBatch> {
        let n = rows.len();
        let width = rows.first().map_or(0, |r| r.len());
        let mut columns = Vec::with_capacity(width);
        for c in 0..width {
            let kind = rows.iter().find_map(|r| r[c].kind());
            columns.push(build_column(
                rows,
                c,
                kind,
                opts,
                null_types.get(c).copied().flatten(),
            )?);
        }
        Ok(ParamBatch {
            columns,
            rows: n,
            status: vec![0; n],
            processed: Box::new(0),
        })
    }
}

fn build_column(
    rows: &[Vec<ParamValue>],
    c: usize,
    kind: Option<ValueKind>,
    opts: BindOptions,
    null_type: NullType,
) -> Result<ParamColumn> {
    let n = rows.len();
    let text = opts.text;
    let temporal_varchar = opts.temporal_as_varchar;
    let ts_text = opts.timestamp_as_text || temporal_varchar;
    let guid_text = opts.guid_as_text;
    // Describe the column (sizes over all rows), then allocate once and fill.
    let (c_type, sql_type, col_size, digits, elem) = match kind {
        // As pyodbc binds its BinaryNull.
        None if rows.iter().any(|r| r[c] == ParamValue::NullBinary) => {
            (ffi::SQL_C_BINARY, ffi::SQL_BINARY, 1, 0, 8)
        }
        None => {
            let (t, size, digits) = null_type.unwrap_or((ffi::SQL_VARCHAR, 1, 0));
            (ffi::SQL_C_CHAR, t, size.max(1), digits, 8)
        }
        // Strategy: a driver that takes dates, timestamps or GUIDs as text (`BindOptions`).
        // `-32768-12-31`: 12 bytes at most.
        Some(ValueKind::Date) if temporal_varchar => (ffi::SQL_C_CHAR, ffi::SQL_VARCHAR, 10, 0, 16),
        // 28 bytes at most (a negative year of five digits).
        Some(ValueKind::Timestamp) if temporal_varchar => {
            (ffi::SQL_C_CHAR, ffi::SQL_VARCHAR, 26, 0, 32)
        }
        Some(ValueKind::Timestamp) if ts_text => {
            (ffi::SQL_C_CHAR, ffi::SQL_TYPE_TIMESTAMP, 26, 6, 32)
        }
        Some(ValueKind::Guid) if guid_text => (ffi::SQL_C_CHAR, ffi::SQL_VARCHAR, 36, 0, 40),
        // The families whose binding the values size.
        Some(ValueKind::Time) => temporal::time_binding(rows, c, opts),
        Some(ValueKind::Decimal) => numbers::decimal_binding(rows, c),
        Some(ValueKind::Text) => text::text_binding(rows, c, opts)?,
        Some(ValueKind::Binary) => text::bytes_binding(rows, c),
        // The rest as the registry binds them: their SQL type's fixed-size carrier.
        Some(kind) => registry::fixed_binding(kind).ok_or_else(|| {
            Error::Interface(format!("no fixed binding for a {kind:?} parameter"))
        })?,
    };
    // Fixed-size C types are laid out at their own size: drivers ignore the buffer length for
    // them in column-wise arrays.
    let fixed = !matches!(
        c_type,
        ffi::SQL_C_CHAR | ffi::SQL_C_WCHAR | ffi::SQL_C_BINARY
    );
    let elem = if fixed { elem } else { elem.div_ceil(8) * 8 };
    let mut col = ParamColumn {
        c_type,
        sql_type,
        col_size,
        digits,
        elem,
        data: vec![0u64; (elem * n).div_ceil(8)],
        ind: vec![ffi::SQL_NULL_DATA; n],
    };
    let mut scratch = String::new();
    for (i, r) in rows.iter().enumerate() {
        let start = i * elem;
        let len: usize;
        {
            let out = &mut col.bytes_mut()[start..start + elem];
            len = match &r[c] {
                ParamValue::Null | ParamValue::NullBinary => continue,
                ParamValue::Bool(b) => {
                    out[0] = *b as u8;
                    1
                }
                ParamValue::Date(d) if temporal_varchar => {
                    scratch.clear();
                    format_date(&mut scratch, d.year, d.month, d.day);
                    put(out, scratch.as_bytes())
                }
                ParamValue::Int(v) => put(out, &v.to_ne_bytes()),
                ParamValue::Float(v) => put(out, &v.to_ne_bytes()),
                ParamValue::Date(d) => put(out, &temporal::date_bytes(d)),
                ParamValue::Timestamp(t) if ts_text => {
                    scratch.clear();
                    format_timestamp(&mut scratch, t);
                    put(out, scratch.as_bytes())
                }
                ParamValue::Timestamp(t) => put(out, &temporal::timestamp_bytes(t)),
                ParamValue::Guid(g) if guid_text => {
                    scratch.clear();
                    guid::format_guid(&mut scratch, g);
                    put(out, scratch.as_bytes())
                }
                ParamValue::Guid(g) => put(out, &guid_bytes(g)),
                ParamValue::Time(h, m, s, _) if c_type == ffi::SQL_C_TYPE_TIME => {
                    put(out, &temporal::time_bytes(*h, *m, *s))
                }
                ParamValue::Time(h, m, s, us) => {
                    scratch.clear();
                    format_time(&mut scratch, *h, *m, *s, *us);
                    put(out, scratch.as_bytes())
                }
                ParamValue::Decimal { text, .. } => put(out, text.as_bytes()),
                ParamValue::Bytes(b) => put(out, b),
                ParamValue::Text(s) => match text {
                    TextEncoding::Utf8 => put(out, s.as_bytes()),
                    TextEncoding::Utf16 => text::put_utf16(out, s),
                },
            };
        }
        col.ind[i] = len as ffi::Len;
    }
    if let Some(k) = kind {
        // Sanity: split_runs guarantees one kind per column.
        if rows.iter().any(|r| r[c].kind().is_some_and(|x| x != k)) {
            return Err(Error::Programming(format!(
                "parameter {} mixes types within one batch",
                c + 1
            )));
        }
    }
    Ok(col)
}

/// A `SQLGUID` as the driver reads it.
#[inline]
fn guid_bytes(g: &ffi::SqlGuid) -> [u8; 16] {
    packed::<16>(&[
        &g.d1.to_ne_bytes(),
        &g.d2.to_ne_bytes(),
        &g.d3.to_ne_bytes(),
        &g.d4,
    ])
}

/// The fields of an ODBC date, timestamp or GUID struct in their native byte order, on the
/// stack (a `Vec` here was an allocation per value); those structs have no padding.
#[inline]
fn packed<const N: usize>(fields: &[&[u8]]) -> [u8; N] {
    let mut raw = [0u8; N];
    let mut at = 0;
    for f in fields {
        raw[at..at + f.len()].copy_from_slice(f);
        at += f.len();
    }
    raw
}

fn put(out: &mut [u8], bytes: &[u8]) -> usize {
    out[..bytes.len()].copy_from_slice(bytes);
    bytes.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    const UTF16: BindOptions = BindOptions {
        text: TextEncoding::Utf16,
        timestamp_as_text: false,
        time_as_varchar: false,
        refuse_misread_utf16: false,
        guid_as_text: false,
        temporal_as_varchar: false,
    };

    #[test]
    fn runs_split_on_kind_changes_but_not_on_nulls() {
        let rows = vec![
            vec![ParamValue::Int(1), ParamValue::Null],
            vec![ParamValue::Null, ParamValue::Text("a".into())],
            vec![ParamValue::Int(2), ParamValue::Text("b".into())],
            vec![ParamValue::Float(2.5), ParamValue::Text("c".into())],
            vec![ParamValue::Text("x".into()), ParamValue::Null],
        ];
        assert_eq!(split_runs(&rows, 100), vec![0..3, 3..4, 4..5]);
        assert_eq!(split_runs(&rows, 2), vec![0..2, 2..3, 3..4, 4..5]);
    }

    #[test]
    fn text_columns_size_to_the_longest_value() {
        let rows = vec![
            vec![ParamValue::Text("ab".into())],
            vec![ParamValue::Text("😀😀😀".into())],
            vec![ParamValue::Null],
        ];
        let b = ParamBatch::build(&rows, UTF16, &[]).unwrap();
        let col = &b.columns[0];
        assert_eq!(
            (col.c_type, col.sql_type, col.col_size),
            (ffi::SQL_C_WCHAR, ffi::SQL_WVARCHAR, 6)
        );
        assert_eq!(col.ind, vec![4, 12, ffi::SQL_NULL_DATA]);
    }

    #[test]
    fn times_where_the_driver_refuses_a_fraction() {
        let mariadb = BindOptions {
            time_as_varchar: true,
            ..UTF16
        };
        let whole = vec![
            vec![ParamValue::Time(12, 57, 18, 0)],
            vec![ParamValue::Null],
        ];
        let mut b = ParamBatch::build(&whole, mariadb, &[]).unwrap();
        let col = &mut b.columns[0];
        assert_eq!(
            (col.c_type, col.sql_type, col.elem),
            (ffi::SQL_C_TYPE_TIME, ffi::SQL_TYPE_TIME, 6)
        );
        assert_eq!(col.ind, vec![6, ffi::SQL_NULL_DATA]);
        let fields: Vec<u16> = col.bytes_mut()[..6]
            .chunks_exact(2)
            .map(|c| u16::from_ne_bytes([c[0], c[1]]))
            .collect();
        assert_eq!(fields, vec![12, 57, 18]);
        // One value with a fraction makes the column text, as do parameter arrays that bind
        // temporal values as text.
        let mixed = vec![whole[0].clone(), vec![ParamValue::Time(1, 2, 3, 456_789)]];
        let b = ParamBatch::build(&mixed, mariadb, &[]).unwrap();
        assert_eq!(
            (b.columns[0].c_type, b.columns[0].sql_type),
            (ffi::SQL_C_CHAR, ffi::SQL_VARCHAR)
        );
        let arrays = BindOptions {
            temporal_as_varchar: true,
            ..mariadb
        };
        let b = ParamBatch::build(&whole, arrays, &[]).unwrap();
        assert_eq!(b.columns[0].c_type, ffi::SQL_C_CHAR);
        // Other drivers: text described as a TIME, whole seconds or not.
        let b = ParamBatch::build(&whole, UTF16, &[]).unwrap();
        assert_eq!(
            (b.columns[0].c_type, b.columns[0].sql_type),
            (ffi::SQL_C_CHAR, ffi::SQL_TYPE_TIME)
        );
    }

    #[test]
    fn decimal_columns_take_widest_integer_part_and_scale() {
        let d = |t: &str, p, s| ParamValue::Decimal {
            text: t.into(),
            precision: p,
            scale: s,
        };
        let rows = vec![
            vec![d("-99999999999999.9999", 18, 4)],
            vec![d("1.5", 2, 1)],
            vec![d("123456", 6, 0)],
        ];
        let b = ParamBatch::build(&rows, UTF16, &[]).unwrap();
        assert_eq!((b.columns[0].col_size, b.columns[0].digits), (18, 4));
    }

    #[test]
    fn binary_nulls_bind_as_binary_and_win_over_the_description() {
        let described = Some((ffi::SQL_INTEGER, 10, 0));
        let rows = vec![vec![ParamValue::Null], vec![ParamValue::NullBinary]];
        let b = ParamBatch::build(&rows, UTF16, &[described]).unwrap();
        let col = &b.columns[0];
        assert_eq!(
            (col.c_type, col.sql_type),
            (ffi::SQL_C_BINARY, ffi::SQL_BINARY)
        );
        assert_eq!(col.ind, vec![ffi::SQL_NULL_DATA; 2]);
        let rows = vec![
            vec![ParamValue::NullBinary],
            vec![ParamValue::Bytes(vec![1, 2])],
        ];
        let b = ParamBatch::build(&rows, UTF16, &[]).unwrap();
        assert_eq!(b.columns[0].ind, vec![ffi::SQL_NULL_DATA, 2]);
    }

    #[test]
    fn temporal_values_go_as_varchar_text_when_asked() {
        let ts = ffi::SqlTimestamp {
            year: -32768,
            month: 12,
            day: 31,
            hour: 23,
            minute: 59,
            second: 59,
            fraction: 999_999_000,
        };
        let date = ffi::SqlDate {
            year: 7,
            month: 1,
            day: 2,
        };
        let rows = vec![
            vec![ParamValue::Date(date), ParamValue::Timestamp(ts)],
            vec![ParamValue::Null, ParamValue::Null],
        ];
        let opts = BindOptions {
            temporal_as_varchar: true,
            ..UTF16
        };
        let mut b = ParamBatch::build(&rows, opts, &[]).unwrap();
        let mut text = Vec::new();
        for col in &mut b.columns {
            assert_eq!(
                (col.c_type, col.sql_type),
                (ffi::SQL_C_CHAR, ffi::SQL_VARCHAR)
            );
            let len = col.ind[0] as usize;
            text.push(String::from_utf8(col.bytes_mut()[..len].to_vec()).unwrap());
            assert_eq!(col.ind[1], ffi::SQL_NULL_DATA);
        }
        assert_eq!(text, ["0007-01-02", "-32768-12-31 23:59:59.999999"]);
        // Native structs otherwise.
        let b = ParamBatch::build(&rows, UTF16, &[]).unwrap();
        assert_eq!(b.columns[0].c_type, ffi::SQL_C_TYPE_DATE);
        assert_eq!(b.columns[1].c_type, ffi::SQL_C_TYPE_TIMESTAMP);
    }
}
