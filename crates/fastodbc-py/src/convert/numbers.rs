//! Numbers to Python: integers (bound as 64-bit, unsigned where the column is, or read from
//! their text), floats, and exact numerics as `decimal.Decimal` from their text.

use fastodbc_core::types::numeric::{int_of_width, NumberText};
use pyo3::prelude::*;
use pyo3::types::PyFloat;

use super::{decode_error, invalid, py_types};
use crate::text;

#[inline]
pub(super) fn int(py: Python<'_>, b: &[u8], column: &str) -> PyResult<PyObject> {
    let v = int_of_width(b).ok_or_else(|| invalid(py, column, "integer", b))?;
    Ok(v.into_pyobject(py)?.into_any().unbind())
}

#[inline]
pub(super) fn uint(py: Python<'_>, b: &[u8], column: &str) -> PyResult<PyObject> {
    let v = b.first_chunk::<8>().map(|w| u64::from_ne_bytes(*w));
    let v = v.ok_or_else(|| invalid(py, column, "integer", b))?;
    Ok(v.into_pyobject(py)?.into_any().unbind())
}

#[inline]
pub(super) fn float(py: Python<'_>, b: &[u8], column: &str) -> PyResult<PyObject> {
    let v = match b.len() {
        4 => f32::from_ne_bytes(b.try_into().map_err(|_| invalid(py, column, "real", b))?) as f64,
        _ => f64::from_ne_bytes(b.try_into().map_err(|_| invalid(py, column, "double", b))?),
    };
    Ok(PyFloat::new(py, v).into_any().unbind())
}

pub(super) fn decimal(py: Python<'_>, b: &[u8], column: &str) -> PyResult<PyObject> {
    let s = std::str::from_utf8(b).map_err(|_| invalid(py, column, "decimal", b))?;
    // Some drivers pad or use a comma in locales; Decimal() rejects anything odd.
    let s = s.trim();
    Ok(py_types(py)?.decimal().bind(py).call1((s,))?.unbind())
}

/// A number column's value read from its text: the number, or the text itself.
#[inline]
pub(super) fn number_object(
    py: Python<'_>,
    n: NumberText,
    b: &[u8],
    column: &str,
) -> PyResult<PyObject> {
    Ok(match n {
        NumberText::Int(v) => v.into_pyobject(py)?.into_any().unbind(),
        NumberText::Float(v) => PyFloat::new(py, v).into_any().unbind(),
        NumberText::Text => match text::str_from_utf8(py, b) {
            Ok(s) => s?.unbind(),
            Err(e) => return Err(decode_error(py, column, "UTF-8", e.offset)),
        },
    })
}
