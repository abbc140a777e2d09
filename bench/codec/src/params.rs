//! Parameter encoding without a statement: the Decimal parameter's text, and rows of the
//! `mixed` dataset's shape (bench/datasets.py) laid out into bound parameter arrays
//! (`ParamBatch::build`) or PostgreSQL array literals (`ArrayInsert::params`). The rows are
//! built once, as `ParamValue`s: the conversion from Python objects (fastodbc-py's params.rs)
//! needs Python and is not measured, and neither is anything the driver does with the arrays.

use std::hint::black_box;

use fastodbc_core::array_insert::ArrayInsert;
use fastodbc_core::ffi::{self, SqlDate, SqlTimestamp};
use fastodbc_core::params::{split_runs, ParamBatch};
use fastodbc_core::sqlscan::InsertTarget;
use fastodbc_core::types::numeric::{decimal_parts, plain_decimal};
use fastodbc_core::types::temporal::civil_from_days;
use fastodbc_core::{BindOptions, ParamValue, TextEncoding};

use crate::{case, Rng, Visit};

pub(crate) const CASES: &[&str] = &[
    "decimal_str",
    "execute_row",
    "sqlite_rows1000",
    "pg_array_rows1000",
];

/// Rows per executemany chunk (fastodbc-py's `PARAM_CHUNK_ROWS`; the PostgreSQL array path
/// takes 10,000, which costs the same per row but 10x the time under callgrind).
const CHUNK_ROWS: usize = 1000;

/// How parameters are bound on SQLite (sqliteodbc: timestamps and GUIDs as text) and on PostgreSQL;
/// str parameters are UTF-16 by default on both.
const SQLITE: BindOptions = BindOptions {
    text: TextEncoding::Utf16,
    timestamp_as_text: true,
    guid_as_text: true,
    temporal_as_varchar: false,
    time_as_varchar: false,
    refuse_misread_utf16: false,
};
const POSTGRESQL: BindOptions = BindOptions {
    text: TextEncoding::Utf16,
    timestamp_as_text: false,
    time_as_varchar: false,
    refuse_misread_utf16: false,
    guid_as_text: false,
    temporal_as_varchar: false,
};

/// The Decimal parameter's value from its `str()`, as fastodbc-py's `decimal_param` does.
fn decimal(text: &str) -> Option<ParamValue> {
    let (negative, digits, exponent) = decimal_parts(text)?;
    let (text, precision, scale) = plain_decimal(negative, &digits, exponent);
    Some(ParamValue::Decimal {
        text,
        precision,
        scale,
    })
}

const ASCII: &str = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789     ";
const LATIN1: &str = "àáâãäåæçèéêëìíîïñòóôõöøùúûüýÿßÀÉÖÜabcdefghij  ";

fn script(which: u64) -> Vec<char> {
    match which {
        0 => LATIN1.chars().collect(),
        1 => (0x410..0x450)
            .filter_map(char::from_u32)
            .chain("   ".chars())
            .collect(),
        2 => (0x4E00..0x4E00 + 400).filter_map(char::from_u32).collect(),
        _ => (0x1F600..0x1F650)
            .chain(0x1F300..0x1F340)
            .filter_map(char::from_u32)
            .collect(),
    }
}

fn random_text(rng: &mut Rng, alphabet: &[char], n: u64) -> String {
    (0..n)
        .map(|_| alphabet[rng.range(0, alphabet.len() as u64 - 1) as usize])
        .collect()
}

