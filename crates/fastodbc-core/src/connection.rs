//! The ODBC environment and connections.

use std::ptr::null_mut;
use std::sync::{Arc, OnceLock};

use crate::diagnostics::{check, connection_dead, DiagRecord, Error, Result};
use crate::driver::quirks::narrow_text_needs_collation;
use crate::driver::{Quirks, Server, Strategy};
use crate::ffi;
use crate::link::{CallKind, Link};
use crate::redact::SecretLease;
use crate::types::text::to_utf16;

/// The process-wide ODBC environment (ODBC 3 behaviour). Created on first use, never freed:
/// connections may outlive any Python object that could own it.
struct Environment(ffi::Handle);

// SAFETY: an ODBC environment handle may be used from any thread (the driver manager locks it).
unsafe impl Send for Environment {}
unsafe impl Sync for Environment {}

static ENVIRONMENT: OnceLock<std::result::Result<Environment, String>> = OnceLock::new();

fn environment() -> Result<ffi::Handle> {
    let env = ENVIRONMENT.get_or_init(|| {
        let mut h: ffi::Handle = null_mut();
        // SAFETY: plain handle allocation; `h` is written on success.
        let ret = unsafe { ffi::SQLAllocHandle(ffi::SQL_HANDLE_ENV, null_mut(), &mut h) };
        if ret != ffi::SQL_SUCCESS && ret != ffi::SQL_SUCCESS_WITH_INFO {
            return Err("cannot allocate the ODBC environment (is unixODBC installed?)".into());
        }
        // SAFETY: the attribute value is passed by value, as ODBC defines for integers.
        let ret = unsafe {
            ffi::SQLSetEnvAttr(
                h,
                ffi::SQL_ATTR_ODBC_VERSION,
                ffi::SQL_OV_ODBC3 as *mut _,
                0,
            )
        };
        if ret != ffi::SQL_SUCCESS && ret != ffi::SQL_SUCCESS_WITH_INFO {
            return Err("the driver manager refused ODBC version 3".into());
        }
        Ok(Environment(h))
    });
    match env {
        Ok(e) => Ok(e.0),
        Err(m) => Err(Error::Interface(m.clone())),
    }
}

/// A value for a connection attribute set before connecting (`attrs_before`).
#[derive(Debug, Clone)]
pub enum AttrValue {
    Int(i64),
    Text(String),
    Bytes(Vec<u8>),
}

/// An open ODBC connection.
pub struct Connection {
    hdbc: ffi::Handle,
    connected: bool,
    /// What its driver does, detected once at connect.
    pub quirks: Quirks,
    /// What fastodbc does about it.
    pub strategy: Strategy,
    pub driver_name: String,
    pub dbms_name: String,
    /// The database behind the driver (`SQL_DBMS_NAME`, `SQL_DBMS_VER`).
    pub server: Server,
    /// Its secrets stay redacted from every message while it is open (`redact`).
    secrets: Option<SecretLease>,
    /// The process that connected: a forked child shares the session's socket, and must
    /// never end it (`close`).
    owner: u32,
    /// The calls waiting on its server, and whether it is broken (`crate::link`).
    link: Arc<Link>,
}

// SAFETY: ODBC connection handles may be used from any thread; the Python layer serialises use
// of one connection (DB-API threadsafety 1).
unsafe impl Send for Connection {}
unsafe impl Sync for Connection {}

