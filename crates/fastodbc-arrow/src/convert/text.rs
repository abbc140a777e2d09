//! Text and binary values to Arrow's variable-length arrays: UTF-8 checked, UTF-16 transcoded,
//! narrow text decoded, a GUID as its canonical text.

use fastodbc_core::types::guid;
use fastodbc_core::{Error, Result};

use super::Located;
use crate::schema::Conversion;

/// Appends the bytes of one text or binary value to `out` in the column's Arrow form: UTF-8
/// checked, UTF-16 transcoded, narrow text decoded, a GUID as its canonical text.
pub fn var(
    conversion: &Conversion,
    b: &[u8],
    out: &mut Vec<u8>,
    row: usize,
    at: &Located<'_>,
) -> Result<()> {
    let decode = |encoding: &'static str, offset: usize| Error::Decode {
        column: format!("{} (row {})", at.column, at.first_row + row + 1),
        encoding,
        offset,
    };
    match conversion {
        Conversion::Binary => out.extend_from_slice(b),
        Conversion::Utf16 => {
            if !b.len().is_multiple_of(2) {
                return Err(decode("UTF-16", b.len() - 1));
            }
            let units = b.chunks_exact(2).map(|u| u16::from_ne_bytes([u[0], u[1]]));
            let mut buf = [0u8; 4];
            for (i, c) in char::decode_utf16(units).enumerate() {
                let c = c.map_err(|_| decode("UTF-16", i * 2))?;
                out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            }
        }
        Conversion::Narrow(codec, decoder) => {
            let text = decoder
                .decode(codec, b)
                .map_err(|why| at.error(row, "22018", why))?;
            out.extend_from_slice(text.as_bytes());
        }
        Conversion::GuidText => {
            if b.len() < 16 {
                return Err(at.error(
                    row,
                    "22018",
                    format!("the driver returned an invalid GUID {b:?}"),
                ));
            }
            let text = guid::guid_text(&guid::guid_to_rfc_bytes(b));
            out.extend(text.iter().map(u8::to_ascii_lowercase));
        }
        // simdutf8's check costs a quarter of std's on short text; std finds the bad byte.
        _ => match simdutf8::basic::from_utf8(b) {
            Ok(_) => out.extend_from_slice(b),
            Err(_) => {
                let at = std::str::from_utf8(b).err().map_or(0, |e| e.valid_up_to());
                return Err(decode("UTF-8", at));
            }
        },
    }
    Ok(())
}
