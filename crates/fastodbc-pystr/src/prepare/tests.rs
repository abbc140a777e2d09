use super::*;
use fastodbc_core::block::testing::{column, fill, store_long};
use fastodbc_core::ffi;
use fastodbc_core::plan::{ColumnDescription, ColumnPlan, Decoding, PlanOptions, TextCodec};

fn prepare(plan: &ResultPlan, block: &mut RowBlock) {
    let mut notes = std::mem::take(&mut block.notes);
    RowsPreparation.prepare(plan, block, &mut notes);
    block.notes = notes;
}

fn shape(block: &RowBlock, col: usize, row: usize) -> Option<TextShape> {
    block.notes.get::<PreparedRows>()?.text_shape(col, row)
}

fn number(block: &RowBlock, col: usize, row: usize) -> Option<NumberText> {
    block.notes.get::<PreparedRows>()?.number(col, row)
}

#[test]
fn described_shapes_are_the_decoders_and_forgotten_on_request() {
    let utf16 = |s: &str| -> Vec<u8> { s.encode_utf16().flat_map(u16::to_le_bytes).collect() };
    let texts = ["", "ascii", "café", "Добрый", "😀x", "日本語"];
    let mut utf8_values: Vec<Option<Vec<u8>>> =
        texts.iter().map(|t| Some(t.as_bytes().to_vec())).collect();
    utf8_values.push(None);
    utf8_values.push(Some(b"a\xffb".to_vec())); // invalid: no shape
    let mut utf16_values: Vec<Option<Vec<u8>>> = texts.iter().map(|t| Some(utf16(t))).collect();
    utf16_values.push(None);
    utf16_values.push(Some(vec![0x00, 0xD8, 0x41, 0x00])); // unpaired surrogate: no shape
    let plan = ResultPlan::new(
        vec![
            column(ffi::SQL_VARCHAR, TextCodec::Utf8),
            column(ffi::SQL_WVARCHAR, TextCodec::Utf16),
            column(ffi::SQL_INTEGER, TextCodec::Utf8),
        ],
        1 << 16,
    );
    let mut block = RowBlock::new(&plan, 16);
    fill(&mut block, 0, &utf8_values);
    fill(&mut block, 1, &utf16_values);
    prepare(&plan, &mut block);
    for (row, t) in texts.iter().enumerate() {
        let want8 = utf8_shape(t.as_bytes()).ok();
        let units: Vec<u16> = t.encode_utf16().collect();
        let want16 = utf16_shape(&units).ok();
        assert_eq!(shape(&block, 0, row), want8, "{t:?}");
        assert_eq!(shape(&block, 1, row), want16, "{t:?}");
        assert_eq!(want8, want16);
    }
    for row in [texts.len(), texts.len() + 1] {
        assert_eq!(shape(&block, 0, row), None);
        assert_eq!(shape(&block, 1, row), None);
    }
    // Not text: never described.
    assert_eq!(shape(&block, 2, 0), None);
    // Past the block's rows.
    assert_eq!(shape(&block, 0, texts.len() + 2), None);
    block.notes.invalidate();
    assert_eq!(shape(&block, 0, 2), None);
}

#[test]
fn described_numbers_are_what_the_consumer_reads() {
    // What an INTEGER or REAL column of SQLite can hold, as its driver writes the text.
    let texts: [&[u8]; 13] = [
        b"0",
        b"-17",
        b"9223372036854775807",
        b"-9223372036854775808",
        b"9223372036854775808", // past i64: text
        b"007",                 // stored text: stays text
        b"3.7",
        b"-2.5e-07",
        b"1e+20",
        b"abc",
        b"12abc",
        b"Inf",
        b"",
    ];
    let mut values: Vec<Option<Vec<u8>>> = texts.iter().map(|t| Some(t.to_vec())).collect();
    values.push(None);
    // As the plan is for sqliteodbc.
    let opts = PlanOptions {
        sizes_unreliable: true,
        recoverable: true,
        numbers_as_text: true,
        ..PlanOptions::default()
    };
    let utf8 = Decoding {
        char: TextCodec::Utf8,
        wchar: TextCodec::Utf8,
    };
    let number_column = |sql_type| {
        let desc = ColumnDescription {
            name: "n".into(),
            sql_type,
            size: 10,
            digits: 0,
            nullable: true,
        };
        ColumnPlan::choose_with(desc, &utf8, opts)
    };
    let plan = ResultPlan::new(
        vec![
            number_column(ffi::SQL_INTEGER),
            number_column(ffi::SQL_DOUBLE),
        ],
        1 << 16,
    );
    let mut block = RowBlock::new(&plan, 16);
    fill(&mut block, 0, &values);
    fill(&mut block, 1, &values);
    // A value longer than its element, as recovered after truncation.
    let long = b"123456789012345678901234567890".to_vec();
    store_long(&mut block, 0, 13, long.clone());
    store_long(&mut block, 1, 13, b"1.5".to_vec());
    block.rows = 14;
    prepare(&plan, &mut block);
    let read = |n: NumberText| match n {
        NumberText::Text => None,
        n => Some(n),
    };
    for (row, t) in texts.iter().enumerate() {
        let int = NumberText::integer(t);
        assert_eq!(number(&block, 0, row), read(int), "{:?}", t);
        let float = NumberText::float(t);
        assert_eq!(number(&block, 1, row), read(float), "{:?}", t);
    }
    assert_eq!(number(&block, 0, 2), Some(NumberText::Int(i64::MAX)));
    assert_eq!(number(&block, 0, 6), Some(NumberText::Float(3.7)));
    assert_eq!(number(&block, 0, 5), None);
    assert_eq!(number(&block, 1, 5), Some(NumberText::Float(7.0)));
    assert_eq!(number(&block, 0, 13), read(NumberText::integer(&long)));
    assert_eq!(number(&block, 1, 13), Some(NumberText::Float(1.5)));
    // NULL, then past the block's rows.
    block.rows = 15;
    block.bound[0].ind[14] = ffi::SQL_NULL_DATA;
    prepare(&plan, &mut block);
    assert_eq!(number(&block, 0, 14), None);
    assert_eq!(number(&block, 0, 15), None);
    // Numbers are not text shapes, and forgotten on request.
    assert_eq!(shape(&block, 0, 0), None);
    block.notes.invalidate();
    assert_eq!(number(&block, 0, 1), None);
}
