//! Describe, then allocate: one `ColumnPlan` per result column, chosen once per result set from
//! the described SQL type. This module holds the fetch type table (SQL type -> value kind, C type,
//! buffer width); rows and Arrow output both consume blocks laid out by these plans.

use crate::ffi;
use crate::types::registry::{self, Carrier, Family};

/// The value a column yields, independent of the consumer (Python objects or Arrow arrays).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValueKind {
    Text,
    Binary,
    Bool,
    Int,
    Float,
    /// Exact numeric, fetched as its text form (no precision lost, any scale).
    Decimal,
    Date,
    /// Fetched as text: `SQL_C_TYPE_TIME` has no fractional seconds.
    Time,
    Timestamp,
    Guid,
}

/// How text of one SQL type family is requested from the driver.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TextCodec {
    /// `SQL_C_CHAR`, bytes are UTF-8.
    Utf8,
    /// `SQL_C_WCHAR`, UTF-16LE code units.
    Utf16,
    /// `SQL_C_CHAR` in another encoding, decoded by a named codec of the consumer.
    Narrow(String),
}

impl TextCodec {
    pub fn c_type(&self) -> i16 {
        match self {
            TextCodec::Utf16 => ffi::SQL_C_WCHAR,
            _ => ffi::SQL_C_CHAR,
        }
    }

    /// Bytes per character the buffer must allow for (worst case for the encoding).
    fn bytes_per_char(&self) -> usize {
        match self {
            // A supplementary character is one character to the database and two code units.
            TextCodec::Utf16 => 4,
            // Four bytes for a supplementary character.
            TextCodec::Utf8 => 4,
            TextCodec::Narrow(_) => 4,
        }
    }

    fn terminator(&self) -> usize {
        match self {
            TextCodec::Utf16 => 2,
            _ => 1,
        }
    }
}

/// Text decoding for character columns and wide character columns (pyodbc's
/// `setdecoding(SQL_CHAR | SQL_WCHAR, ...)`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decoding {
    pub char: TextCodec,
    pub wchar: TextCodec,
}

/// Column metadata from `SQLDescribeColW`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ColumnDescription {
    pub name: String,
    pub sql_type: i16,
    pub size: usize,
    pub digits: i16,
    pub nullable: bool,
}

/// The per-result-set decision for one column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ColumnPlan {
    pub desc: ColumnDescription,
    pub kind: ValueKind,
    pub c_type: i16,
    pub codec: Option<TextCodec>,
    /// Bytes per element of the bound buffer; 0 for streamed columns.
    pub elem_bytes: usize,
    /// Read with `SQLGetData` in chunks after the bound columns, never bound.
    pub streamed: bool,
    /// Bound, but values may be longer than the element (optimistic size for a long column,
    /// or a declared size that is no limit): needs truncation recovery.
    pub may_truncate: bool,
    /// A timestamp column holding instants, which the driver gives as the session zone's
    /// wall time (`Strategy::session_zone_sql`): Arrow turns them into UTC instants.
    pub zoned: bool,
}

/// Widest element bound to a buffer; wider or unbounded columns are streamed. Keeps one row of
/// a `varchar(4000)` UTF-8 column (16 KiB) bindable while `text`/`varchar(max)` stream.
pub const MAX_BOUND_ELEMENT: usize = 32 * 1024;

/// Characters bound for an unbounded text column when truncated values can be recovered.
pub const OPTIMISTIC_TEXT_CHARS: usize = 1024;
/// Room given to text columns of drivers whose declared sizes are not limits.
const UNRELIABLE_MIN_CHARS: usize = 255;

/// What the plan needs to know about the driver.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PlanOptions {
    /// Declared sizes are not limits (SQLite).
    pub sizes_unreliable: bool,
    /// A value truncated in a block can be re-read whole (SQLSetPos + SQLGetData).
    pub recoverable: bool,
    /// Integer and floating-point columns are fetched as their text
    /// (`Strategy::plan`, `Quirks::converts_numbers_silently`).
    pub numbers_as_text: bool,
    /// Integer columns are fetched as their text (`Quirks::integers_arrive_as_text`).
    pub integers_as_text: bool,
    /// Text fetched as SQL_C_WCHAR is read with `SQLGetData`, never bound
    /// (`Quirks::utf16_output_unreliable`).
    pub wide_text_via_getdata: bool,
    /// Text asked for as UTF-16 is fetched as UTF-8 (`Quirks::utf16_output_unreliable`, where the
    /// narrow text is UTF-8).
    pub wide_text_as_utf8: bool,
}

