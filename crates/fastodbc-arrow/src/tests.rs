use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::{Decimal128Type, Int16Type, Int64Type, UInt8Type};
use arrow_array::Array;
use arrow_schema::{DataType, TimeUnit};
use fastodbc_core::block::testing::{column, fill, store_long};
use fastodbc_core::plan::{ColumnDescription, ColumnPlan, Decoding, PlanOptions, TextCodec};
use fastodbc_core::{ffi, Error, ResultPlan, RowBlock};

use crate::convert::{self, Located};
use crate::schema::{ArrowColumn, Conversion, TypeOptions};
use crate::values::Batch;

const AT: Located<'static> = Located {
    column: "c",
    first_row: 0,
};

fn described(sql_type: i16, size: usize, digits: i16, opts: PlanOptions) -> ColumnPlan {
    let desc = ColumnDescription {
        name: "c".into(),
        sql_type,
        size,
        digits,
        nullable: true,
    };
    let utf8 = Decoding {
        char: TextCodec::Utf8,
        wchar: TextCodec::Utf8,
    };
    ColumnPlan::choose_with(desc, &utf8, opts)
}

fn arrow_type(plan: &ColumnPlan, unsigned: bool, sizes_unreliable: bool) -> DataType {
    let opts = TypeOptions {
        sizes_unreliable,
        narrow: None,
        session_zone: None,
        numeric_as_text: None,
        time_as_duration: false,
    };
    ArrowColumn::for_plan(plan, unsigned, &opts)
        .field
        .data_type()
        .clone()
}

#[test]
fn a_numeric_of_nominal_precision_is_its_text() {
    // psqlODBC describes PostgreSQL's unconstrained `numeric` as NUMERIC(28,6): its values
    // may not fit decimal128(28, 6) (`Strategy::numeric_as_text`).
    let plan = described(ffi::SQL_NUMERIC, 28, 6, PlanOptions::default());
    let opts = TypeOptions {
        numeric_as_text: Some(28),
        ..TypeOptions::default()
    };
    let of = |plan: &ColumnPlan| {
        ArrowColumn::for_plan(plan, false, &opts)
            .field
            .data_type()
            .clone()
    };
    assert_eq!(of(&plan), DataType::Utf8);
    let by_values = described(ffi::SQL_NUMERIC, 28, 9, PlanOptions::default());
    assert_eq!(of(&by_values), DataType::Utf8);
    let declared = described(ffi::SQL_NUMERIC, 18, 4, PlanOptions::default());
    assert_eq!(of(&declared), DataType::Decimal128(18, 4));
    assert_eq!(arrow_type(&plan, false, false), DataType::Decimal128(28, 6));
}

#[test]
fn the_type_table() {
    let none = PlanOptions::default();
    let t = |sql, size, digits| arrow_type(&described(sql, size, digits, none), false, false);
    assert_eq!(t(ffi::SQL_TINYINT, 3, 0), DataType::Int8);
    assert_eq!(t(ffi::SQL_SMALLINT, 5, 0), DataType::Int16);
    assert_eq!(t(ffi::SQL_INTEGER, 10, 0), DataType::Int32);
    assert_eq!(t(ffi::SQL_BIGINT, 19, 0), DataType::Int64);
    assert_eq!(
        arrow_type(&described(ffi::SQL_INTEGER, 10, 0, none), true, false),
        DataType::UInt32
    );
    assert_eq!(t(ffi::SQL_REAL, 7, 0), DataType::Float32);
    // psqlODBC's float8 is SQL_FLOAT: a double.
    assert_eq!(t(ffi::SQL_FLOAT, 17, 0), DataType::Float64);
    assert_eq!(t(ffi::SQL_DOUBLE, 15, 0), DataType::Float64);
    assert_eq!(t(ffi::SQL_NUMERIC, 10, 3), DataType::Decimal128(10, 3));
    assert_eq!(t(ffi::SQL_DECIMAL, 38, 0), DataType::Decimal128(38, 0));
    // Wider than decimal128: the exact text.
    assert_eq!(t(ffi::SQL_DECIMAL, 65, 30), DataType::Utf8);
    assert_eq!(t(ffi::SQL_TYPE_DATE, 10, 0), DataType::Date32);
    assert_eq!(
        t(ffi::SQL_TYPE_TIME, 8, 0),
        DataType::Time64(TimeUnit::Microsecond)
    );
    assert_eq!(
        t(ffi::SQL_TYPE_TIMESTAMP, 26, 6),
        DataType::Timestamp(TimeUnit::Microsecond, None)
    );
    assert_eq!(t(ffi::SQL_BIT, 1, 0), DataType::Boolean);
    assert_eq!(t(ffi::SQL_VARCHAR, 20, 0), DataType::Utf8);
    assert_eq!(t(ffi::SQL_WLONGVARCHAR, 0, 0), DataType::Utf8);
    assert_eq!(t(ffi::SQL_VARBINARY, 20, 0), DataType::Binary);
    assert_eq!(t(ffi::SQL_LONGVARBINARY, 0, 0), DataType::Binary);
    assert_eq!(t(ffi::SQL_GUID, 36, 0), DataType::Utf8);
    // Intervals and other types: their text.
    assert_eq!(t(-80, 20, 0), DataType::Utf8);
}

