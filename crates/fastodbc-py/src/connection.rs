//! `Connection`: an ODBC connection, its transaction control and its per-connection settings
//! (text decoding, parameter encoding, output converters).

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use fastodbc_core::sqlscan::Brackets;
use fastodbc_core::{AttrValue, Decoding, Link, MemoryBudget, TextCodec, TextEncoding};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyString};

use crate::errors::{self, IntoPyResult};
use crate::gil_turns;
use crate::info;
use crate::lock::{lock, lock_within};
use crate::params::Refuse;
use crate::traits::DriverTraits;

/// How long `close()` waits for a call using the connection (after cancelling it) before it
/// gives the call up, shutting down the link it waits on (`Link::give_up_all`).
const STUCK_CALL_WAIT: Duration = Duration::from_secs(1);

/// What cursors read from their connection when they execute.
#[derive(Clone)]
pub struct Settings {
    pub decoding: Decoding,
    pub encoding: TextEncoding,
    /// Parameters refused rather than changed by the driver (`Strategy::refuse_nul`,
    /// `Strategy::refuse_nan`).
    pub refuse: Refuse,
    /// Sizes every buffer the connection's cursors fill (`fetch_buffer_bytes` sets it).
    pub budget: MemoryBudget,
    /// Long results fetch their next block on another thread while the current one is
    /// converted (`fastodbc_core::ReadAhead`).
    pub read_ahead: bool,
    /// What `[` starts in the database's SQL, for counting parameter markers.
    pub brackets: Brackets,
}

