//! GUIDs to Python: `uuid.UUID` (`native_uuid`), else their text as pyodbc gives it.

use fastodbc_core::types::guid;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyString};

use super::{invalid, py_types};

/// The 16 bytes of a `SQLGUID`, or the error naming the column.
fn raw<'b>(py: Python<'_>, b: &'b [u8], column: &str) -> PyResult<&'b [u8]> {
    if b.len() < 16 {
        return Err(invalid(py, column, "GUID", b));
    }
    Ok(b)
}

pub(super) fn uuid(py: Python<'_>, b: &[u8], column: &str) -> PyResult<PyObject> {
    let bytes = guid::guid_to_rfc_bytes(raw(py, b, column)?);
    let kwargs = PyDict::new(py);
    kwargs.set_item("bytes", PyBytes::new(py, &bytes))?;
    Ok(py_types(py)?
        .uuid()
        .bind(py)
        .call((), Some(&kwargs))?
        .unbind())
}

pub(super) fn text(py: Python<'_>, b: &[u8], column: &str) -> PyResult<PyObject> {
    let text = guid::guid_text(&guid::guid_to_rfc_bytes(raw(py, b, column)?));
    // The text is ASCII hex digits and dashes.
    let s = std::str::from_utf8(&text).map_err(|_| invalid(py, column, "GUID", b))?;
    Ok(PyString::new(py, s).into_any().unbind())
}