#[test]
fn sqlite_sizes_are_no_limits() {
    let sqlite = PlanOptions {
        sizes_unreliable: true,
        numbers_as_text: true,
        ..PlanOptions::default()
    };
    let t = |sql, size| arrow_type(&described(sql, size, 0, sqlite), false, true);
    // An INTEGER holds 64 bits, a REAL 8 bytes, whatever the declaration says.
    assert_eq!(t(ffi::SQL_INTEGER, 10), DataType::Int64);
    assert_eq!(t(ffi::SQL_SMALLINT, 5), DataType::Int64);
    assert_eq!(t(ffi::SQL_REAL, 7), DataType::Float64);
}

#[test]
fn decimals_are_exact_or_refused() {
    let ok = |s: &str, p, sc| convert::decimal(s.as_bytes(), p, sc, 0, &AT).expect(s);
    assert_eq!(ok("123.45", 10, 2), 12345);
    assert_eq!(ok("-123.4", 10, 2), -12340);
    assert_eq!(ok("0", 5, 3), 0);
    assert_eq!(ok("-0.001", 5, 3), -1);
    assert_eq!(ok("007.50", 4, 2), 750);
    assert_eq!(ok(".5", 3, 1), 5);
    assert_eq!(ok(" 42 ", 2, 0), 42);
    // Trailing zeros past the scale are no loss.
    assert_eq!(ok("1.2500", 3, 2), 125);
    let max = "9".repeat(38);
    assert_eq!(ok(&max, 38, 0), 10i128.pow(38) - 1);
    let refused = |s: &str, p, sc| {
        let e = convert::decimal(s.as_bytes(), p, sc, 0, &AT).expect_err(s);
        assert!(
            matches!(e, Error::Value { sqlstate: "22003" | "22018", ref message } if message.contains("column \"c\", row 1")),
            "{e}"
        );
    };
    refused("1.255", 5, 2);
    refused("1000", 3, 0);
    refused("99.5", 3, 2);
    refused("NaN", 10, 2);
    refused("1e5", 10, 2);
    refused("", 10, 2);
    refused("-", 10, 2);
    refused("1.2.3", 10, 2);
    refused(&"9".repeat(60), 38, 0);
    // At the u64 and i128 paths' seam: 18 digits, 19, and padding that passes the precision.
    assert_eq!(ok(&"9".repeat(18), 18, 0), 10i128.pow(18) - 1);
    assert_eq!(ok(&"9".repeat(19), 19, 0), 10i128.pow(19) - 1);
    assert_eq!(ok("123456789012345678.5", 20, 1), 1_234_567_890_123_456_785);
    refused(&"9".repeat(19), 18, 0);
    refused(&format!("1{}", "0".repeat(30)), 38, 10);
    let why = |s: &str, p, sc| {
        convert::decimal(s.as_bytes(), p, sc, 0, &AT)
            .expect_err(s)
            .to_string()
    };
    // Which refusal: a non-digit anywhere first, then digits past the scale, then the count.
    assert!(why("1.25x", 5, 1).contains("not a plain decimal"));
    assert!(why("99999.25", 3, 1).contains("more fractional digits"));
    assert!(why("99999.20", 3, 1).contains("more digits than"));
}