impl Connection {
    /// Connects with `SQLDriverConnectW`. `login_timeout` of 0 means the driver's default.
    /// The values of the attributes in `secret_names` (and of `PWD` / `Password`) are kept out
    /// of every message from then on, this connection's errors included.
    pub fn connect(
        connstring: &str,
        autocommit: bool,
        login_timeout: u32,
        readonly: bool,
        attrs_before: &[(i32, AttrValue)],
        secret_names: &[String],
        info: &mut Vec<DiagRecord>,
    ) -> Result<Connection> {
        let secrets = SecretLease::register(connstring, secret_names);
        crate::connstr::check_driver_manager_limits(connstring)?;
        let env = environment()?;
        let mut hdbc: ffi::Handle = null_mut();
        // SAFETY: allocation from a valid environment handle.
        let ret = unsafe { ffi::SQLAllocHandle(ffi::SQL_HANDLE_DBC, env, &mut hdbc) };
        check(ret, ffi::SQL_HANDLE_ENV, env, "SQLAllocHandle", None)?;
        let mut conn = Connection {
            hdbc,
            connected: false,
            quirks: Quirks::default(),
            strategy: Strategy::default(),
            driver_name: String::new(),
            dbms_name: String::new(),
            server: Server::default(),
            secrets: Some(secrets),
            owner: std::process::id(),
            link: Link::new(login_timeout),
        };
        if login_timeout > 0 {
            conn.set_attr_int(ffi::SQL_ATTR_LOGIN_TIMEOUT, login_timeout as usize)?;
        }
        for (attr, value) in attrs_before {
            conn.set_attr(*attr, value)?;
        }
        let text = to_utf16(connstring);
        let len = i16::try_from(text.len()).map_err(|_| {
            Error::Programming("connection string longer than 32,767 characters".into())
        })?;
        let mut out = [0u16; 1024];
        let mut out_len = 0i16;
        // A login past its timeout is given up by the watchdog (`Link::call`).
        conn.link
            .call(CallKind::Login, || {
                // SAFETY: input and output buffers are valid for the lengths passed.
                let ret = unsafe {
                    ffi::SQLDriverConnectW(
                        hdbc,
                        null_mut(),
                        text.as_ptr(),
                        len,
                        out.as_mut_ptr(),
                        out.len() as i16,
                        &mut out_len,
                        ffi::SQL_DRIVER_NOPROMPT,
                    )
                };
                check(
                    ret,
                    ffi::SQL_HANDLE_DBC,
                    hdbc,
                    "SQLDriverConnectW",
                    Some(info),
                )
            })
            .map_err(Error::on_connect)?;
        conn.connected = true;
        conn.set_autocommit(autocommit)?;
        if readonly {
            conn.set_attr_int(ffi::SQL_ATTR_ACCESS_MODE, ffi::SQL_MODE_READ_ONLY)?;
        }
        conn.driver_name = conn.info_string(ffi::SQL_DRIVER_NAME).unwrap_or_default();
        conn.dbms_name = conn.info_string(ffi::SQL_DBMS_NAME).unwrap_or_default();
        let dbms_ver = conn.info_string(ffi::SQL_DBMS_VER).unwrap_or_default();
        conn.server = Server::detect(&conn.dbms_name, &dbms_ver);
        let gd = conn.info_u32(ffi::SQL_GETDATA_EXTENSIONS).unwrap_or(0);
        let collation = if narrow_text_needs_collation(&conn.driver_name) {
            conn.info_string(ffi::SQL_COLLATION_SEQ).unwrap_or_default()
        } else {
            String::new()
        };
        conn.quirks = Quirks::detect(&conn.driver_name, gd, &collation);
        conn.strategy = Strategy::for_quirks(&conn.quirks);
        conn.link.set_watched(!conn.strategy.unwatched_calls);
        Ok(conn)
    }

    pub fn handle(&self) -> ffi::Handle {
        self.hdbc
    }

    /// Its link to the server, shared with its statements and the Python layer.
    pub fn link(&self) -> Arc<Link> {
        self.link.clone()
    }

    fn set_attr_int(&self, attr: i32, value: usize) -> Result<()> {
        self.set_attr(attr, &AttrValue::Int(value as i64))
    }

    /// Sets any connection attribute (integers by value, text as UTF-16, bytes as a buffer).
    /// `SQL_ATTR_CONNECTION_TIMEOUT` is fastodbc's to keep (`Link`): the driver is told too,
    /// and its refusal (psqlODBC's) changes nothing.
    pub fn set_attr(&self, attr: i32, value: &AttrValue) -> Result<()> {
        if let (ffi::SQL_ATTR_CONNECTION_TIMEOUT, AttrValue::Int(secs)) = (attr, value) {
            let secs = u32::try_from(*secs).map_err(|_| {
                Error::Programming("the connection timeout is 0 to 4,294,967,295 seconds".into())
            })?;
            self.link.set_connection_timeout(secs);
            let _ = self
                .link
                .call(CallKind::Connection, || self.driver_attr(attr, value));
            return Ok(());
        }
        self.link
            .call(CallKind::Connection, || self.driver_attr(attr, value))
    }

