//! The result-set state machine against SQLite through unixODBC and sqliteodbc (no Python):
//! blocks growing from a first small rowset, the end of a result, reading ahead (lend /
//! take back) serving every row once and in order, blocks prepared by a consumer on the fetch
//! thread, long values recovered whole, buffers kept bound between short results, and moving on
//! to the next result. `make test` points unixODBC at the project's driver registry
//! (ODBCSYSINI); the driver is registered there as `SQLite3`.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use fastodbc_core::plan::{Decoding, TextCodec};
use fastodbc_core::types::text::to_utf16;
use fastodbc_core::MemoryBudget;
use fastodbc_core::{
    BlockConsumer, BlockNotes, Cell, ColumnValues, Connection, Error, ReadAhead, Reader,
    ResultPlan, RowBlock, Statement,
};

fn connect() -> Connection {
    let db = std::env::temp_dir().join(format!("fastodbc-core-{}.sqlite", std::process::id()));
    let connstring = format!("Driver=SQLite3;Database={}", db.display());
    Connection::connect(&connstring, true, 0, false, &[], &[], &mut Vec::new())
        .unwrap_or_else(|e| panic!("connecting to SQLite through unixODBC: {e:?}"))
}

fn utf8() -> Decoding {
    Decoding {
        char: TextCodec::Utf8,
        wchar: TextCodec::Utf8,
    }
}

/// Executes `sql` and opens its result.
fn query(stmt: &mut Statement, sql: &str) {
    stmt.reset();
    stmt.exec_direct(&to_utf16(sql)).expect("execute");
    assert!(stmt
        .open_result(&utf8(), MemoryBudget::DEFAULT, false)
        .expect("describe"));
}

/// `n` rows: the integers 1..=n and their text.
fn counting(n: usize) -> String {
    format!(
        "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < {n}) \
         SELECT x, 'v' || x FROM c"
    )
}

fn text(cell: Cell<'_>) -> String {
    match cell {
        Cell::Value(b) => String::from_utf8(b.to_vec()).expect("UTF-8"),
        Cell::Null => "NULL".into(),
    }
}

/// The rows of the current block as (integer text, text) pairs (SQLite's numbers come as text).
fn rows_of(block: &RowBlock) -> Vec<(String, String)> {
    (0..block.len())
        .map(|r| (text(block.cell(0, r)), text(block.cell(1, r))))
        .collect()
}

fn expected(n: usize) -> Vec<(String, String)> {
    (1..=n).map(|x| (x.to_string(), format!("v{x}"))).collect()
}

fn block_rows(stmt: &Statement) -> usize {
    stmt.result.as_ref().map_or(0, |rs| rs.block.len())
}

fn plan(stmt: &Statement) -> &ResultPlan {
    &stmt.result.as_ref().expect("a result").plan
}

#[test]
fn blocks_grow_from_a_small_first_rowset_and_the_end_stays_the_end() {
    let conn = connect();
    let mut stmt = Statement::new(&conn).expect("statement");
    let n = 10_000;
    query(&mut stmt, &counting(n));
    let full = plan(&stmt).block_rows;
    let mut sizes = Vec::new();
    let mut rows = Vec::new();
    loop {
        let got = stmt.fetch_block().expect("fetch");
        assert_eq!(got, block_rows(&stmt));
        if got == 0 {
            break;
        }
        sizes.push(got);
        rows.extend(rows_of(&stmt.result.as_ref().expect("result").block));
    }
    assert_eq!(rows, expected(n));
    // 16 rows first, then 8-fold growth up to the plan's block.
    let mut want = 16;
    for &size in &sizes[..sizes.len() - 1] {
        assert_eq!(size, want, "block sizes {sizes:?}, plan's block {full}");
        want = (want * 8).min(full);
    }
    // The end, asked again, is still the end.
    assert_eq!(stmt.fetch_block().expect("after the end"), 0);
    assert_eq!(stmt.fetch_block().expect("after the end"), 0);
}

/// A consumer counting the blocks it prepared, noting each block's row count.
#[derive(Default)]
struct Counting {
    prepared: AtomicUsize,
}

