//! `Connection`: an ODBC connection, its transaction control and its per-connection settings
//! (text decoding, parameter encoding, output converters).

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};

use fastodbc_core::plan::DEFAULT_BLOCK_BYTES;
use fastodbc_core::{AttrValue, Decoding, TextCodec, TextEncoding};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyString};

use crate::errors::{self, IntoPyResult};
use crate::info;
use crate::lock::lock;

/// What cursors read from their connection when they execute.
#[derive(Clone)]
pub struct Settings {
    pub decoding: Decoding,
    pub encoding: TextEncoding,
    pub refuse_nul: bool,
    pub block_bytes: usize,
    /// Long results fetch their next block on another thread while the current one is
    /// converted (`fastodbc_core::ReadAhead`).
    pub read_ahead: bool,
}

/// A cursor as its connection sees it: closed when the connection closes. The connection
/// holds its cursors weakly, and knows them only through this.
pub trait OpenCursor: Send + Sync {
    /// Frees the cursor's statement; the cursor answers ProgrammingError afterwards.
    fn close(&self, py: Python<'_>);
}

pub struct ConnShared {
    pub conn: Mutex<Option<fastodbc_core::Connection>>,
    pub closed: AtomicBool,
    cursors: Mutex<Vec<Weak<dyn OpenCursor>>>,
    pub settings: Mutex<Settings>,
    pub converters: Mutex<HashMap<i16, PyObject>>,
    /// The open transaction holds changes (a statement without a result set ran since the last
    /// commit or rollback). Drivers with `Strategy::prepare_after_changes` then execute
    /// prepared statements, so a syntax error cannot take those changes with it.
    pub txn_dirty: AtomicBool,
}

#[pyclass(subclass, frozen, weakref, module = "fastodbc._native")]
pub struct Connection {
    pub shared: Arc<ConnShared>,
    autocommit: AtomicBool,
    timeout: AtomicU32,
    /// Bumped by every setter of what a user may change on the connection, so a pool learns
    /// with one read whether a connection coming back needs restoring.
    settings_version: AtomicU64,
}

impl Connection {
    /// Keeps `cursor` to close with the connection (cursors already dropped are forgotten).
    pub fn register_cursor(&self, py: Python<'_>, cursor: Weak<dyn OpenCursor>) {
        let mut cursors = lock(py, &self.shared.cursors);
        cursors.retain(|w| w.strong_count() > 0);
        cursors.push(cursor);
    }

    pub fn in_manual_commit(&self) -> bool {
        !self.autocommit.load(Ordering::Acquire)
    }

    fn settings_changed(&self) {
        self.settings_version.fetch_add(1, Ordering::AcqRel);
    }

    pub fn timeout_value(&self) -> u32 {
        self.timeout.load(Ordering::Acquire)
    }

    pub fn check_open(&self, py: Python<'_>) -> PyResult<()> {
        if self.shared.closed.load(Ordering::Acquire) {
            return Err(errors::programming(
                py,
                "Attempt to use a closed connection.",
            ));
        }
        Ok(())
    }

    /// Ends the transaction from a thread that does not hold the GIL (a load's commit every N
    /// rows, between two chunks).
    pub(crate) fn end_transaction_released(&self, commit: bool) -> fastodbc_core::Result<()> {
        let mut guard = self.shared.conn.lock().unwrap_or_else(|p| p.into_inner());
        let conn = guard.as_mut().ok_or_else(|| {
            fastodbc_core::Error::Programming("Attempt to use a closed connection.".into())
        })?;
        conn.end_transaction(commit)?;
        self.shared.txn_dirty.store(false, Ordering::Release);
        Ok(())
    }

