//! Counting `?` parameter markers so a wrong number of parameters is reported before the
//! driver is called.

/// Number of `?` markers outside quoted strings, quoted identifiers and comments.
pub fn count_markers(sql: &str) -> usize {
    let b = sql.as_bytes();
    let mut n = 0;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'?' => n += 1,
            q @ (b'\'' | b'"' | b'`') => {
                // Quoted: a doubled quote is an escaped quote, which this loop handles by
                // leaving and re-entering the quoted state.
                i += 1;
                while i < b.len() && b[i] != q {
                    i += 1;
                }
            }
            b'[' => {
                while i < b.len() && b[i] != b']' {
                    i += 1;
                }
            }
            b'-' if b.get(i + 1) == Some(&b'-') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i + 1 < b.len() && !(b[i] == b'*' && b[i + 1] == b'/') {
                    i += 1;
                }
                i += 1;
            }
            _ => {}
        }
        i += 1;
    }
    n
}

/// An `INSERT ... VALUES (?, ..., ?)` statement whose only markers are one row of values:
/// it can be rewritten to insert many rows per execution (`VALUES (...), (...), ...`), as
/// pgjdbc's reWriteBatchedInserts does, for drivers that run parameter arrays one row per
/// round trip.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InsertValues {
    head: String,
    group: String,
    pub markers: usize,
}

impl InsertValues {
    /// Recognises the statement, or `None` for anything else (INSERT ... SELECT, several value
    /// rows already, markers outside the row, RETURNING clauses, other statements).
    pub fn parse(sql: &str) -> Option<InsertValues> {
        let sql = sql.trim().trim_end_matches(';').trim_end();
        let b = sql.as_bytes();
        if b.len() < 6 || !b[..6].eq_ignore_ascii_case(b"insert") {
            return None;
        }
        let values = find_keyword(sql, "values")?;
        let rest = sql[values + 6..].trim_start();
        let inner = rest.strip_prefix('(')?.strip_suffix(')')?;
        if !inner
            .bytes()
            .all(|c| c == b'?' || c == b',' || c.is_ascii_whitespace())
        {
            return None;
        }
        let markers = inner.bytes().filter(|&c| c == b'?').count();
        let fields: Vec<&str> = inner.split(',').map(str::trim).collect();
        if markers == 0 || fields.iter().any(|f| *f != "?") || count_markers(sql) != markers {
            return None;
        }
        Some(InsertValues {
            head: sql[..values + 6].to_string(),
            group: format!("({})", vec!["?"; markers].join(", ")),
            markers,
        })
    }

    /// The statement inserting `rows` rows per execution.
    pub fn sql(&self, rows: usize) -> String {
        let mut out = String::with_capacity(self.head.len() + rows * (self.group.len() + 2));
        out.push_str(&self.head);
        out.push(' ');
        for i in 0..rows {
            if i > 0 {
                out.push_str(", ");
            }
            out.push_str(&self.group);
        }
        out
    }

    /// Rows per execution: as many as fit under `MAX_PARAMS`, at most `cap`.
    pub fn rows_per_statement(&self, cap: usize) -> usize {
        (MAX_PARAMS / self.markers).clamp(1, cap.max(1))
    }
}

/// Parameters per rewritten statement. The wire protocols allow 65,535, but libpq (under
/// psqlODBC) refuses a ParameterDescription message over 30,000 bytes (4 bytes a parameter):
/// "lost synchronization with server" past about 7,490 parameters.
pub const MAX_PARAMS: usize = 7_000;

/// Byte offset of `word` (ASCII, lower case) as a whole word outside quotes and comments.
fn find_keyword(sql: &str, word: &str) -> Option<usize> {
    let b = sql.as_bytes();
    let w = word.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            q @ (b'\'' | b'"' | b'`') => {
                i += 1;
                while i < b.len() && b[i] != q {
                    i += 1;
                }
            }
            b'-' if b.get(i + 1) == Some(&b'-') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            c if c.eq_ignore_ascii_case(&w[0])
                && b.len() >= i + w.len()
                && b[i..i + w.len()].eq_ignore_ascii_case(w)
                && (i == 0 || !is_word(b[i - 1]))
                && b.get(i + w.len()).is_none_or(|&n| !is_word(n)) =>
            {
                return Some(i);
            }
            _ => {}
        }
        i += 1;
    }
    None
}

fn is_word(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

#[cfg(test)]
mod tests {
    use super::{count_markers, InsertValues};

    #[test]
    fn recognises_single_row_inserts_only() {
        let s = InsertValues::parse("INSERT INTO t (a, \"values\") VALUES (?, ?);").unwrap();
        assert_eq!(s.markers, 2);
        assert_eq!(
            s.sql(3),
            "INSERT INTO t (a, \"values\") VALUES (?, ?), (?, ?), (?, ?)"
        );
        assert_eq!(s.rows_per_statement(1000), 1000);
        assert!(InsertValues::parse("insert into t values(?,?,?)").is_some());
        for sql in [
            "INSERT INTO t SELECT ? FROM u",
            "INSERT INTO t VALUES (?, 1)",
            "INSERT INTO t VALUES (?), (?)",
            "INSERT INTO t VALUES (?) RETURNING id",
            "UPDATE t SET a = ? WHERE b = ?",
            "INSERT INTO t VALUES ()",
        ] {
            assert_eq!(InsertValues::parse(sql), None, "{sql}");
        }
        let wide = InsertValues::parse(&format!(
            "INSERT INTO t VALUES ({})",
            vec!["?"; 100].join(",")
        ))
        .unwrap();
        assert_eq!(wide.rows_per_statement(1000), 70);
    }

    #[test]
    fn counts_only_real_markers() {
        assert_eq!(count_markers("select ?, ?"), 2);
        assert_eq!(count_markers("select '?', \"a?\", ? -- ?\n, ?"), 2);
        assert_eq!(count_markers("select 'it''s ?', ? /* ? */"), 1);
        assert_eq!(count_markers("select [a?b], ?"), 1);
        assert_eq!(count_markers("select 1"), 0);
    }
}
