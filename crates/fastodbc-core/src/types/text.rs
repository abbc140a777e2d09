//! Text the driver is given: statements, names and wide parameters go to the W functions
//! as UTF-16. (Text fetched for Python is decoded by `fastodbc-pystr`.)

/// Encodes a Rust string as UTF-16 for the W functions (no terminator).
pub fn to_utf16(s: &str) -> Vec<u16> {
    s.encode_utf16().collect()
}