    fn with_conn<T>(
        &self,
        py: Python<'_>,
        f: impl FnOnce(&mut fastodbc_core::Connection) -> fastodbc_core::Result<T> + Send,
    ) -> PyResult<T>
    where
        T: Send,
    {
        self.check_open(py)?;
        let mut guard = lock(py, &self.shared.conn);
        let Some(conn) = guard.as_mut() else {
            return Err(errors::programming(
                py,
                "Attempt to use a closed connection.",
            ));
        };
        py.allow_threads(|| f(conn)).py(py)
    }
}

/// A connection attribute's value: an integer, text or bytes.
fn attr_value(v: &Bound<'_, PyAny>) -> PyResult<AttrValue> {
    Ok(if let Ok(i) = v.extract::<i64>() {
        AttrValue::Int(i)
    } else if let Ok(s) = v.downcast::<PyString>() {
        AttrValue::Text(s.to_str()?.to_owned())
    } else if let Ok(b) = v.downcast::<PyBytes>() {
        AttrValue::Bytes(b.as_bytes().to_vec())
    } else {
        AttrValue::Bytes(v.extract()?)
    })
}

fn parse_attrs(attrs: Option<&Bound<'_, PyDict>>) -> PyResult<Vec<(i32, AttrValue)>> {
    let mut out = Vec::new();
    if let Some(d) = attrs {
        for (k, v) in d.iter() {
            out.push((k.extract()?, attr_value(&v)?));
        }
    }
    Ok(out)
}

fn parse_codec(kind: &str, name: &str) -> TextCodec {
    match kind {
        "utf16" => TextCodec::Utf16,
        "utf8" => TextCodec::Utf8,
        _ => TextCodec::Narrow(name.to_owned()),
    }
}

#[pymethods]
impl Connection {
    /// Connects with a complete ODBC connection string (the Python layer builds it). The values
    /// of the attributes named in `secret_attributes` (and of PWD / Password) never appear in a
    /// message.
    #[new]
    #[pyo3(signature = (connstring, autocommit=false, timeout=0, readonly=false, attrs_before=None, secret_attributes=Vec::new()))]
    fn new(
        py: Python<'_>,
        connstring: String,
        autocommit: bool,
        timeout: u32,
        readonly: bool,
        attrs_before: Option<&Bound<'_, PyDict>>,
        secret_attributes: Vec<String>,
    ) -> PyResult<Self> {
        let attrs = parse_attrs(attrs_before)?;
        let mut info = Vec::new();
        let conn = py
            .allow_threads(|| {
                fastodbc_core::Connection::connect(
                    &connstring,
                    autocommit,
                    timeout,
                    readonly,
                    &attrs,
                    &secret_attributes,
                    &mut info,
                )
            })
            .py(py)?;
        let strategy = conn.strategy;
        let text = if strategy.text_as_utf8 {
            TextCodec::Utf8
        } else {
            TextCodec::Utf16
        };
        let settings = Settings {
            decoding: Decoding {
                char: text.clone(),
                wchar: text,
            },
            // Where the driver misreads UTF-16 and its narrow text is UTF-8, parameters go as
            // UTF-8 (`BindOptions::for_driver`); getencoding says so.
            encoding: if strategy.params_as_utf8 {
                TextEncoding::Utf8
            } else {
                TextEncoding::Utf16
            },
            refuse_nul: strategy.refuse_nul,
            block_bytes: DEFAULT_BLOCK_BYTES,
            read_ahead: true,
        };
        Ok(Connection {
            shared: Arc::new(ConnShared {
                conn: Mutex::new(Some(conn)),
                closed: AtomicBool::new(false),
                cursors: Mutex::new(Vec::new()),
                settings: Mutex::new(settings),
                converters: Mutex::new(HashMap::new()),
                txn_dirty: AtomicBool::new(false),
            }),
            autocommit: AtomicBool::new(autocommit),
            timeout: AtomicU32::new(0),
            settings_version: AtomicU64::new(0),
        })
    }

    /// Commits the current transaction.
    fn commit(&self, py: Python<'_>) -> PyResult<()> {
        self.with_conn(py, |c| c.end_transaction(true))?;
        self.shared.txn_dirty.store(false, Ordering::Release);
        Ok(())
    }

    /// Rolls back the current transaction.
    fn rollback(&self, py: Python<'_>) -> PyResult<()> {
        self.with_conn(py, |c| c.end_transaction(false))?;
        self.shared.txn_dirty.store(false, Ordering::Release);
        Ok(())
    }

    /// Closes every cursor of the connection, rolls back any open transaction and disconnects.
    fn close(&self, py: Python<'_>) -> PyResult<()> {
        if self.shared.closed.swap(true, Ordering::AcqRel) {
            return Ok(());
        }
        let cursors: Vec<_> = lock(py, &self.shared.cursors).drain(..).collect();
        for c in cursors.iter().filter_map(Weak::upgrade) {
            c.close(py);
        }
        let conn = lock(py, &self.shared.conn).take();
        if let Some(mut conn) = conn {
            py.allow_threads(|| conn.close()).py(py)?;
        }
        Ok(())
    }

    /// True once `close()` was called.
    #[getter]
    fn closed(&self) -> bool {
        self.shared.closed.load(Ordering::Acquire)
    }

    #[getter]
    fn get_autocommit(&self) -> bool {
        self.autocommit.load(Ordering::Acquire)
    }

