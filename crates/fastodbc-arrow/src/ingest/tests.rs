use std::sync::Arc;

use arrow_array::{
    Array, Decimal128Array, Int64Array, StringArray, TimestampMicrosecondArray, UInt64Array,
};
use arrow_schema::{DataType, TimeUnit};
use fastodbc_core::{ffi, Error, ParamValue};

use super::create_type;
use super::rows::{write_column, At};
use super::target::TargetColumn;
use super::types::{choose, WriteOptions, Writer};
use fastodbc_core::types::temporal::civil_from_days;

const STRICT: WriteOptions = WriteOptions {
    sizes_unreliable: false,
    refuse_nul: false,
    timestamp_digits: 9,
};

fn col(sql_type: i16, size: usize, digits: i16) -> TargetColumn {
    TargetColumn {
        name: "c".into(),
        sql_type,
        size,
        digits,
        nullable: true,
        unsigned: false,
        zoned: false,
    }
}

fn write(array: &dyn Array, w: &Writer, nullable: bool) -> Result<Vec<ParamValue>, Error> {
    let mut rows: Vec<Vec<ParamValue>> = (0..array.len()).map(|_| Vec::new()).collect();
    let at = At {
        column: "c",
        sql_type: "T",
        nullable,
        refuse_nul: true,
        first_row: 11,
    };
    write_column(array, w, &mut rows, &at)?;
    Ok(rows.into_iter().flatten().collect())
}

#[test]
fn lossy_pairs_are_refused_and_partial_ones_checked() {
    let int = col(ffi::SQL_INTEGER, 10, 0);
    assert!(choose(&DataType::Float64, &int, &STRICT).is_err());
    assert!(choose(&DataType::Utf8, &int, &STRICT).is_err());
    assert_eq!(
        choose(&DataType::Int64, &int, &STRICT),
        Ok(Writer::Int {
            min: i32::MIN as i128,
            max: i32::MAX as i128
        })
    );
    let numeric = col(ffi::SQL_NUMERIC, 10, 2);
    assert!(choose(&DataType::Decimal128(12, 3), &numeric, &STRICT).is_err());
    assert_eq!(
        choose(&DataType::Decimal128(12, 2), &numeric, &STRICT),
        Ok(Writer::Decimal {
            int_digits: Some(8)
        })
    );
    assert_eq!(
        choose(&DataType::Decimal128(6, 1), &numeric, &STRICT),
        Ok(Writer::Decimal { int_digits: None })
    );
    let real = col(ffi::SQL_REAL, 7, 0);
    assert!(choose(&DataType::Float64, &real, &STRICT).is_err());
    assert_eq!(
        choose(&DataType::Float32, &real, &STRICT),
        Ok(Writer::Float)
    );
    // SQLite: REAL is 8 bytes and sizes are no limits.
    let loose = WriteOptions {
        sizes_unreliable: true,
        ..STRICT
    };
    assert_eq!(choose(&DataType::Float64, &real, &loose), Ok(Writer::Float));
    let dict = DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8));
    assert_eq!(
        choose(&dict, &col(ffi::SQL_VARCHAR, 5, 0), &STRICT),
        Ok(Writer::Text { max_chars: Some(5) })
    );
    assert_eq!(
        choose(&dict, &col(ffi::SQL_VARCHAR, 5, 0), &loose),
        Ok(Writer::Text { max_chars: None })
    );
}

#[test]
fn values_out_of_range_name_the_input_row_and_value() {
    let a = Int64Array::from(vec![Some(1), None, Some(40_000)]);
    let w = Writer::Int {
        min: -32768,
        max: 32767,
    };
    let e = write(&a, &w, true).unwrap_err().to_string();
    assert!(e.contains("input row 13") && e.contains("40000"), "{e}");
    let e = write(&a, &w, false).unwrap_err();
    assert_eq!(e.sqlstate(), "23000");
    assert!(e.to_string().contains("input row 12"), "{e}");
    let u = UInt64Array::from(vec![u64::MAX]);
    let v = write(
        &u,
        &Writer::Int {
            min: 0,
            max: u64::MAX as i128,
        },
        true,
    )
    .unwrap();
    assert!(matches!(&v[0], ParamValue::Decimal { text, .. } if text == "18446744073709551615"));
}

#[test]
fn text_length_counts_characters_and_nul_is_refused() {
    let a = StringArray::from(vec!["ÆØÅ", "abcd"]);
    let w = Writer::Text { max_chars: Some(3) };
    let e = write(&a, &w, true).unwrap_err();
    assert_eq!(e.sqlstate(), "22001");
    assert!(e.to_string().contains("input row 12") && e.to_string().contains("4 characters"));
    let nul = StringArray::from(vec!["a\0b"]);
    assert!(write(&nul, &Writer::Text { max_chars: None }, true).is_err());
}

#[test]
fn decimals_keep_their_digits_and_refuse_wider_integer_parts() {
    let a = Decimal128Array::from(vec![-12345, 5, 123_456_789])
        .with_precision_and_scale(12, 3)
        .unwrap();
    let v = write(&a, &Writer::Decimal { int_digits: None }, true).unwrap();
    let texts: Vec<&str> = v
        .iter()
        .map(|p| match p {
            ParamValue::Decimal { text, .. } => text.as_str(),
            _ => "",
        })
        .collect();
    assert_eq!(texts, ["-12.345", "0.005", "123456.789"]);
    let e = write(
        &a,
        &Writer::Decimal {
            int_digits: Some(5),
        },
        true,
    )
    .unwrap_err();
    assert!(e.to_string().contains("123456.789"), "{e}");
}

#[test]
fn timestamps_refuse_digits_the_column_would_cut() {
    let a = TimestampMicrosecondArray::from(vec![1_700_000_000_000_000, 1_700_000_000_000_001]);
    let w = Writer::Timestamp {
        digits: 6,
        instant: false,
    };
    let v = write(&a, &w, true).unwrap();
    assert!(matches!(v[1], ParamValue::Timestamp(t) if t.fraction == 1000 && t.year == 2023));
    let e = write(
        &a,
        &Writer::Timestamp {
            digits: 0,
            instant: false,
        },
        true,
    )
    .unwrap_err();
    assert_eq!(e.sqlstate(), "22008");
    assert!(e.to_string().contains("input row 12"), "{e}");
}

#[test]
fn calendar_round_trips() {
    assert_eq!(civil_from_days(0), (1970, 1, 1));
    assert_eq!(civil_from_days(-719_162), (1, 1, 1));
    assert_eq!(civil_from_days(2_932_896), (9999, 12, 31));
    assert_eq!(civil_from_days(11_016), (2000, 2, 29));
}

#[test]
fn created_types_follow_the_arrow_type() {
    let t = create_type(&DataType::Timestamp(
        TimeUnit::Nanosecond,
        Some(Arc::from("UTC")),
    ))
    .unwrap();
    assert_eq!((t.sql_type, t.scale), (ffi::SQL_TYPE_TIMESTAMP, 6));
    let t = create_type(&DataType::UInt64).unwrap();
    assert!(t.unsigned && t.sql_type == ffi::SQL_BIGINT);
    assert!(create_type(&DataType::Duration(TimeUnit::Second)).is_err());
}
