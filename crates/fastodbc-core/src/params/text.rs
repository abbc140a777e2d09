//! Text and bytes as parameters: bound as wide as the column's longest value (the long types
//! past `LONG_PARAM`), text in the connection's encoding; characters a driver would misread
//! in UTF-16 refused before it is called.

use super::{BindOptions, Binding, ParamValue, TextEncoding, LONG_PARAM};
use crate::diagnostics::{Error, Result};
use crate::ffi;
use crate::statement::overread_unit;

pub(super) fn text_binding(
    rows: &[Vec<ParamValue>],
    c: usize,
    opts: BindOptions,
) -> Result<Binding> {
    let text = opts.text;
    let mut longest_units = 0usize;
    let mut longest_bytes = 0usize;
    for r in rows {
        if let ParamValue::Text(s) = &r[c] {
            longest_bytes = longest_bytes.max(s.len());
            // Characters and UTF-16 units never outnumber UTF-8 bytes: a value no longer in
            // bytes than the longest so far can't be longer in either.
            if s.len() <= longest_units {
                continue;
            }
            if text == TextEncoding::Utf16 {
                longest_units = longest_units.max(s.encode_utf16().count());
            } else {
                longest_units = longest_units.max(s.chars().count());
            }
        }
    }
    if opts.refuse_misread_utf16 {
        refuse_misread_utf16(rows, c)?;
    }
    let size = longest_units.max(1);
    let long = size > LONG_PARAM;
    Ok(match text {
        TextEncoding::Utf16 => (
            ffi::SQL_C_WCHAR,
            if long {
                ffi::SQL_WLONGVARCHAR
            } else {
                ffi::SQL_WVARCHAR
            },
            size,
            0,
            (size + 1) * 2,
        ),
        TextEncoding::Utf8 => (
            ffi::SQL_C_CHAR,
            if long {
                ffi::SQL_LONGVARCHAR
            } else {
                ffi::SQL_VARCHAR
            },
            size,
            0,
            longest_bytes + 1,
        ),
    })
}

/// The first character of the column that the driver would misread in UTF-16 text, as an
/// error naming the parameter and row (`Strategy::refuse_misread_utf16`).
fn refuse_misread_utf16(rows: &[Vec<ParamValue>], c: usize) -> Result<()> {
    for (i, r) in rows.iter().enumerate() {
        if let ParamValue::Text(s) = &r[c] {
            if let Some(ch) = s.chars().find(|ch| {
                let mut units = [0u16; 2];
                ch.encode_utf16(&mut units)
                    .iter()
                    .any(|&u| overread_unit(u))
            }) {
                return Err(Error::Data(format!(
                    "parameter {} (row {}): the driver would misread {ch:?} (U+{:04X}) in \
                     UTF-16 text and store characters past the string's end; send it as UTF-8 \
                     (setencoding(encoding='utf-8')) over a UTF-8 connection",
                    c + 1,
                    i + 1,
                    ch as u32
                )));
            }
        }
    }
    Ok(())
}

pub(super) fn bytes_binding(rows: &[Vec<ParamValue>], c: usize) -> Binding {
    let longest = rows
        .iter()
        .map(|r| match &r[c] {
            ParamValue::Bytes(b) => b.len(),
            _ => 0,
        })
        .max()
        .unwrap_or(0)
        .max(1);
    let t = if longest > LONG_PARAM * 2 {
        ffi::SQL_LONGVARBINARY
    } else {
        ffi::SQL_VARBINARY
    };
    (ffi::SQL_C_BINARY, t, longest, 0, longest)
}

/// Writes `s` into `out` as UTF-16LE; returns the bytes written.
#[inline]
pub(super) fn put_utf16(out: &mut [u8], s: &str) -> usize {
    let mut k = 0usize;
    for u in s.encode_utf16() {
        out[k..k + 2].copy_from_slice(&u.to_le_bytes());
        k += 2;
    }
    k
}
