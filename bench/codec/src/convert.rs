//! Converter cases: numbers read from their text (SQLite's number columns), dates, times,
//! timestamps and GUIDs read from their C structs, and the text writers of temporal parameters.
//! A value is one converter call. None of them may allocate.

use std::hint::black_box;

use fastodbc_core::ffi::{SqlDate, SqlGuid, SqlTimestamp};
use fastodbc_core::types::guid::{guid_from_rfc_bytes, guid_to_rfc_bytes};
use fastodbc_core::types::numeric::NumberText;
use fastodbc_core::types::temporal::{
    format_date, format_time, format_timestamp, parse_time, read_date, read_timestamp,
};

use crate::{case, converter, Rng, Visit};

pub(crate) const NUMERIC: &[&str] = &[
    "int12_elem",
    "int10_elem",
    "bigint_elem",
    "int12_copy",
    "float15",
    "float_std",
];

pub(crate) const TEMPORAL: &[&str] = &[
    "read_date",
    "read_timestamp",
    "parse_time",
    "format_date",
    "format_time",
    "format_timestamp",
];

pub(crate) const GUID: &[&str] = &["to_rfc", "from_rfc"];

/// An element of a text-bound number column as the fetch path reads it
/// (`NumberText::integer_in_element`): 24 bytes holding the value, its terminator, and what a
/// longer value of an earlier block left behind them.
struct Element {
    bytes: [u8; 24],
    len: usize,
}

fn element(text: &str) -> Element {
    let mut bytes = *b"-9223372036854775808\0\0\0\0";
    bytes[..text.len()].copy_from_slice(text.as_bytes());
    bytes[text.len()] = 0;
    Element {
        bytes,
        len: text.len(),
    }
}

fn int_elements<V: Visit>(texts: Vec<String>, v: V) -> Result<V::Out, String> {
    converter(
        texts.iter().map(|t| element(t)).collect(),
        |e: &Element| NumberText::integer_in_element(&e.bytes, e.len),
        |e| integer_of(&e.bytes[..e.len]),
        v,
    )
}

fn integer_of(text: &[u8]) -> NumberText {
    let s = std::str::from_utf8(text).unwrap_or("");
    s.parse().map_or(NumberText::Text, NumberText::Int)
}

fn float_of(text: &[u8]) -> NumberText {
    let s = std::str::from_utf8(text).unwrap_or("");
    s.parse().map_or(NumberText::Text, NumberText::Float)
}

pub(crate) fn numeric<V: Visit>(name: &str, v: V) -> Result<V::Out, String> {
    let mut rng = Rng::new(0x1A7E_5EED);
    match name {
        // A BIGINT as SQLite serves it: text in a 24-byte bound element.
        "int12_elem" => int_elements(vec!["-123456789012".into()], v),
        // 16 values of the int10 dataset (random 32-bit integers: mostly 10 digits, half with
        // a sign), read in their elements as fetchall of int10 on SQLite does.
        "int10_elem" => int_elements(
            (0..16)
                .map(|_| (rng.next() as u32 as i32).to_string())
                .collect(),
            v,
        ),
        // 16 values of the mixed dataset's bigint column (random 63-bit: 18-19 digits).
        "bigint_elem" => int_elements(
            (0..16)
                .map(|_| ((rng.next() >> 1) as i64 - (1 << 62)).to_string())
                .collect(),
            v,
        ),
        // The same integer read whole (`NumberText::integer`: copied into a zeroed element),
        // as values re-read after truncation are.
        "int12_copy" => converter(
            vec![b"-123456789012".to_vec()],
            |b: &Vec<u8>| NumberText::integer(b),
            |b| integer_of(b),
            v,
        ),
        // A REAL of the mixed dataset's double column as SQLite writes it (`%!.15g`): read by
        // the exact fast path.
        "float15" => converter(
            vec![b"-481516.234200439".to_vec()],
            |b: &Vec<u8>| NumberText::float(b),
            |b| float_of(b),
            v,
        ),
        // A REAL whose exponent is outside the fast path's range: std's parser.
        "float_std" => converter(
            vec![b"1.79769313486232e+308".to_vec()],
            |b: &Vec<u8>| NumberText::float(b),
            |b| float_of(b),
            v,
        ),
        _ => Err(format!("unknown numeric case {name}")),
    }
}

const DATE: SqlDate = SqlDate {
    year: 2024,
    month: 2,
    day: 29,
};

const TIMESTAMP: SqlTimestamp = SqlTimestamp {
    year: 2024,
    month: 2,
    day: 29,
    hour: 13,
    minute: 45,
    second: 7,
    fraction: 123_000_000,
};