    #[setter]
    fn set_autocommit(&self, py: Python<'_>, value: bool) -> PyResult<()> {
        self.settings_changed();
        self.with_conn(py, |c| c.set_autocommit(value))?;
        self.autocommit.store(value, Ordering::Release);
        self.shared.txn_dirty.store(false, Ordering::Release);
        Ok(())
    }

    /// `SQLSetConnectAttr`: sets connection attribute `attr` to an integer (as pyodbc), text or
    /// bytes. Setting SQL_ATTR_AUTOCOMMIT this way updates `autocommit` too.
    fn set_attr(&self, py: Python<'_>, attr: i32, value: &Bound<'_, PyAny>) -> PyResult<()> {
        let value = attr_value(value)?;
        let autocommit = match (attr, &value) {
            (fastodbc_core::ffi::SQL_ATTR_AUTOCOMMIT, AttrValue::Int(v)) => Some(*v != 0),
            _ => None,
        };
        self.settings_changed();
        self.with_conn(py, |c| c.set_attr(attr, &value))?;
        if let Some(on) = autocommit {
            self.autocommit.store(on, Ordering::Release);
            self.shared.txn_dirty.store(false, Ordering::Release);
        }
        Ok(())
    }

    /// Query timeout in seconds applied to statements of new executions (0: none).
    #[getter]
    fn get_timeout(&self) -> u32 {
        self.timeout.load(Ordering::Acquire)
    }

    #[setter]
    fn set_timeout(&self, value: u32) {
        self.settings_changed();
        self.timeout.store(value, Ordering::Release);
    }

    /// `SQLGetInfo`: strings, integers or bitmasks depending on the key, as in pyodbc.
    fn getinfo(&self, py: Python<'_>, key: u16) -> PyResult<PyObject> {
        match info::kind(key) {
            info::InfoKind::Text => {
                let s = self.with_conn(py, |c| c.info_string(key))?;
                Ok(s.into_pyobject(py)?.into_any().unbind())
            }
            info::InfoKind::YesNo => {
                let s = self.with_conn(py, |c| c.info_string(key))?;
                Ok(pyo3::types::PyBool::new(py, s == "Y")
                    .to_owned()
                    .into_any()
                    .unbind())
            }
            info::InfoKind::Int(width) => {
                let v = self.with_conn(py, |c| c.info_int(key, width))?;
                Ok(v.into_pyobject(py)?.into_any().unbind())
            }
        }
    }

    /// What fastodbc makes of the driver: (text fetched as UTF-8, `str` parameters holding a
    /// NUL refused, truncated values re-read within a block) (`Strategy`).
    #[getter]
    fn _driver_traits(&self, py: Python<'_>) -> PyResult<(bool, bool, bool)> {
        let guard = lock(py, &self.shared.conn);
        match guard.as_ref() {
            Some(c) => Ok((
                c.strategy.text_as_utf8,
                c.strategy.refuse_nul,
                c.strategy.getdata_in_block,
            )),
            None => Err(errors::programming(
                py,
                "Attempt to use a closed connection.",
            )),
        }
    }

