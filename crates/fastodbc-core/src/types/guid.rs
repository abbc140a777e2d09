//! GUIDs: `SQL_C_GUID` is the Windows struct (first three fields native-endian).

use crate::ffi::SqlGuid;

/// The 16 bytes of a `SQL_C_GUID` element in RFC 4122 (big-endian) order, as `uuid.UUID(bytes=)`
/// takes them.
pub fn guid_to_rfc_bytes(b: &[u8]) -> [u8; 16] {
    let d1 = u32::from_ne_bytes([b[0], b[1], b[2], b[3]]);
    let d2 = u16::from_ne_bytes([b[4], b[5]]);
    let d3 = u16::from_ne_bytes([b[6], b[7]]);
    let mut out = [0u8; 16];
    out[..4].copy_from_slice(&d1.to_be_bytes());
    out[4..6].copy_from_slice(&d2.to_be_bytes());
    out[6..8].copy_from_slice(&d3.to_be_bytes());
    out[8..].copy_from_slice(&b[8..16]);
    out
}

/// The `SQL_C_GUID` struct for RFC 4122 bytes.
pub fn guid_from_rfc_bytes(b: &[u8; 16]) -> SqlGuid {
    let mut d4 = [0u8; 8];
    d4.copy_from_slice(&b[8..]);
    SqlGuid {
        d1: u32::from_be_bytes([b[0], b[1], b[2], b[3]]),
        d2: u16::from_be_bytes([b[4], b[5]]),
        d3: u16::from_be_bytes([b[6], b[7]]),
        d4,
    }
}

/// Appends the GUID's text, lower-case and hyphenated as `str(uuid.UUID)` prints it.
pub fn format_guid(out: &mut String, g: &SqlGuid) {
    use std::fmt::Write;
    let d4 = &g.d4;
    // Writing to a String cannot fail.
    let _ = write!(
        out,
        "{:08x}-{:04x}-{:04x}-{:02x}{:02x}-{:02x}{:02x}{:02x}{:02x}{:02x}{:02x}",
        g.d1, g.d2, g.d3, d4[0], d4[1], d4[2], d4[3], d4[4], d4[5], d4[6], d4[7]
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_uuid_str() {
        let rfc: [u8; 16] = core::array::from_fn(|i| i as u8 * 17);
        let mut s = String::new();
        format_guid(&mut s, &guid_from_rfc_bytes(&rfc));
        assert_eq!(s, "00112233-4455-6677-8899-aabbccddeeff");
    }

    #[test]
    fn round_trip() {
        let rfc: [u8; 16] = core::array::from_fn(|i| i as u8 * 17);
        let g = guid_from_rfc_bytes(&rfc);
        let mut raw = Vec::new();
        raw.extend_from_slice(&g.d1.to_ne_bytes());
        raw.extend_from_slice(&g.d2.to_ne_bytes());
        raw.extend_from_slice(&g.d3.to_ne_bytes());
        raw.extend_from_slice(&g.d4);
        assert_eq!(guid_to_rfc_bytes(&raw), rfc);
    }
}
