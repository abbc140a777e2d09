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

/// RFC 4122 bytes as upper-case text, `6F9619FF-8B86-D011-B42D-00C04FC964FF`: what Windows
/// drivers and psqlODBC give for a GUID as text, and so what pyodbc returns without
/// `native_uuid`.
pub fn guid_text(b: &[u8; 16]) -> [u8; 36] {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    let mut out = [b'-'; 36];
    let mut at = 0;
    for (i, byte) in b.iter().enumerate() {
        if matches!(i, 4 | 6 | 8 | 10) {
            at += 1;
        }
        out[at] = HEX[(byte >> 4) as usize];
        out[at + 1] = HEX[(byte & 15) as usize];
        at += 2;
    }
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

/// Writes the GUID's canonical text, `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx` (lower case, as
/// `str(uuid.UUID)`), for drivers that take GUIDs as text (`Strategy::guid_as_text`).
pub fn format_guid(out: &mut String, g: &SqlGuid) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut rfc = [0u8; 16];
    rfc[..4].copy_from_slice(&g.d1.to_be_bytes());
    rfc[4..6].copy_from_slice(&g.d2.to_be_bytes());
    rfc[6..8].copy_from_slice(&g.d3.to_be_bytes());
    rfc[8..].copy_from_slice(&g.d4);
    for (i, byte) in rfc.iter().enumerate() {
        if matches!(i, 4 | 6 | 8 | 10) {
            out.push('-');
        }
        out.push(HEX[usize::from(byte >> 4)] as char);
        out.push(HEX[usize::from(byte & 0x0f)] as char);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_the_rfc_form() {
        let rfc = [
            0xa0, 0xee, 0xbc, 0x99, 0x9c, 0x0b, 0x4e, 0xf8, 0xbb, 0x6d, 0x6b, 0xb9, 0xbd, 0x38,
            0x0a, 0x11,
        ];
        let mut out = String::new();
        format_guid(&mut out, &guid_from_rfc_bytes(&rfc));
        assert_eq!(out, "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11");
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

    #[test]
    fn text_is_upper_case_8_4_4_4_12() {
        let rfc = [
            0x6f, 0x96, 0x19, 0xff, 0x8b, 0x86, 0xd0, 0x11, 0xb4, 0x2d, 0x00, 0xc0, 0x4f, 0xc9,
            0x64, 0xff,
        ];
        assert_eq!(&guid_text(&rfc), b"6F9619FF-8B86-D011-B42D-00C04FC964FF");
    }
}
