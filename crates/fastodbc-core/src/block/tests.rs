use super::testing::{column, fill, store_long};
use super::*;
use crate::plan::TextCodec;

#[test]
fn a_block_fits_only_the_layout_it_was_made_for() {
    let plan = |types: &[i16]| {
        let columns = types.iter().map(|&t| column(t, TextCodec::Utf8)).collect();
        ResultPlan::new(columns, 1 << 20)
    };
    let stamp_text = plan(&[ffi::SQL_TYPE_TIMESTAMP, ffi::SQL_VARCHAR]);
    let block = RowBlock::new(&stamp_text, 16);
    assert!(block.fits(&stamp_text, 16));
    assert!(!block.fits(&stamp_text, 128), "other rows");
    // A GUID is as wide as a TIMESTAMP_STRUCT: the C type tells them apart.
    let guid_text = plan(&[ffi::SQL_GUID, ffi::SQL_VARCHAR]);
    assert_eq!(
        guid_text.columns[0].elem_bytes,
        stamp_text.columns[0].elem_bytes
    );
    assert!(!block.fits(&guid_text, 16), "other C type, same size");
    assert!(
        !block.fits(&plan(&[ffi::SQL_TYPE_TIMESTAMP]), 16),
        "fewer columns"
    );
    let stamp = plan(&[ffi::SQL_TYPE_TIMESTAMP]);
    assert!(
        !RowBlock::new(&stamp, 16).fits(&stamp_text, 16),
        "more columns"
    );
    assert!(!block.fits(&plan(&[ffi::SQL_TYPE_TIMESTAMP, ffi::SQL_TYPE_DATE]), 16));
    assert!(buffers_fit(&column_buffers(&stamp_text, 1), &stamp_text, 1));
    assert!(!buffers_fit(&column_buffers(&stamp_text, 1), &guid_text, 1));
}

#[test]
fn columns_give_what_cells_give_long_values_included() {
    let plan = ResultPlan::new(
        vec![
            column(ffi::SQL_VARCHAR, TextCodec::Utf8),
            column(ffi::SQL_INTEGER, TextCodec::Utf8),
        ],
        1 << 16,
    );
    let mut block = RowBlock::new(&plan, 8);
    let texts: Vec<Option<Vec<u8>>> = vec![
        Some(b"short".to_vec()),
        None,
        Some(Vec::new()),
        Some(b"cut".to_vec()),
        Some(b"x".to_vec()),
        Some(b"no total".to_vec()),
    ];
    fill(&mut block, 0, &texts);
    let long = vec![b'L'; 500];
    // As the driver reports a value longer than the element, and one of no known total.
    store_long(&mut block, 0, 3, long.clone());
    block.bound[0].ind[5] = ffi::SQL_NO_TOTAL;
    block.store_long(0, 5, b"no total, read whole".to_vec());
    let ints: Vec<Option<Vec<u8>>> = (0..6)
        .map(|i| (i != 4).then(|| (i as i64 * 1000).to_ne_bytes().to_vec()))
        .collect();
    fill(&mut block, 1, &ints);
    assert_eq!(block.len(), 6);
    for col in 0..2 {
        let values = block.column(col).unwrap();
        assert_eq!(values.len(), 6);
        for row in 0..6 {
            let cell = match block.cell(col, row) {
                Cell::Null => None,
                Cell::Value(v) => Some(v),
            };
            assert_eq!(values.value(row), cell, "column {col} row {row}");
        }
        let validity: Vec<bool> = values.validity().collect();
        let want: Vec<bool> = (0..6)
            .map(|row| block.cell(col, row) != Cell::Null)
            .collect();
        assert_eq!(validity, want);
    }
    assert_eq!(block.cell(0, 3), Cell::Value(&long[..]));
    assert_eq!(
        block.value_in_element(0, 3),
        None,
        "a long value is not in its element"
    );
    assert_eq!(
        block.value_in_element(0, 0),
        Some((block.bound[0].element(0), 5))
    );
    let ColumnValues::Variable(text) = block.column(0).unwrap() else {
        panic!("text is variable-length");
    };
    assert_eq!(text.long.len(), 2);
    assert_eq!(text.value_bytes(), 5 + 500 + 1 + 20);
    assert!(matches!(block.column(1), Some(ColumnValues::Fixed(_))));
    assert!(block.column(2).is_none());
    // A new fill forgets them.
    block.clear_long();
    assert_eq!(
        block.column(0).unwrap().value(3),
        Some(&block.bound[0].element(3)[..block.bound[0].capacity])
    );
}

#[test]
fn streamed_columns_are_columns_too() {
    let plan = ResultPlan::new(
        vec![
            column(ffi::SQL_INTEGER, TextCodec::Utf8),
            column(ffi::SQL_LONGVARBINARY, TextCodec::Utf8),
        ],
        1 << 16,
    );
    assert_eq!(plan.bound, 1);
    let mut block = RowBlock::new(&plan, 4);
    fill(&mut block, 0, &[Some(1i64.to_ne_bytes().to_vec()), None]);
    block.streamed[0] = vec![None, Some(vec![0, 1, 2])];
    let values = block.column(1).unwrap();
    assert!(matches!(values, ColumnValues::Streamed(_)));
    assert_eq!(values.value(0), None);
    assert_eq!(values.value(1), Some(&[0u8, 1, 2][..]));
    assert_eq!(values.validity().collect::<Vec<_>>(), [false, true]);
}
