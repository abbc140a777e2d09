//! Building Python `str` objects straight from ODBC text buffers: the shape pass picks the
//! storage kind, `PyUnicode_New` allocates the final string, the write pass fills it. One
//! allocation per value, no intermediate object.

use fastodbc_pystr::{self as text, InvalidText, TextShape, TextStorage};

use pyo3::ffi;
use pyo3::prelude::*;

/// Allocates an uninitialised `str` of `shape` and lets `fill` write its characters into its
/// storage.
///
/// SAFETY (of the body): `PyUnicode_New` returns a compact string whose data area has exactly
/// `shape.chars` elements of the kind `max_char` selects (the storage of `shape`); `fill`
/// writes all of them before the object is handed to Python.
fn new_str<'py>(
    py: Python<'py>,
    shape: TextShape,
    fill: impl FnOnce(TextStorage<'_>),
) -> PyResult<Bound<'py, PyAny>> {
    unsafe {
        let obj = ffi::PyUnicode_New(shape.chars as ffi::Py_ssize_t, shape.kind.max_char());
        if obj.is_null() {
            return Err(PyErr::fetch(py));
        }
        if shape.chars > 0 {
            fill(TextStorage::from_raw(shape, ffi::PyUnicode_DATA(obj)));
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
    Ok(str_of_utf16_shape(py, units, shape))
}

/// `str` from UTF-16 code units whose shape is known (`utf16_shape(units)`; another shape
/// gives wrong characters, never a write out of bounds).
pub fn str_of_utf16_shape<'py>(
    py: Python<'py>,
    units: &[u16],
    shape: TextShape,
) -> PyResult<Bound<'py, PyAny>> {
    new_str(py, shape, |out| text::utf16_write(units, out))
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
    if let Some(units) = text::utf16_units(bytes) {
        str_from_utf16(py, units)
    } else {
        let units: Vec<u16> = bytes
            .chunks_exact(2)
            .map(|c| u16::from_le_bytes([c[0], c[1]]))
            .collect();
        str_from_utf16(py, &units)
    }
}

/// `str` from UTF-16LE bytes of a block whose shape is known (`PreparedRows::text_shape`, found
/// only for aligned values of even length); `None` for any other bytes.
pub fn str_of_utf16_bytes_shape<'py>(
    py: Python<'py>,
    bytes: &[u8],
    shape: TextShape,
) -> Option<PyResult<Bound<'py, PyAny>>> {
    Some(str_of_utf16_shape(py, text::utf16_units(bytes)?, shape))
}

/// `str` from UTF-8 bytes.
pub fn str_from_utf8<'py>(
    py: Python<'py>,
    bytes: &[u8],
) -> Result<PyResult<Bound<'py, PyAny>>, InvalidText> {
    let shape = text::utf8_shape(bytes)?;
    // SAFETY: `utf8_shape` found the shape of valid UTF-8.
    Ok(unsafe { str_of_utf8_shape(py, bytes, shape) })
}

/// `str` from UTF-8 bytes whose shape is known.
///
/// SAFETY: `shape` is what `utf8_shape(bytes)` returns (so `bytes` is valid UTF-8).
pub unsafe fn str_of_utf8_shape<'py>(
    py: Python<'py>,
    bytes: &[u8],
    shape: TextShape,
) -> PyResult<Bound<'py, PyAny>> {
    // SAFETY: valid UTF-8 (the caller's contract).
    let s = unsafe { std::str::from_utf8_unchecked(bytes) };
    new_str(py, shape, |out| text::utf8_write(s, shape.kind, out))
}