/// A cursor as its connection sees it: closed when the connection closes. The connection
/// holds its cursors weakly, and knows them only through this.
pub trait OpenCursor: Send + Sync {
    /// Frees the cursor's statement; the cursor answers ProgrammingError afterwards. With
    /// `give_up_after`, a call that still holds the cursor then is given up (its link broken).
    fn close(&self, py: Python<'_>, give_up_after: Option<Duration>);
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
    /// A statement ran in manual-commit mode since the last commit or rollback (a result set
    /// or not): the open transaction may hold the caller's work. `Cursor.ingest` rolls back
    /// a whole transaction only where it began it.
    pub txn_begun: AtomicBool,
    /// The connection's link to its server (`fastodbc_core::link`): its cursors' calls run
    /// through it; `close` breaks it under a call that keeps it waiting.
    pub link: Arc<Link>,
}

impl ConnShared {
    /// The transaction ended (commit, rollback, autocommit changed): it holds nothing.
    pub fn transaction_ended(&self) {
        self.txn_dirty.store(false, Ordering::Release);
        self.txn_begun.store(false, Ordering::Release);
    }
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
        self.shared.transaction_ended();
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
        gil_turns::detached(py, || f(conn)).py(py)
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

/// A text decoding as `Connection._get_decoding` gives it.
#[pyclass(frozen, module = "fastodbc._native", name = "TextDecoding")]
pub struct TextDecoding {
    /// "utf8", "utf16" or "codec" (narrow bytes decoded by the Python codec `name`).
    #[pyo3(get)]
    kind: &'static str,
    /// The codec's name ("utf-8", "utf-16le" or the one given).
    #[pyo3(get)]
    name: String,
}

#[pymethods]
impl TextDecoding {
    fn __repr__(&self) -> String {
        format!("TextDecoding(kind={:?}, name={:?})", self.kind, self.name)
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
        let conn = gil_turns::detached(py, || {
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
        let brackets = conn.server.brackets();
        let link = conn.link();
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
            refuse: Refuse {
                nul: strategy.refuse_nul,
                nan: strategy.refuse_nan,
            },
            budget: MemoryBudget::DEFAULT,
            read_ahead: true,
            brackets,
        };
        Ok(Connection {
            shared: Arc::new(ConnShared {
                conn: Mutex::new(Some(conn)),
                closed: AtomicBool::new(false),
                cursors: Mutex::new(Vec::new()),
                settings: Mutex::new(settings),
                converters: Mutex::new(HashMap::new()),
                txn_dirty: AtomicBool::new(false),
                txn_begun: AtomicBool::new(false),
                link,
            }),
            autocommit: AtomicBool::new(autocommit),
            timeout: AtomicU32::new(0),
            settings_version: AtomicU64::new(0),
        })
    }

    /// Commits the current transaction.
    fn commit(&self, py: Python<'_>) -> PyResult<()> {
        self.with_conn(py, |c| c.end_transaction(true))?;
        self.shared.transaction_ended();
        Ok(())
    }

    /// Rolls back the current transaction.
    fn rollback(&self, py: Python<'_>) -> PyResult<()> {
        self.with_conn(py, |c| c.end_transaction(false))?;
        self.shared.transaction_ended();
        Ok(())
    }

    /// Closes every cursor of the connection, rolls back any open transaction and disconnects.
    /// A call another thread makes meanwhile is cancelled; one that keeps waiting on the
    /// server (a stalled link) is given up after `STUCK_CALL_WAIT`: its socket is shut down.
    /// Each call of the close itself is bounded (`fastodbc_core::link::CLOSE_BOUND`).
    fn close(&self, py: Python<'_>) -> PyResult<()> {
        if self.shared.closed.swap(true, Ordering::AcqRel) {
            return Ok(());
        }
        let link = &self.shared.link;
        link.begin_close();
        let cursors: Vec<_> = lock(py, &self.shared.cursors).drain(..).collect();
        for c in cursors.iter().filter_map(Weak::upgrade) {
            c.close(py, Some(STUCK_CALL_WAIT));
        }
        // A commit or rollback of another thread may hold the connection.
        let conn = lock_within(py, &self.shared.conn, STUCK_CALL_WAIT)
            .unwrap_or_else(|| {
                link.give_up_all();
                lock(py, &self.shared.conn)
            })
            .take();
        if let Some(mut conn) = conn {
            gil_turns::detached(py, || conn.close()).py(py)?;
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
        self.shared.transaction_ended();
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
            self.shared.transaction_ended();
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
        // Also a bound on the calls themselves: past it + grace, a stalled link is broken.
        self.shared.link.set_query_timeout(value);
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

    /// What fastodbc makes of the driver (`DriverTraits`), for the Python layer: the load's
    /// savepoints and catalog query, the pool's liveness check, the CLI's session zone.
    #[getter]
    fn _driver_traits(&self, py: Python<'_>) -> PyResult<DriverTraits> {
        let guard = lock(py, &self.shared.conn);
        match guard.as_ref() {
            Some(c) => Ok(DriverTraits::of(&c.strategy)),
            None => Err(errors::programming(
                py,
                "Attempt to use a closed connection.",
            )),
        }
    }

    /// A statement ran since the last commit or rollback, autocommit off: the open
    /// transaction may hold work (`ConnShared::txn_begun`).
    #[getter]
    fn _in_transaction(&self) -> bool {
        self.shared.txn_begun.load(Ordering::Acquire)
    }

    /// The driver's `SQL_ATTR_CONNECTION_DEAD`, read with the GIL released (a round trip
    /// where `DriverTraits.liveness` is "probe"); true for a closed connection.
    fn _connection_dead(&self, py: Python<'_>) -> bool {
        if self.shared.closed.load(Ordering::Acquire) {
            return true;
        }
        let guard = lock(py, &self.shared.conn);
        match guard.as_ref() {
            Some(c) => gil_turns::detached(py, || c.is_dead()),
            None => true,
        }
    }

    /// The connection is broken: a call was given up on a dead link, or reported the
    /// connection lost; no call reaches the driver any more. Free (no driver call).
    #[getter]
    fn _broken(&self) -> bool {
        self.shared.link.is_broken()
    }

    /// Bounds every driver call on this connection by `seconds` as well (`None`: no more),
    /// for a pool validating it within what is left of a checkout's timeout. A call past it
    /// breaks the connection (HYT01). Free (no driver call).
    #[pyo3(signature = (seconds))]
    fn _limit_calls(&self, seconds: Option<f64>) {
        // Past what a Duration holds (or NaN): no limit.
        let limit = seconds.and_then(|s| std::time::Duration::try_from_secs_f64(s.max(0.001)).ok());
        self.shared.link.set_limit(limit);
    }

    /// Closes every cursor opened on the connection, which stays open (a pool, when a
    /// connection comes back).
    fn _close_cursors(&self, py: Python<'_>) {
        let cursors: Vec<_> = lock(py, &self.shared.cursors).drain(..).collect();
        for c in cursors.iter().filter_map(Weak::upgrade) {
            c.close(py, None);
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

    /// The current decoding for SQL_CHAR or SQL_WCHAR columns.
    fn _get_decoding(&self, py: Python<'_>, wide: bool) -> TextDecoding {
        let s = lock(py, &self.shared.settings);
        let c = if wide {
            &s.decoding.wchar
        } else {
            &s.decoding.char
        };
        let (kind, name) = match c {
            TextCodec::Utf8 => ("utf8", "utf-8".into()),
            TextCodec::Utf16 => ("utf16", "utf-16le".into()),
            TextCodec::Narrow(n) => ("codec", n.clone()),
        };
        TextDecoding { kind, name }
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

    /// The memory budget in bytes of one fetched block of bound columns; every other buffer
    /// takes its share of it (`memory_budget`).
    #[getter]
    fn get_fetch_buffer_bytes(&self, py: Python<'_>) -> usize {
        lock(py, &self.shared.settings).budget.block_bytes()
    }

    #[setter]
    fn set_fetch_buffer_bytes(&self, py: Python<'_>, value: usize) {
        self.settings_changed();
        lock(py, &self.shared.settings).budget = MemoryBudget::new(value);
    }

    /// What the connection's buffers take, each a share of `fetch_buffer_bytes`.
    #[getter]
    fn memory_budget(&self, py: Python<'_>) -> crate::budget::MemoryBudget {
        crate::budget::MemoryBudget::from(lock(py, &self.shared.settings).budget)
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
