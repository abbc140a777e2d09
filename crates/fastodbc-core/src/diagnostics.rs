//! Diagnostic records and the error type of the core.
//!
//! Diagnostics are read only when a call returned `SQL_SUCCESS_WITH_INFO` or `SQL_ERROR`: never
//! per row on the success path.

use std::fmt;

use crate::ffi;

/// One ODBC diagnostic record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiagRecord {
    pub sqlstate: String,
    pub native: i32,
    pub message: String,
}

/// All diagnostic records of one handle after one call.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Diagnostics {
    pub records: Vec<DiagRecord>,
    /// The connection is lost, or was never made, though no record says so (the records hold
    /// a general error): see `Error::on_connection`, `Error::on_connect`.
    pub connection_failure: Option<ConnectionFailure>,
}

/// A connection failure a driver reported as a general error (SQLSTATE HY000).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConnectionFailure {
    /// The driver reports the connection dead (`SQL_ATTR_CONNECTION_DEAD`).
    Dead,
    /// `SQLDriverConnect` failed (MariaDB Connector/ODBC: `HY000 Can't connect to server`).
    NotConnected,
}

impl ConnectionFailure {
    /// ODBC's SQLSTATE for it: communication link failure, or unable to establish connection.
    pub fn sqlstate(self) -> &'static str {
        match self {
            ConnectionFailure::Dead => "08S01",
            ConnectionFailure::NotConnected => "08001",
        }
    }

    fn note(self) -> &'static str {
        match self {
            ConnectionFailure::Dead => {
                "the driver reports the connection dead (SQL_ATTR_CONNECTION_DEAD)"
            }
            ConnectionFailure::NotConnected => "no connection was made",
        }
    }
}

impl Diagnostics {
    /// Reads every record of `handle`. Message lengths from `SQLGetDiagRecW` are characters
    /// (UTF-16 code units), so a message longer than the buffer is read again with room for it.
    pub(crate) fn read(handle_type: i16, handle: ffi::Handle) -> Self {
        let mut records = Vec::new();
        let mut rec: i16 = 1;
        let mut msg: Vec<u16> = vec![0; 1024];
        loop {
            let mut state = [0u16; 6];
            let mut native = 0i32;
            let mut text_len = 0i16;
            // SAFETY: buffers are valid for the lengths passed; the driver writes at most that.
            let ret = unsafe {
                ffi::SQLGetDiagRecW(
                    handle_type,
                    handle,
                    rec,
                    state.as_mut_ptr(),
                    &mut native,
                    msg.as_mut_ptr(),
                    msg.len() as i16,
                    &mut text_len,
                )
            };
            if ret == ffi::SQL_SUCCESS_WITH_INFO && text_len as usize >= msg.len() {
                // Truncated: text_len is the full length in characters.
                msg = vec![0; text_len as usize + 1];
                continue;
            }
            if ret != ffi::SQL_SUCCESS && ret != ffi::SQL_SUCCESS_WITH_INFO {
                break;
            }
            let len = (text_len.max(0) as usize).min(msg.len());
            records.push(DiagRecord {
                sqlstate: String::from_utf16_lossy(&state[..5]),
                native,
                // A driver may echo a connection string or a password: never let it through.
                message: crate::redact::redact(&String::from_utf16_lossy(trim_nul(&msg[..len])))
                    .into_owned(),
            });
            rec += 1;
            if rec > 100 {
                break;
            }
        }
        Diagnostics {
            records,
            connection_failure: None,
        }
    }

    /// SQLSTATE of the first record, the one that decides the exception class.
    /// A warning (class 01) that precedes the error is skipped: the error decides.
    /// When the connection is lost, the state that says so (class 08) decides instead, or
    /// `connection_failure`'s: code that retries on a lost connection must not see a driver's
    /// general error.
    pub fn sqlstate(&self) -> &str {
        let first = self.first_state();
        if first.starts_with("08") {
            return first;
        }
        match self.records.iter().find(|r| r.sqlstate.starts_with("08")) {
            Some(r) => &r.sqlstate,
            None => match self.connection_failure {
                Some(failure) => failure.sqlstate(),
                None => first,
            },
        }
    }

    /// The first error's SQLSTATE, as the driver reported it.
    fn first_state(&self) -> &str {
        self.records
            .iter()
            .find(|r| !r.sqlstate.starts_with("01"))
            .or(self.records.first())
            .map(|r| r.sqlstate.as_str())
            .unwrap_or("HY000")
    }

    /// The connection is lost or was never made: a record of class 08 (connection exception)
    /// says so, or `connection_failure` does.
    pub fn connection_lost(&self) -> bool {
        self.connection_failure.is_some()
            || self.records.iter().any(|r| r.sqlstate.starts_with("08"))
    }

    pub fn is_empty(&self) -> bool {
        self.records.is_empty() && self.connection_failure.is_none()
    }
}

