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
        Diagnostics { records }
    }

    /// SQLSTATE of the first record, the one that decides the exception class.
    /// A warning (class 01) that precedes the error is skipped: the error decides.
    pub fn sqlstate(&self) -> &str {
        self.records
            .iter()
            .find(|r| !r.sqlstate.starts_with("01"))
            .or(self.records.first())
            .map(|r| r.sqlstate.as_str())
            .unwrap_or("HY000")
    }

    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
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
            Error::Programming(_) => "HY000",
            Error::NotSupported(_) => "HYC00",
            Error::Interface(_) => "IM000",
        }
    }
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
            Error::Data(m)
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
