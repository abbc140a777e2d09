//! pyodbc's module-level switches (`fastodbc.lowercase`, `fastodbc.native_uuid`), read once
//! per result set when it is opened: never per row or value. Their home is the package's
//! namespace, which `fastodbc/__init__.py` hands over (`linked::settings`).

use pyo3::prelude::*;

/// The switches as they are when a result set is opened.
#[derive(Debug, Clone, Copy)]
pub struct ModuleFlags {
    /// Column names lower-cased in `description` and for `row.name`.
    pub lowercase: bool,
    /// GUID columns as `uuid.UUID` (true) or upper-case `str`.
    pub native_uuid: bool,
}

impl ModuleFlags {
    /// Reads the switches from the `fastodbc` package; a missing or failing one (or the
    /// package not linked) keeps its default (the package's own values: `lowercase = False`,
    /// `native_uuid = True`).
    pub fn read(py: Python<'_>) -> ModuleFlags {
        let package = crate::linked::settings(py);
        let flag = |name: &str, default: bool| match &package {
            Some(p) => p
                .getattr(name)
                .and_then(|v| v.is_truthy())
                .unwrap_or(default),
            None => default,
        };
        ModuleFlags {
            lowercase: flag("lowercase", false),
            native_uuid: flag("native_uuid", true),
        }
    }
}
