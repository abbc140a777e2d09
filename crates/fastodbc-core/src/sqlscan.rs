//! Counting `?` parameter markers so a wrong number of parameters is reported before the
//! driver is called.

/// What `[` starts in the database's SQL (`Server::brackets`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Brackets {
    /// A quoted identifier up to `]` (SQL Server, SQLite, Access): a `?` in it is a name's.
    #[default]
    Quote,
    /// An array constructor or subscript (PostgreSQL's `ARRAY[?, ?]`, `a[?]`): a `?` in it is
    /// a marker.
    Plain,
}

/// Number of `?` markers outside quoted strings, quoted identifiers and comments.
pub fn count_markers(sql: &str, brackets: Brackets) -> usize {
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
            b'[' if brackets == Brackets::Quote => {
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
    /// The table and column list, when they are plain names (no alias, no expression).
    pub target: Option<InsertTarget>,
}

/// `INSERT INTO <table> [(<column>, ...)]`: the names exactly as written (quotes kept), so
/// they can be put back into SQL and resolved by the server the same way.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InsertTarget {
    pub table: String,
    pub columns: Option<Vec<String>>,
}

impl InsertTarget {
    /// Parses the part of an INSERT before `VALUES`.
    fn parse(head: &str) -> Option<InsertTarget> {
        let rest = strip_keyword(head.trim_start(), "insert")?;
        let rest = strip_keyword(rest.trim_start(), "into")?.trim_start();
        let (table, rest) = qualified_name(rest)?;
        let rest = rest.trim_start();
        if rest.is_empty() {
            return Some(InsertTarget {
                table: table.to_string(),
                columns: None,
            });
        }
        let inner = rest.strip_prefix('(')?.trim_end().strip_suffix(')')?;
        let mut columns = Vec::new();
        let mut rest = inner;
        loop {
            let (name, after) = identifier(rest.trim_start())?;
            columns.push(name.to_string());
            let after = after.trim_start();
            if after.is_empty() {
                break;
            }
            rest = after.strip_prefix(',')?;
        }
        Some(InsertTarget {
            table: table.to_string(),
            columns: Some(columns),
        })
    }
}

/// How PostgreSQL names an identifier as written: unquoted ones fold to lower case (ASCII
/// letters only, as the server does in UTF-8), quoted ones keep their case with `""` undoubled.
pub fn pg_identifier_name(written: &str) -> String {
    quoted_identifier(written).unwrap_or_else(|| written.to_ascii_lowercase())
}

/// The name inside a `"quoted"` identifier, `""` undoubled; `None` if it isn't quoted.
pub fn quoted_identifier(written: &str) -> Option<String> {
    let inner = written.strip_prefix('"')?.strip_suffix('"')?;
    Some(inner.replace("\"\"", "\""))
}

fn strip_keyword<'a>(s: &'a str, word: &str) -> Option<&'a str> {
    let head = s.get(..word.len())?;
    let rest = &s[word.len()..];
    (head.eq_ignore_ascii_case(word) && !rest.bytes().next().is_some_and(is_word)).then_some(rest)
}

/// One identifier at the start of `s` (quoted, or unquoted: letters, digits, `_`, `$`, non-ASCII),
/// and what follows it.
fn identifier(s: &str) -> Option<(&str, &str)> {
    let b = s.as_bytes();
    let end = if b.first() == Some(&b'"') {
        let mut i = 1;
        loop {
            match b.get(i)? {
                b'"' if b.get(i + 1) == Some(&b'"') => i += 2,
                b'"' => break i + 1,
                _ => i += 1,
            }
        }
    } else {
        let n = b
            .iter()
            .take_while(|&&c| is_word(c) || c == b'$' || c >= 0x80)
            .count();
        if n == 0 || b[0].is_ascii_digit() || b[0] == b'$' {
            return None;
        }
        n
    };
    Some((&s[..end], &s[end..]))
}

/// `name` or `schema.name` (or `catalog.schema.name`), without spaces around the dots.
fn qualified_name(s: &str) -> Option<(&str, &str)> {
    let mut end = 0;
    loop {
        let (_, rest) = identifier(&s[end..])?;
        end = s.len() - rest.len();
        if rest.starts_with('.') {
            end += 1;
        } else {
            return Some((&s[..end], rest));
        }
    }
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
        // Brackets counted as plain: a `?` in a bracketed name makes the counts differ, and the
        // statement is left as it is, whatever the database makes of brackets.
        if markers == 0
            || fields.iter().any(|f| *f != "?")
            || count_markers(sql, Brackets::Plain) != markers
        {
            return None;
        }
        Some(InsertValues {
            head: sql[..values + 6].to_string(),
            group: format!("({})", vec!["?"; markers].join(", ")),
            markers,
            target: InsertTarget::parse(&sql[..values]),
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
    use super::{
        count_markers, pg_identifier_name, quoted_identifier, Brackets, InsertTarget, InsertValues,
    };

    #[test]
    fn reads_the_insert_target() {
        let target = |sql: &str| InsertValues::parse(sql).and_then(|s| s.target);
        assert_eq!(
            target("insert into s.\"My \"\"T\"\"\" ( a , \"B c\",d$1) values (?,?,?)"),
            Some(InsertTarget {
                table: "s.\"My \"\"T\"\"\"".into(),
                columns: Some(vec!["a".into(), "\"B c\"".into(), "d$1".into()]),
            })
        );
        assert_eq!(
            target("INSERT INTO t VALUES (?)"),
            Some(InsertTarget {
                table: "t".into(),
                columns: None
            })
        );
        for sql in [
            "INSERT INTO t AS x (a) VALUES (?)",
            "INSERT INTO t (a + 1) VALUES (?)",
            "INSERT INTO t (a,) VALUES (?)",
            "INSERT INTO t . u (a) VALUES (?)",
            "INSERT t (a) VALUES (?)",
        ] {
            assert_eq!(target(sql), None, "{sql}");
        }
        assert_eq!(pg_identifier_name("MyCol"), "mycol");
        assert_eq!(pg_identifier_name("\"My\"\"Col\""), "My\"Col");
        assert_eq!(quoted_identifier("Plain"), None);
        assert_eq!(quoted_identifier("\"a\"\"b\"").as_deref(), Some("a\"b"));
    }

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
        for brackets in [Brackets::Quote, Brackets::Plain] {
            assert_eq!(count_markers("select ?, ?", brackets), 2);
            assert_eq!(
                count_markers("select '?', \"a?\", ? -- ?\n, ?", brackets),
                2
            );
            assert_eq!(count_markers("select 'it''s ?', ? /* ? */", brackets), 1);
        }
        assert_eq!(count_markers("select [a?b], ?", Brackets::Quote), 1);
        assert_eq!(count_markers("select [a?b], ?", Brackets::Plain), 2);
        let array = "select 1 where ? = any (array[?, ?]) and (array[1, 2])[?] = 1";
        assert_eq!(count_markers(array, Brackets::Plain), 4);
        assert_eq!(count_markers(array, Brackets::Quote), 1);
        assert_eq!(count_markers("select 1", Brackets::Plain), 0);
    }
}