/// A writer case: `write` appends an input's text to a string cleared before each value (as
/// the bind path's scratch string is), with capacity enough for any, so nothing allocates.
fn writer<I, F, V>(inputs: Vec<I>, write: F, expected: &str, v: V) -> Result<V::Out, String>
where
    F: Fn(&mut String, &I),
    V: Visit,
{
    let mut out = String::with_capacity(64);
    for input in &inputs {
        out.clear();
        write(&mut out, input);
        if out != expected {
            return Err(format!("wrote {out:?}, expected {expected:?}"));
        }
    }
    let values = inputs.len();
    Ok(v.visit(case(
        (inputs, out),
        values,
        Some(0),
        move |(inputs, out): &mut (Vec<I>, String)| {
            for input in black_box(&*inputs) {
                out.clear();
                write(out, black_box(input));
                black_box(&*out);
            }
        },
    )))
}

pub(crate) fn temporal<V: Visit>(name: &str, v: V) -> Result<V::Out, String> {
    let t = TIMESTAMP;
    match name {
        // An SQL_C_TYPE_DATE element (fetch).
        "read_date" => {
            let raw: Vec<u8> = [DATE.year.to_ne_bytes(), DATE.month.to_ne_bytes()]
                .into_iter()
                .chain([DATE.day.to_ne_bytes()])
                .flatten()
                .collect();
            converter(
                vec![<[u8; 6]>::try_from(raw).unwrap_or_default()],
                |b: &[u8; 6]| read_date(b),
                |_| DATE,
                v,
            )
        }
        // An SQL_C_TYPE_TIMESTAMP element (fetch).
        "read_timestamp" => {
            let mut raw = Vec::new();
            raw.extend_from_slice(&t.year.to_ne_bytes());
            for f in [t.month, t.day, t.hour, t.minute, t.second] {
                raw.extend_from_slice(&f.to_ne_bytes());
            }
            raw.extend_from_slice(&t.fraction.to_ne_bytes());
            converter(
                vec![<[u8; 16]>::try_from(raw).unwrap_or_default()],
                |b: &[u8; 16]| read_timestamp(b),
                |_| TIMESTAMP,
                v,
            )
        }
        // A TIME column's text (fetch: times are bound as text).
        "parse_time" => converter(
            vec![b"13:45:07.123".to_vec()],
            |b: &Vec<u8>| parse_time(b),
            |_| Some((13, 45, 7, 123_000)),
            v,
        ),
        // The text of date, time and timestamp parameters (PostgreSQL array literals; times
        // always, timestamps on SQLite, in bound arrays).
        "format_date" => writer(
            vec![DATE],
            |out: &mut String, d: &SqlDate| format_date(out, d.year, d.month, d.day),
            "2024-02-29",
            v,
        ),
        "format_time" => writer(
            vec![(13u8, 45u8, 7u8, 123_000u32)],
            |out: &mut String, &(h, m, s, us): &(u8, u8, u8, u32)| format_time(out, h, m, s, us),
            "13:45:07.123000",
            v,
        ),
        "format_timestamp" => writer(
            vec![TIMESTAMP],
            |out: &mut String, t: &SqlTimestamp| format_timestamp(out, t),
            "2024-02-29 13:45:07.123000",
            v,
        ),
        _ => Err(format!("unknown temporal case {name}")),
    }
}

pub(crate) fn guid<V: Visit>(name: &str, v: V) -> Result<V::Out, String> {
    // 01234567-89ab-cdef-0123-456789abcdef
    let rfc: [u8; 16] = [
        0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef, 0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd,
        0xef,
    ];
    let g = SqlGuid {
        d1: 0x0123_4567,
        d2: 0x89ab,
        d3: 0xcdef,
        d4: [0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef],
    };
    match name {
        // An SQL_C_GUID element to the bytes `uuid.UUID(bytes=)` takes (fetch).
        "to_rfc" => {
            let mut raw = [0u8; 16];
            raw[..4].copy_from_slice(&g.d1.to_ne_bytes());
            raw[4..6].copy_from_slice(&g.d2.to_ne_bytes());
            raw[6..8].copy_from_slice(&g.d3.to_ne_bytes());
            raw[8..].copy_from_slice(&g.d4);
            converter(vec![raw], |b: &[u8; 16]| guid_to_rfc_bytes(b), |_| rfc, v)
        }
        // `UUID.bytes` to the SQL_C_GUID struct (bind).
        "from_rfc" => converter(vec![rfc], guid_from_rfc_bytes, |_| g, v),
        _ => Err(format!("unknown guid case {name}")),
    }
}