/// Decimal text of 1 to 38 digits at scales 0 to 12 reads as the integer of its digits, padded
/// to the column's scale: against `str::parse::<i128>` of the same digits.
#[test]
fn decimals_match_a_plain_parse() {
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for _ in 0..20_000 {
        let n = 1 + (next() % 38) as usize;
        let digits: String = (0..n)
            .map(|_| char::from(b'0' + (next() % 10) as u8))
            .collect();
        let frac = (next() % (n as u64 + 1)) as usize;
        let scale = frac + (next() % 3) as usize;
        let (int_part, frac_part) = digits.split_at(n - frac);
        let negative = next() % 2 == 0;
        let text = format!("{}{int_part}.{frac_part}", if negative { "-" } else { "" });
        let padded = format!("{digits}{}", "0".repeat(scale - frac));
        // Past 38 digits only when its leading zeros bring it back under 10^38.
        let Ok(want) = padded.parse::<i128>() else {
            assert!(convert::decimal(text.as_bytes(), 38, scale as i8, 0, &AT).is_err());
            continue;
        };
        let want = if negative { -want } else { want };
        let precision = padded.len().clamp(1, 38) as u8;
        match convert::decimal(text.as_bytes(), precision, scale as i8, 0, &AT) {
            Ok(v) => assert_eq!(v, want, "{text} as ({precision}, {scale})"),
            Err(e) => assert!(
                want.abs() >= 10i128.pow(38),
                "{text} as ({precision}, {scale}): {e}"
            ),
        }
        if precision > 1 && want.abs() >= 10i128.pow(u32::from(precision) - 1) {
            let narrower = convert::decimal(text.as_bytes(), precision - 1, scale as i8, 0, &AT);
            assert!(
                narrower.is_err(),
                "{text} fits ({}, {scale})",
                precision - 1
            );
        }
    }
}

#[test]
fn dates_and_times_count_from_the_epoch() {
    let date = |y: i16, m: u16, d: u16| {
        let mut b = y.to_ne_bytes().to_vec();
        b.extend(m.to_ne_bytes());
        b.extend(d.to_ne_bytes());
        convert::date(&b, 0, &AT)
    };
    assert_eq!(date(1970, 1, 1).ok(), Some(0));
    assert_eq!(date(2000, 3, 1).ok(), Some(11_017));
    assert_eq!(date(1, 1, 1).ok(), Some(-719_162));
    assert_eq!(date(9999, 12, 31).ok(), Some(2_932_896));
    assert_eq!(date(2024, 2, 29).ok(), Some(19_782));
    // What Python's datetime refuses, the rows path refuses: so does Arrow.
    for (y, m, d) in [
        (0, 1, 1),
        (2023, 2, 29),
        (2024, 0, 1),
        (2024, 1, 0),
        (-9999, 1, 1),
    ] {
        assert!(date(y, m, d).is_err(), "{y}-{m}-{d}");
    }
    let ts = |fields: [u16; 6], fraction: u32| {
        let mut b = (fields[0] as i16).to_ne_bytes().to_vec();
        for f in &fields[1..] {
            b.extend(f.to_ne_bytes());
        }
        b.extend(fraction.to_ne_bytes());
        convert::timestamp(&b, 0, &AT)
    };
    assert_eq!(ts([1970, 1, 1, 0, 0, 1], 2_000).ok(), Some(1_000_002));
    assert_eq!(
        ts([2026, 11, 26, 17, 41, 9], 815_172_000).ok(),
        Some(1_795_714_869_815_172)
    );
    assert!(ts([2026, 11, 26, 17, 41, 9], 815_172_001).is_err());
    assert!(ts([2026, 11, 26, 24, 0, 0], 0).is_err());
    assert_eq!(
        convert::time(b"17:41:09.5", 0, &AT).ok(),
        Some(63_669_500_000)
    );
    assert!(convert::time(b"25:00:00", 0, &AT).is_err());
}

