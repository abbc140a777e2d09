//! Parameter arrays against the real drivers (SQLite always; PostgreSQL and MariaDB where
//! `make test` exported their connection strings): an array runs all its sets or its
//! execution fails (`statement::execute::array_outcome`), and `Quirks::
//! ignores_paramset_without_markers` is what the driver does.

use fastodbc_core::types::text::to_utf16;
use fastodbc_core::TextEncoding;
use fastodbc_core::{BindOptions, Connection, Error, ParamBatch, ParamValue, Statement};

/// The databases to run on: SQLite in a file of this process, the servers whose connection
/// strings are set.
fn databases() -> Vec<(String, Connection)> {
    let db = std::env::temp_dir().join(format!("fastodbc-arrays-{}.sqlite", std::process::id()));
    let mut connstrs = vec![format!("Driver=SQLite3;Database={}", db.display())];
    for var in ["FASTODBC_TEST_PG", "FASTODBC_TEST_MARIADB"] {
        if let Ok(s) = std::env::var(var) {
            connstrs.push(s);
        }
    }
    connstrs
        .into_iter()
        .map(|s| {
            let conn = Connection::connect(&s, true, 0, false, &[], &[], &mut Vec::new())
                .unwrap_or_else(|e| panic!("connecting through unixODBC: {e:?}"));
            (conn.driver_name.clone(), conn)
        })
        .collect()
}

fn run(stmt: &mut Statement, sql: &str) {
    stmt.reset();
    stmt.exec_direct(&to_utf16(sql))
        .unwrap_or_else(|e| panic!("{sql}: {e:?}"));
    stmt.close_cursor();
}

fn count(stmt: &mut Statement, table: &str) -> String {
    stmt.reset();
    stmt.exec_direct(&to_utf16(&format!("SELECT COUNT(*) FROM {table}")))
        .expect("count");
    let rows = stmt.text_rows().expect("count rows");
    stmt.close_cursor();
    rows[0][0].clone().expect("a count")
}

/// Prepares `sql` and executes it with `rows` as one parameter array.
fn execute_array(stmt: &mut Statement, sql: &str, rows: &[Vec<ParamValue>]) -> Result<i64, Error> {
    let opts = BindOptions::for_driver(TextEncoding::Utf16, &stmt.strategy());
    stmt.reset();
    stmt.prepare(&to_utf16(sql))?;
    stmt.execute_batch(ParamBatch::build(rows, opts, &[])?)
}

#[test]
fn a_parameter_array_runs_every_set_or_fails() {
    let table = format!("fastodbc_core_arrays_{}", std::process::id());
    for (driver, conn) in databases() {
        let mut stmt = Statement::new(&conn).expect("statement");
        run(&mut stmt, &format!("DROP TABLE IF EXISTS {table}"));
        run(&mut stmt, &format!("CREATE TABLE {table} (id INTEGER)"));

        // With markers every driver runs the three sets, and says so.
        let rows: Vec<Vec<ParamValue>> = (1..=3).map(|i| vec![ParamValue::Int(i)]).collect();
        let sql = format!("INSERT INTO {table} (id) VALUES (?)");
        execute_array(&mut stmt, &sql, &rows).unwrap_or_else(|e| panic!("{driver}: {e:?}"));
        assert_eq!(count(&mut stmt, &table), "3", "{driver}");

        // Without markers: three sets run, or an error naming the counts.
        let empty = vec![Vec::new(); 3];
        let sql = format!("INSERT INTO {table} (id) VALUES (7)");
        let r = execute_array(&mut stmt, &sql, &empty);
        if conn.quirks.ignores_paramset_without_markers {
            match r {
                Err(Error::Interface(m)) => assert!(m.contains("0 of 3"), "{driver}: {m}"),
                other => panic!("{driver}: {other:?}"),
            }
            // The driver ran the statement once.
            assert_eq!(count(&mut stmt, &table), "4", "{driver}");
        } else {
            r.unwrap_or_else(|e| panic!("{driver}: {e:?}"));
            assert_eq!(count(&mut stmt, &table), "6", "{driver}");
        }
        run(&mut stmt, &format!("DROP TABLE {table}"));
    }
}
