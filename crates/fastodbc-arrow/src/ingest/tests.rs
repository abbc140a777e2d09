use std::sync::Arc;

use arrow_array::{
    Array, Decimal128Array, Int64Array, StringArray, TimestampMicrosecondArray, UInt64Array,
};
use arrow_schema::{DataType, TimeUnit};
use fastodbc_core::{ffi, Error, ParamValue};

use super::create_type;
use super::rows::{write_column, At};
use super::target::TargetColumn;
use super::types::{choose, Nan, WriteOptions, Writer};
use fastodbc_core::types::temporal::civil_from_days;

const STRICT: WriteOptions = WriteOptions {
    sizes_unreliable: false,
    refuse_nul: false,
    timestamp_digits: 9,
    nan: Nan::Keep,
    affinity_by_type_name: false,
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
        type_name: String::new(),
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
        Ok(Writer::Float { nan: Nan::Keep })
    );
    // SQLite: REAL is 8 bytes and sizes are no limits.
    let loose = WriteOptions {
        sizes_unreliable: true,
        ..STRICT
    };
    assert_eq!(
        choose(&DataType::Float64, &real, &loose),
        Ok(Writer::Float { nan: Nan::Keep })
    );
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
    assert!(t.zoned);
    let naive = create_type(&DataType::Timestamp(TimeUnit::Millisecond, None)).unwrap();
    assert_eq!((naive.scale, naive.zoned), (3, false));
    let t = create_type(&DataType::UInt64).unwrap();
    assert!(t.unsigned && t.sql_type == ffi::SQL_BIGINT);
    let t = create_type(&DataType::Duration(TimeUnit::Microsecond)).unwrap();
    assert_eq!(t.sql_type, ffi::SQL_LONGVARCHAR);
    assert!(create_type(&DataType::Interval(
        arrow_schema::IntervalUnit::MonthDayNano
    ))
    .is_err());
}

#[test]
fn durations_go_as_text_past_a_day_and_negative() {
    // MariaDB's TIME reads as duration[us]; its extremes go back as the text it parses.
    let us = arrow_array::DurationMicrosecondArray::from(vec![
        3_020_399_999_999,
        -3_020_399_999_999,
        0,
        1_500_000,
    ]);
    let w = choose(us.data_type(), &col(ffi::SQL_TYPE_TIME, 15, 6), &STRICT).unwrap();
    assert_eq!(w, Writer::Duration { digits: 6 });
    let v = write(&us, &w, true).unwrap();
    let texts: Vec<&str> = v
        .iter()
        .map(|p| match p {
            ParamValue::Text(t) => t.as_str(),
            _ => "",
        })
        .collect();
    assert_eq!(
        texts,
        [
            "838:59:59.999999",
            "-838:59:59.999999",
            "00:00:00",
            "00:00:01.500000"
        ]
    );
    // A TIME(0) column keeps no fraction: refused, never cut.
    let w0 = choose(us.data_type(), &col(ffi::SQL_TYPE_TIME, 8, 0), &STRICT).unwrap();
    assert!(write(&us, &w0, true).is_err());
    let text = choose(us.data_type(), &col(ffi::SQL_VARCHAR, 0, 0), &STRICT);
    assert!(matches!(text, Ok(Writer::Duration { .. })));
    assert!(choose(us.data_type(), &col(ffi::SQL_INTEGER, 10, 0), &STRICT).is_err());
    // The same as CSV text: checked, sent as it is.
    let text = arrow_array::StringArray::from(vec!["838:59:59.5", "-01:02:03", "1200", "12:60:00"]);
    let w = choose(text.data_type(), &col(ffi::SQL_TYPE_TIME, 15, 6), &STRICT).unwrap();
    assert_eq!(w, Writer::TimeText { digits: 6 });
    let ok = arrow_array::StringArray::from(vec!["838:59:59.5", "-01:02:03"]);
    assert!(write(&ok, &w, true).is_ok());
    for bad in ["1200", "12:60:00", "1:2:3", "12:00:00.1234567"] {
        let a = arrow_array::StringArray::from(vec![bad]);
        assert!(write(&a, &w, true).is_err(), "{bad}");
    }
}

#[test]
fn nan_is_kept_refused_or_null_as_asked() {
    let a = arrow_array::Float64Array::from(vec![1.5, f64::NAN]);
    let kept = write(&a, &Writer::Float { nan: Nan::Keep }, true).unwrap();
    assert!(matches!(kept[1], ParamValue::Float(v) if v.is_nan()));
    let e = write(&a, &Writer::Float { nan: Nan::Refuse }, true).unwrap_err();
    assert!(
        e.to_string().contains("input row 12") && e.to_string().contains("NaN"),
        "{e}"
    );
    let nulled = write(&a, &Writer::Float { nan: Nan::Null }, true).unwrap();
    assert!(matches!(
        nulled[..],
        [ParamValue::Float(_), ParamValue::Null]
    ));
    let e = write(&a, &Writer::Float { nan: Nan::Null }, false).unwrap_err();
    assert_eq!(e.sqlstate(), "23000");
}