fn trim_nul(s: &[u16]) -> &[u16] {
    match s.iter().position(|&c| c == 0) {
        Some(p) => &s[..p],
        None => s,
    }
}

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, r) in self.records.iter().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            write!(f, "[{}] {} ({})", r.sqlstate, r.message, r.native)?;
        }
        if let Some(failure) = self.connection_failure {
            if !self.records.is_empty() {
                f.write_str("; ")?;
            }
            write!(f, "[{}] {}", failure.sqlstate(), failure.note())?;
        }
        Ok(())
    }
}

/// Errors of the core. The Python layer maps each to a DB-API exception class.
#[derive(Debug, Clone)]
pub enum Error {
    /// An ODBC call failed; `function` names it, as pyodbc's messages do.
    Odbc {
        function: &'static str,
        diagnostics: Diagnostics,
    },
    /// A value was cut short by the driver and could not be read whole.
    Truncated { column: String, row: usize },
    /// Text from the driver is not valid in the configured encoding.
    Decode {
        column: String,
        encoding: &'static str,
        offset: usize,
    },
    /// A value the driver would silently corrupt or a database cannot hold.
    Data(String),
    /// A fetched value a consumer cannot represent, with the SQLSTATE that says why (22003 out
    /// of range, 22008 a date, 22018 not of the column's type).
    Value {
        sqlstate: &'static str,
        message: String,
    },
    /// Misuse of the API detected before calling the driver.
    Programming(String),
    /// Something the driver or fastodbc does not support.
    NotSupported(String),
    /// Driver-manager level failure without diagnostics.
    Interface(String),
}

impl Error {
    /// SQLSTATE for this error: the driver's, or the ODBC state closest in meaning.
    pub fn sqlstate(&self) -> &str {
        match self {
            Error::Odbc { diagnostics, .. } => diagnostics.sqlstate(),
            Error::Truncated { .. } => "01004",
            Error::Decode { .. } => "22018",
            Error::Data(_) => "22000",
            Error::Value { sqlstate, .. } => sqlstate,
            Error::Programming(_) => "HY000",
            Error::NotSupported(_) => "HYC00",
            Error::Interface(_) => "IM000",
        }
    }
}

impl Error {
    /// This error, from a call on the connection `hdbc` or one of its statements, marked
    /// `connection_dead` when the driver reports the connection dead. Drivers report some
    /// failures of a lost connection as a general error (psqlODBC: `HY000 internal SAVEPOINT
    /// failed`, `HY000 server closed the connection unexpectedly`), so a general error (class
    /// HY) without a record of class 08 asks the driver. Only then: MariaDB Connector/ODBC
    /// answers `SQL_ATTR_CONNECTION_DEAD` with a ping (one round trip).
    pub(crate) fn on_connection(mut self, hdbc: ffi::Handle) -> Error {
        if let Error::Odbc { diagnostics, .. } = &mut self {
            if !hdbc.is_null()
                && diagnostics.first_state().starts_with("HY")
                // A timeout (HYT00, HYT01; the watchdog's too) says what happened already.
                && !diagnostics.first_state().starts_with("HYT")
                && !diagnostics.connection_lost()
                && connection_dead(hdbc)
            {
                diagnostics.connection_failure = Some(ConnectionFailure::Dead);
            }
        }
        self
    }

    /// A COMMIT refused because the connection was lost before it: the server has rolled the
    /// transaction back (`Quirks::commit_when_lost_succeeds`).
    pub(crate) fn lost_before_commit() -> Error {
        Error::Odbc {
            function: "SQLEndTran",
            diagnostics: Diagnostics {
                records: vec![DiagRecord {
                    sqlstate: ConnectionFailure::Dead.sqlstate().into(),
                    native: 0,
                    message:
                        "the connection was lost before COMMIT: the transaction is rolled back"
                            .into(),
                }],
                connection_failure: None,
            },
        }
    }

    /// This error of `SQLDriverConnect` marked `NotConnected` when it is a general error
    /// (HY000): no connection was made, whatever the driver called the failure. Other states
    /// (a refused login, an unknown database or driver) keep their meaning.
    pub(crate) fn on_connect(mut self) -> Error {
        if let Error::Odbc { diagnostics, .. } = &mut self {
            if diagnostics.first_state() == "HY000" {
                diagnostics.connection_failure = Some(ConnectionFailure::NotConnected);
            }
        }
        self
    }
}