    /// When `SQL_ATTR_CONNECTION_DEAD` is worth reading, for a pool: "probe" (true, one
    /// round trip), "status" (free; the whole truth only for an in-process database) or
    /// "unknown" (`Strategy::liveness`).
    #[getter]
    fn _liveness(&self, py: Python<'_>) -> PyResult<&'static str> {
        let guard = lock(py, &self.shared.conn);
        match guard.as_ref() {
            Some(c) => Ok(c.strategy.liveness.name()),
            None => Err(errors::programming(
                py,
                "Attempt to use a closed connection.",
            )),
        }
    }

    /// The driver's `SQL_ATTR_CONNECTION_DEAD`, read with the GIL released (a round trip
    /// where `_liveness` is "probe"); true for a closed connection.
    fn _connection_dead(&self, py: Python<'_>) -> bool {
        if self.shared.closed.load(Ordering::Acquire) {
            return true;
        }
        let guard = lock(py, &self.shared.conn);
        match guard.as_ref() {
            Some(c) => py.allow_threads(|| c.is_dead()),
            None => true,
        }
    }

    /// Closes every cursor opened on the connection, which stays open (a pool, when a
    /// connection comes back).
    fn _close_cursors(&self, py: Python<'_>) {
        let cursors: Vec<_> = lock(py, &self.shared.cursors).drain(..).collect();
        for c in cursors.iter().filter_map(Weak::upgrade) {
            c.close(py);
        }
    }

    /// A number that changes whenever a setting a user may change does (autocommit, timeout,
    /// decodings, encoding, fetch_buffer_bytes, read_ahead, output converters, any
    /// `set_attr`; Python-level settings call `_settings_changed`).
    #[getter]
    fn _settings_version(&self) -> u64 {
        self.settings_version.load(Ordering::Acquire)
    }

    /// Counts a change of a setting kept in Python (`maxwrite`) in `_settings_version`.
    fn _settings_changed(&self) {
        self.settings_changed();
    }

    /// `str` parameters are sent as UTF-16 (else UTF-8).
    fn _get_encoding(&self, py: Python<'_>) -> bool {
        matches!(
            lock(py, &self.shared.settings).encoding,
            TextEncoding::Utf16
        )
    }

    /// Text decoding for SQL_CHAR (`wide=False`) or SQL_WCHAR columns: `kind` is
    /// "utf8", "utf16" or "codec" (narrow bytes decoded by the named Python codec).
    fn _set_decoding(&self, py: Python<'_>, wide: bool, kind: &str, name: &str) {
        let codec = parse_codec(kind, name);
        self.settings_changed();
        let mut s = lock(py, &self.shared.settings);
        if wide {
            s.decoding.wchar = codec;
        } else {
            s.decoding.char = codec;
        }
    }

    /// (kind, codec name) of the current decoding for SQL_CHAR or SQL_WCHAR columns.
    fn _get_decoding(&self, py: Python<'_>, wide: bool) -> (String, String) {
        let s = lock(py, &self.shared.settings);
        let c = if wide {
            &s.decoding.wchar
        } else {
            &s.decoding.char
        };
        match c {
            TextCodec::Utf8 => ("utf8".into(), "utf-8".into()),
            TextCodec::Utf16 => ("utf16".into(), "utf-16le".into()),
            TextCodec::Narrow(n) => ("codec".into(), n.clone()),
        }
    }

    /// Parameter text as UTF-16 (`wide=True`, SQL_C_WCHAR) or UTF-8 (SQL_C_CHAR).
    fn _set_encoding(&self, py: Python<'_>, wide: bool) {
        self.settings_changed();
        lock(py, &self.shared.settings).encoding = if wide {
            TextEncoding::Utf16
        } else {
            TextEncoding::Utf8
        };
    }

    /// Memory budget in bytes for one fetched block of bound columns.
    #[getter]
    fn get_fetch_buffer_bytes(&self, py: Python<'_>) -> usize {
        lock(py, &self.shared.settings).block_bytes
    }

    #[setter]
    fn set_fetch_buffer_bytes(&self, py: Python<'_>, value: usize) {
        self.settings_changed();
        lock(py, &self.shared.settings).block_bytes = value.max(1);
    }

    /// Whether long results fetch their next block on another thread while Python converts
    /// the current one (default True). Read by each execute.
    #[getter]
    fn get_read_ahead(&self, py: Python<'_>) -> bool {
        lock(py, &self.shared.settings).read_ahead
    }

    #[setter]
    fn set_read_ahead(&self, py: Python<'_>, value: bool) {
        self.settings_changed();
        lock(py, &self.shared.settings).read_ahead = value;
    }

    /// Registers `func(raw: bytes) -> object` for values of SQL type `sqltype`.
    fn add_output_converter(&self, py: Python<'_>, sqltype: i16, func: PyObject) {
        self.settings_changed();
        if func.is_none(py) {
            lock(py, &self.shared.converters).remove(&sqltype);
        } else {
            lock(py, &self.shared.converters).insert(sqltype, func);
        }
    }

    /// Removes the output converter of `sqltype`, if any.
    fn remove_output_converter(&self, py: Python<'_>, sqltype: i16) {
        self.settings_changed();
        lock(py, &self.shared.converters).remove(&sqltype);
    }

    /// Every output converter, as `{sqltype: func}` (a pool restores them at each return).
    fn _output_converters(&self, py: Python<'_>) -> HashMap<i16, PyObject> {
        lock(py, &self.shared.converters)
            .iter()
            .map(|(k, f)| (*k, f.clone_ref(py)))
            .collect()
    }

    /// The output converter of `sqltype`, or None.
    fn get_output_converter(&self, py: Python<'_>, sqltype: i16) -> Option<PyObject> {
        lock(py, &self.shared.converters)
            .get(&sqltype)
            .map(|f| f.clone_ref(py))
    }

    /// Removes every output converter.
    fn clear_output_converters(&self, py: Python<'_>) {
        self.settings_changed();
        lock(py, &self.shared.converters).clear();
    }
}
