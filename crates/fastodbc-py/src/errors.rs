//! Core errors to DB-API exceptions. The classes live in `fastodbc.errors` (Python), so users
//! can subclass-check and pickle them like any Python exception; `args` are
//! `(sqlstate, message)` as in pyodbc.

use fastodbc_core::Error;
use pyo3::prelude::*;
use pyo3::sync::GILOnceCell;
use pyo3::types::PyModule;

static ERRORS: GILOnceCell<Py<PyModule>> = GILOnceCell::new();

/// The exception class a SQLSTATE implies (pyodbc's table, by class then by exact state).
pub fn class_for_sqlstate(state: &str) -> &'static str {
    match state {
        "0A000" => "NotSupportedError",
        "01002" | "08001" | "08003" | "08004" | "08007" | "08S01" | "HY001" | "HY014" | "HYT00"
        | "HYT01" | "HY008" => "OperationalError",
        "40002" => "IntegrityError",
        "28000" => "InterfaceError",
        _ => match state.get(..2).unwrap_or("") {
            "08" | "40" | "57" | "53" | "HYT" => "OperationalError",
            "22" => "DataError",
            "23" => "IntegrityError",
            "24" | "25" | "42" | "3D" | "3F" | "34" => "ProgrammingError",
            "IM" => "InterfaceError",
            "HY" if state == "HY000" => "DatabaseError",
            "XX" => "InternalError",
            _ => "DatabaseError",
        },
    }
}

/// A connect that failed because the server could not be reached, reported by a MySQL-family
/// client library (MariaDB Connector/ODBC 3.1) as HY000 with its client error 2002
/// (CR_CONNECTION_ERROR), 2003 (CR_CONN_HOST_ERROR) or 2005 (CR_UNKNOWN_HOST): the driver maps
/// only a connection lost later (2006, 2013) to 08S01. Raised as what it is, 08001.
fn unreachable_server(e: &Error) -> bool {
    matches!(e, Error::Odbc { diagnostics, function: "SQLDriverConnectW" }
        if diagnostics.sqlstate() == "HY000"
            && diagnostics.records.iter().any(|r| matches!(r.native, 2002 | 2003 | 2005)))
}

fn class_name(e: &Error) -> &'static str {
    match e {
        _ if unreachable_server(e) => "OperationalError",
        // A connect that fails with only a warning-class record (the driver manager's "can't
        // open lib") is an interface problem.
        Error::Odbc {
            diagnostics,
            function: "SQLDriverConnectW",
        } if diagnostics.sqlstate().starts_with("01") => "InterfaceError",
        Error::Odbc { diagnostics, .. } => class_for_sqlstate(diagnostics.sqlstate()),
        Error::Truncated { .. } | Error::Decode { .. } | Error::Data(_) => "DataError",
        Error::Programming(_) => "ProgrammingError",
        Error::NotSupported(_) => "NotSupportedError",
        Error::Interface(_) => "InterfaceError",
    }
}

fn errors_module(py: Python<'_>) -> PyResult<&Bound<'_, PyModule>> {
    ERRORS
        .get_or_try_init(py, || {
            Ok::<_, PyErr>(PyModule::import(py, "fastodbc.errors")?.unbind())
        })
        .map(|m| m.bind(py))
}

/// Builds the DB-API exception named `class` with pyodbc's `(sqlstate, message)` args.
pub fn db_error(py: Python<'_>, class: &str, sqlstate: &str, message: String) -> PyErr {
    match errors_module(py).and_then(|m| m.getattr(class)) {
        Ok(cls) => match cls.call1((sqlstate, message)) {
            Ok(inst) => PyErr::from_value(inst),
            Err(e) => e,
        },
        Err(e) => e,
    }
}

pub fn to_py(py: Python<'_>, e: Error) -> PyErr {
    let sqlstate = if unreachable_server(&e) {
        "08001"
    } else {
        e.sqlstate()
    };
    db_error(py, class_name(&e), sqlstate, e.to_string())
}

pub fn programming(py: Python<'_>, message: impl Into<String>) -> PyErr {
    db_error(py, "ProgrammingError", "HY000", message.into())
}

pub fn data_error(py: Python<'_>, sqlstate: &str, message: impl Into<String>) -> PyErr {
    db_error(py, "DataError", sqlstate, message.into())
}

/// `Result<T, core::Error>` to `PyResult<T>`.
pub trait IntoPyResult<T> {
    fn py(self, py: Python<'_>) -> PyResult<T>;
}

impl<T> IntoPyResult<T> for fastodbc_core::Result<T> {
    fn py(self, py: Python<'_>) -> PyResult<T> {
        self.map_err(|e| to_py(py, e))
    }
}