/// A block of an integer, a text and a decimal column, with NULLs and a long text value.
fn mixed_block() -> (ResultPlan, RowBlock, Vec<Option<String>>) {
    let plan = ResultPlan::new(
        vec![
            column(ffi::SQL_SMALLINT, TextCodec::Utf8),
            column(ffi::SQL_VARCHAR, TextCodec::Utf8),
            described(ffi::SQL_DECIMAL, 10, 2, PlanOptions::default()),
        ],
        1 << 16,
    );
    let mut block = RowBlock::new(&plan, 16);
    let ints: Vec<Option<Vec<u8>>> = (0..10)
        .map(|i| (i % 4 != 3).then(|| (i as i64 * 1000).to_ne_bytes().to_vec()))
        .collect();
    let mut texts: Vec<Option<String>> = (0..10)
        .map(|i| (i % 3 != 2).then(|| format!("é{i}")))
        .collect();
    let decimals: Vec<Option<Vec<u8>>> = (0..10)
        .map(|i| (i % 5 != 4).then(|| format!("{i}.5").into_bytes()))
        .collect();
    fill(&mut block, 0, &ints);
    let as_bytes: Vec<Option<Vec<u8>>> = texts
        .iter()
        .map(|t| t.as_ref().map(|t| t.as_bytes().to_vec()))
        .collect();
    fill(&mut block, 1, &as_bytes);
    fill(&mut block, 2, &decimals);
    let long = "long value ".repeat(100);
    store_long(&mut block, 1, 6, long.as_bytes().to_vec());
    texts[6] = Some(long);
    (plan, block, texts)
}

#[test]
fn a_batch_built_over_two_ranges_holds_every_value_and_equal_lengths() {
    let (plan, block, texts) = mixed_block();
    let columns: Vec<ArrowColumn> = plan
        .columns
        .iter()
        .map(|p| ArrowColumn::for_plan(p, false, &TypeOptions::default()))
        .collect();
    let mut batch = Batch::new(&columns, 4);
    for range in [0..3, 3..10] {
        for (i, col) in batch.columns.iter_mut().enumerate() {
            let values = block.column(i).expect("column");
            col.append(&values, range.clone(), 0).expect("append");
        }
        batch.rows += range.len();
    }
    let schema = Arc::new(crate::schema_of(&columns));
    let rb = batch.finish(schema).expect("finish");
    assert_eq!(rb.num_rows(), 10);
    assert!(rb.columns().iter().all(|c| c.len() == 10));
    let ints = rb.column(0).as_primitive::<Int16Type>();
    let text = rb.column(1).as_string::<i32>();
    let dec = rb.column(2).as_primitive::<Decimal128Type>();
    for (row, expected) in texts.iter().enumerate() {
        assert_eq!(ints.is_valid(row), row % 4 != 3);
        if ints.is_valid(row) {
            assert_eq!(ints.value(row), row as i16 * 1000);
        }
        assert_eq!(
            text.is_valid(row).then(|| text.value(row).to_string()),
            *expected
        );
        assert_eq!(dec.is_valid(row), row % 5 != 4);
        if dec.is_valid(row) {
            assert_eq!(dec.value(row), row as i128 * 100 + 50);
        }
    }
}

#[test]
fn a_value_out_of_the_columns_range_is_refused_with_its_row() {
    let plan = ResultPlan::new(vec![column(ffi::SQL_TINYINT, TextCodec::Utf8)], 1 << 16);
    let mut block = RowBlock::new(&plan, 4);
    let values: Vec<Option<Vec<u8>>> = [1i64, 255, 256]
        .iter()
        .map(|v| Some(v.to_ne_bytes().to_vec()))
        .collect();
    fill(&mut block, 0, &values);
    let unsigned = ArrowColumn::for_plan(&plan.columns[0], true, &TypeOptions::default());
    let mut batch = Batch::new(std::slice::from_ref(&unsigned), 4);
    let values = block.column(0).expect("column");
    batch.columns[0]
        .append(&values, 0..2, 100)
        .expect("in range");
    let e = batch.columns[0]
        .append(&values, 2..3, 100)
        .expect_err("256 in a TINYINT UNSIGNED");
    assert!(
        e.to_string().contains("row 103") && e.to_string().contains("256"),
        "{e}"
    );
    batch.rows = 2;
    let schema = Arc::new(crate::schema_of(&[unsigned]));
    let rb = Batch::finish(batch, schema).expect("finish");
    let got = rb.column(0).as_primitive::<UInt8Type>();
    assert_eq!(got.values().to_vec(), vec![1, 255]);
}

