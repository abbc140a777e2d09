//! `odbc-floor`: how long the ODBC driver itself takes to serve a result.
//!
//! Executes a query and fetches it block by block into bound buffers (the same column plans
//! fastodbc uses), touching no value and creating no Python object. Whatever a Python client
//! spends beyond this is the client's own cost.
//!
//! `--rowset-rows N` is the driver's rowset where the plan fetches blocks. Where it fetches one
//! row per `SQLFetch` (SQLite: its declared sizes are not limits, so any value may need
//! re-reading on its row), N only sizes the block the rows are assembled into (N MiB, at most
//! 4,096 rows), and a small block is the faster one.
//!
//! `--typed` plans the result for typed columns (`ResultSet::plan_for(Reader::TypedColumns)`),
//! as the Arrow reader does: the floor of the Arrow fetch (psqlODBC's integers bound, SQLite's
//! number columns in rowsets). Without it, the rows' plan: the floor of the rows path.
//!
//! `--threaded` starts (and joins) a thread once the first block is in, as a client reading
//! ahead does: from then on glibc's malloc takes its atomic paths, in the driver's frees at the
//! close above all (SQLite int10: 0.22 s against 0.13 s).
//!
//! Usage: odbc-floor --connect CS --sql SQL [--text narrow|wide] [--rowset-rows N] [--repeat K]
//! [--threaded] [--typed]
//! Prints one JSON line: {"rows": N, "seconds": [..], "first_seconds": [..], "close_seconds":
//! [..], "text": "...", "rowset_rows": N, "threaded": B, "typed": B, "row_at_a_time": B};
//! `first_seconds`: until the first block was in; `row_at_a_time`: the plan fetched one row per
//! `SQLFetch`.

use std::process::ExitCode;
use std::time::Instant;

use fastodbc_core::types::text::to_utf16;
use fastodbc_core::MemoryBudget;
use fastodbc_core::{Connection, Decoding, Reader, Statement, TextCodec};

struct Args {
    connect: String,
    sql: String,
    wide: bool,
    rowset_rows: Option<usize>,
    repeat: usize,
    threaded: bool,
    typed: bool,
}

fn parse() -> Result<Args, String> {
    let mut it = std::env::args().skip(1);
    let mut a = Args {
        connect: String::new(),
        sql: String::new(),
        wide: false,
        rowset_rows: None,
        repeat: 1,
        threaded: false,
        typed: false,
    };
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or(format!("{flag} needs a value"));
        match flag.as_str() {
            "--connect" => a.connect = value()?,
            "--sql" => a.sql = value()?,
            "--text" => a.wide = value()? == "wide",
            "--rowset-rows" => a.rowset_rows = Some(value()?.parse().map_err(|e| format!("{e}"))?),
            "--repeat" => a.repeat = value()?.parse().map_err(|e| format!("{e}"))?,
            "--threaded" => a.threaded = true,
            "--typed" => a.typed = true,
            other => return Err(format!("unknown argument {other}")),
        }
    }
    if a.connect.is_empty() || a.sql.is_empty() {
        return Err("usage: odbc-floor --connect CS --sql SQL [--text narrow|wide] [--rowset-rows N] [--repeat K] [--threaded] [--typed]".into());
    }
    Ok(a)
}

/// One run's times, in seconds.
struct Run {
    rows: usize,
    /// The plan fetched one row per `SQLFetch`.
    row_at_a_time: bool,
    seconds: f64,
    /// Until the first block was in (executing the query and the first fetch): what a client
    /// overlapping its conversions with fetching cannot overlap.
    first: f64,
    /// Closing the statement, after the last fetch: the driver frees its copy of the result,
    /// which no client can overlap with building rows either.
    close: f64,
}

fn run_once(conn: &Connection, args: &Args) -> fastodbc_core::Result<Run> {
    let codec = if args.wide {
        TextCodec::Utf16
    } else {
        TextCodec::Utf8
    };
    let decoding = Decoding {
        char: codec.clone(),
        wchar: codec,
    };
    // A row budget is turned into bytes by the plan: rows x (a generous row width) caps it.
    let budget = match args.rowset_rows {
        Some(rows) => MemoryBudget::new(rows.saturating_mul(1 << 20)),
        None => MemoryBudget::DEFAULT,
    };
    let mut started = Instant::now();
    let mut stmt = Statement::new(conn)?;
    // Direct execution, as the clients run a query without parameters (pyodbc and fastodbc
    // alike): psqlODBC serves a prepared statement's result 25-45% slower, which made the
    // PostgreSQL floors too high until 2026-11-24T21:00Z.
    stmt.exec_direct(&to_utf16(&args.sql))?;
    stmt.open_result(&decoding, budget, false)?;
    if let (true, Some(rs)) = (args.typed, stmt.result.as_mut()) {
        rs.plan_for(Reader::TypedColumns);
    }
    if let (Some(rows), Some(rs)) = (args.rowset_rows, stmt.result.as_mut()) {
        rs.set_block_rows(rows);
    }
    let row_at_a_time = stmt.result.as_ref().is_some_and(|rs| rs.plan.row_at_a_time);
    let mut rows = 0usize;
    let mut first = None;
    loop {
        let n = stmt.fetch_block()?;
        if first.is_none() && args.threaded {
            // Untimed: the process is multi-threaded from here on, as a reading-ahead client's is.
            let pause = Instant::now();
            let _ = std::thread::spawn(|| ()).join();
            started += pause.elapsed();
        }
        first.get_or_insert_with(|| started.elapsed().as_secs_f64());
        if n == 0 {
            break;
        }
        rows += n;
    }
    // Closing the statement is where the driver releases its copy of the result: timed, as the
    // clients' cursor close is (bench/worker.py).
    let closing = Instant::now();
    drop(stmt);
    Ok(Run {
        rows,
        row_at_a_time,
        seconds: started.elapsed().as_secs_f64(),
        first: first.unwrap_or(0.0),
        close: closing.elapsed().as_secs_f64(),
    })
}

fn main() -> ExitCode {
    let args = match parse() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    let mut info = Vec::new();
    let conn = match Connection::connect(&args.connect, true, 0, false, &[], &[], &mut info) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("connect: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut seconds = Vec::new();
    let mut firsts = Vec::new();
    let mut closes = Vec::new();
    let mut rows = 0;
    let mut row_at_a_time = false;
    for _ in 0..args.repeat.max(1) {
        match run_once(&conn, &args) {
            Ok(run) => {
                rows = run.rows;
                row_at_a_time = run.row_at_a_time;
                seconds.push(run.seconds);
                firsts.push(run.first);
                closes.push(run.close);
            }
            Err(e) => {
                eprintln!("fetch: {e}");
                return ExitCode::FAILURE;
            }
        }
    }
    let list = |v: &[f64]| -> String {
        let items: Vec<String> = v.iter().map(|s| format!("{s:.6}")).collect();
        items.join(", ")
    };
    println!(
        "{{\"rows\": {rows}, \"seconds\": [{}], \"first_seconds\": [{}], \"close_seconds\": [{}], \"text\": \"{}\", \"rowset_rows\": {}, \"threaded\": {}, \"typed\": {}, \"row_at_a_time\": {}}}",
        list(&seconds),
        list(&firsts),
        list(&closes),
        if args.wide { "wide" } else { "narrow" },
        args.rowset_rows
            .map_or("null".to_string(), |r| r.to_string()),
        args.threaded,
        args.typed,
        row_at_a_time
    );
    ExitCode::SUCCESS
}
