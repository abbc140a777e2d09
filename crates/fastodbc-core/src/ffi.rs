//! The slice of the ODBC C API fastodbc calls, declared with plain integer types.
//!
//! Declared here rather than taken from `odbc-sys` because that crate models attributes and info
//! types as Rust enums: a value the enum lacks (driver-specific attributes, `attrs_before`, every
//! `getinfo` key pyodbc users pass) cannot be expressed without undefined behaviour.
#![allow(non_snake_case, clippy::upper_case_acronyms, dead_code)]

use std::os::raw::c_void;

pub type Handle = *mut c_void;
pub type SqlReturn = i16;
pub type Len = isize;
pub type ULen = usize;

pub const SQL_SUCCESS: SqlReturn = 0;
pub const SQL_SUCCESS_WITH_INFO: SqlReturn = 1;
pub const SQL_NO_DATA: SqlReturn = 100;
pub const SQL_ERROR: SqlReturn = -1;
pub const SQL_INVALID_HANDLE: SqlReturn = -2;
pub const SQL_NEED_DATA: SqlReturn = 99;

pub const SQL_HANDLE_ENV: i16 = 1;
pub const SQL_HANDLE_DBC: i16 = 2;
pub const SQL_HANDLE_STMT: i16 = 3;

pub const SQL_NULL_DATA: Len = -1;
pub const SQL_NO_TOTAL: Len = -4;
pub const SQL_NTS: Len = -3;
pub const SQL_IS_INTEGER: i32 = -6;
pub const SQL_IS_UINTEGER: i32 = -5;
pub const SQL_IS_POINTER: i32 = -4;

// Environment / connection attributes.
pub const SQL_ATTR_ODBC_VERSION: i32 = 200;
pub const SQL_OV_ODBC3: usize = 3;
pub const SQL_ATTR_AUTOCOMMIT: i32 = 102;
pub const SQL_ATTR_ACCESS_MODE: i32 = 101;
pub const SQL_ATTR_LOGIN_TIMEOUT: i32 = 103;
pub const SQL_ATTR_CONNECTION_TIMEOUT: i32 = 113;
pub const SQL_ATTR_CONNECTION_DEAD: i32 = 1209;
pub const SQL_CD_TRUE: u64 = 1;
pub const SQL_MODE_READ_ONLY: usize = 1;
pub const SQL_AUTOCOMMIT_OFF: usize = 0;
pub const SQL_AUTOCOMMIT_ON: usize = 1;
pub const SQL_DRIVER_NOPROMPT: u16 = 0;
pub const SQL_COMMIT: i16 = 0;
pub const SQL_ROLLBACK: i16 = 1;

// Statement attributes.
pub const SQL_ATTR_QUERY_TIMEOUT: i32 = 0;
pub const SQL_ATTR_ROW_ARRAY_SIZE: i32 = 27;
pub const SQL_ATTR_ROWS_FETCHED_PTR: i32 = 26;
pub const SQL_ATTR_ROW_STATUS_PTR: i32 = 25;
pub const SQL_ATTR_ROW_BIND_TYPE: i32 = 5;
pub const SQL_ATTR_PARAM_BIND_TYPE: i32 = 18;
pub const SQL_ATTR_PARAMSET_SIZE: i32 = 22;
pub const SQL_ATTR_PARAMS_PROCESSED_PTR: i32 = 21;
pub const SQL_ATTR_PARAM_STATUS_PTR: i32 = 20;
pub const SQL_BIND_BY_COLUMN: usize = 0;
pub const SQL_ATTR_CURSOR_TYPE: i32 = 6;
pub const SQL_CURSOR_STATIC: usize = 3;

pub const SQL_CLOSE: u16 = 0;
/// `SQLColAttribute` field: the column's numeric type is unsigned.
pub const SQL_DESC_UNSIGNED: u16 = 8;
pub const SQL_DESC_TYPE_NAME: u16 = 14;
pub const SQL_DESC_SCHEMA_NAME: u16 = 16;
pub const SQL_DESC_BASE_COLUMN_NAME: u16 = 22;
pub const SQL_DESC_BASE_TABLE_NAME: u16 = 23;
pub const SQL_UNBIND: u16 = 2;
pub const SQL_RESET_PARAMS: u16 = 3;