    fn driver_attr(&self, attr: i32, value: &AttrValue) -> Result<()> {
        let ret = match value {
            AttrValue::Int(i) => {
                // SAFETY: integer attributes are passed by value.
                unsafe {
                    ffi::SQLSetConnectAttrW(
                        self.hdbc,
                        attr,
                        *i as usize as *mut _,
                        ffi::SQL_IS_INTEGER,
                    )
                }
            }
            AttrValue::Text(s) => {
                let mut w = to_utf16(s);
                let len = (w.len() * 2) as i32;
                w.push(0);
                // SAFETY: the buffer lives across the call; the driver copies it.
                unsafe { ffi::SQLSetConnectAttrW(self.hdbc, attr, w.as_mut_ptr() as *mut _, len) }
            }
            AttrValue::Bytes(b) => {
                let mut b = b.clone();
                // SAFETY: as above.
                unsafe {
                    ffi::SQLSetConnectAttrW(
                        self.hdbc,
                        attr,
                        b.as_mut_ptr() as *mut _,
                        b.len() as i32,
                    )
                }
            }
        };
        check(
            ret,
            ffi::SQL_HANDLE_DBC,
            self.hdbc,
            "SQLSetConnectAttr",
            None,
        )
        .map(|_| ())
        .map_err(|e| e.on_connection(self.hdbc))
    }

    pub fn set_autocommit(&self, on: bool) -> Result<()> {
        self.set_attr_int(
            ffi::SQL_ATTR_AUTOCOMMIT,
            if on {
                ffi::SQL_AUTOCOMMIT_ON
            } else {
                ffi::SQL_AUTOCOMMIT_OFF
            },
        )
    }

    pub fn end_transaction(&self, commit: bool) -> Result<()> {
        if commit && self.strategy.check_lost_before_commit && connection_dead(self.hdbc) {
            return Err(Error::lost_before_commit());
        }
        let kind = if commit {
            ffi::SQL_COMMIT
        } else {
            ffi::SQL_ROLLBACK
        };
        self.link.call(CallKind::Connection, || {
            // SAFETY: valid connection handle.
            let ret = unsafe { ffi::SQLEndTran(ffi::SQL_HANDLE_DBC, self.hdbc, kind) };
            check(ret, ffi::SQL_HANDLE_DBC, self.hdbc, "SQLEndTran", None)
                .map(|_| ())
                .map_err(|e| e.on_connection(self.hdbc))
        })
    }

    /// `SQLGetInfo` returning a string.
    pub fn info_string(&self, info: u16) -> Result<String> {
        self.link
            .call(CallKind::Connection, || self.driver_info_string(info))
    }

    fn driver_info_string(&self, info: u16) -> Result<String> {
        let mut buf = vec![0u16; 512];
        let mut len = 0i16;
        loop {
            // SAFETY: buffer length passed in bytes as SQLGetInfoW expects.
            let ret = unsafe {
                ffi::SQLGetInfoW(
                    self.hdbc,
                    info,
                    buf.as_mut_ptr() as *mut _,
                    (buf.len() * 2) as i16,
                    &mut len,
                )
            };
            check(ret, ffi::SQL_HANDLE_DBC, self.hdbc, "SQLGetInfo", None)?;
            // Length is in bytes for SQLGetInfoW.
            let chars = (len.max(0) as usize) / 2;
            if chars >= buf.len() && buf.len() < 16384 {
                buf = vec![0u16; chars + 1];
                continue;
            }
            let chars = chars.min(buf.len());
            let end = buf[..chars].iter().position(|&c| c == 0).unwrap_or(chars);
            return Ok(String::from_utf16_lossy(&buf[..end]));
        }
    }

    /// `SQLGetInfo` returning an integer of `width` bytes (2, 4 or 8).
    pub fn info_int(&self, info: u16, width: usize) -> Result<u64> {
        self.link
            .call(CallKind::Connection, || self.driver_info_int(info, width))
    }

    fn driver_info_int(&self, info: u16, width: usize) -> Result<u64> {
        let mut value: u64 = 0;
        let mut len = 0i16;
        // SAFETY: `value` has room for the widest integer info type.
        let ret = unsafe {
            ffi::SQLGetInfoW(
                self.hdbc,
                info,
                &mut value as *mut u64 as *mut _,
                8,
                &mut len,
            )
        };
        check(ret, ffi::SQL_HANDLE_DBC, self.hdbc, "SQLGetInfo", None)?;
        Ok(match width {
            2 => value & 0xFFFF,
            4 => value & 0xFFFF_FFFF,
            _ => value,
        })
    }

