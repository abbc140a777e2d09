//! The ODBC environment and connections.

use std::ptr::null_mut;
use std::sync::OnceLock;

use crate::diagnostics::{check, connection_dead, DiagRecord, Error, Result};
use crate::ffi;
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

/// Text encoding choices a connection makes once, from what its driver is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DriverTraits {
    /// The driver's narrow (SQL_C_CHAR) text is UTF-8, and cheaper than its UTF-16.
    pub narrow_is_utf8: bool,
    /// The driver silently cuts strings at an embedded NUL.
    pub truncates_at_nul: bool,
    /// Declared column sizes are not limits: values can be longer than described.
    pub sizes_unreliable: bool,
    /// Binary parameter arrays bind correctly (SQLite's driver reads one byte per element).
    pub binary_param_arrays: bool,
    /// Timestamps are bound as text to keep microseconds (SQLite's driver keeps milliseconds of
    /// a SQL_C_TYPE_TIMESTAMP but stores text as given).
    pub timestamp_as_text: bool,
    /// `SQLRowCount` after a parameter array counts every row, not just the last set's.
    pub array_row_count: bool,
    /// Parameter arrays cost one round trip per row: executemany of a single-row INSERT is
    /// rewritten to multi-row VALUES statements instead (psqlODBC).
    pub rewrite_batched_inserts: bool,
    /// The server is PostgreSQL: executemany of a single-row INSERT goes as column arrays
    /// (`array_insert`), and the multi-row VALUES rewrite is its fallback.
    pub column_array_inserts: bool,
    /// The driver compiles an INSERT again for every parameter set, but keeps a statement that
    /// begins with `WITH` compiled (sqliteodbc): executemany of a single-row INSERT is
    /// prefixed with an unused CTE (`compiled_insert`).
    pub compiles_with_once: bool,
    /// Integer and floating-point columns are fetched as their text, which the consumer (or
    /// the thread reading ahead) parses (`types::numeric::NumberText`). sqliteodbc turns its
    /// number text into SQL_C_SBIGINT / SQL_C_DOUBLE with `strtoll` / `strtod`, silently: a
    /// REAL 3.7 in an INTEGER column comes back 3, the text 'abc' NULL, '0x1F' 31 (its columns
    /// hold any type).
    pub numbers_as_text: bool,
    /// Integer columns are fetched as their text (`numbers_as_text` for integers only).
    /// psqlODBC receives them as text and converts them during the fetch, its slower side:
    /// served as text, its fetch of the benchmark's `int10` took ~7% less (fresh processes,
    /// medians of 5). Not its floating-point columns: `money` is one too (SQL_FLOAT), whose
    /// text (`$1,234.56`) only the driver's own conversion reads as a number.
    pub integers_as_text: bool,
    /// Run statements with SQLPrepare + SQLExecute, never SQLExecDirect: psqlODBC sends a
    /// direct statement and its savepoint as one simple-protocol query, so a syntax error there
    /// silently rolls back the whole transaction.
    pub prepare_always: bool,
    /// `SQLGetData` may follow a block fetch after `SQLSetPos` (SQL_GD_BLOCK | SQL_GD_BOUND).
    pub getdata_in_block: bool,
    /// A COMMIT on a connection the driver already found lost does nothing and succeeds
    /// (psqlODBC: a loss noticed by any call, even freeing a statement, clears its
    /// in-transaction flag, and COMMIT then sends nothing). `SQL_ATTR_CONNECTION_DEAD`, a status
    /// read in this driver, is checked before each COMMIT.
    pub commit_when_lost_succeeds: bool,
    /// `SQLGetData` may re-read a bound column of the current row (SQL_GD_BOUND): with
    /// one-row blocks, a truncated value can be read again whole.
    pub getdata_bound: bool,
    /// The driver reads UTF-16 input past its end: MariaDB Connector/ODBC 3.1 measures it
    /// with its UTF-16 charset's `mb_charlen` applied to a whole code unit, which tests the
    /// unit's low byte, so every unit in U+xxD8..U+xxDB (`Ø`, `Ù`, `付`...) counts as the
    /// start of a surrogate pair and its conversion to UTF-8 reads one unit past the text per
    /// such unit, and keeps it (a NUL, the next row's text in a parameter array, garbage after
    /// a statement). Statements therefore get spaces after their end to read
    /// (`Statement::prepare` / `exec_direct`), and `str` parameters go as UTF-8 (SQL_C_CHAR):
    /// its narrow text is the connection's utf8mb4, taken as given (`BindOptions::for_driver`).
    /// (unixODBC hands the driver the wide functions whatever the application calls, so the
    /// narrow ones are no way around it for statements.)
    pub overreads_wide_text: bool,
    /// `uuid.UUID` parameters go as their 36-character text, not SQL_C_GUID: MariaDB
    /// Connector/ODBC 3.1 sends a SQL_GUID struct as its 16 bytes in memory order (Data1-3
    /// little-endian), which a UUID column stores byte-swapped and a text column refuses (and a
    /// parameter array of two or more crashed it); sqliteodbc refuses SQL_C_GUID (07009).
    /// (MariaDB's misleading SQLSTATEs are restated by native error in fastodbc-py's
    /// `errors::MYSQL_RESTATED`: a failed connect has no driver name to look up.)
    pub guid_as_text: bool,
    /// The driver's UTF-16 output is wrong, and its narrow text (`narrow_text`) right:
    /// - sqliteodbc 0.9998 turns characters of plane 16 into others: U+10FFFF comes back
    ///   U+FFFF, U+100000 as a NUL that ends the value.
    /// - MariaDB Connector/ODBC 3.1 (raw probes of indicators and bytes): the miscount of
    ///   `overreads_wide_text` cuts a fetched value one unit short per unit in U+xxD8..U+xxDB
    ///   (`'ÆØÅ'` comes back `'ÆØ'`; `'ÆØÅ ÿ'` loses its `ÿ`); its conversions stop at an
    ///   embedded NUL; a bound value longer than its buffer comes back cut with no 01004 and
    ///   a length counting characters (1,030 emoji: 2,060 bytes), or fails with HY000 'Ansi
    ///   to Unicode conversion error'. Its `SQLGetData` converts long values right.
    ///
    /// Where the narrow text is UTF-8, text asked for as SQL_C_WCHAR (setdecoding) is fetched
    /// as SQL_C_CHAR and decoded here. Otherwise (MariaDB with `CHARSET=` another character
    /// set) a value fetched as SQL_C_WCHAR is read with `SQLGetData` and checked against its
    /// length in narrow bytes: `DataError` when they disagree.
    pub utf16_unreliable: bool,
    /// What the driver's narrow text is encoded in, as far as fastodbc can tell.
    pub narrow_text: NarrowText,
    /// A TIME parameter with a fraction is refused (22008), although the driver sends text
    /// parameters to the server as text whatever their SQL type: times are bound as
    /// SQL_VARCHAR, which the server converts as it would the literal (MariaDB).
    pub time_as_varchar: bool,
}

