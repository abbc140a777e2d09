//! The text categories and the decode step of the fetch path (fastodbc-py's text.rs) without
//! Python: shape, then write into storage allocated beforehand, as `PyUnicode_New` would
//! allocate it.

use std::hint::black_box;

use fastodbc_pystr::{utf16_shape, utf16_write, utf8_shape, utf8_write, TextKind, TextStorage};

use crate::{case, Visit};

/// The text categories of issue 3 and `mixed42`, one value shaped like the `unicode3`
/// dataset's (emoji, ASCII runs, CJK, Latin-1 and Cyrillic share a value, so it is UCS-4 with
/// runs of every width inside); bench/codec_py.py builds the same strings.
pub const CATEGORIES: &[&str] = &[
    "ascii8",
    "ascii32",
    "ascii128",
    "ascii2048",
    "ascii127_nonascii1",
    "latin1_32",
    "cyrillic32",
    "cjk32",
    "emoji16",
    "mixed42",
];

/// 42 characters, 83 bytes of UTF-8: 6 emoji, 20 ASCII in runs, 7 CJK, 3 Latin-1, 6 Cyrillic.
const MIXED42: &str = "🌰🌯🌽😹yOUaIzlEjdZg6v6 2m🌰🙃侁乫乁佔伭付伻 íëø Привет";

fn cycle(alphabet: &[char], n: usize) -> String {
    alphabet.iter().cycle().take(n).collect()
}

/// The text of a category.
pub fn category(name: &str) -> Option<String> {
    let ascii: Vec<char> = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 "
        .chars()
        .collect();
    let latin1: Vec<char> = "àáâãäåæçèéêëìíîïñòóôõöøùúûüýÿ".chars().collect();
    let cyrillic: Vec<char> = (0x410..0x450).filter_map(char::from_u32).collect();
    let cjk: Vec<char> = (0x4E00..0x4E00 + 64).filter_map(char::from_u32).collect();
    let emoji: Vec<char> = (0x1F600..0x1F640).filter_map(char::from_u32).collect();
    Some(match name {
        "ascii8" => cycle(&ascii, 8),
        "ascii32" => cycle(&ascii, 32),
        "ascii128" => cycle(&ascii, 128),
        "ascii2048" => cycle(&ascii, 2048),
        "ascii127_nonascii1" => cycle(&ascii, 127) + "é",
        "latin1_32" => cycle(&latin1, 32),
        "cyrillic32" => cycle(&cyrillic, 32),
        "cjk32" => cycle(&cjk, 32),
        "emoji16" => cycle(&emoji, 16),
        "mixed42" => MIXED42.to_string(),
        _ => return None,
    })
}

/// The buffer of `kind` among codec-bench's three, `n` characters long.
#[inline]
fn storage<'a>(
    kind: TextKind,
    n: usize,
    ucs1: &'a mut [u8],
    ucs2: &'a mut [u16],
    ucs4: &'a mut [u32],
) -> TextStorage<'a> {
    match kind {
        TextKind::Ascii | TextKind::Latin1 => TextStorage::Ucs1(&mut ucs1[..n]),
        TextKind::Ucs2 => TextStorage::Ucs2(&mut ucs2[..n]),
        TextKind::Ucs4 => TextStorage::Ucs4(&mut ucs4[..n]),
    }
}

/// Decodes UTF-16 `units` into the storage of their kind; returns the length in characters
/// (`usize::MAX` for invalid text). `#[inline]`: compiled into the caller's crate, where
/// codec-bench's text loop keeps it a function of its own.
#[inline]
pub fn decode_utf16(units: &[u16], ucs1: &mut [u8], ucs2: &mut [u16], ucs4: &mut [u32]) -> usize {
    let shape = match utf16_shape(units) {
        Ok(s) => s,
        Err(_) => return usize::MAX,
    };
    utf16_write(units, storage(shape.kind, shape.chars, ucs1, ucs2, ucs4));
    shape.chars
}

/// Decodes UTF-8 `bytes` into the storage of their kind; returns the length in characters
/// (`usize::MAX` for invalid text). `#[inline]` as `decode_utf16`.
#[inline]
pub fn decode_utf8(bytes: &[u8], ucs1: &mut [u8], ucs2: &mut [u16], ucs4: &mut [u32]) -> usize {
    let shape = match utf8_shape(bytes) {
        Ok(s) => s,
        Err(_) => return usize::MAX,
    };
    // SAFETY: utf8_shape validated the bytes.
    let s = unsafe { std::str::from_utf8_unchecked(bytes) };
    utf8_write(
        s,
        shape.kind,
        storage(shape.kind, shape.chars, ucs1, ucs2, ucs4),
    );
    shape.chars
}