#[derive(Default)]
struct RowsSeen(usize);

impl BlockConsumer for Counting {
    fn prepare(&self, _plan: &ResultPlan, block: &RowBlock, notes: &mut BlockNotes) {
        self.prepared.fetch_add(1, Ordering::Relaxed);
        notes.fill(|seen: &mut RowsSeen| seen.0 = block.len());
    }
}

/// The current block of `reader`'s result (the one its consumer reads).
fn current_rows(reader: &ReadAhead) -> Vec<(String, String)> {
    reader.block().map(rows_of).unwrap_or_default()
}

#[test]
fn reading_ahead_serves_every_row_once_in_order_prepared_by_the_consumer() {
    let conn = connect();
    let mut stmt = Statement::new(&conn).expect("statement");
    let n = 20_000;
    query(&mut stmt, &counting(n));
    let consumer = Arc::new(Counting::default());
    stmt.result
        .as_mut()
        .expect("result")
        .set_consumer(consumer.clone());
    let mut reader = ReadAhead::new(stmt);
    let mut rows = Vec::new();
    let mut lent_blocks = 0;
    let mut prepared_blocks = 0;
    let mut blocks = 0;
    while reader.fetch_block(|wait| wait()).expect("fetch") > 0 {
        blocks += 1;
        let block = reader.block().expect("a block");
        if let Some(seen) = block.notes.get::<RowsSeen>() {
            assert_eq!(seen.0, block.len(), "notes of this very block");
            prepared_blocks += 1;
        }
        // Alternate the two ways of reading ahead: lend / take back, and read_ahead.
        if blocks % 2 == 0 {
            if reader.lend() {
                lent_blocks += 1;
                assert!(reader.is_lent());
            }
            rows.extend(current_rows(&reader));
            reader.take_back(|wait| wait());
            assert!(!reader.is_lent());
        } else {
            rows.extend(reader.read_ahead(rows_of, |wait| wait()));
        }
    }
    assert_eq!(rows.len(), n);
    assert_eq!(rows, expected(n));
    assert!(
        lent_blocks > 1,
        "a long result reads ahead ({lent_blocks} of {blocks})"
    );
    // Blocks read ahead are prepared when the fetch thread had time; never one it did not fill.
    assert_eq!(prepared_blocks, consumer.prepared.load(Ordering::Relaxed));
    assert!(
        prepared_blocks > 0,
        "the fetch thread prepares blocks when it waits"
    );
}

#[test]
fn a_block_read_ahead_is_never_served_to_the_next_result() {
    let conn = connect();
    let mut stmt = Statement::new(&conn).expect("statement");
    query(&mut stmt, &counting(10_000));
    let mut reader = ReadAhead::new(stmt);
    for _ in 0..3 {
        assert!(reader.fetch_block(|wait| wait()).expect("fetch") > 0);
    }
    assert!(reader.lend(), "the fourth block is read ahead");
    // Another query while a block of the first waits: its rows, and its layout.
    query(
        reader.statement(|wait| wait()),
        "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 5000) \
         SELECT 'w' || x, x * 2, x FROM c",
    );
    let mut seen = 0;
    while reader.fetch_block(|wait| wait()).expect("fetch") > 0 {
        reader.lend();
        let block = reader.block().expect("a block");
        for row in 0..block.len() {
            seen += 1;
            assert_eq!(text(block.cell(0, row)), format!("w{seen}"));
            assert_eq!(text(block.cell(1, row)), (seen * 2).to_string());
        }
        reader.take_back(|wait| wait());
    }
    assert_eq!(seen, 5000);
}

#[test]
fn a_short_result_costs_no_fetch_thread() {
    let conn = connect();
    let mut stmt = Statement::new(&conn).expect("statement");
    query(&mut stmt, &counting(100));
    let mut reader = ReadAhead::new(stmt);
    assert_eq!(reader.fetch_block(|wait| wait()).expect("fetch"), 16);
    assert!(!reader.lend(), "one block fetched: not read ahead yet");
    assert_eq!(reader.fetch_block(|wait| wait()).expect("fetch"), 84);
    assert!(!reader.lend(), "a block cut short is the last");
}