    fn info_u32(&self, info: u16) -> Result<u32> {
        self.info_int(info, 4).map(|v| v as u32)
    }

    /// Disconnects and frees the handle. Rolls back first when a transaction may be open, so
    /// nothing is committed behind the user's back.
    pub fn close(&mut self) -> Result<()> {
        if self.hdbc.is_null() {
            return Ok(());
        }
        if self.inherited() {
            // A forked child's copy: a ROLLBACK or a disconnect would go out on the parent's
            // socket and end the parent's transaction or session. The handle is left as it is.
            self.hdbc = null_mut();
            self.connected = false;
            self.secrets = None;
            return Ok(());
        }
        let mut result = Ok(());
        // Each call below is bounded (`link::CLOSE_BOUND`): a stalled link cannot keep close.
        self.link.begin_close();
        if self.connected {
            let hdbc = self.hdbc;
            if !self.link.is_broken() {
                // SAFETY: valid connection handle; an error changes nothing, the session ends.
                let _ = self.link.call(CallKind::Closing, || {
                    unsafe { ffi::SQLEndTran(ffi::SQL_HANDLE_DBC, hdbc, ffi::SQL_ROLLBACK) };
                    Ok(())
                });
            }
            // A broken link's session is over (or is ended by shutting its socket):
            // SQLDisconnect only frees the driver's side, and reports nothing worth raising.
            let broken = self.link.is_broken();
            let ret = self.link.call(CallKind::Closing, || {
                // SAFETY: valid connection handle; errors are reported, the handle still freed.
                let ret = unsafe { ffi::SQLDisconnect(hdbc) };
                check(ret, ffi::SQL_HANDLE_DBC, hdbc, "SQLDisconnect", None).map(|_| ())
            });
            if !broken {
                result = ret;
            }
            self.connected = false;
        }
        // SAFETY: handle allocated by us, freed once.
        unsafe { ffi::SQLFreeHandle(ffi::SQL_HANDLE_DBC, self.hdbc) };
        self.hdbc = null_mut();
        // Its errors are built: nothing of this connection can reach a message any more.
        self.secrets = None;
        result
    }

    pub fn is_open(&self) -> bool {
        !self.hdbc.is_null()
    }

    /// This process is a fork of the one that connected: the session is the parent's.
    pub fn inherited(&self) -> bool {
        std::process::id() != self.owner
    }

    /// The driver's `SQL_ATTR_CONNECTION_DEAD` (false when it can't tell): what that means
    /// and costs per driver is `Strategy::liveness`.
    pub fn is_dead(&self) -> bool {
        if self.hdbc.is_null() || self.link.is_broken() {
            return true;
        }
        let hdbc = self.hdbc;
        self.link
            .call(CallKind::Connection, || Ok(connection_dead(hdbc)))
            .unwrap_or(true)
    }
}

impl Drop for Connection {
    fn drop(&mut self) {
        let _ = self.close();
    }
}

/// Lists registered drivers (`SQLDrivers`) or data sources (`SQLDataSources`) by name.
pub fn list_names(data_sources: bool) -> Result<Vec<(String, String)>> {
    let env = environment()?;
    let mut out = Vec::new();
    let mut direction = 2u16; // SQL_FETCH_FIRST
                              // Both functions take the same arguments: (name, description) pairs, one per call.
    let list = if data_sources {
        ffi::SQLDataSourcesW
    } else {
        ffi::SQLDriversW
    };
    loop {
        let mut a = [0u16; 512];
        let mut b = [0u16; 2048];
        let (mut al, mut bl) = (0i16, 0i16);
        // SAFETY: buffers valid for the lengths passed.
        let ret = unsafe {
            list(
                env,
                direction,
                a.as_mut_ptr(),
                512,
                &mut al,
                b.as_mut_ptr(),
                2048,
                &mut bl,
            )
        };
        if !check(ret, ffi::SQL_HANDLE_ENV, env, "SQLDrivers", None)? {
            break;
        }
        let al = (al.max(0) as usize).min(a.len());
        let bl = (bl.max(0) as usize).min(b.len());
        out.push((
            String::from_utf16_lossy(&a[..al]),
            String::from_utf16_lossy(&b[..bl]),
        ));
        direction = 1; // SQL_FETCH_NEXT
    }
    Ok(out)
}