/// The encoding of a driver's narrow (SQL_C_CHAR) text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NarrowText {
    Utf8,
    /// One byte per character (latin1, cp1251, ...).
    SingleByte,
    /// A multi-byte encoding other than UTF-8, or not known.
    Unknown,
}

impl NarrowText {
    /// Bytes the UTF-16 code units `units` take in this narrow encoding, when that is known.
    pub fn len_of_utf16(self, units: impl Iterator<Item = u16>) -> Option<usize> {
        match self {
            NarrowText::Utf8 => Some(
                units
                    .map(|u| match u {
                        0..=0x7F => 1,
                        0x80..=0x7FF => 2,
                        // A surrogate pair is one 4-byte UTF-8 sequence: 2 bytes per unit.
                        0xD800..=0xDFFF => 2,
                        _ => 3,
                    })
                    .sum(),
            ),
            NarrowText::SingleByte => {
                Some(units.filter(|u| !(0xDC00..=0xDFFF).contains(u)).count())
            }
            NarrowText::Unknown => None,
        }
    }
}

/// An open ODBC connection.
pub struct Connection {
    hdbc: ffi::Handle,
    connected: bool,
    pub traits: DriverTraits,
    pub driver_name: String,
    pub dbms_name: String,
    /// Its secrets stay redacted from every message while it is open (`redact`).
    secrets: Option<SecretLease>,
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
            traits: DriverTraits {
                narrow_is_utf8: false,
                truncates_at_nul: false,
                sizes_unreliable: false,
                binary_param_arrays: true,
                timestamp_as_text: false,
                array_row_count: true,
                prepare_always: false,
                rewrite_batched_inserts: false,
                column_array_inserts: false,
                compiles_with_once: false,
                numbers_as_text: false,
                integers_as_text: false,
                getdata_in_block: false,
                commit_when_lost_succeeds: false,
                getdata_bound: false,
                overreads_wide_text: false,
                guid_as_text: false,
                utf16_unreliable: false,
                narrow_text: NarrowText::Unknown,
                time_as_varchar: false,
            },
            driver_name: String::new(),
            dbms_name: String::new(),
            secrets: Some(secrets),
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
        .map_err(Error::on_connect)?;
        conn.connected = true;
        conn.set_autocommit(autocommit)?;
        if readonly {
            conn.set_attr_int(ffi::SQL_ATTR_ACCESS_MODE, ffi::SQL_MODE_READ_ONLY)?;
        }
        conn.driver_name = conn.info_string(ffi::SQL_DRIVER_NAME).unwrap_or_default();
        conn.dbms_name = conn.info_string(ffi::SQL_DBMS_NAME).unwrap_or_default();
        let gd = conn.info_u32(ffi::SQL_GETDATA_EXTENSIONS).unwrap_or(0);
        // MariaDB's narrow text is in the connection's character set (utf8mb4 unless the
        // connection string names another), which SQL_COLLATION_SEQ names.
        let collation = if is_mariadb(&conn.driver_name) {
            conn.info_string(ffi::SQL_COLLATION_SEQ).unwrap_or_default()
        } else {
            String::new()
        };
        conn.traits = driver_traits(&conn.driver_name, gd, &collation);
        Ok(conn)
    }

    pub fn handle(&self) -> ffi::Handle {
        self.hdbc
    }

    fn set_attr_int(&self, attr: i32, value: usize) -> Result<()> {
        self.set_attr(attr, &AttrValue::Int(value as i64))
    }

    /// Sets any connection attribute (integers by value, text as UTF-16, bytes as a buffer).
    pub fn set_attr(&self, attr: i32, value: &AttrValue) -> Result<()> {
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
        if commit && self.traits.commit_when_lost_succeeds && connection_dead(self.hdbc) {
            return Err(Error::lost_before_commit());
        }
        let kind = if commit {
            ffi::SQL_COMMIT
        } else {
            ffi::SQL_ROLLBACK
        };
        // SAFETY: valid connection handle.
        let ret = unsafe { ffi::SQLEndTran(ffi::SQL_HANDLE_DBC, self.hdbc, kind) };
        check(ret, ffi::SQL_HANDLE_DBC, self.hdbc, "SQLEndTran", None)
            .map(|_| ())
            .map_err(|e| e.on_connection(self.hdbc))
    }

    /// `SQLGetInfo` returning a string.
    pub fn info_string(&self, info: u16) -> Result<String> {
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
        let mut result = Ok(());
        if self.connected {
            // SAFETY: valid connection handle; errors here are reported, the handle still freed.
            unsafe {
                let _ = ffi::SQLEndTran(ffi::SQL_HANDLE_DBC, self.hdbc, ffi::SQL_ROLLBACK);
                let ret = ffi::SQLDisconnect(self.hdbc);
                result =
                    check(ret, ffi::SQL_HANDLE_DBC, self.hdbc, "SQLDisconnect", None).map(|_| ());
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
}

impl Drop for Connection {
    fn drop(&mut self) {
        let _ = self.close();
    }
}

/// MariaDB Connector/ODBC (`libmaodbc.so`).
fn is_mariadb(driver_name: &str) -> bool {
    driver_name.to_ascii_lowercase().starts_with("libmaodbc")
}

/// The narrow encoding a MariaDB connection's collation (`utf8mb4_general_ci`) implies.
fn mariadb_narrow_text(collation: &str) -> NarrowText {
    let charset = collation.split('_').next().unwrap_or("");
    match charset {
        "utf8" | "utf8mb3" | "utf8mb4" => NarrowText::Utf8,
        // The server's multi-byte client character sets (ucs2, utf16 and utf32 cannot be one).
        "big5" | "cp932" | "eucjpms" | "euckr" | "gb2312" | "gbk" | "sjis" | "ujis" | "" => {
            NarrowText::Unknown
        }
        _ => NarrowText::SingleByte,
    }
}

/// What fastodbc knows about a driver from its file name and capabilities. Measured on Debian's
/// drivers (see docs/driver-notes): SQLite's and psqlODBC's serve UTF-8 narrow text faster than
/// UTF-16, and both cut parameters at an embedded NUL.
///
/// MariaDB Connector/ODBC 3.1 (`libmaodbc.so`): its narrow text is in the connection's
/// character set, utf8mb4 by default, and 4-7x faster than its UTF-16 (200,000 rows x 5
/// VARCHAR(100), fresh processes, medians of 5: BENCHMARKS.md), and its UTF-16 is wrong
/// (`utf16_unreliable`). Its SQLSetPos(SQL_POSITION) moves the cursor relative to
/// the last position, not the rowset's start, the next SQLFetch continues from there (rows lost
/// or repeated), and SQLGetData after it returns SQL_NO_DATA for a column already read: values
/// are re-read on one-row fetches instead (SQL_GD_BOUND). It keeps NUL in parameters.
fn driver_traits(driver_name: &str, getdata_extensions: u32, collation: &str) -> DriverTraits {
    let name = driver_name.to_ascii_lowercase();
    let sqlite = name.contains("sqlite");
    let mariadb = is_mariadb(&name);
    let narrow_text = if sqlite || name.starts_with("psqlodbcw") {
        NarrowText::Utf8
    } else if mariadb {
        mariadb_narrow_text(collation)
    } else {
        NarrowText::Unknown
    };
    let nul_cutters = name.contains("sqlite") || name.starts_with("psqlodbc");
    DriverTraits {
        narrow_is_utf8: narrow_text == NarrowText::Utf8,
        truncates_at_nul: nul_cutters,
        sizes_unreliable: sqlite,
        binary_param_arrays: !sqlite,
        timestamp_as_text: sqlite,
        array_row_count: !name.starts_with("psqlodbc"),
        prepare_always: name.starts_with("psqlodbc"),
        rewrite_batched_inserts: name.starts_with("psqlodbc"),
        column_array_inserts: name.starts_with("psqlodbc"),
        compiles_with_once: name.contains("sqlite3odbc"),
        numbers_as_text: name.contains("sqlite3odbc"),
        integers_as_text: name.starts_with("psqlodbc"),
        commit_when_lost_succeeds: name.starts_with("psqlodbc"),
        getdata_bound: getdata_extensions & ffi::SQL_GD_BOUND != 0,
        getdata_in_block: !mariadb
            && getdata_extensions & (ffi::SQL_GD_BLOCK | ffi::SQL_GD_BOUND)
                == (ffi::SQL_GD_BLOCK | ffi::SQL_GD_BOUND),
        utf16_unreliable: mariadb || name.contains("sqlite3odbc"),
        narrow_text,
        time_as_varchar: mariadb,
        overreads_wide_text: mariadb,
        guid_as_text: mariadb || sqlite,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn narrow_text_from_a_mariadb_collation() {
        assert_eq!(mariadb_narrow_text("utf8mb4_general_ci"), NarrowText::Utf8);
        assert_eq!(mariadb_narrow_text("utf8mb3_general_ci"), NarrowText::Utf8);
        assert_eq!(
            mariadb_narrow_text("latin1_swedish_ci"),
            NarrowText::SingleByte
        );
        assert_eq!(mariadb_narrow_text("sjis_japanese_ci"), NarrowText::Unknown);
        assert_eq!(mariadb_narrow_text(""), NarrowText::Unknown);
    }

    #[test]
    fn narrow_length_of_utf16_text() {
        let text = "aé東😀Ø";
        let units = || text.encode_utf16();
        assert_eq!(NarrowText::Utf8.len_of_utf16(units()), Some(text.len()));
        assert_eq!(NarrowText::SingleByte.len_of_utf16(units()), Some(5));
        assert_eq!(NarrowText::Unknown.len_of_utf16(units()), None);
    }

    #[test]
    fn mariadb_traits_follow_its_connection_character_set() {
        let gd = ffi::SQL_GD_BLOCK | ffi::SQL_GD_BOUND;
        let utf8 = driver_traits("libmaodbc.so", gd, "utf8mb4_general_ci");
        assert!(utf8.narrow_is_utf8 && utf8.utf16_unreliable && utf8.overreads_wide_text);
        assert!(!utf8.getdata_in_block && utf8.getdata_bound && utf8.time_as_varchar);
        let latin1 = driver_traits("libmaodbc.so", gd, "latin1_swedish_ci");
        assert!(!latin1.narrow_is_utf8 && latin1.narrow_text == NarrowText::SingleByte);
        let sqlite = driver_traits("libsqlite3odbc.so", gd, "");
        assert!(sqlite.narrow_is_utf8 && sqlite.utf16_unreliable && !sqlite.overreads_wide_text);
        let pg = driver_traits("psqlodbcw.so", gd, "");
        assert!(pg.narrow_is_utf8 && !pg.utf16_unreliable && pg.getdata_in_block);
    }
}
