use super::*;
use crate::budget::MemoryBudget;

fn desc(sql_type: i16, size: usize) -> ColumnDescription {
    ColumnDescription {
        name: "c".into(),
        sql_type,
        size,
        digits: 0,
        nullable: true,
    }
}

fn utf8() -> Decoding {
    Decoding {
        char: TextCodec::Utf8,
        wchar: TextCodec::Utf8,
    }
}

#[test]
fn varchar_is_bound_with_room_for_four_bytes_per_char() {
    let p = ColumnPlan::choose(desc(ffi::SQL_VARCHAR, 100), &utf8());
    assert!(!p.streamed);
    assert_eq!(p.elem_bytes, 408);
    assert_eq!(p.c_type, ffi::SQL_C_CHAR);
}

#[test]
fn long_and_unsized_columns_stream() {
    for (t, size) in [
        (ffi::SQL_WLONGVARCHAR, 8190),
        (ffi::SQL_LONGVARBINARY, 0),
        (ffi::SQL_VARCHAR, 0),
        (ffi::SQL_VARBINARY, 1 << 20),
    ] {
        assert!(
            ColumnPlan::choose(desc(t, size), &utf8()).streamed,
            "{t} {size}"
        );
    }
}

#[test]
fn long_columns_bind_optimistically_when_values_can_be_recovered() {
    let opts = PlanOptions {
        sizes_unreliable: false,
        recoverable: true,
        numbers_as_text: false,
        integers_as_text: false,
        wide_text_via_getdata: false,
        wide_text_as_utf8: false,
    };
    let p = ColumnPlan::choose_with(desc(ffi::SQL_WLONGVARCHAR, 8190), &utf8(), opts);
    assert!(!p.streamed);
    assert_eq!(
        p.elem_bytes,
        (OPTIMISTIC_TEXT_CHARS * 4 + 1).div_ceil(8) * 8
    );
    assert_eq!(
        p.desc.sql_type,
        ffi::SQL_WLONGVARCHAR,
        "the description is kept"
    );
    let p = ColumnPlan::choose_with(desc(ffi::SQL_LONGVARBINARY, 0), &utf8(), opts);
    assert!(p.streamed, "long binary values stream");
    let unreliable = PlanOptions {
        sizes_unreliable: true,
        recoverable: false,
        ..opts
    };
    assert!(ColumnPlan::choose_with(desc(ffi::SQL_BINARY, 255), &utf8(), unreliable).streamed);
    let p = ColumnPlan::choose_with(desc(ffi::SQL_VARCHAR, 10), &utf8(), unreliable);
    assert_eq!(p.elem_bytes, (255 * 4 + 1usize).div_ceil(8) * 8);
}

#[test]
fn wide_text_streams_where_the_driver_binds_it_wrong() {
    let opts = PlanOptions {
        recoverable: true,
        wide_text_via_getdata: true,
        ..PlanOptions::default()
    };
    let wide = Decoding {
        char: TextCodec::Utf16,
        wchar: TextCodec::Utf16,
    };
    for (t, size) in [(ffi::SQL_WVARCHAR, 10), (ffi::SQL_WLONGVARCHAR, 1 << 30)] {
        let p = ColumnPlan::choose_with(desc(t, size), &wide, opts);
        assert!(p.streamed && !p.may_truncate, "{t} {size}");
    }
    // Narrow text and other types keep their bound buffers.
    let p = ColumnPlan::choose_with(desc(ffi::SQL_WLONGVARCHAR, 1 << 30), &utf8(), opts);
    assert!(!p.streamed && p.may_truncate);
    assert!(!ColumnPlan::choose_with(desc(ffi::SQL_INTEGER, 10), &wide, opts).streamed);
    let as_utf8 = PlanOptions {
        recoverable: true,
        wide_text_as_utf8: true,
        ..PlanOptions::default()
    };
    let p = ColumnPlan::choose_with(desc(ffi::SQL_WVARCHAR, 10), &wide, as_utf8);
    assert_eq!(
        (p.c_type, p.codec),
        (ffi::SQL_C_CHAR, Some(TextCodec::Utf8))
    );
    let latin1 = Decoding {
        char: TextCodec::Narrow("latin-1".into()),
        wchar: TextCodec::Narrow("latin-1".into()),
    };
    let p = ColumnPlan::choose_with(desc(ffi::SQL_VARCHAR, 10), &latin1, as_utf8);
    assert_eq!(p.codec, Some(TextCodec::Narrow("latin-1".into())));
}

#[test]
fn numbers_as_text_are_variable_and_recoverable() {
    let opts = PlanOptions {
        sizes_unreliable: true,
        recoverable: true,
        numbers_as_text: true,
        integers_as_text: false,
        wide_text_via_getdata: false,
        wide_text_as_utf8: false,
    };
    let p = ColumnPlan::choose_with(desc(ffi::SQL_INTEGER, 10), &utf8(), opts);
    assert_eq!((p.kind, p.c_type), (ValueKind::Int, ffi::SQL_C_CHAR));
    assert_eq!(p.elem_bytes, NUMBER_TEXT_BYTES);
    assert!(p.variable() && p.may_truncate && !p.streamed);
    let p = ColumnPlan::choose_with(desc(ffi::SQL_DOUBLE, 15), &utf8(), opts);
    assert_eq!((p.kind, p.c_type), (ValueKind::Float, ffi::SQL_C_CHAR));
    assert!(p.variable() && p.may_truncate);
    let p = ColumnPlan::choose(desc(ffi::SQL_BIGINT, 19), &utf8());
    assert_eq!((p.c_type, p.elem_bytes), (ffi::SQL_C_SBIGINT, 8));
    assert!(!p.variable());
    // Integers only: floats (and psqlODBC's `money`, a SQL_FLOAT) stay doubles.
    let ints = PlanOptions {
        numbers_as_text: false,
        integers_as_text: true,
        ..opts
    };
    let p = ColumnPlan::choose_with(desc(ffi::SQL_SMALLINT, 5), &utf8(), ints);
    assert_eq!((p.kind, p.c_type), (ValueKind::Int, ffi::SQL_C_CHAR));
    let p = ColumnPlan::choose_with(desc(ffi::SQL_FLOAT, 17), &utf8(), ints);
    assert_eq!((p.kind, p.c_type), (ValueKind::Float, ffi::SQL_C_DOUBLE));
}

#[test]
fn block_rows_follow_the_byte_budget() {
    let cols: Vec<_> = (0..5)
        .map(|_| ColumnPlan::choose(desc(ffi::SQL_VARCHAR, 100), &utf8()))
        .collect();
    let plan = ResultPlan::new(cols, MemoryBudget::DEFAULT_BLOCK_BYTES);
    assert_eq!(
        plan.block_rows,
        MemoryBudget::DEFAULT_BLOCK_BYTES / (5 * (408 + 8))
    );
    let mut cols = vec![ColumnPlan::choose(desc(ffi::SQL_INTEGER, 10), &utf8())];
    cols.push(ColumnPlan::choose(desc(ffi::SQL_LONGVARCHAR, 0), &utf8()));
    cols.push(ColumnPlan::choose(desc(ffi::SQL_INTEGER, 10), &utf8()));
    let plan = ResultPlan::new(cols, MemoryBudget::DEFAULT_BLOCK_BYTES);
    assert_eq!((plan.bound, plan.row_at_a_time), (1, true));
    assert_eq!(
        plan.block_rows,
        MemoryBudget::DEFAULT_BLOCK_BYTES / (16 + 256 + 256)
    );
}
