//! `DriverTraits`: what fastodbc makes of a connection's driver (`Strategy`), as the Python
//! layer reads it; one object read once, instead of a getter per trait.

use fastodbc_core::Strategy;
use pyo3::prelude::*;

/// What fastodbc makes of the driver (`fastodbc_core::Strategy`), fixed for the connection.
#[pyclass(frozen, module = "fastodbc._native", name = "DriverTraits")]
pub struct DriverTraits {
    /// Text is fetched as UTF-8 (`Strategy::text_as_utf8`).
    #[pyo3(get)]
    text_as_utf8: bool,
    /// `str` parameters holding a NUL are refused (`Strategy::refuse_nul`).
    #[pyo3(get)]
    refuse_nul: bool,
    /// Truncated values are re-read within a block (`Strategy::getdata_in_block`).
    #[pyo3(get)]
    getdata_in_block: bool,
    /// Significant digits the driver keeps of a double it returns, 0 for all of them
    /// (`Strategy::float_digits`): results with floating-point columns warn where it is not 0.
    #[pyo3(get)]
    float_digits: u8,
    /// When `SQL_ATTR_CONNECTION_DEAD` is worth reading, for a pool: "probe" (true, one round
    /// trip), "status" (free, blind to a session killed since the last call), "local" (free and
    /// true: an in-process database) or "unknown" (`Strategy::liveness`).
    #[pyo3(get)]
    liveness: &'static str,
    /// How a load inside the caller's transaction is bracketed by a savepoint: "" (none: the
    /// database has none), "alone" (each command a statement of its own) or "one_text" (each
    /// command in a text of two statements) (`Strategy::load_savepoint`,
    /// `Strategy::savepoint_in_one_text`).
    #[pyo3(get)]
    load_savepoint: &'static str,
    /// The catalog query a load reads its target's columns with
    /// (`Strategy::target_catalog_sql`), or None.
    #[pyo3(get)]
    target_catalog_sql: Option<&'static str>,
    /// The statement giving zoned timestamps as exact UTC wall times
    /// (`Strategy::instants_session_sql`), or None.
    #[pyo3(get)]
    instants_session_sql: Option<&'static str>,
}

impl DriverTraits {
    pub fn of(s: &Strategy) -> DriverTraits {
        DriverTraits {
            text_as_utf8: s.text_as_utf8,
            refuse_nul: s.refuse_nul,
            getdata_in_block: s.getdata_in_block,
            float_digits: s.float_digits,
            liveness: s.liveness.name(),
            load_savepoint: match (s.load_savepoint, s.savepoint_in_one_text) {
                (false, _) => "",
                (true, false) => "alone",
                (true, true) => "one_text",
            },
            target_catalog_sql: s.target_catalog_sql,
            instants_session_sql: s.instants_session_sql,
        }
    }
}

#[pymethods]
impl DriverTraits {
    fn __repr__(&self) -> String {
        format!(
            "DriverTraits(text_as_utf8={}, refuse_nul={}, getdata_in_block={}, float_digits={}, \
             liveness={:?}, load_savepoint={:?}, target_catalog_sql={}, \
             instants_session_sql={})",
            py_bool(self.text_as_utf8),
            py_bool(self.refuse_nul),
            py_bool(self.getdata_in_block),
            self.float_digits,
            self.liveness,
            self.load_savepoint,
            py_str(self.target_catalog_sql),
            py_str(self.instants_session_sql),
        )
    }
}

fn py_bool(b: bool) -> &'static str {
    if b {
        "True"
    } else {
        "False"
    }
}

fn py_str(s: Option<&str>) -> String {
    s.map_or_else(|| "None".to_string(), |s| format!("{s:?}"))
}