#[test]
fn sqlite_numeric_columns_get_integral_decimals_as_integers() {
    // SQLite: NUMERIC(18,0) is described as a double, DECIMAL as text; both keep integers.
    let sqlite = WriteOptions {
        sizes_unreliable: true,
        affinity_by_type_name: true,
        ..STRICT
    };
    let named = |sql_type: i16, name: &str| TargetColumn {
        type_name: name.into(),
        ..col(sql_type, 15, 0)
    };
    let keeps = Writer::DecimalAsFloat {
        digits: 15,
        keeps_integers: true,
    };
    let dec = DataType::Decimal128(15, -3);
    // 18 integer digits: NUMERIC(17,0) checks each value, NUMERIC(18,0) need not.
    let n = |p: usize| col(ffi::SQL_NUMERIC, p, 0);
    assert_eq!(
        choose(&dec, &n(17), &STRICT),
        Ok(Writer::Decimal {
            int_digits: Some(17)
        })
    );
    assert_eq!(
        choose(&dec, &n(18), &STRICT),
        Ok(Writer::Decimal { int_digits: None })
    );
    assert_eq!(
        choose(&dec, &named(ffi::SQL_DOUBLE, "NUMERIC"), &sqlite),
        Ok(keeps.clone())
    );
    assert_eq!(
        choose(&dec, &named(ffi::SQL_CHAR, "DECIMAL"), &sqlite),
        Ok(keeps.clone())
    );
    for double in ["DOUBLE", "REAL", "FLOAT", "DOUBLE PRECISION"] {
        assert_eq!(
            choose(&dec, &named(ffi::SQL_DOUBLE, double), &sqlite),
            Ok(Writer::DecimalAsFloat {
                digits: 15,
                keeps_integers: false
            }),
            "{double}"
        );
    }
    assert!(matches!(
        choose(
            &DataType::Int64,
            &named(ffi::SQL_DOUBLE, "NUMERIC"),
            &sqlite
        ),
        Ok(Writer::Int { .. })
    ));
    // 123456789012345000 (decimal128(15, -3)): its nearest double is ...344992.
    let a = Decimal128Array::from(vec![123_456_789_012_345, 5])
        .with_precision_and_scale(15, -3)
        .unwrap();
    let v = write(&a, &keeps, true).unwrap();
    assert!(
        matches!(v[..], [ParamValue::Int(123_456_789_012_345_000), ParamValue::Float(f)] if f == 5000.0)
    );
    let as_double = write(
        &a,
        &Writer::DecimalAsFloat {
            digits: 15,
            keeps_integers: false,
        },
        true,
    )
    .unwrap();
    assert!(matches!(as_double[0], ParamValue::Float(_)));
    // A fraction, or past int64, still goes as a double of at most 15 digits.
    let b = Decimal128Array::from(vec![1_234_567_890_123_456_789])
        .with_precision_and_scale(19, 1)
        .unwrap();
    assert_eq!(write(&b, &keeps, true).unwrap_err().sqlstate(), "22003");
}

#[test]
fn negative_scale_decimals_get_their_zeros_as_digits() {
    let t = create_type(&DataType::Decimal128(15, -3)).unwrap();
    assert_eq!(
        (t.sql_type, t.precision, t.scale),
        (ffi::SQL_NUMERIC, 18, 0)
    );
    let t = create_type(&DataType::Decimal128(12, 3)).unwrap();
    assert_eq!((t.precision, t.scale), (12, 3));
}

#[test]
fn created_columns_follow_their_source_columns() {
    use crate::source::{LENGTH_KEY, SCALE_KEY, SQL_TYPE_KEY};
    use arrow_schema::Field;
    use fastodbc_core::driver::Server;
    use std::collections::HashMap;
    let field = |t: DataType, meta: &[(&str, &str)]| {
        let meta: HashMap<String, String> = meta
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Field::new("c", t, true).with_metadata(meta)
    };
    let pg = Server::detect("PostgreSQL", "15.0018");
    let maria = Server::detect("MariaDB", "10.11.000019");
    let lite = Server::detect("SQLite", "3.40.1");
    let uuid = field(DataType::Utf8, &[(SQL_TYPE_KEY, "uuid")]);
    let native = |f: &Field, s: &Server| super::create_column(f, s).unwrap().native;
    assert_eq!(native(&uuid, &pg).as_deref(), Some("uuid"));
    assert_eq!(native(&uuid, &maria).as_deref(), Some("UUID"));
    assert_eq!(native(&uuid, &lite), None);
    let jsonb = field(DataType::Utf8, &[(SQL_TYPE_KEY, "jsonb")]);
    assert_eq!(native(&jsonb, &maria).as_deref(), Some("JSON"));
    let array = field(DataType::Utf8, &[(SQL_TYPE_KEY, "_int4")]);
    assert_eq!(native(&array, &pg).as_deref(), Some("_int4"));
    assert_eq!(native(&array, &maria), None);
    // A native type is chosen only for text: a uuid fetched as bytes stays bytes.
    let bytes = field(DataType::Binary, &[(SQL_TYPE_KEY, "uuid")]);
    assert_eq!(native(&bytes, &pg), None);
    let vc = field(
        DataType::Utf8,
        &[(SQL_TYPE_KEY, "varchar"), (LENGTH_KEY, "20")],
    );
    let c = super::create_column(&vc, &maria).unwrap();
    assert_eq!((c.sql_type, c.length), (ffi::SQL_VARCHAR, 20));
    // No length known: text.
    let unbounded = field(DataType::Utf8, &[(SQL_TYPE_KEY, "varchar")]);
    let c = super::create_column(&unbounded, &pg).unwrap();
    assert_eq!((c.sql_type, c.length), (ffi::SQL_LONGVARCHAR, 0));
    let ts = field(
        DataType::Timestamp(TimeUnit::Microsecond, None),
        &[(SQL_TYPE_KEY, "DATETIME"), (SCALE_KEY, "0")],
    );
    assert_eq!(super::create_column(&ts, &maria).unwrap().scale, 0);
    // No metadata: the Arrow type alone.
    let plain = Field::new("c", DataType::Utf8, true);
    assert_eq!(
        super::create_column(&plain, &pg).unwrap(),
        create_type(&DataType::Utf8).unwrap()
    );
}