#[test]
fn long_values_come_whole_cell_wise_and_column_wise() {
    let conn = connect();
    let mut stmt = Statement::new(&conn).expect("statement");
    // 'ab' x 1,500: longer than the bound element of SQLite's (unreliably sized) text.
    let long = "ab".repeat(1500);
    query(
        &mut stmt,
        "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 50) \
         SELECT x, CASE WHEN x % 7 = 0 THEN replace(hex(zeroblob(1500)), '00', 'ab') \
         WHEN x % 5 = 0 THEN NULL ELSE 'short' || x END FROM c",
    );
    let mut seen = 0;
    let mut recovered = 0;
    while stmt.fetch_block().expect("fetch") > 0 {
        let block = &stmt.result.as_ref().expect("result").block;
        let Some(ColumnValues::Variable(column)) = block.column(1) else {
            panic!("text is a variable-length column");
        };
        for row in 0..block.len() {
            seen += 1;
            let x = seen;
            let want = if x % 7 == 0 {
                Some(long.clone())
            } else if x % 5 == 0 {
                None
            } else {
                Some(format!("short{x}"))
            };
            let cell = match block.cell(1, row) {
                Cell::Value(b) => Some(String::from_utf8(b.to_vec()).expect("UTF-8")),
                Cell::Null => None,
            };
            assert_eq!(cell, want, "row {x}");
            let value = column
                .value(row)
                .map(|b| String::from_utf8(b.to_vec()).unwrap());
            assert_eq!(value, want, "row {x}, column-wise");
            assert_eq!(column.elements.is_null(row), want.is_none());
        }
        recovered += column.long.len();
    }
    assert_eq!(seen, 50);
    assert_eq!(
        recovered, 7,
        "the long values were read again, not found in their elements"
    );
}

#[test]
fn short_results_reuse_their_bound_buffers_and_others_do_not() {
    let conn = connect();
    let mut stmt = Statement::new(&conn).expect("statement");
    let first_block = |stmt: &mut Statement, sql: &str| {
        query(stmt, sql);
        stmt.fetch_block().expect("fetch");
        let rs = stmt.result.as_ref().expect("result");
        (rs.block.address(), rows_of(&rs.block))
    };
    let (a, rows) = first_block(&mut stmt, "SELECT 1, 'one'");
    assert_eq!(rows, [("1".to_string(), "one".to_string())]);
    let (b, rows) = first_block(&mut stmt, "SELECT 2, 'two'");
    assert_eq!(rows, [("2".to_string(), "two".to_string())]);
    assert_eq!(a, b, "the same layout fetches into the same buffers");
    // Another layout: new buffers, right values.
    query(&mut stmt, "SELECT 3.5");
    assert_eq!(stmt.fetch_block().expect("fetch"), 1);
    let rs = stmt.result.as_ref().expect("result");
    assert_eq!(text(rs.block.cell(0, 0)), "3.5");
    // Back to the first layout: its values, whatever the buffers.
    let (_, rows) = first_block(&mut stmt, "SELECT 4, 'four'");
    assert_eq!(rows, [("4".to_string(), "four".to_string())]);
}

#[test]
fn a_statement_without_a_result_says_so_and_stays_usable() {
    let conn = connect();
    let mut stmt = Statement::new(&conn).expect("statement");
    stmt.reset();
    stmt.exec_direct(&to_utf16("CREATE TEMP TABLE t (x)"))
        .expect("create");
    assert!(!stmt
        .open_result(&utf8(), MemoryBudget::DEFAULT, false)
        .expect("describe"));
    match stmt.fetch_block() {
        Err(Error::Programming(message)) => assert!(message.contains("No results"), "{message}"),
        other => panic!("fetch without a result: {other:?}"),
    }
    query(&mut stmt, "SELECT 5, 'five'");
    assert_eq!(stmt.fetch_block().expect("fetch"), 1);
    assert!(!stmt.more_results().expect("more results"));
}

