//! The row count psqlODBC reports for a statement without a count of its own (DDL), run
//! directly, for when fastodbc ran it prepared (`Strategy::prepare_after_changes`) and the
//! driver's count then differs (`Quirks::count_depends_on_protocol`).
//!
//! Run directly (simple protocol), psqlODBC's count is the number after the last space of
//! the server's command tag: 0 for `CREATE TABLE`, `DROP INDEX`, `TRUNCATE TABLE`; -1 for a
//! tag of one word (`GRANT`, `SET`, `DO`) and for `DROP TABLE...` / `ALTER TABLE...`, whose
//! count it leaves unset. Run prepared (extended protocol) every such count is -1. The
//! command tag is PostgreSQL's name of the statement's kind, read here from its first words.

/// The count psqlODBC reports for `sql` run directly, given that run prepared it reported
/// none (-1): 0 where the statement's command tag has two words or more (except `DROP
/// TABLE...` and `ALTER TABLE...`), else -1.
pub fn direct_count(sql: &str) -> i64 {
    let mut words = leading_words(sql);
    let first = words.next().unwrap_or_default();
    let second = words.next().unwrap_or_default();
    let is = |w: &str, k: &str| w.eq_ignore_ascii_case(k);
    let starts_table = second
        .get(..5)
        .is_some_and(|w| w.eq_ignore_ascii_case("table"));
    let multi_word_tag = match first.to_ascii_uppercase().as_str() {
        // `DROP TABLESPACE` too: psqlODBC compares the tag's first 10 characters.
        "DROP" | "ALTER" => !starts_table,
        // CREATE <kind>; a statement with rows of its own (CREATE TABLE AS) has a count.
        "CREATE" | "TRUNCATE" | "LOCK" | "DISCARD" | "REFRESH" | "IMPORT" | "SECURITY"
        | "REASSIGN" | "DECLARE" | "CLOSE" => true,
        "SET" => is(second, "constraints"),
        "DEALLOCATE" => is(second, "all"),
        "PREPARE" => is(second, "transaction"),
        _ => false,
    };
    if multi_word_tag {
        0
    } else {
        -1
    }
}

/// The words at the start of `sql`, after white space and comments (`--`, `/* */`).
fn leading_words(sql: &str) -> impl Iterator<Item = &str> {
    let mut rest = sql;
    std::iter::from_fn(move || loop {
        rest = rest.trim_start();
        if let Some(after) = rest.strip_prefix("--") {
            rest = after.split_once('\n').map_or("", |(_, r)| r);
        } else if let Some(after) = rest.strip_prefix("/*") {
            rest = after.split_once("*/").map_or("", |(_, r)| r);
        } else {
            let n = rest
                .bytes()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == b'_')
                .count();
            if n == 0 {
                return None;
            }
            let (word, after) = rest.split_at(n);
            rest = after;
            return Some(word);
        }
    })
}

#[cfg(test)]
mod tests {
    use super::direct_count;

    #[test]
    fn counts_as_psqlodbc_reports_them_run_directly() {
        // Measured through pyodbc (SQLExecDirect) in a transaction holding changes.
        for sql in [
            "CREATE TABLE d1 (i int)",
            "  -- c\n create index ix1 on d1(i)",
            "/* c */ CREATE VIEW v1 AS SELECT 1",
            "CREATE TEMP TABLE tt (i int)",
            "CREATE SEQUENCE s1",
            "ALTER SEQUENCE s1 RESTART",
            "DROP SEQUENCE s1",
            "DROP VIEW v1",
            "DROP INDEX ix1",
            "TRUNCATE d1",
            "TRUNCATE TABLE d1",
            "LOCK TABLE d1",
            "DISCARD PLANS",
            "SET CONSTRAINTS ALL DEFERRED",
        ] {
            assert_eq!(direct_count(sql), 0, "{sql}");
        }
        for sql in [
            "ALTER TABLE d1 ADD COLUMN j int",
            "alter table d1 rename to d1b",
            "DROP TABLE d2, d3",
            "DROP TABLESPACE ts",
            "COMMENT ON TABLE d1 IS 'x'",
            "GRANT SELECT ON d1 TO PUBLIC",
            "SET search_path = public",
            "RESET search_path",
            "ANALYZE d1",
            "DO $$BEGIN END$$",
            "SAVEPOINT sp",
            "RELEASE SAVEPOINT sp",
            "",
            "-- only a comment",
        ] {
            assert_eq!(direct_count(sql), -1, "{sql}");
        }
    }
}
