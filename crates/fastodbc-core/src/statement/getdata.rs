//! Values read with `SQLGetData`: whole values in chunks, values a bound buffer cut read again,
//! UTF-16 checked against its narrow length, and the text rows of small internal queries.

use super::Statement;
use crate::diagnostics::{check, DiagRecord, Error, Result};
use crate::driver::NarrowText;
use crate::ffi;
use crate::link::CallKind;
use crate::plan::ColumnPlan;

/// Chunk size of `SQLGetData` reads of long values; grows to the reported total when known.
const GETDATA_CHUNK: usize = 64 * 1024;

impl Statement {
    /// Every remaining row of the current result as text, one `SQLGetData` per value: for small
    /// internal queries (catalog look-ups), where describing and binding would cost more.
    pub fn text_rows(&mut self) -> Result<Vec<Vec<Option<String>>>> {
        self.on_link(CallKind::Query, Statement::driver_text_rows)
    }

    fn driver_text_rows(&mut self) -> Result<Vec<Vec<Option<String>>>> {
        self.drop_result();
        let n = self.num_result_cols()?;
        let mut calls = self.calls();
        if calls.rows.kept.is_some() {
            calls.unbind();
        }
        calls.set_array_size(1)?;
        let mut rows = Vec::new();
        loop {
            // SAFETY: valid handle; no columns are bound.
            let ret = unsafe { ffi::SQLFetch(calls.h) };
            if !calls.check(ret, "SQLFetch")? {
                return Ok(rows);
            }
            let mut row = Vec::with_capacity(n);
            for col in 0..n {
                let value = get_data(calls.h, col, ffi::SQL_C_WCHAR, calls.messages)?;
                row.push(value.map(|b| {
                    let units: Vec<u16> = b
                        .chunks_exact(2)
                        .map(|u| u16::from_ne_bytes([u[0], u[1]]))
                        .collect();
                    String::from_utf16_lossy(&units)
                }));
            }
            rows.push(row);
        }
    }
}

/// A variable-length value's indicator below `SQL_NULL_DATA` must be `SQL_NO_TOTAL` (a value
/// too long to measure); any other is no length at all, and would be read as one.
pub(super) fn check_indicator(ind: ffi::Len, plan: &ColumnPlan, row: usize) -> Result<()> {
    if ind < ffi::SQL_NULL_DATA && ind != ffi::SQL_NO_TOTAL {
        return Err(Error::Data(format!(
            "column {:?}, row {row} of the block: the driver reported a length of {ind} bytes",
            plan.desc.name
        )));
    }
    Ok(())
}

/// Reads again, whole, a value the driver truncated in its bound buffer, with the cursor on its
/// row (`reachable`: the driver allows `SQLGetData` there). Anything else is
/// `Error::Truncated`: a cut value is never returned.
pub(super) fn reread_truncated(
    h: ffi::Handle,
    reachable: bool,
    plan: &ColumnPlan,
    col: usize,
    row: usize,
    info: &mut Vec<DiagRecord>,
) -> Result<Vec<u8>> {
    let whole = if reachable {
        get_data(h, col, plan.c_type, info)
    } else {
        Ok(None)
    };
    match whole {
        Ok(Some(v)) => Ok(v),
        _ => Err(Error::Truncated {
            column: plan.desc.name.clone(),
            row,
        }),
    }
}