/// `n` rows shaped like bench/datasets.py's `mixed_rows`: int, bigint, numeric(18,4), double,
/// varchar(50), varchar(200) (20% with non-ASCII), date, timestamp (milliseconds), boolean;
/// ~10% NULLs in every column but the first.
pub(crate) fn mixed_rows(n: usize, seed: u64) -> Vec<Vec<ParamValue>> {
    let ascii: Vec<char> = ASCII.chars().collect();
    let scripts: Vec<Vec<char>> = (0..4).map(script).collect();
    const EPOCH_2000: i64 = 10_957;
    let mut rng = Rng::new(seed);
    (0..n)
        .map(|i| {
            let s200 = if rng.chance(0.2) {
                let a = rng.range(5, 60);
                let mut s = random_text(&mut rng, &ascii, a);
                let k = rng.range(0, 3) as usize;
                let b = rng.range(2, 30);
                s += &random_text(&mut rng, &scripts[k], b);
                while s.len() > 200 {
                    s.pop();
                }
                s
            } else {
                let a = rng.range(10, 200);
                random_text(&mut rng, &ascii, a)
            };
            let scaled = rng.range(0, 2 * 10u64.pow(13)) as i64 - 10i64.pow(13);
            // str(Decimal(scaled).scaleb(-4)).
            let decimal_text = if scaled == 0 {
                "0E-4".to_string()
            } else {
                let sign = if scaled < 0 { "-" } else { "" };
                let a = scaled.unsigned_abs();
                format!("{sign}{}.{:04}", a / 10_000, a % 10_000)
            };
            let (y, m, d) = civil_from_days(EPOCH_2000 + rng.range(0, 9000) as i64);
            let secs = rng.range(0, 9000 * 86_400) as i64;
            let (ty, tm, td) = civil_from_days(EPOCH_2000 + secs / 86_400);
            let in_day = secs % 86_400;
            let ms = rng.range(0, 999) as u32;
            let mut row = vec![
                ParamValue::Int(i as i64),
                ParamValue::Int((rng.next() >> 1) as i64 - (1 << 62)),
                decimal(&decimal_text).unwrap_or(ParamValue::Null),
                ParamValue::Float((rng.next() >> 11) as f64 / (1u64 << 53) as f64 * 2e6 - 1e6),
                {
                    let a = rng.range(5, 50);
                    ParamValue::Text(random_text(&mut rng, &ascii, a))
                },
                ParamValue::Text(s200),
                ParamValue::Date(SqlDate {
                    year: y as i16,
                    month: m as u16,
                    day: d as u16,
                }),
                ParamValue::Timestamp(SqlTimestamp {
                    year: ty as i16,
                    month: tm as u16,
                    day: td as u16,
                    hour: (in_day / 3600) as u16,
                    minute: (in_day / 60 % 60) as u16,
                    second: (in_day % 60) as u16,
                    fraction: ms * 1_000_000,
                }),
                ParamValue::Bool(rng.chance(0.5)),
            ];
            for v in &mut row[1..] {
                if rng.chance(0.1) {
                    *v = ParamValue::Null;
                }
            }
            row
        })
        .collect()
}

/// Whether `batch` holds `rows` as `opts` binds them: every column's indicators (NULL where
/// the value is, the text's length in bytes elsewhere) and the timestamp column's C type.
fn check_batch(
    batch: &ParamBatch,
    rows: &[Vec<ParamValue>],
    opts: BindOptions,
) -> Result<(), String> {
    if batch.rows != rows.len() || batch.columns.len() != rows[0].len() {
        return Err("batch of the wrong shape".into());
    }
    for (c, col) in batch.columns.iter().enumerate() {
        for (r, row) in rows.iter().enumerate() {
            let want = match &row[c] {
                ParamValue::Null => Some(ffi::SQL_NULL_DATA),
                ParamValue::Text(s) => Some(2 * s.encode_utf16().count() as ffi::Len),
                ParamValue::Decimal { text, .. } => Some(text.len() as ffi::Len),
                ParamValue::Timestamp(t) if opts.timestamp_as_text => {
                    Some(if t.fraction == 0 { 19 } else { 26 })
                }
                _ => None,
            };
            if want.is_some_and(|w| w != col.ind[r]) {
                return Err(format!("row {r} column {c}: indicator {}", col.ind[r]));
            }
        }
    }
    let ts_type = if opts.timestamp_as_text {
        ffi::SQL_C_CHAR
    } else {
        ffi::SQL_C_TYPE_TIMESTAMP
    };
    if batch.columns[7].c_type != ts_type {
        return Err("timestamp column of the wrong C type".into());
    }
    Ok(())
}

