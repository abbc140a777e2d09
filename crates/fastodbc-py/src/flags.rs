//! pyodbc's module-level switches (`fastodbc.lowercase`, `fastodbc.native_uuid`), read once
//! per result set when it is opened: never per row or value.

use pyo3::prelude::*;
use pyo3::sync::GILOnceCell;
use pyo3::types::PyModule;

static PACKAGE: GILOnceCell<Py<PyModule>> = GILOnceCell::new();

/// The switches as they are when a result set is opened.
#[derive(Debug, Clone, Copy)]
pub struct ModuleFlags {
    /// Column names lower-cased in `description` and for `row.name`.
    pub lowercase: bool,
    /// GUID columns as `uuid.UUID` (true) or upper-case `str`.
    pub native_uuid: bool,
}

impl ModuleFlags {
    /// Reads the switches from the `fastodbc` package; a missing or failing one keeps its
    /// default (the package's own values: `lowercase = False`, `native_uuid = True`).
    pub fn read(py: Python<'_>) -> ModuleFlags {
        let package = PACKAGE.get_or_try_init(py, || {
            Ok::<_, PyErr>(PyModule::import(py, "fastodbc")?.unbind())
        });
        let flag = |name: &str, default: bool| match package {
            Ok(p) => p
                .bind(py)
                .getattr(name)
                .and_then(|v| v.is_truthy())
                .unwrap_or(default),
            Err(_) => default,
        };
        ModuleFlags {
            lowercase: flag("lowercase", false),
            native_uuid: flag("native_uuid", true),
        }
    }
}