/// `SQL_ATTR_CONNECTION_DEAD` of `hdbc`: false when the driver can't tell.
pub(crate) fn connection_dead(hdbc: ffi::Handle) -> bool {
    // SQLUINTEGER, but a driver writing a SQLULEN would write 8 bytes: room for both.
    let mut value: u64 = 0;
    // SAFETY: a live connection handle (the caller's); `value` has room for the widest
    // integer a driver may write.
    let ret = unsafe {
        ffi::SQLGetConnectAttrW(
            hdbc,
            ffi::SQL_ATTR_CONNECTION_DEAD,
            (&mut value as *mut u64).cast(),
            std::mem::size_of::<u64>() as i32,
            std::ptr::null_mut(),
        )
    };
    (ret == ffi::SQL_SUCCESS || ret == ffi::SQL_SUCCESS_WITH_INFO)
        && value & 0xFFFF_FFFF == ffi::SQL_CD_TRUE
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Odbc {
                function,
                diagnostics,
            } => {
                if diagnostics.is_empty() {
                    write!(f, "{function} failed without diagnostics")
                } else {
                    write!(f, "{diagnostics} ({function})")
                }
            }
            Error::Truncated { column, row } => write!(
                f,
                "[01004] value of column {column:?} (row {row} of the block) was truncated by the \
                 driver and this driver cannot return it whole"
            ),
            Error::Decode {
                column,
                encoding,
                offset,
            } => write!(
                f,
                "column {column:?}: invalid {encoding} text from the driver at byte {offset}"
            ),
            Error::Value { message: m, .. }
            | Error::Data(m)
            | Error::Programming(m)
            | Error::NotSupported(m)
            | Error::Interface(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for Error {}

pub type Result<T> = std::result::Result<T, Error>;

/// Turns a return code into `Ok(true)` (success), `Ok(false)` (`SQL_NO_DATA`) or the error with
/// its diagnostics. `info` receives records of `SQL_SUCCESS_WITH_INFO`.
pub(crate) fn check(
    ret: ffi::SqlReturn,
    handle_type: i16,
    handle: ffi::Handle,
    function: &'static str,
    info: Option<&mut Vec<DiagRecord>>,
) -> Result<bool> {
    match ret {
        ffi::SQL_SUCCESS => Ok(true),
        ffi::SQL_SUCCESS_WITH_INFO => {
            if let Some(info) = info {
                info.extend(Diagnostics::read(handle_type, handle).records);
            }
            Ok(true)
        }
        ffi::SQL_NO_DATA => Ok(false),
        ffi::SQL_INVALID_HANDLE => Err(Error::Interface(format!(
            "{function}: invalid handle (the object was closed)"
        ))),
        _ => Err(Error::Odbc {
            function,
            diagnostics: Diagnostics::read(handle_type, handle),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn diagnostics(states: &[&str]) -> Diagnostics {
        Diagnostics {
            records: states
                .iter()
                .map(|s| DiagRecord {
                    sqlstate: (*s).into(),
                    native: 0,
                    message: format!("message {s}"),
                })
                .collect(),
            connection_failure: None,
        }
    }

    fn odbc(states: &[&str]) -> Error {
        Error::Odbc {
            function: "SQLExecute",
            diagnostics: diagnostics(states),
        }
    }

    #[test]
    fn the_first_error_decides_while_the_connection_lives() {
        for (states, expected) in [
            (&["HY000"][..], "HY000"),
            (&["01000", "23505"][..], "23505"),
            (&["57P01"][..], "57P01"),
            (&["01004"][..], "01004"),
        ] {
            let d = diagnostics(states);
            assert_eq!(d.sqlstate(), expected);
            assert!(!d.connection_lost());
        }
    }

    #[test]
    fn a_lost_connection_decides_over_a_general_error() {
        let d = diagnostics(&["HY000", "08S01"]);
        assert!(d.connection_lost());
        assert_eq!(d.sqlstate(), "08S01");
        let mut d = diagnostics(&["HY000"]);
        d.connection_failure = Some(ConnectionFailure::Dead);
        assert!(d.connection_lost());
        assert_eq!(d.sqlstate(), "08S01");
        let text = d.to_string();
        assert!(
            text.starts_with("[HY000] message HY000 (0); [08S01] "),
            "{text}"
        );
        assert!(text.contains("SQL_ATTR_CONNECTION_DEAD"), "{text}");
    }

    #[test]
    fn a_connect_failing_with_a_general_error_made_no_connection() {
        let e = odbc(&["HY000"]).on_connect();
        assert_eq!(e.sqlstate(), "08001");
        let e = odbc(&["28000"]).on_connect();
        assert_eq!(e.sqlstate(), "28000");
        let Error::Odbc { diagnostics, .. } = e else {
            unreachable!("an ODBC error stays one")
        };
        assert!(!diagnostics.connection_lost());
    }

    #[test]
    fn errors_that_say_more_than_a_general_error_ask_no_driver() {
        // (A null handle is never asked.)
        let e = odbc(&["23505"]).on_connection(std::ptr::null_mut());
        assert_eq!(e.sqlstate(), "23505");
        let e = odbc(&["HY000", "08S01"]).on_connection(std::ptr::null_mut());
        assert_eq!(e.sqlstate(), "08S01");
    }
}
