//! The value type of each `SQLGetInfo` key (the ODBC reference's table), so `getinfo` returns
//! what pyodbc returns: str, bool for the "Y"/"N" keys, or int.

pub enum InfoKind {
    Text,
    YesNo,
    /// Integer of this many bytes.
    Int(usize),
}

pub fn kind(key: u16) -> InfoKind {
    match key {
        // Character strings.
        2 | 6 | 7 | 10 | 13 | 14 | 16 | 17 | 18 | 29 | 39 | 40 | 41 | 42 | 45 | 47 | 77 | 89
        | 94 | 171 | 10000 | 10003 | 10004 => InfoKind::Text,
        // "Y" / "N" strings.
        19 | 20 | 21 | 25 | 27 | 36 | 37 | 73 | 87 | 90 | 103 | 111 | 113 | 10002 | 11 | 38 => {
            InfoKind::YesNo
        }
        // SQLUSMALLINT values.
        0 | 1 | 22 | 23 | 24 | 28 | 30 | 31 | 32 | 33 | 34 | 35 | 74 | 75 | 84 | 85 | 88 | 93
        | 97 | 98 | 99 | 100 | 101 | 106 | 107 | 114 | 116 | 10005 | 46 => InfoKind::Int(2),
        _ => InfoKind::Int(4),
    }
}