pub const SQL_PARAM_INPUT: i16 = 1;
/// `SQL_ATTR_PARAM_STATUS_PTR` values: the set failed / was not executed.
pub const SQL_PARAM_ERROR: u16 = 5;
pub const SQL_PARAM_UNUSED: u16 = 7;
pub const SQL_POSITION: u16 = 0;
pub const SQL_LOCK_NO_CHANGE: u16 = 0;

// Info types used internally.
pub const SQL_DRIVER_NAME: u16 = 6;
pub const SQL_DBMS_NAME: u16 = 17;
pub const SQL_DBMS_VER: u16 = 18;
pub const SQL_COLLATION_SEQ: u16 = 10004;
pub const SQL_GETDATA_EXTENSIONS: u16 = 81;
pub const SQL_GD_BLOCK: u32 = 4;
pub const SQL_GD_BOUND: u32 = 8;

// SQL data types.
pub const SQL_UNKNOWN_TYPE: i16 = 0;
pub const SQL_CHAR: i16 = 1;
pub const SQL_NUMERIC: i16 = 2;
pub const SQL_DECIMAL: i16 = 3;
pub const SQL_INTEGER: i16 = 4;
pub const SQL_SMALLINT: i16 = 5;
pub const SQL_FLOAT: i16 = 6;
pub const SQL_REAL: i16 = 7;
pub const SQL_DOUBLE: i16 = 8;
pub const SQL_DATETIME: i16 = 9;
pub const SQL_VARCHAR: i16 = 12;
pub const SQL_TYPE_DATE: i16 = 91;
pub const SQL_TYPE_TIME: i16 = 92;
pub const SQL_TYPE_TIMESTAMP: i16 = 93;
pub const SQL_TYPE_TIMESTAMP_WITH_TIMEZONE: i16 = 95;
pub const SQL_LONGVARCHAR: i16 = -1;
pub const SQL_BINARY: i16 = -2;
pub const SQL_VARBINARY: i16 = -3;
pub const SQL_LONGVARBINARY: i16 = -4;
pub const SQL_BIGINT: i16 = -5;
pub const SQL_TINYINT: i16 = -6;
pub const SQL_BIT: i16 = -7;
pub const SQL_WCHAR: i16 = -8;
pub const SQL_WVARCHAR: i16 = -9;
pub const SQL_WLONGVARCHAR: i16 = -10;
pub const SQL_GUID: i16 = -11;
pub const SQL_SS_VARIANT: i16 = -150;
pub const SQL_SS_XML: i16 = -152;
pub const SQL_SS_TIME2: i16 = -154;
pub const SQL_SS_TIMESTAMPOFFSET: i16 = -155;

// C data types.
pub const SQL_C_CHAR: i16 = 1;
pub const SQL_C_WCHAR: i16 = -8;
pub const SQL_C_SBIGINT: i16 = -25;
pub const SQL_C_UBIGINT: i16 = -27;
pub const SQL_C_BIT: i16 = -7;
pub const SQL_C_DOUBLE: i16 = 8;
pub const SQL_C_BINARY: i16 = -2;
pub const SQL_C_TYPE_DATE: i16 = 91;
pub const SQL_C_TYPE_TIME: i16 = 92;
pub const SQL_C_TYPE_TIMESTAMP: i16 = 93;
pub const SQL_C_GUID: i16 = -11;
pub const SQL_C_DEFAULT: i16 = 99;

#[repr(C)]
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct SqlDate {
    pub year: i16,
    pub month: u16,
    pub day: u16,
}

#[repr(C)]
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct SqlTimestamp {
    pub year: i16,
    pub month: u16,
    pub day: u16,
    pub hour: u16,
    pub minute: u16,
    pub second: u16,
    /// Nanoseconds.
    pub fraction: u32,
}