/// SQLite's number columns come as text and may hold long stored text, which sqliteodbc can
/// re-read only on the current row: such a result is fetched row at a time, unless its reader
/// takes typed columns (Arrow), which refuse long numbers: then it is fetched in rowsets. A long value is then
/// refused naming its column and row in the result; a text column keeps the row-at-a-time
/// fetch whatever the consumer; the choice is made before the first fetch only.
#[test]
fn typed_columns_fetch_number_results_in_rowsets_and_refuse_long_numbers() {
    let conn = connect();
    let mut stmt = Statement::new(&conn).expect("statement");
    let n = 3_000;
    let long = "x".repeat(40);
    let numbers = format!(
        "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < {n}) \
         SELECT x, CAST(x AS REAL) FROM c"
    );
    let table = format!("ln_{}", std::process::id());
    for sql in [
        format!("DROP TABLE IF EXISTS {table}"),
        format!("CREATE TABLE {table} (id INTEGER, amount INTEGER)"),
        format!(
            "INSERT INTO {table} {}",
            numbers.replace("CAST(x AS REAL)", "x")
        ),
        format!("UPDATE {table} SET amount = '{long}' WHERE id = 2500"),
    ] {
        stmt.reset();
        stmt.exec_direct(&to_utf16(&sql)).expect(&sql);
    }
    let rowsets = |stmt: &mut Statement, reader: Option<Reader>| {
        let rs = stmt.result.as_mut().expect("a result");
        if let Some(r) = reader {
            rs.plan_for(r);
        }
        !rs.plan.row_at_a_time
    };

    query(&mut stmt, &numbers);
    assert!(
        !rowsets(&mut stmt, None),
        "the rows path reads long numbers whole"
    );
    assert!(rowsets(&mut stmt, Some(Reader::TypedColumns)));
    assert!(
        !rowsets(&mut stmt, Some(Reader::Rows)),
        "and back, before a fetch"
    );
    assert!(rowsets(&mut stmt, Some(Reader::TypedColumns)));
    let mut seen = 0usize;
    loop {
        let rows = stmt.fetch_block().expect("fetch");
        if rows == 0 {
            break;
        }
        let block = &stmt.result.as_ref().expect("a result").block;
        for r in 0..rows {
            seen += 1;
            assert_eq!(text(block.cell(0, r)), seen.to_string());
            assert_eq!(text(block.cell(1, r)), format!("{seen}.0"));
        }
    }
    assert_eq!(seen, n);

    // Fetched already: the plan stays as it was bound.
    query(&mut stmt, &numbers);
    assert!(stmt.fetch_block().expect("fetch") > 0);
    assert!(!rowsets(&mut stmt, Some(Reader::TypedColumns)));

    // A text column needs the current row for its long values: row at a time.
    query(&mut stmt, &counting(10));
    assert!(!rowsets(&mut stmt, Some(Reader::TypedColumns)));

    let sql = format!("SELECT id, amount FROM {table} ORDER BY id");
    query(&mut stmt, &sql);
    assert!(rowsets(&mut stmt, Some(Reader::TypedColumns)));
    let err = loop {
        match stmt.fetch_block() {
            Ok(0) => panic!("the long value was not refused"),
            Ok(_) => {}
            Err(e) => break e,
        }
    };
    let message = err.to_string();
    assert!(
        matches!(
            err,
            Error::Value {
                sqlstate: "22018",
                ..
            }
        ) && message.contains("\"amount\", row 2500:")
            && message.contains("CAST"),
        "{message}"
    );
    // The rows path reads it whole.
    query(&mut stmt, &sql);
    let mut values = Vec::new();
    while stmt.fetch_block().expect("fetch") > 0 {
        let block = &stmt.result.as_ref().expect("a result").block;
        values.extend((0..block.len()).map(|r| text(block.cell(1, r))));
    }
    assert_eq!(values.len(), n);
    assert_eq!(values[2499], long);
    stmt.reset();
    stmt.exec_direct(&to_utf16(&format!("DROP TABLE {table}")))
        .expect("drop");
}
