//! PyO3 glue for fastodbc: Python classes, GIL release, error mapping and object conversion
//! over `fastodbc-core`.

mod budget;
mod cancel;
mod connection;
mod convert;
mod cursor;
mod errors;
mod flags;
mod gil_turns;
mod info;
mod linked;
mod lock;
mod params;
mod row;
mod rows;
mod text;
mod traits;

use pyo3::prelude::*;

use pyo3::types::PyString;

use errors::IntoPyResult;

/// Built for a free-threaded CPython (3.13t): no GIL orders threads, so the row type keeps
/// replaced values alive and no thread yields the GIL to another (`row.rs`, `gil_turns.rs`).
/// A constant rather than `cfg` attributes, so both builds compile and lint every branch.
pub(crate) const FREE_THREADED: bool = cfg!(Py_GIL_DISABLED);

/// The fetch path's text decoders, for the benchmark's instruments (`bench/pyext`, module
/// `fastodbc_bench`), which time exactly these.
pub use text::{str_from_utf16_bytes, str_from_utf8};

/// Names and attribute strings of the installed ODBC drivers.
#[pyfunction]
fn drivers(py: Python<'_>) -> PyResult<Vec<String>> {
    let list = gil_turns::detached(py, || fastodbc_core::connection::list_names(false)).py(py)?;
    Ok(list.into_iter().map(|(name, _)| name).collect())
}

/// Data source names mapped to their driver descriptions.
#[pyfunction]
fn data_sources(py: Python<'_>) -> PyResult<Vec<(String, String)>> {
    gil_turns::detached(py, || fastodbc_core::connection::list_names(true)).py(py)
}

/// The standard DDL name of each SQL type that has one (the type registry's), for a created
/// table where the driver lists no type.
#[pyfunction]
fn standard_type_names() -> std::collections::HashMap<i16, &'static str> {
    fastodbc_core::types::registry::standard_names().collect()
}

/// The exception class pyodbc's SQLSTATE table gives for `sqlstate`.
#[pyfunction]
fn exception_class_for_sqlstate(sqlstate: &str) -> &'static str {
    errors::class_for_sqlstate(sqlstate)
}

/// The attributes of connection string `text` in order, as the driver manager reads them:
/// (key as written, trimmed; value as written, braces and doubled `}}` kept).
#[pyfunction]
fn connstr_attributes(text: &str) -> Vec<(String, String)> {
    fastodbc_core::connstr::attributes(text)
        .into_iter()
        .map(|a| (a.key.to_owned(), a.raw.to_owned()))
        .collect()
}

/// `value` written as a connection-string attribute value (`connstr::escape_value`).
#[pyfunction]
fn connstr_escape<'py>(value: &Bound<'py, PyString>) -> PyResult<Bound<'py, PyString>> {
    let py = value.py();
    match value.to_str() {
        Ok(text) => Ok(PyString::new(
            py,
            &fastodbc_core::connstr::escape_value(text),
        )),
        // A lone surrogate (refused later by `connstr.check_encodable`, which names only its
        // position: no UnicodeEncodeError holding a password) is no separator, brace or space,
        // so its U+FFFD stand-in decides alike; Python's own `replace` keeps the surrogate.
        Err(_) => {
            if !fastodbc_core::connstr::needs_braces(&value.to_string_lossy()) {
                return Ok(value.clone());
            }
            let doubled = value.call_method1("replace", ("}", "}}"))?;
            Ok(PyString::new(py, "{")
                .add(doubled)?
                .add("}")?
                .downcast_into::<PyString>()?)
        }
    }
}

// Free-threading safe: every pyclass is `Sync` (PyO3 checks it) and the raw C-API code of
// `row.rs` is safe without a GIL (docs/free-threading.md); importing fastodbc leaves a
// free-threaded interpreter's GIL off.
#[pymodule(gil_used = false)]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<connection::Connection>()?;
    m.add_class::<cursor::Cursor>()?;
    m.add_class::<cursor::ArrowReader>()?;
    m.add_class::<cursor::ColumnNameLimit>()?;
    m.add_class::<cursor::IngestSource>()?;
    m.add_class::<budget::MemoryBudget>()?;
    m.add_class::<cursor::IngestField>()?;
    m.add_class::<cursor::CreateColumn>()?;
    m.add_class::<cursor::IngestRequest>()?;
    m.add_class::<traits::DriverTraits>()?;
    m.add_class::<connection::TextDecoding>()?;
    m.add("Row", row::row_type(m.py())?)?;
    m.add_function(wrap_pyfunction!(drivers, m)?)?;
    m.add_function(wrap_pyfunction!(data_sources, m)?)?;
    m.add_function(wrap_pyfunction!(exception_class_for_sqlstate, m)?)?;
    m.add_function(wrap_pyfunction!(standard_type_names, m)?)?;
    m.add_function(wrap_pyfunction!(cursor::column_name_limit, m)?)?;
    m.add_function(wrap_pyfunction!(connstr_attributes, m)?)?;
    m.add_function(wrap_pyfunction!(connstr_escape, m)?)?;
    m.add_function(wrap_pyfunction!(linked::link, m)?)?;
    // The one list of secret attribute names; `fastodbc.secret_attributes` starts from it.
    m.add(
        "SECRET_ATTRIBUTES",
        pyo3::types::PyTuple::new(m.py(), fastodbc_core::connstr::SECRET_ATTRIBUTES)?,
    )?;
    Ok(())
}