pub(crate) fn visit<V: Visit>(name: &str, v: V) -> Result<V::Out, String> {
    let failed = |e: fastodbc_core::Error| format!("ParamBatch::build: {e}");
    match name {
        // A numeric(18,4) value of the mixed dataset: a Decimal parameter's str() read into
        // sign, digits and exponent (`decimal_parts`), then its plain text (`plain_decimal`):
        // the two strings the value needs are its only allocations.
        "decimal_str" => {
            let inputs = vec!["-12345678.1234".to_string()];
            let want = ParamValue::Decimal {
                text: "-12345678.1234".into(),
                precision: 12,
                scale: 4,
            };
            if decimal(&inputs[0]).as_ref() != Some(&want) {
                return Err(format!("decimal_str: {:?}", decimal(&inputs[0])));
            }
            Ok(
                v.visit(case(inputs, 1, Some(2), |inputs: &mut Vec<String>| {
                    for t in black_box(&*inputs) {
                        if let Some((negative, digits, exponent)) = decimal_parts(black_box(t)) {
                            black_box(plain_decimal(negative, &digits, exponent));
                        }
                    }
                })),
            )
        }
        // `cursor.execute` with one mixed row (SQLite's options): a batch of one row, built
        // and freed, for 16 different rows.
        "execute_row" => {
            let rows = mixed_rows(16, 0xE4EC);
            for i in 0..rows.len() {
                let batch = ParamBatch::build(&rows[i..i + 1], SQLITE, &[]).map_err(failed)?;
                check_batch(&batch, &rows[i..i + 1], SQLITE)?;
            }
            let values = rows.len();
            Ok(v.visit(case(
                rows,
                values,
                None,
                |rows: &mut Vec<Vec<ParamValue>>| {
                    let rows = black_box(&*rows);
                    for i in 0..rows.len() {
                        let _ = black_box(ParamBatch::build(&rows[i..i + 1], SQLITE, &[]));
                    }
                },
            )))
        }
        // One executemany chunk on SQLite: split into runs of one kind per column (NULLs
        // join any run: one run here), each laid out into column-wise arrays.
        "sqlite_rows1000" => {
            let rows = mixed_rows(CHUNK_ROWS, 0x5A17E);
            let runs = split_runs(&rows, CHUNK_ROWS);
            if runs.len() != 1 || runs[0] != (0..CHUNK_ROWS) {
                return Err(format!("split into {runs:?}"));
            }
            let batch = ParamBatch::build(&rows, SQLITE, &[]).map_err(failed)?;
            check_batch(&batch, &rows, SQLITE)?;
            Ok(v.visit(case(
                rows,
                CHUNK_ROWS,
                None,
                |rows: &mut Vec<Vec<ParamValue>>| {
                    let rows = black_box(&*rows);
                    for run in split_runs(rows, CHUNK_ROWS) {
                        let _ = black_box(ParamBatch::build(&rows[run], SQLITE, &[]));
                    }
                },
            )))
        }
        // One executemany chunk on PostgreSQL through the column-array INSERT: one array
        // literal per column (`ArrayInsert::params`), bound as a row of 9 UTF-16 texts.
        "pg_array_rows1000" => {
            let rows = mixed_rows(CHUNK_ROWS, 0x9A77);
            let types = [
                "int4",
                "int8",
                "numeric",
                "float8",
                "varchar",
                "varchar",
                "date",
                "timestamp",
                "bool",
            ];
            let catalog: Vec<Vec<Option<String>>> = types
                .iter()
                .enumerate()
                .map(|(i, t)| {
                    vec![
                        Some(format!("c{i}")),
                        Some(format!("\"pg_catalog\".\"_{t}\"")),
                        Some(",".into()),
                    ]
                })
                .collect();
            let target = InsertTarget {
                table: "ins_mixed".into(),
                columns: None,
            };
            let plan = ArrayInsert::plan(&target, &catalog, types.len())
                .ok_or("ArrayInsert::plan refused the catalog")?;
            let params = plan.params(&rows);
            let first = match &params[0] {
                ParamValue::Text(s) => s.as_str(),
                _ => "",
            };
            // Integers go bare (array_insert.rs's `write_element`: digits need no quotes).
            if !first.starts_with("{0,1,2,") {
                return Err(format!("array literal {:?}", &first[..first.len().min(40)]));
            }
            let nulls = |c: usize| {
                rows.iter()
                    .filter(|r| matches!(r[c], ParamValue::Null))
                    .count()
            };
            for (c, p) in params.iter().enumerate() {
                let ParamValue::Text(s) = p else {
                    return Err(format!("column {c}: not text"));
                };
                if s.matches(",NULL").count() + s.starts_with("{NULL") as usize != nulls(c) {
                    return Err(format!("column {c}: NULLs lost"));
                }
            }
            let params = [params];
            let batch = ParamBatch::build(&params, POSTGRESQL, &[]).map_err(failed)?;
            if batch.columns.len() != types.len() || batch.columns[0].c_type != ffi::SQL_C_WCHAR {
                return Err("array batch of the wrong shape".into());
            }
            Ok(v.visit(case(
                (plan, rows),
                CHUNK_ROWS,
                None,
                |(plan, rows): &mut (ArrayInsert, Vec<Vec<ParamValue>>)| {
                    let params = [black_box(&*plan).params(black_box(&*rows))];
                    let _ = black_box(ParamBatch::build(&params, POSTGRESQL, &[]));
                },
            )))
        }
        _ => Err(format!("unknown params case {name}")),
    }
}