#[repr(C)]
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct SqlGuid {
    pub d1: u32,
    pub d2: u16,
    pub d3: u16,
    pub d4: [u8; 8],
}

#[cfg_attr(not(windows), link(name = "odbc"))]
#[cfg_attr(windows, link(name = "odbc32"))]
extern "system" {
    pub fn SQLAllocHandle(handle_type: i16, input: Handle, output: *mut Handle) -> SqlReturn;
    pub fn SQLFreeHandle(handle_type: i16, handle: Handle) -> SqlReturn;
    pub fn SQLSetEnvAttr(env: Handle, attr: i32, value: *mut c_void, len: i32) -> SqlReturn;
    pub fn SQLSetConnectAttrW(dbc: Handle, attr: i32, value: *mut c_void, len: i32) -> SqlReturn;
    pub fn SQLGetConnectAttrW(
        dbc: Handle,
        attr: i32,
        value: *mut c_void,
        buf_len: i32,
        out_len: *mut i32,
    ) -> SqlReturn;
    pub fn SQLDriverConnectW(
        dbc: Handle,
        hwnd: *mut c_void,
        in_conn: *const u16,
        in_len: i16,
        out_conn: *mut u16,
        out_max: i16,
        out_len: *mut i16,
        completion: u16,
    ) -> SqlReturn;
    pub fn SQLDisconnect(dbc: Handle) -> SqlReturn;
    pub fn SQLEndTran(handle_type: i16, handle: Handle, completion: i16) -> SqlReturn;
    pub fn SQLGetInfoW(
        dbc: Handle,
        info: u16,
        value: *mut c_void,
        buf_len: i16,
        out_len: *mut i16,
    ) -> SqlReturn;
    pub fn SQLGetDiagRecW(
        handle_type: i16,
        handle: Handle,
        rec: i16,
        state: *mut u16,
        native: *mut i32,
        msg: *mut u16,
        buf_len: i16,
        text_len: *mut i16,
    ) -> SqlReturn;
    pub fn SQLDriversW(
        env: Handle,
        direction: u16,
        desc: *mut u16,
        desc_max: i16,
        desc_len: *mut i16,
        attrs: *mut u16,
        attrs_max: i16,
        attrs_len: *mut i16,
    ) -> SqlReturn;
    pub fn SQLDataSourcesW(
        env: Handle,
        direction: u16,
        name: *mut u16,
        name_max: i16,
        name_len: *mut i16,
        desc: *mut u16,
        desc_max: i16,
        desc_len: *mut i16,
    ) -> SqlReturn;
    pub fn SQLExecDirectW(stmt: Handle, text: *const u16, len: i32) -> SqlReturn;
    pub fn SQLPrepareW(stmt: Handle, text: *const u16, len: i32) -> SqlReturn;
    pub fn SQLExecute(stmt: Handle) -> SqlReturn;
    pub fn SQLNumResultCols(stmt: Handle, count: *mut i16) -> SqlReturn;
    pub fn SQLNumParams(stmt: Handle, count: *mut i16) -> SqlReturn;
    pub fn SQLDescribeColW(
        stmt: Handle,
        col: u16,
        name: *mut u16,
        name_max: i16,
        name_len: *mut i16,
        data_type: *mut i16,
        col_size: *mut ULen,
        digits: *mut i16,
        nullable: *mut i16,
    ) -> SqlReturn;
    pub fn SQLColAttributeW(
        stmt: Handle,
        col: u16,
        field: u16,
        char_attr: *mut c_void,
        buf_len: i16,
        str_len: *mut i16,
        num_attr: *mut Len,
    ) -> SqlReturn;
    pub fn SQLDescribeParam(
        stmt: Handle,
        param: u16,
        data_type: *mut i16,
        size: *mut ULen,
        digits: *mut i16,
        nullable: *mut i16,
    ) -> SqlReturn;
    pub fn SQLBindCol(
        stmt: Handle,
        col: u16,
        c_type: i16,
        value: *mut c_void,
        buf_len: Len,
        ind: *mut Len,
    ) -> SqlReturn;
    pub fn SQLBindParameter(
        stmt: Handle,
        param: u16,
        io_type: i16,
        c_type: i16,
        sql_type: i16,
        col_size: ULen,
        digits: i16,
        value: *mut c_void,
        buf_len: Len,
        ind: *mut Len,
    ) -> SqlReturn;
    pub fn SQLSetStmtAttrW(stmt: Handle, attr: i32, value: *mut c_void, len: i32) -> SqlReturn;
    pub fn SQLFetch(stmt: Handle) -> SqlReturn;
    pub fn SQLGetData(
        stmt: Handle,
        col: u16,
        c_type: i16,
        value: *mut c_void,
        buf_len: Len,
        ind: *mut Len,
    ) -> SqlReturn;
    pub fn SQLSetPos(stmt: Handle, row: ULen, op: u16, lock: u16) -> SqlReturn;
    pub fn SQLMoreResults(stmt: Handle) -> SqlReturn;
    pub fn SQLRowCount(stmt: Handle, count: *mut Len) -> SqlReturn;
    pub fn SQLFreeStmt(stmt: Handle, option: u16) -> SqlReturn;
    pub fn SQLCloseCursor(stmt: Handle) -> SqlReturn;
    pub fn SQLCancel(stmt: Handle) -> SqlReturn;
    pub fn SQLTablesW(
        stmt: Handle,
        catalog: *const u16,
        catalog_len: i16,
        schema: *const u16,
        schema_len: i16,
        table: *const u16,
        table_len: i16,
        table_type: *const u16,
        table_type_len: i16,
    ) -> SqlReturn;
    pub fn SQLColumnsW(
        stmt: Handle,
        catalog: *const u16,
        catalog_len: i16,
        schema: *const u16,
        schema_len: i16,
        table: *const u16,
        table_len: i16,
        column: *const u16,
        column_len: i16,
    ) -> SqlReturn;
    pub fn SQLPrimaryKeysW(
        stmt: Handle,
        catalog: *const u16,
        catalog_len: i16,
        schema: *const u16,
        schema_len: i16,
        table: *const u16,
        table_len: i16,
    ) -> SqlReturn;
    pub fn SQLForeignKeysW(
        stmt: Handle,
        pk_catalog: *const u16,
        pk_catalog_len: i16,
        pk_schema: *const u16,
        pk_schema_len: i16,
        pk_table: *const u16,
        pk_table_len: i16,
        fk_catalog: *const u16,
        fk_catalog_len: i16,
        fk_schema: *const u16,
        fk_schema_len: i16,
        fk_table: *const u16,
        fk_table_len: i16,
    ) -> SqlReturn;
    pub fn SQLStatisticsW(
        stmt: Handle,
        catalog: *const u16,
        catalog_len: i16,
        schema: *const u16,
        schema_len: i16,
        table: *const u16,
        table_len: i16,
        unique: u16,
        reserved: u16,
    ) -> SqlReturn;
    pub fn SQLSpecialColumnsW(
        stmt: Handle,
        identifier_type: u16,
        catalog: *const u16,
        catalog_len: i16,
        schema: *const u16,
        schema_len: i16,
        table: *const u16,
        table_len: i16,
        scope: u16,
        nullable: u16,
    ) -> SqlReturn;
    pub fn SQLProceduresW(
        stmt: Handle,
        catalog: *const u16,
        catalog_len: i16,
        schema: *const u16,
        schema_len: i16,
        procedure: *const u16,
        procedure_len: i16,
    ) -> SqlReturn;
    pub fn SQLProcedureColumnsW(
        stmt: Handle,
        catalog: *const u16,
        catalog_len: i16,
        schema: *const u16,
        schema_len: i16,
        procedure: *const u16,
        procedure_len: i16,
        column: *const u16,
        column_len: i16,
    ) -> SqlReturn;
    pub fn SQLGetTypeInfoW(stmt: Handle, data_type: i16) -> SqlReturn;
}
