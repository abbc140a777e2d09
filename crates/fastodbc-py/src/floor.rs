//! The benchmark's Python object floor (`bench/`, issue 3): what CPython itself needs to build a
//! result's rows, with no database and no ODBC. A fetch of `int10` cannot cost less than the
//! driver's own time (odbc-floor) plus this.

use pyo3::exceptions::PyValueError;
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList};

/// `int_rows(data, ncols)`: the rows held in `data` (little-endian int64s, `ncols` a row) as a
/// list of tuples of ints, built with nothing but the work any client returning them must do:
/// one `PyLong_FromLongLong` a value, one tuple a row (left out of the cyclic GC, as fastodbc's
/// rows are), one pre-sized list. `bench/worker.py` times it in a fresh process, so it also
/// pays the new heap's page faults, as a client does.
#[pyfunction]
pub fn int_rows<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyBytes>,
    ncols: usize,
) -> PyResult<Bound<'py, PyList>> {
    let bytes = data.as_bytes();
    let row_bytes = ncols.saturating_mul(8);
    if ncols == 0 || !bytes.len().is_multiple_of(row_bytes) {
        return Err(PyValueError::new_err(
            "data must hold whole rows of ncols 8-byte integers",
        ));
    }
    let nrows = bytes.len() / row_bytes;
    // SAFETY: every pointer comes from a CPython constructor checked for NULL; each slot of the
    // new list and tuples is set exactly once (SET_ITEM steals the reference), and a list or
    // tuple freed part-filled skips its NULL slots.
    unsafe {
        let list = Bound::from_owned_ptr_or_err(py, ffi::PyList_New(nrows as ffi::Py_ssize_t))?;
        for (r, row) in bytes.chunks_exact(row_bytes).enumerate() {
            let tuple =
                Bound::from_owned_ptr_or_err(py, ffi::PyTuple_New(ncols as ffi::Py_ssize_t))?;
            ffi::PyObject_GC_UnTrack(tuple.as_ptr().cast());
            for (c, value) in row.chunks_exact(8).enumerate() {
                let mut le = [0u8; 8];
                le.copy_from_slice(value);
                let int = ffi::PyLong_FromLongLong(i64::from_le_bytes(le));
                if int.is_null() {
                    return Err(PyErr::fetch(py));
                }
                ffi::PyTuple_SET_ITEM(tuple.as_ptr(), c as ffi::Py_ssize_t, int);
            }
            ffi::PyList_SET_ITEM(list.as_ptr(), r as ffi::Py_ssize_t, tuple.into_ptr());
        }
        Ok(list.downcast_into_unchecked())
    }
}
