//! Core errors to DB-API exceptions. The classes live in `fastodbc.errors` (Python), so users
//! can subclass-check and pickle them like any Python exception; `args` are
//! `(sqlstate, message)` as in pyodbc. The package hands the module over (`linked`).

use fastodbc_core::Error;
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;

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

/// Failures a MySQL-family client library (MariaDB Connector/ODBC 3.1) reports under a
/// SQLSTATE that hides what happened, told apart by its native error: (the driver's SQLSTATE,
/// native errors, the SQLSTATE raised). Both are OperationalError. (A server the driver cannot
/// reach, HY000 with 2002 / 2003 / 2005, is a connect that failed with a general error: 08001
/// for every driver, `ConnectionFailure::NotConnected`.)
const MYSQL_RESTATED: &[(&str, &[i32], &str)] = &[
    // ER_QUERY_INTERRUPTED: cancel() or KILL QUERY (the server's 70100, which the driver
    // calls "Server declined cancel request").
    ("HY018", &[1317], "HY008"),
    // ER_STATEMENT_TIMEOUT: the server's max_statement_time expired.
    ("HY018", &[1969], "HYT00"),
];

/// The SQLSTATE to raise instead of the driver's, for the failures of `MYSQL_RESTATED`.
fn restated(e: &Error) -> Option<&'static str> {
    let Error::Odbc { diagnostics, .. } = e else {
        return None;
    };
    let state = diagnostics.sqlstate();
    MYSQL_RESTATED.iter().find_map(|(from, natives, to)| {
        (state == *from
            && diagnostics
                .records
                .iter()
                .any(|r| natives.contains(&r.native)))
        .then_some(*to)
    })
}

fn class_name(e: &Error) -> &'static str {
    match e {
        _ if restated(e).is_some() => "OperationalError",
        // A connect that fails with only a warning-class record (the driver manager's "can't
        // open lib") is an interface problem.
        Error::Odbc {
            diagnostics,
            function: "SQLDriverConnectW",
        } if diagnostics.sqlstate().starts_with("01") => "InterfaceError",
        // Code that retries on a lost connection catches OperationalError, whatever the driver
        // called the failure.
        Error::Odbc { diagnostics, .. } if diagnostics.connection_lost() => "OperationalError",
        Error::Odbc { diagnostics, .. } => class_for_sqlstate(diagnostics.sqlstate()),
        // A value refused before it was sent: 22xxx DataError, 23000 (NULL into NOT NULL)
        // IntegrityError.
        Error::Value { sqlstate, .. } => class_for_sqlstate(sqlstate),
        Error::Truncated { .. } | Error::Decode { .. } | Error::Data(_) => "DataError",
        Error::Programming(_) => "ProgrammingError",
        Error::NotSupported(_) => "NotSupportedError",
        Error::Interface(_) => "InterfaceError",
    }
}

/// Builds the DB-API exception named `class` with pyodbc's `(sqlstate, message)` args, any
/// registered secret redacted from the message (`fastodbc_core::redact`).
pub fn db_error(py: Python<'_>, class: &str, sqlstate: &str, message: String) -> PyErr {
    let message = match fastodbc_core::redact::redact(&message) {
        std::borrow::Cow::Borrowed(_) => message,
        std::borrow::Cow::Owned(redacted) => redacted,
    };
    // `_native` used without the package (a test loading it alone): no DB-API class to
    // raise, and importing one would make the seam two-way.
    let Some(module) = crate::linked::errors(py) else {
        return PyRuntimeError::new_err(format!(
            "{class} ({sqlstate}): {message} (fastodbc._native is not linked: import fastodbc)"
        ));
    };
    match module.getattr(class) {
        Ok(cls) => match cls.call1((sqlstate, message)) {
            Ok(inst) => PyErr::from_value(inst),
            Err(e) => e,
        },
        Err(e) => e,
    }
}

pub fn to_py(py: Python<'_>, e: Error) -> PyErr {
    let sqlstate = restated(&e).unwrap_or(e.sqlstate());
    db_error(py, class_name(&e), sqlstate, e.to_string())
}

/// `e` with `note` after its message, in the same class and SQLSTATE.
pub fn to_py_with_note(py: Python<'_>, e: Error, note: &str) -> PyErr {
    let sqlstate = restated(&e).unwrap_or(e.sqlstate());
    db_error(py, class_name(&e), sqlstate, format!("{e} ({note})"))
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
