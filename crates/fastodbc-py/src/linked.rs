//! What native code uses of the Python package, handed over by `fastodbc/__init__.py` once at
//! import (`_native.link`) and kept here.
//!
//! The seam is one-way: the package imports `_native`, never the reverse. So `_native` loads
//! and its functions run without any `fastodbc.*` module (a test loads it alone), there is no
//! import cycle to order, and this file lists everything native code reads from Python code of
//! the project. The process settings `fastodbc.lowercase` / `fastodbc.native_uuid` keep their
//! home in the package's namespace (pyodbc's API: users assign them there); native code holds
//! the package and reads them when a result set opens (`flags::ModuleFlags`). Before `link`,
//! errors are `RuntimeError` and the settings keep their defaults.

use std::sync::RwLock;

use pyo3::prelude::*;

/// The objects `link` was given.
struct Linked {
    /// `fastodbc.errors`: the DB-API exception classes, looked up by name.
    errors: PyObject,
    /// `fastodbc.BinaryNull`: the NULL parameter bound as binary.
    binary_null: PyObject,
    /// `fastodbc.PrecisionWarning`.
    precision_warning: PyObject,
    /// The `fastodbc` package, home of the process settings.
    settings: PyObject,
}

/// Written by `link` (again on a reload of the package), read attached; no lock
/// holder waits for anything, so the lock cannot deadlock against the GIL or a stop-the-world.
static LINKED: RwLock<Option<Linked>> = RwLock::new(None);

/// Hands native code the package's objects it uses (`fastodbc/__init__.py` calls it once).
#[pyfunction]
#[pyo3(signature = (*, errors, binary_null, precision_warning, settings))]
pub fn link(
    errors: PyObject,
    binary_null: PyObject,
    precision_warning: PyObject,
    settings: PyObject,
) {
    let mut guard = LINKED.write().unwrap_or_else(|p| p.into_inner());
    *guard = Some(Linked {
        errors,
        binary_null,
        precision_warning,
        settings,
    });
}

/// The linked object `pick` chooses, None before `link`.
fn get<'py>(py: Python<'py>, pick: fn(&Linked) -> &PyObject) -> Option<Bound<'py, PyAny>> {
    let guard = LINKED.read().unwrap_or_else(|p| p.into_inner());
    guard.as_ref().map(|l| pick(l).clone_ref(py).into_bound(py))
}

/// The module holding the DB-API exception classes.
pub fn errors(py: Python<'_>) -> Option<Bound<'_, PyAny>> {
    get(py, |l| &l.errors)
}

/// `fastodbc.BinaryNull`.
pub fn binary_null(py: Python<'_>) -> Option<Bound<'_, PyAny>> {
    get(py, |l| &l.binary_null)
}

/// `fastodbc.PrecisionWarning`.
pub fn precision_warning(py: Python<'_>) -> Option<Bound<'_, PyAny>> {
    get(py, |l| &l.precision_warning)
}

/// The object whose attributes are the process settings (the `fastodbc` package).
pub fn settings(py: Python<'_>) -> Option<Bound<'_, PyAny>> {
    get(py, |l| &l.settings)
}