/// Bytes of a number column fetched as text: `-9223372036854775808` or a double with 15
/// significant digits (`-1.23456789012346e+308`, as SQLite writes one) and the terminator,
/// rounded up to the 8-byte stride. Longer values (text in a dynamically typed column) are
/// re-read whole like any text.
const NUMBER_TEXT_BYTES: usize = 24;

/// Upper bound on rows per block, whatever the budget allows.
pub const MAX_BLOCK_ROWS: usize = 4096;

impl ColumnPlan {
    /// The fetch type table: one entry per SQL type family.
    pub fn choose(desc: ColumnDescription, decoding: &Decoding) -> ColumnPlan {
        Self::choose_with(desc, decoding, PlanOptions::default())
    }

    /// As `choose`, for a driver described by `opts`. `desc` is kept as the driver reported it;
    /// only the buffer decision changes.
    pub fn choose_with(
        desc: ColumnDescription,
        decoding: &Decoding,
        opts: PlanOptions,
    ) -> ColumnPlan {
        let mut t = desc.sql_type;
        let mut size = desc.size;
        let text = registry::is_text(t);
        let binary = registry::is_binary(t);
        let unbounded =
            registry::is_long(t) || size == 0 || size.saturating_mul(4) > MAX_BOUND_ELEMENT;
        let mut may_truncate = false;
        if opts.recoverable && text && unbounded {
            may_truncate = true;
            // Bind long text columns too, with room for typical values: the few longer ones
            // are re-read whole (SQLSetPos + SQLGetData), and the block fetch is kept. Long
            // binary columns stream: their values are typically large, and reading each twice
            // cost psqlODBC 1.8x pyodbc's time on 64 KiB bytea values.
            t = match t {
                ffi::SQL_LONGVARCHAR => ffi::SQL_VARCHAR,
                ffi::SQL_WLONGVARCHAR => ffi::SQL_WVARCHAR,
                other => other,
            };
            size = OPTIMISTIC_TEXT_CHARS;
        } else if opts.sizes_unreliable && text {
            size = size.max(UNRELIABLE_MIN_CHARS);
            may_truncate = opts.recoverable;
        } else if opts.sizes_unreliable && binary {
            // A described binary size that is not a limit (SQLite's BLOB is BINARY(255)).
            t = ffi::SQL_LONGVARBINARY;
        }
        let utf8_for_utf16 = |c: &TextCodec| match c {
            TextCodec::Utf16 if opts.wide_text_as_utf8 => TextCodec::Utf8,
            other => other.clone(),
        };
        let text_in = |c: TextCodec, size: usize| {
            let elem = text_elem(&c, size);
            (Some(c.clone()), c.c_type(), elem)
        };
        // A driver that converts numbers silently (or sends integers as text) gives their
        // text, read as the number (`NUMBER_TEXT_BYTES`).
        let number_text = |family: Family| match family {
            Family::Integer => opts.numbers_as_text || opts.integers_as_text,
            Family::Float => opts.numbers_as_text,
            _ => false,
        };
        let (kind, long, (codec, c_type, elem)) = match registry::sql_type(t) {
            Some(st) if number_text(st.family) => {
                may_truncate = opts.recoverable;
                let number = (Some(TextCodec::Utf8), ffi::SQL_C_CHAR, NUMBER_TEXT_BYTES);
                (st.kind, false, number)
            }
            Some(st) => match st.carrier {
                Carrier::Text if st.wide => (
                    st.kind,
                    st.long,
                    text_in(utf8_for_utf16(&decoding.wchar), size),
                ),
                Carrier::Text => (
                    st.kind,
                    st.long,
                    text_in(utf8_for_utf16(&decoding.char), size),
                ),
                Carrier::Utf16 => (st.kind, true, (Some(TextCodec::Utf16), ffi::SQL_C_WCHAR, 0)),
                Carrier::Bytes => (st.kind, st.long, (None, ffi::SQL_C_BINARY, size)),
                Carrier::Fixed { c_type, bytes } => (st.kind, false, (None, c_type, bytes)),
                Carrier::TextForm { bytes } => (
                    st.kind,
                    false,
                    (
                        Some(TextCodec::Utf8),
                        ffi::SQL_C_CHAR,
                        (size + 4).max(bytes),
                    ),
                ),
            },
            // Anything else (intervals, time zones, driver-specific types): its text form.
            None => (
                ValueKind::Text,
                false,
                text_in(utf8_for_utf16(&decoding.wchar), size.max(64)),
            ),
        };
        let streamed = long
            || elem == 0
            || elem > MAX_BOUND_ELEMENT
            || (opts.wide_text_via_getdata
                && kind == ValueKind::Text
                && c_type == ffi::SQL_C_WCHAR);
        // Fixed-size C types are laid out at their own size (drivers ignore the buffer length
        // for them in column-wise arrays); variable ones get 8-byte strides.
        let fixed = !is_variable(c_type);
        ColumnPlan {
            desc,
            kind,
            c_type,
            codec,
            elem_bytes: if streamed {
                0
            } else if fixed {
                elem
            } else {
                round_up8(elem)
            },
            streamed,
            may_truncate: may_truncate && !streamed,
            zoned: false,
        }
    }
}

