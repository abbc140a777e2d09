//! PyO3 glue for fastodbc: Python classes, GIL release, error mapping and object conversion
//! over `fastodbc-core`.

mod cancel;
mod connection;
mod convert;
mod cursor;
mod errors;
mod flags;
mod info;
mod linked;
mod lock;
mod params;
mod row;
mod rows;
mod text;
mod traits;

use pyo3::prelude::*;

use errors::IntoPyResult;

/// The fetch path's text decoders, for the benchmark's instruments (`bench/pyext`, module
/// `fastodbc_bench`), which time exactly these.
pub use text::{str_from_utf16_bytes, str_from_utf8};

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

/// The exception class pyodbc's SQLSTATE table gives for `sqlstate`.
#[pyfunction]
fn exception_class_for_sqlstate(sqlstate: &str) -> &'static str {
    errors::class_for_sqlstate(sqlstate)
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<connection::Connection>()?;
    m.add_class::<cursor::Cursor>()?;
    m.add_class::<cursor::ArrowReader>()?;
    m.add_class::<cursor::IngestSource>()?;
    m.add_class::<cursor::IngestField>()?;
    m.add_class::<cursor::CreateColumn>()?;
    m.add_class::<cursor::IngestRequest>()?;
    m.add_class::<traits::DriverTraits>()?;
    m.add_class::<connection::TextDecoding>()?;
    m.add("Row", row::row_type(m.py())?)?;
    m.add_function(wrap_pyfunction!(drivers, m)?)?;
    m.add_function(wrap_pyfunction!(data_sources, m)?)?;
    m.add_function(wrap_pyfunction!(exception_class_for_sqlstate, m)?)?;
    m.add_function(wrap_pyfunction!(cursor::column_name_limit, m)?)?;
    m.add_function(wrap_pyfunction!(linked::link, m)?)?;
    Ok(())
}
