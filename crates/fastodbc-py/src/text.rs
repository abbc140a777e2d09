//! Building Python `str` objects straight from ODBC text buffers: the shape pass picks the
//! storage kind, `PyUnicode_New` allocates the final string, the write pass fills it. One
//! allocation per value, no intermediate object.

use fastodbc_core::types::text::{self, InvalidText, TextKind, TextShape};
use pyo3::ffi;
use pyo3::prelude::*;

/// Allocates an uninitialised `str` of `shape` and lets `fill` write its characters.
///
/// SAFETY (of the body): `PyUnicode_New` returns a compact string whose data area has exactly
/// `shape.chars` elements of the kind `max_char` selects; `fill` writes all of them before the
/// object is handed to Python.
fn new_str<'py>(
    py: Python<'py>,
    shape: TextShape,
    fill: impl FnOnce(*mut std::ffi::c_void),
) -> PyResult<Bound<'py, PyAny>> {
    unsafe {
        let obj = ffi::PyUnicode_New(shape.chars as ffi::Py_ssize_t, shape.kind.max_char());
        if obj.is_null() {
            return Err(PyErr::fetch(py));
        }
        if shape.chars > 0 {
            fill(ffi::PyUnicode_DATA(obj));
        }
        Ok(Bound::from_owned_ptr(py, obj))
    }
}

/// `str` from UTF-16 code units.
pub fn str_from_utf16<'py>(
    py: Python<'py>,
    units: &[u16],
) -> Result<PyResult<Bound<'py, PyAny>>, InvalidText> {
    let shape = text::utf16_shape(units)?;
    Ok(new_str(py, shape, |data| {
        let n = shape.chars;
        // SAFETY: `data` has `n` elements of the selected kind (see `new_str`).
        unsafe {
            match shape.kind {
                TextKind::Ascii | TextKind::Latin1 => text::utf16_write_ucs1(
                    units,
                    std::slice::from_raw_parts_mut(data as *mut u8, n),
                ),
                TextKind::Ucs2 => text::utf16_write_ucs2(
                    units,
                    std::slice::from_raw_parts_mut(data as *mut u16, n),
                ),
                TextKind::Ucs4 => text::utf16_write_ucs4(
                    units,
                    std::slice::from_raw_parts_mut(data as *mut u32, n),
                ),
            }
        }
    }))
}

/// `str` from UTF-16LE bytes of an ODBC buffer (aligned in bound blocks; copied if not).
pub fn str_from_utf16_bytes<'py>(
    py: Python<'py>,
    bytes: &[u8],
) -> Result<PyResult<Bound<'py, PyAny>>, InvalidText> {
    if !bytes.len().is_multiple_of(2) {
        return Err(InvalidText {
            offset: bytes.len() - 1,
        });
    }
    if (bytes.as_ptr() as usize).is_multiple_of(2) {
        // SAFETY: aligned, length even, and u16 has no invalid bit patterns.
        let units =
            unsafe { std::slice::from_raw_parts(bytes.as_ptr() as *const u16, bytes.len() / 2) };
        str_from_utf16(py, units)
    } else {
        let units: Vec<u16> = bytes
            .chunks_exact(2)
            .map(|c| u16::from_le_bytes([c[0], c[1]]))
            .collect();
        str_from_utf16(py, &units)
    }
}

/// `str` from UTF-8 bytes.
pub fn str_from_utf8<'py>(
    py: Python<'py>,
    bytes: &[u8],
) -> Result<PyResult<Bound<'py, PyAny>>, InvalidText> {
    let shape = text::utf8_shape(bytes)?;
    Ok(new_str(py, shape, |data| {
        let n = shape.chars;
        // SAFETY: `data` has `n` elements of the selected kind; `bytes` was validated.
        unsafe {
            match shape.kind {
                TextKind::Ascii | TextKind::Latin1 => text::utf8_write_ucs1(
                    bytes,
                    shape.kind,
                    std::slice::from_raw_parts_mut(data as *mut u8, n),
                ),
                TextKind::Ucs2 => text::utf8_write_wide::<u16>(
                    std::str::from_utf8_unchecked(bytes),
                    std::slice::from_raw_parts_mut(data as *mut u16, n),
                ),
                TextKind::Ucs4 => text::utf8_write_wide::<u32>(
                    std::str::from_utf8_unchecked(bytes),
                    std::slice::from_raw_parts_mut(data as *mut u32, n),
                ),
            }
        }
    }))
}
