//! `ArrowBatches` against SQLite through unixODBC and sqliteodbc (no Python): a long result in
//! batches of a row budget and of a byte budget, read ahead, every row once and in order; the
//! statement given back drained, or with its result closed when the reader is dropped early;
//! a reader whose owner closed the statement. `make test` points unixODBC at the project's
//! driver registry (ODBCSYSINI).

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::Int64Type;
use arrow_array::Array;
use fastodbc_arrow::{ArrowBatches, ArrowColumn, BatchLimits, TypeOptions};
use fastodbc_core::plan::{Decoding, TextCodec};
use fastodbc_core::types::text::to_utf16;
use fastodbc_core::MemoryBudget;
use fastodbc_core::{
    BlockStream, Blocking, Connection, Error, LoanEnd, Reclaim, Statement, StatementLoan, Want,
};

fn connect() -> Connection {
    let db = std::env::temp_dir().join(format!("fastodbc-arrow-{}.sqlite", std::process::id()));
    let connstring = format!("Driver=SQLite3;Database={}", db.display());
    Connection::connect(&connstring, true, 0, false, &[], &[], &mut Vec::new())
        .unwrap_or_else(|e| panic!("connecting to SQLite through unixODBC: {e:?}"))
}

/// A reader of `n` rows (x, 'v' || x) on a loan, from the start of the result.
fn reader(conn: &Connection, n: usize, limits: BatchLimits) -> (Arc<StatementLoan>, ArrowBatches) {
    let mut stmt = Statement::new(conn).expect("statement");
    let sql = format!(
        "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < {n}) \
         SELECT x, 'v' || x FROM c"
    );
    stmt.exec_direct(&to_utf16(&sql)).expect("execute");
    let utf8 = Decoding {
        char: TextCodec::Utf8,
        wchar: TextCodec::Utf8,
    };
    assert!(stmt
        .open_result(&utf8, MemoryBudget::DEFAULT, false)
        .expect("describe"));
    let opts = TypeOptions {
        sizes_unreliable: stmt.strategy().plan.sizes_unreliable,
        narrow: None,
        session_zone: None,
        numeric_as_text: None,
        time_as_duration: false,
    };
    let columns: Vec<ArrowColumn> = stmt
        .result
        .as_ref()
        .expect("a result")
        .plan
        .columns
        .iter()
        .map(|p| ArrowColumn::for_plan(p, false, &opts))
        .collect();
    let loan = Arc::new(StatementLoan::new(BlockStream::new(stmt)));
    let batches = ArrowBatches::new(loan.clone(), columns, limits);
    (loan, batches)
}

#[test]
fn a_long_result_comes_in_batches_once_and_in_order() {
    let conn = connect();
    let limits = BatchLimits {
        rows: 7_000,
        bytes: usize::MAX,
    };
    let (loan, mut batches) = reader(&conn, 20_000, limits);
    assert!(matches!(loan.try_reclaim(), Some(Reclaim::Lent)));
    let mut sizes = Vec::new();
    let mut next = 1i64;
    while let Some(batch) = batches.next_batch().expect("batch") {
        assert!(batch.columns().iter().all(|c| c.len() == batch.num_rows()));
        let xs = batch.column(0).as_primitive::<Int64Type>();
        let texts = batch.column(1).as_string::<i32>();
        for row in 0..batch.num_rows() {
            assert_eq!(xs.value(row), next);
            assert_eq!(texts.value(row), format!("v{next}"));
            next += 1;
        }
        sizes.push(batch.num_rows());
    }
    assert_eq!(sizes, vec![7_000, 7_000, 6_000]);
    assert!(batches
        .next_batch()
        .expect("the end stays the end")
        .is_none());
    match loan.try_reclaim() {
        Some(Reclaim::Back { end, .. }) => assert_eq!(end, LoanEnd::Drained),
        _ => panic!("the statement is given back at the end"),
    }
}

#[test]
fn a_byte_budget_bounds_each_batch_by_one_block() {
    let conn = connect();
    let limits = BatchLimits {
        rows: usize::MAX,
        bytes: 64 * 1024,
    };
    let (_loan, mut batches) = reader(&conn, 50_000, limits);
    let mut total = 0;
    let mut count = 0;
    while let Some(batch) = batches.next_batch().expect("batch") {
        let bytes: usize = batch
            .columns()
            .iter()
            .map(|c| c.get_buffer_memory_size())
            .sum();
        // The budget, plus the rows of one block (up to 4,096 here) and buffer rounding.
        assert!(bytes < 64 * 1024 + 4_096 * 40 + 4_096, "{bytes} bytes");
        total += batch.num_rows();
        count += 1;
    }
    assert_eq!(total, 50_000);
    assert!(count > 5, "{count} batches");
}

#[test]
fn a_reader_dropped_early_closes_the_result_and_gives_the_statement_back() {
    let conn = connect();
    let limits = BatchLimits {
        rows: 1_000,
        bytes: usize::MAX,
    };
    let (loan, mut batches) = reader(&conn, 20_000, limits);
    let first = batches.next_batch().expect("batch").expect("rows");
    assert_eq!(first.num_rows(), 1_000);
    drop(batches);
    let Some(Reclaim::Back { mut reader, end }) = loan.try_reclaim() else {
        panic!("the statement is given back when the reader drops");
    };
    assert_eq!(end, LoanEnd::Abandoned);
    let stmt = reader.statement(&Blocking);
    assert!(stmt.result.is_none(), "the result was closed");
    // The statement runs the next query.
    stmt.reset();
    stmt.exec_direct(&to_utf16("SELECT 1"))
        .expect("execute after");
}

#[test]
fn a_reader_whose_owner_closed_the_statement_stops_with_an_error() {
    let conn = connect();
    let (loan, mut batches) = reader(&conn, 20_000, BatchLimits::default());
    assert!(loan.try_close());
    match batches.next_batch() {
        Err(Error::Programming(m)) => assert!(m.contains("closed"), "{m}"),
        other => panic!("expected a closed-cursor error, got {other:?}"),
    }
    assert!(batches.next_batch().expect("ended").is_none());
    assert!(matches!(loan.try_reclaim(), Some(Reclaim::Gone)));
}

#[test]
fn a_reader_dropped_unread_leaves_the_result_where_it_was() {
    let conn = connect();
    let (loan, batches) = reader(&conn, 20_000, BatchLimits::default());
    drop(batches);
    let Some(Reclaim::Back { mut reader, end }) = loan.try_reclaim() else {
        panic!("the statement is given back when the reader drops");
    };
    assert_eq!(end, LoanEnd::Unread);
    // The result is open and whole: its rows are all still to come.
    let mut rows = 0;
    while reader.has_rows(&Blocking).expect("fetch") {
        rows += reader.serve(Want::Rows(usize::MAX), &Blocking, |r| {
            (r.range.len(), r.range.len())
        });
    }
    assert_eq!(rows, 20_000);
}