/// Reads a SQL_C_WCHAR value from a driver whose UTF-16 conversion may cut it
/// (`Strategy::check_wide_getdata`). The value's length in narrow bytes is asked first,
/// with a zero-length SQL_C_BINARY read (which leaves the value unread); the UTF-16 text must
/// take that many bytes in the narrow encoding, or the driver cut it: `Error::Data`, never the
/// cut text. Where the narrow encoding is not known, the text is returned unchecked.
pub(super) fn get_wide_checked(
    h: ffi::Handle,
    col: usize,
    narrow: NarrowText,
    plan: &ColumnPlan,
    info: &mut Vec<DiagRecord>,
) -> Result<Option<Vec<u8>>> {
    let mut probe = [0u8; 1];
    let mut narrow_len: ffi::Len = 0;
    // SAFETY: a zero-length read into a valid one-byte buffer; only the length is written.
    let ret = unsafe {
        ffi::SQLGetData(
            h,
            (col + 1) as u16,
            ffi::SQL_C_BINARY,
            probe.as_mut_ptr() as *mut _,
            0,
            &mut narrow_len,
        )
    };
    if ret != ffi::SQL_SUCCESS && ret != ffi::SQL_SUCCESS_WITH_INFO {
        check(ret, ffi::SQL_HANDLE_STMT, h, "SQLGetData", None)?;
    }
    if narrow_len == ffi::SQL_NULL_DATA {
        return Ok(None);
    }
    let Some(wide) = get_data(h, col, ffi::SQL_C_WCHAR, info)? else {
        return Ok(None);
    };
    let units = wide
        .chunks_exact(2)
        .map(|u| u16::from_ne_bytes([u[0], u[1]]));
    if let (Ok(stored), Some(converted)) = (usize::try_from(narrow_len), narrow.len_of_utf16(units))
    {
        if stored != converted {
            return Err(Error::Data(format!(
                "column {:?}: the driver's UTF-16 text covers {converted} of the value's \
                 {stored} bytes (its conversion stops at NUL and miscounts characters such as \
                 'Ø'); fetch the column as SQL_C_CHAR in the connection's encoding (setdecoding)",
                plan.desc.name
            )));
        }
    }
    Ok(Some(wide))
}

/// The largest read `get_data` asks for at once (more follows in further reads).
const MAX_GETDATA_CHUNK: usize = crate::budget::MemoryBudget::LONG_VALUE_PIECE;

/// Reads a whole value with `SQLGetData`, in chunks. `None` for NULL.
pub(super) fn get_data(
    h: ffi::Handle,
    col: usize,
    c_type: i16,
    info: &mut Vec<DiagRecord>,
) -> Result<Option<Vec<u8>>> {
    let terminator = match c_type {
        ffi::SQL_C_WCHAR => 2,
        ffi::SQL_C_CHAR => 1,
        _ => 0,
    };
    let mut out: Vec<u8> = Vec::new();
    let mut chunk = GETDATA_CHUNK;
    loop {
        let start = out.len();
        out.resize(start + chunk + terminator, 0);
        let mut ind: ffi::Len = 0;
        // SAFETY: the buffer tail is valid for the length passed.
        let ret = unsafe {
            ffi::SQLGetData(
                h,
                (col + 1) as u16,
                c_type,
                out.as_mut_ptr().add(start) as *mut _,
                (chunk + terminator) as ffi::Len,
                &mut ind,
            )
        };
        match ret {
            ffi::SQL_NO_DATA if start == 0 => {
                // An empty value is SQL_SUCCESS with length 0 first (every driver here);
                // SQL_NO_DATA first means the driver counts the value as read already
                // (MariaDB's after SQLSetPos), not that it is empty.
                return Err(Error::Data(format!(
                    "column {}: the driver returned SQL_NO_DATA for a value not read yet",
                    col + 1
                )));
            }
            ffi::SQL_NO_DATA => {
                out.truncate(start);
                return Ok(Some(out));
            }
            ffi::SQL_SUCCESS | ffi::SQL_SUCCESS_WITH_INFO => {
                if ind == ffi::SQL_NULL_DATA {
                    return Ok(None);
                }
                if ind < 0 && ind != ffi::SQL_NO_TOTAL {
                    return Err(Error::Data(format!(
                        "column {}: the driver reported a length of {ind} bytes",
                        col + 1
                    )));
                }
                let full = ind == ffi::SQL_NO_TOTAL || ind as usize > chunk;
                if ret == ffi::SQL_SUCCESS_WITH_INFO && full {
                    // 01004: this chunk is full; more follows. Size the next read from the
                    // total the driver reported, when it did, up to a bound: a total is the
                    // driver's word, and a wrong one must not become one huge allocation.
                    out.truncate(start + chunk);
                    chunk = if ind != ffi::SQL_NO_TOTAL {
                        (ind as usize - chunk).clamp(1, MAX_GETDATA_CHUNK)
                    } else {
                        chunk.saturating_mul(2).min(MAX_GETDATA_CHUNK)
                    };
                    continue;
                }
                if ret == ffi::SQL_SUCCESS_WITH_INFO {
                    info.extend(
                        crate::diagnostics::Diagnostics::read(ffi::SQL_HANDLE_STMT, h).records,
                    );
                }
                out.truncate(start + (ind as usize).min(chunk));
                return Ok(Some(out));
            }
            _ => {
                check(ret, ffi::SQL_HANDLE_STMT, h, "SQLGetData", None)?;
                return Ok(Some(out));
            }
        }
    }
}
