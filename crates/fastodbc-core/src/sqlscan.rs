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

#[cfg(test)]
mod tests {
    use super::count_markers;

    #[test]
    fn counts_only_real_markers() {
        assert_eq!(count_markers("select ?, ?"), 2);
        assert_eq!(count_markers("select '?', \"a?\", ? -- ?\n, ?"), 2);
        assert_eq!(count_markers("select 'it''s ?', ? /* ? */"), 1);
        assert_eq!(count_markers("select [a?b], ?"), 1);
        assert_eq!(count_markers("select 1"), 0);
    }
}
