//! `BlockStream` against SQLite through unixODBC and sqliteodbc (no Python): whatever a
//! consumer asks for (`Want`), with read-ahead on or off, and however many of the rows handed
//! out it takes, every row of the result is handed out once, in order, with its row number;
//! rows given back (`unread`) come again; a new result starts from its first row.

use fastodbc_core::plan::{Decoding, TextCodec};
use fastodbc_core::types::text::to_utf16;
use fastodbc_core::MemoryBudget;
use fastodbc_core::{BlockStream, Blocking, Cell, Connection, Statement, Want};

fn connect() -> Connection {
    let db = std::env::temp_dir().join(format!("fastodbc-stream-{}.sqlite", std::process::id()));
    let connstring = format!("Driver=SQLite3;Database={}", db.display());
    Connection::connect(&connstring, true, 0, false, &[], &[], &mut Vec::new())
        .unwrap_or_else(|e| panic!("connecting to SQLite through unixODBC: {e:?}"))
}

/// Runs `n` counting rows (1..=n) on the stream's statement and starts serving them.
fn count_to(stream: &mut BlockStream, n: usize, read_ahead: bool) {
    let stmt: &mut Statement = stream.statement(&Blocking);
    stmt.reset();
    let sql = format!(
        "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < {n}) \
         SELECT x FROM c"
    );
    stmt.exec_direct(&to_utf16(&sql)).expect("execute");
    let decoding = Decoding {
        char: TextCodec::Utf8,
        wchar: TextCodec::Utf8,
    };
    assert!(stmt
        .open_result(&decoding, MemoryBudget::DEFAULT, false)
        .expect("describe"));
    stream.start(read_ahead);
}

fn value(cell: Cell<'_>) -> usize {
    match cell {
        Cell::Value(b) => std::str::from_utf8(b).expect("UTF-8").parse().expect("int"),
        Cell::Null => panic!("no NULL here"),
    }
}

/// Serves the whole result with the wants of `plan` in turn, taking `take(handed)` of the rows
/// handed each time; checks each row's value against its row number and returns the values.
fn drain(stream: &mut BlockStream, plan: &[Want], take: impl Fn(usize) -> usize) -> Vec<usize> {
    let mut seen = Vec::new();
    let mut turn = 0;
    while stream.has_rows(&Blocking).expect("fetch") {
        let want = plan[turn % plan.len()];
        turn += 1;
        let got = stream.serve(want, &Blocking, |rows| {
            assert!(!rows.range.is_empty(), "has_rows said rows are left");
            if let Want::Rows(n) | Want::Stream(n) | Want::Held(n) = want {
                assert!(rows.range.len() <= n, "no more than wanted");
            }
            let taken = take(rows.range.len()).min(rows.range.len());
            let values: Vec<usize> = rows
                .range
                .clone()
                .take(taken)
                .map(|r| {
                    let v = value(rows.block.cell(0, r));
                    assert_eq!(
                        v,
                        rows.block_start + r + 1,
                        "the row's number in the result"
                    );
                    v
                })
                .collect();
            (taken, values)
        });
        seen.extend(got);
    }
    seen
}

#[test]
fn every_row_is_handed_out_once_in_order_whatever_is_wanted() {
    let conn = connect();
    let n = 9_000;
    let plans: [&[Want]; 5] = [
        &[Want::Iterate],
        &[Want::Rows(1_000)],
        &[Want::Stream(777)],
        &[Want::Held(64), Want::Iterate, Want::Held(1)],
        &[
            Want::Iterate,
            Want::Rows(3),
            Want::Stream(5_000),
            Want::Rows(usize::MAX),
        ],
    ];
    for read_ahead in [true, false] {
        for plan in plans {
            for take_all in [true, false] {
                let mut stream = BlockStream::new(Statement::new(&conn).expect("statement"));
                count_to(&mut stream, n, read_ahead);
                // Taking fewer than handed (a batch that filled up) leaves the rest for later.
                let take = |handed: usize| if take_all { handed } else { handed.div_ceil(2) };
                let seen = drain(&mut stream, plan, take);
                assert_eq!(
                    seen,
                    (1..=n).collect::<Vec<_>>(),
                    "{plan:?}, read ahead {read_ahead}, all taken {take_all}"
                );
                stream.take_back(&Blocking);
            }
        }
    }
}