#[test]
fn integers_stored_as_text_are_read_or_refused() {
    let plan_text = ResultPlan::new(
        vec![described(
            ffi::SQL_INTEGER,
            10,
            0,
            PlanOptions {
                numbers_as_text: true,
                sizes_unreliable: true,
                ..PlanOptions::default()
            },
        )],
        1 << 16,
    );
    assert!(plan_text.columns[0].codec.is_some());
    let mut block = RowBlock::new(&plan_text, 4);
    let values: Vec<Option<Vec<u8>>> = vec![
        Some(b"-9223372036854775808".to_vec()),
        None,
        Some(b"3.7".to_vec()),
    ];
    fill(&mut block, 0, &values);
    let col = ArrowColumn::for_plan(
        &plan_text.columns[0],
        false,
        &TypeOptions {
            sizes_unreliable: true,
            narrow: None,
            session_zone: None,
            numeric_as_text: None,
            time_as_duration: false,
        },
    );
    let mut batch = Batch::new(std::slice::from_ref(&col), 4);
    let values = block.column(0).expect("column");
    batch.columns[0].append(&values, 0..2, 0).expect("integers");
    let e = batch.columns[0]
        .append(&values, 2..3, 0)
        .expect_err("a REAL");
    assert!(e.to_string().contains("\"3.7\""), "{e}");
    batch.rows = 2;
    let rb = batch
        .finish(Arc::new(crate::schema_of(&[col])))
        .expect("finish");
    let got = rb.column(0).as_primitive::<Int64Type>();
    assert_eq!(got.value(0), i64::MIN);
    assert!(got.is_null(1));
}

/// A `SQL_C_TYPE_TIMESTAMP` element as the driver writes it.
fn timestamp_element(y: i16, mo: u16, d: u16, h: u16, mi: u16, s: u16, ns: u32) -> Vec<u8> {
    let mut b = Vec::with_capacity(16);
    for f in [y as u16, mo, d, h, mi, s] {
        b.extend_from_slice(&f.to_ne_bytes());
    }
    b.extend_from_slice(&ns.to_ne_bytes());
    b
}

#[test]
fn zoned_timestamps_become_utc_instants() {
    use arrow_array::types::TimestampMicrosecondType;
    use chrono_tz::Tz;

    use crate::zone::SessionZone;

    let mut plan = ResultPlan::new(
        vec![described(
            ffi::SQL_TYPE_TIMESTAMP,
            26,
            6,
            PlanOptions::default(),
        )],
        1 << 16,
    );
    plan.columns[0].zoned = true;
    let mut block = RowBlock::new(&plan, 4);
    let values = vec![
        // New York wall times: 2024-07-01 08:00:00.25 EDT, NULL, 2024-11-03 01:30 (twice).
        Some(timestamp_element(2024, 7, 1, 8, 0, 0, 250_000_000)),
        None,
        Some(timestamp_element(2024, 11, 3, 1, 30, 0, 0)),
    ];
    fill(&mut block, 0, &values);
    let opts = |zone| TypeOptions {
        session_zone: zone,
        numeric_as_text: None,
        time_as_duration: false,
        ..TypeOptions::default()
    };
    let ny = Some(SessionZone::Named(Tz::America__New_York));
    let col = ArrowColumn::for_plan(&plan.columns[0], false, &opts(ny));
    assert_eq!(
        col.field.data_type(),
        &DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into()))
    );
    // Not zoned, or no zone read: the wall time, as before.
    let naive = ArrowColumn::for_plan(&plan.columns[0], false, &opts(None));
    assert_eq!(
        naive.field.data_type(),
        &DataType::Timestamp(TimeUnit::Microsecond, None)
    );
    let mut batch = Batch::new(std::slice::from_ref(&col), 4);
    let cells = block.column(0).expect("column");
    batch.columns[0].append(&cells, 0..2, 0).expect("instants");
    let e = batch.columns[0]
        .append(&cells, 2..3, 0)
        .expect_err("a repeated wall time");
    assert!(e.to_string().contains("names two instants"), "{e}");
    assert!(e.to_string().contains("America/New_York"), "{e}");
    batch.rows = 2;
    let rb = batch
        .finish(Arc::new(crate::schema_of(&[col])))
        .expect("finish");
    let got = rb.column(0).as_primitive::<TimestampMicrosecondType>();
    // 2024-07-01 12:00:00.25 UTC.
    assert_eq!(got.value(0), 1_719_835_200_250_000);
    assert!(got.is_null(1));
    assert_eq!(got.timezone(), Some("UTC"));
}

