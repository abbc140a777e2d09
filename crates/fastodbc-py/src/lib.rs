//! PyO3 glue for fastodbc: Python classes, GIL release, error mapping and object conversion
//! over `fastodbc-core`.

mod connection;
mod convert;
mod cursor;
mod errors;
mod info;
mod params;
mod row;
mod text;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use errors::IntoPyResult;

/// Names and attribute strings of the installed ODBC drivers.
#[pyfunction]
fn drivers(py: Python<'_>) -> PyResult<Vec<String>> {
    let list = py
        .allow_threads(|| fastodbc_core::connection::list_names(false))
        .py(py)?;
    Ok(list.into_iter().map(|(name, _)| name).collect())
}

/// Data source names mapped to their driver descriptions.
#[pyfunction]
fn data_sources(py: Python<'_>) -> PyResult<Vec<(String, String)>> {
    py.allow_threads(|| fastodbc_core::connection::list_names(true))
        .py(py)
}

/// The UTF-16 decoder the fetch path uses, for tests and benchmarks.
#[pyfunction]
fn decode_utf16le<'py>(py: Python<'py>, data: &Bound<'py, PyBytes>) -> PyResult<Bound<'py, PyAny>> {
    match text::str_from_utf16_bytes(py, data.as_bytes()) {
        Ok(s) => s,
        Err(e) => Err(PyValueError::new_err(format!(
            "invalid UTF-16 at byte {}",
            e.offset
        ))),
    }
}

/// The UTF-8 decoder the fetch path uses, for tests and benchmarks.
#[pyfunction]
fn decode_utf8<'py>(py: Python<'py>, data: &Bound<'py, PyBytes>) -> PyResult<Bound<'py, PyAny>> {
    match text::str_from_utf8(py, data.as_bytes()) {
        Ok(s) => s,
        Err(e) => Err(PyValueError::new_err(format!(
            "invalid UTF-8 at byte {}",
            e.offset
        ))),
    }
}

/// The exception class pyodbc's SQLSTATE table gives for `sqlstate`.
#[pyfunction]
fn exception_class_for_sqlstate(sqlstate: &str) -> &'static str {
    errors::class_for_sqlstate(sqlstate)
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<connection::Connection>()?;
    m.add_class::<cursor::Cursor>()?;
    m.add_class::<row::Row>()?;
    m.add_function(wrap_pyfunction!(drivers, m)?)?;
    m.add_function(wrap_pyfunction!(data_sources, m)?)?;
    m.add_function(wrap_pyfunction!(decode_utf16le, m)?)?;
    m.add_function(wrap_pyfunction!(decode_utf8, m)?)?;
    m.add_function(wrap_pyfunction!(exception_class_for_sqlstate, m)?)?;
    Ok(())
}