#[test]
fn iterating_a_long_result_hands_out_the_rest_of_a_block_while_the_next_is_fetched() {
    let conn = connect();
    let mut stream = BlockStream::new(Statement::new(&conn).expect("statement"));
    count_to(&mut stream, 20_000, true);
    let mut handed = Vec::new();
    while stream.has_rows(&Blocking).expect("fetch") {
        handed.push(stream.serve(Want::Iterate, &Blocking, |rows| {
            (rows.range.len(), rows.range.len())
        }));
    }
    assert!(handed.iter().take(3).all(|&n| n == 1), "{handed:?}");
    assert!(
        handed.iter().any(|&n| n > 1),
        "a long result read ahead hands out whole blocks: {handed:?}"
    );
    assert_eq!(handed.iter().sum::<usize>(), 20_000);
    // Without read-ahead, one row at a time throughout.
    count_to(&mut stream, 5_000, false);
    let mut calls = 0;
    while stream.has_rows(&Blocking).expect("fetch") {
        calls += stream.serve(Want::Iterate, &Blocking, |rows| (rows.range.len(), 1));
    }
    assert_eq!(calls, 5_000);
}

#[test]
fn rows_given_back_are_handed_out_again_and_a_new_result_starts_afresh() {
    let conn = connect();
    let mut stream = BlockStream::new(Statement::new(&conn).expect("statement"));
    count_to(&mut stream, 3_000, true);
    let first = drain_once(&mut stream, Want::Rows(10));
    assert_eq!(first, (1..=10).collect::<Vec<_>>());
    stream.unread(4);
    assert_eq!(drain_once(&mut stream, Want::Rows(2)), vec![7, 8]);
    let rest = drain(&mut stream, &[Want::Stream(500)], |n| n);
    assert_eq!(rest, (9..=3_000).collect::<Vec<_>>());
    // The next result, from its first row, numbered from 1 again.
    count_to(&mut stream, 50, true);
    assert_eq!(
        drain(&mut stream, &[Want::Iterate], |n| n),
        (1..=50).collect::<Vec<_>>()
    );
}

fn drain_once(stream: &mut BlockStream, want: Want) -> Vec<usize> {
    assert!(stream.has_rows(&Blocking).expect("fetch"));
    stream.serve(want, &Blocking, |rows| {
        let values = rows
            .range
            .clone()
            .map(|r| value(rows.block.cell(0, r)))
            .collect();
        (rows.range.len(), values)
    })
}

#[test]
fn held_rows_stay_in_their_block_and_come_back_when_unread() {
    // What the asyncio cursor reads with its execute (`Want::Held`): never more than the
    // current block holds, never a block fetched ahead, so every row handed out can go back.
    let conn = connect();
    for read_ahead in [true, false] {
        let mut stream = BlockStream::new(Statement::new(&conn).expect("statement"));
        count_to(&mut stream, 20_000, read_ahead);
        assert!(stream.has_rows(&Blocking).expect("fetch"));
        let first = stream.serve(Want::Held(8), &Blocking, |rows| {
            (rows.range.len(), rows.range.clone())
        });
        assert_eq!(first, 0..8);
        // The whole rest of the block, however many are asked for: not one row past it.
        let rest = stream.serve(Want::Held(usize::MAX), &Blocking, |rows| {
            (rows.range.len(), rows.range.clone())
        });
        assert!(
            rest.start == 8 && rest.end > 8 && rest.end < 20_000,
            "{rest:?}"
        );
        let nothing = stream.serve(Want::Held(usize::MAX), &Blocking, |rows| {
            (rows.range.len(), rows.range.len())
        });
        assert_eq!(
            nothing, 0,
            "the block is used up: the next one is not fetched"
        );
        stream.unread(rest.len() + 3);
        // The rows given back come again, from row 5 of the block, in order.
        let again = drain(&mut stream, &[Want::Rows(5_000)], |n| n);
        assert_eq!(
            again,
            (6..=20_000).collect::<Vec<_>>(),
            "read ahead {read_ahead}"
        );
        stream.take_back(&Blocking);
    }
}