impl ColumnPlan {
    /// Values have a length of their own (text and binary C types): any of them may be longer
    /// than the element, and truncation must be checked.
    pub fn variable(&self) -> bool {
        is_variable(self.c_type)
    }

    /// An integer or floating-point column fetched as its text (`PlanOptions::numbers_as_text`,
    /// `integers_as_text`), in an element of `NUMBER_TEXT_BYTES`.
    pub fn number_text(&self) -> bool {
        matches!(self.kind, ValueKind::Int | ValueKind::Float) && self.codec.is_some()
    }
}

fn is_variable(c_type: i16) -> bool {
    matches!(
        c_type,
        ffi::SQL_C_CHAR | ffi::SQL_C_WCHAR | ffi::SQL_C_BINARY
    )
}

fn text_elem(codec: &TextCodec, chars: usize) -> usize {
    if chars == 0 {
        return 0;
    }
    chars
        .saturating_mul(codec.bytes_per_char())
        .saturating_add(codec.terminator())
}

/// Eight-byte strides keep every element aligned for the structs and `u16` text read from it.
fn round_up8(n: usize) -> usize {
    n.div_ceil(8) * 8
}

/// The plan of a whole result set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResultPlan {
    pub columns: Vec<ColumnPlan>,
    /// Columns `0..bound` are bound; the rest are read with `SQLGetData` (ODBC allows
    /// `SQLGetData` only after the last bound column).
    pub bound: usize,
    /// Rows per block handed to the consumer.
    pub block_rows: usize,
    /// The driver fetches one row at a time (streamed columns, or truncated values that can
    /// only be re-read on the current row); the block is assembled from those rows.
    pub row_at_a_time: bool,
}

/// Bytes counted per streamed value when sizing blocks (the values themselves are bounded by
/// the block budget as they arrive).
const STREAMED_ESTIMATE: usize = 256;

impl ResultPlan {
    pub fn new(columns: Vec<ColumnPlan>, block_bytes: usize) -> ResultPlan {
        let bound = columns
            .iter()
            .position(|c| c.streamed)
            .unwrap_or(columns.len());
        let row_bytes: usize = columns[..bound]
            .iter()
            .map(|c| c.elem_bytes + std::mem::size_of::<isize>())
            .sum::<usize>()
            + (columns.len() - bound) * STREAMED_ESTIMATE;
        ResultPlan {
            block_rows: (block_bytes / row_bytes.max(1)).clamp(1, MAX_BLOCK_ROWS),
            row_at_a_time: bound < columns.len(),
            columns,
            bound,
        }
    }
}

#[cfg(test)]
mod tests;