/// `len` values of `T` that start `offset` bytes past a 4 KiB boundary, wherever the
/// allocator put the vector.
struct Placed<T> {
    buf: Vec<T>,
    start: usize,
    len: usize,
}

impl<T: Copy + Default> Placed<T> {
    fn new(values: &[T], offset: usize) -> Placed<T> {
        let size = std::mem::size_of::<T>();
        let mut buf = vec![T::default(); values.len() + 4096 / size + 1];
        // A multiple of `size`: the vector is aligned to it, `offset` and 4096 are multiples.
        let start = (offset.wrapping_sub(buf.as_ptr() as usize) & 4095) / size;
        buf[start..start + values.len()].copy_from_slice(values);
        assert_eq!(buf[start..].as_ptr() as usize & 4095, offset & 4095);
        Placed {
            buf,
            start,
            len: values.len(),
        }
    }
    fn get(&self) -> &[T] {
        &self.buf[self.start..self.start + self.len]
    }
    /// From the start to the end of the vector (the decoders take the length they need).
    fn tail(&mut self) -> &mut [T] {
        &mut self.buf[self.start..]
    }
}

/// One category's input in both encodings and the storage of every kind, sized for it. The
/// write pass stores shortly before the shape pass of the next value loads, and a load that
/// aliases a pending store modulo 4 KiB waits for it: UTF-8 ascii128 took 3.1-3.7 ns with
/// the storage at most places but 7-12 ns with it 96 bytes below the input modulo 4096, and
/// Criterion's figures changed 2x between runs with where the allocator had put the buffers.
/// The input starts at a 4 KiB boundary and the storage half a page past one, in every run.
/// (codec-bench's text loop keeps its own buffers: instruction counts do not depend on
/// placement.)
struct Decode {
    units: Placed<u16>,
    bytes: Placed<u8>,
    ucs1: Placed<u8>,
    ucs2: Placed<u16>,
    ucs4: Placed<u32>,
    chars: usize,
}

fn run_utf16(d: &mut Decode) {
    d.chars = decode_utf16(
        black_box(d.units.get()),
        d.ucs1.tail(),
        d.ucs2.tail(),
        d.ucs4.tail(),
    );
    black_box(&*d);
}

fn run_utf8(d: &mut Decode) {
    d.chars = decode_utf8(
        black_box(d.bytes.get()),
        d.ucs1.tail(),
        d.ucs2.tail(),
        d.ucs4.tail(),
    );
    black_box(&*d);
}

/// Whether the storage holds `text` after a decode.
fn check(d: &Decode, text: &str) -> Result<(), String> {
    let want: Vec<u32> = text.chars().map(u32::from).collect();
    let n = want.len();
    let (ucs1, ucs2, ucs4) = (d.ucs1.get(), d.ucs2.get(), d.ucs4.get());
    let got: Vec<u32> = match text.chars().max().map_or(0, u32::from) {
        0..=0xFF => ucs1[..n.min(ucs1.len())]
            .iter()
            .map(|&c| c.into())
            .collect(),
        0x100..=0xFFFF => ucs2[..n.min(ucs2.len())]
            .iter()
            .map(|&c| c.into())
            .collect(),
        _ => ucs4[..n.min(ucs4.len())].to_vec(),
    };
    if d.chars != n || got != want {
        return Err(format!(
            "decoded {} characters, not the input's {n}",
            d.chars
        ));
    }
    Ok(())
}

pub(crate) fn visit<V: Visit>(utf16: bool, name: &str, v: V) -> Result<V::Out, String> {
    let text = category(name).ok_or_else(|| format!("unknown category {name}"))?;
    let units: Vec<u16> = text.encode_utf16().collect();
    let bytes = text.as_bytes().to_vec();
    let cap = units.len().max(bytes.len());
    let mut d = Decode {
        units: Placed::new(&units, 0),
        bytes: Placed::new(&bytes, 0),
        ucs1: Placed::new(&vec![0; cap], 2048),
        ucs2: Placed::new(&vec![0; cap], 2048),
        ucs4: Placed::new(&vec![0; cap], 2048),
        chars: 0,
    };
    if utf16 {
        run_utf16(&mut d);
        check(&d, &text)?;
        Ok(v.visit(case(d, 1, Some(0), run_utf16)))
    } else {
        run_utf8(&mut d);
        check(&d, &text)?;
        Ok(v.visit(case(d, 1, Some(0), run_utf8)))
    }
}