/// Text is appended only as valid UTF-8; an invalid byte is named by its offset in the value
/// (short values and ones past simdutf8's 64-byte blocks alike).
#[test]
fn text_is_checked_utf8_and_a_bad_byte_is_named() {
    let mut out = Vec::new();
    for good in ["", "abc", "été ∑ 🦀", &"ü".repeat(100)] {
        out.clear();
        convert::var(&Conversion::Utf8, good.as_bytes(), &mut out, 0, &AT).expect(good);
        assert_eq!(out, good.as_bytes());
    }
    for (bad, offset) in [
        (b"ab\xffcd".to_vec(), 2),
        ([b"x".repeat(70), b"\xc3".to_vec()].concat(), 70),
        ([b"\xe2\x82".to_vec(), b"x".repeat(5)].concat(), 0),
    ] {
        match convert::var(&Conversion::Utf8, &bad, &mut out, 0, &AT) {
            Err(Error::Decode { offset: o, .. }) => assert_eq!(o, offset, "{bad:?}"),
            other => panic!("{bad:?}: {other:?}"),
        }
    }
}

/// Integers bound as `SQL_C_SBIGINT` are appended a block run at a time (`convert::int_run`),
/// or value by value where a driver wrote a narrower integer and said so: both give, for every
/// range of rows, what each value read alone gives (NULLs, indicators of 0 and `SQL_NO_TOTAL`
/// meaning the whole element, a 2-byte integer), and refuse a value out of the column's range
/// naming its row.
#[test]
fn integer_runs_give_what_each_value_gives() {
    let plan = ResultPlan::new(vec![column(ffi::SQL_BIGINT, TextCodec::Utf8)], 1 << 16);
    let xs: Vec<i64> = vec![7, -1, i64::MAX, 0, 40_000, -3, 12, i64::MIN];
    let values: Vec<Option<Vec<u8>>> = xs
        .iter()
        .enumerate()
        .map(|(i, x)| (i != 3).then(|| x.to_ne_bytes().to_vec()))
        .collect();
    for narrow in [false, true] {
        let mut block = RowBlock::new(&plan, 8);
        fill(&mut block, 0, &values);
        block.bound[0].ind[1] = 0;
        block.bound[0].ind[5] = ffi::SQL_NO_TOTAL;
        if narrow {
            // A 2-byte integer where a driver wrote one (MariaDB's catalog SMALLINTs).
            block.bound[0].ind[6] = 2;
        }
        let want = |row: usize| -> Option<i64> {
            match row {
                3 => None,
                6 if narrow => Some(i64::from(i16::from_ne_bytes([12, 0]))),
                _ => Some(xs[row]),
            }
        };
        let values = block.column(0).expect("column");
        let arrow = ArrowColumn::for_plan(&plan.columns[0], false, &TypeOptions::default());
        for start in 0..8 {
            for end in start..=8 {
                let mut batch = Batch::new(std::slice::from_ref(&arrow), 8);
                batch.columns[0]
                    .append(&values, start..end, 0)
                    .expect("append");
                batch.rows = end - start;
                let schema = Arc::new(crate::schema_of(std::slice::from_ref(&arrow)));
                let rb = batch.finish(schema).expect("finish");
                let got = rb.column(0).as_primitive::<Int64Type>();
                let got: Vec<Option<i64>> = (0..got.len())
                    .map(|i| got.is_valid(i).then(|| got.value(i)))
                    .collect();
                let expected: Vec<Option<i64>> = (start..end).map(want).collect();
                assert_eq!(got, expected, "rows {start}..{end}, narrow {narrow}");
            }
        }
    }
    // Out of an INTEGER column's range (Int32), in a run: refused naming the row.
    let int = ResultPlan::new(vec![column(ffi::SQL_INTEGER, TextCodec::Utf8)], 1 << 16);
    let mut block = RowBlock::new(&int, 4);
    let wide: Vec<Option<Vec<u8>>> = [1i64, 2, 1 << 40]
        .iter()
        .map(|v| Some(v.to_ne_bytes().to_vec()))
        .collect();
    fill(&mut block, 0, &wide);
    let arrow = ArrowColumn::for_plan(&int.columns[0], false, &TypeOptions::default());
    let mut batch = Batch::new(std::slice::from_ref(&arrow), 4);
    let e = batch.columns[0]
        .append(&block.column(0).expect("column"), 0..3, 50)
        .expect_err("2^40 in an Int32");
    assert!(e.to_string().contains("row 53"), "{e}");
}
