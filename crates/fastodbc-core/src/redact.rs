//! Secrets kept out of every message: the values of secret attributes (`PWD`, `Password`, and
//! any the caller names) are replaced by `***` in each diagnostic record as it is read and in
//! each error fastodbc raises.
//!
//! A connection registers its secrets (`SecretLease`) before the driver manager sees its
//! connection string and keeps them registered while it is open, so a driver that echoes the
//! connection string or a password later is redacted too. The registry is process-wide: a
//! message names no connection, and a secret is a secret in any message.

use std::borrow::Cow;
use std::sync::Mutex;

use crate::connstr::{self, SECRET_ATTRIBUTES};

/// What replaces a secret.
pub const MARKER: &str = "***";

/// Registered values and attribute names, each with the number of leases holding it.
struct Registry {
    values: Vec<(String, usize)>,
    names: Vec<(String, usize)>,
}

static REGISTRY: Mutex<Registry> = Mutex::new(Registry {
    values: Vec::new(),
    names: Vec::new(),
});

fn registry() -> std::sync::MutexGuard<'static, Registry> {
    REGISTRY.lock().unwrap_or_else(|p| p.into_inner())
}

fn acquire(list: &mut Vec<(String, usize)>, item: &str) {
    match list.iter_mut().find(|(v, _)| v == item) {
        Some((_, n)) => *n += 1,
        None => list.push((item.to_owned(), 1)),
    }
}

fn release(list: &mut Vec<(String, usize)>, item: &str) {
    if let Some(i) = list.iter().position(|(v, _)| v == item) {
        list[i].1 -= 1;
        if list[i].1 == 0 {
            list.swap_remove(i);
        }
    }
}

/// The secrets of one connection string, registered until dropped.
#[derive(Debug)]
pub struct SecretLease {
    values: Vec<String>,
    names: Vec<String>,
}

impl SecretLease {
    /// Registers the secret values of `connstring`: those of the built-in secret attributes
    /// and of `extra_names`.
    pub fn register(connstring: &str, extra_names: &[String]) -> SecretLease {
        let values = connstr::secret_values(connstring, extra_names);
        let names: Vec<String> = extra_names
            .iter()
            .map(|n| n.trim().to_ascii_uppercase())
            .filter(|n| !n.is_empty() && !SECRET_ATTRIBUTES.contains(&n.as_str()))
            .collect();
        let mut r = registry();
        for v in &values {
            acquire(&mut r.values, v);
        }
        for n in &names {
            acquire(&mut r.names, n);
        }
        SecretLease { values, names }
    }
}

impl Drop for SecretLease {
    fn drop(&mut self) {
        let mut r = registry();
        for v in &self.values {
            release(&mut r.values, v);
        }
        for n in &self.names {
            release(&mut r.names, n);
        }
    }
}

/// `text` with every registered secret replaced by `MARKER`.
pub fn redact(text: &str) -> Cow<'_, str> {
    let (mut values, names) = {
        let r = registry();
        let values: Vec<String> = r.values.iter().map(|(v, _)| v.clone()).collect();
        let names: Vec<String> = r.names.iter().map(|(n, _)| n.clone()).collect();
        (values, names)
    };
    values.sort_by_key(|v| std::cmp::Reverse(v.len()));
    redact_with(text, &values, &names)
}

/// `text` with each of `values` (longest first) replaced by `MARKER` where it stands as a value
/// (`Echo`), then the value of any `name=value` left for a secret attribute (built-in or in
/// `names`) replaced up to its `;` or the end: a value cut short or rewritten by whoever wrote
/// the message.
pub fn redact_with<'a>(text: &'a str, values: &[String], names: &[String]) -> Cow<'a, str> {
    let mut out = Cow::Borrowed(text);
    for v in values.iter().filter(|v| !v.is_empty()) {
        if let Some(replaced) = replace_echoes(&out, v) {
            out = Cow::Owned(replaced);
        }
    }
    let names = SECRET_ATTRIBUTES
        .iter()
        .copied()
        .chain(names.iter().map(String::as_str));
    for name in names {
        loop {
            let current: &str = &out;
            let Some((start, end)) = connstr::value_starts(current, name)
                .into_iter()
                .map(|s| (s, unredacted_value_end(current, s)))
                .find(|(s, e)| e > s)
            else {
                break;
            };
            let mut s = current[..start].to_owned();
            s.push_str(MARKER);
            s.push_str(&current[end..]);
            out = Cow::Owned(s);
        }
    }
    out
}

/// Where a secret counts as echoed. A message is mostly other text: a weak password (`1`,
/// `sqla`) occurs inside version numbers, native codes and names, and rewriting those broke
/// the messages clients parse (SQLAlchemy reads MariaDB's code from `(1146)`). So a secret is
/// hidden only where it stands as a value, and never inside a bracketed group (`[HY000]`,
/// `[unixODBC][Driver Manager]`, `[ma-3.1.15][10.11.6-MariaDB]`) or a parenthesised native code.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Echo {
    /// A whole token: not joined to a letter, digit, `_`, to `-` inside a word, or to `.`
    /// inside a number.
    Token,
    /// Only between quotes or braces (`'1'`, `"1"`, `{1}`): secrets of fewer than four
    /// characters, or of digits only, are too likely to be a word or a number of the message.
    Quoted,
}

fn echo_kind(secret: &str) -> Echo {
    if secret.chars().count() < 4 || secret.chars().all(|c| c.is_ascii_digit()) {
        Echo::Quoted
    } else {
        Echo::Token
    }
}

/// `text` with the echoes of `secret` replaced, or None when it holds none.
fn replace_echoes(text: &str, secret: &str) -> Option<String> {
    let kind = echo_kind(secret);
    let protected = protected_ranges(text);
    let mut out = String::new();
    let mut copied = 0;
    let mut from = 0;
    while let Some(found) = text[from..].find(secret) {
        let start = from + found;
        let end = start + secret.len();
        let inside = protected.iter().any(|&(a, b)| start < b && a < end);
        if !inside && stands_alone(text, start, end, secret, kind) {
            out.push_str(&text[copied..start]);
            out.push_str(MARKER);
            copied = end;
            from = end;
        } else {
            // Next char boundary after `start`: overlapping occurrences are tried too.
            from = start + text[start..].chars().next().map_or(1, char::len_utf8);
        }
    }
    if copied == 0 {
        return None;
    }
    out.push_str(&text[copied..]);
    Some(out)
}

/// Byte ranges never rewritten: `[...]` groups and `(digits)` native codes.
fn protected_ranges(text: &str) -> Vec<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'[' => {
                if let Some(close) = text[i..].find(']') {
                    out.push((i, i + close + 1));
                    i += close + 1;
                    continue;
                }
            }
            b'(' => {
                let rest = &text[i + 1..];
                let digits = rest.strip_prefix('-').unwrap_or(rest);
                let n = digits.bytes().take_while(u8::is_ascii_digit).count();
                let sign = rest.len() - digits.len();
                if n > 0 && digits.as_bytes().get(n) == Some(&b')') {
                    let end = i + 1 + sign + n + 1;
                    out.push((i, end));
                    i = end;
                    continue;
                }
            }
            _ => {}
        }
        i += 1;
    }
    out
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Whether the occurrence `text[start..end]` of `secret` stands as a value of the message.
fn stands_alone(text: &str, start: usize, end: usize, secret: &str, kind: Echo) -> bool {
    let before = text[..start].chars().rev();
    let after = text[end..].chars();
    match kind {
        Echo::Quoted => {
            let open = text[..start].chars().next_back();
            let close = text[end..].chars().next();
            matches!(
                (open, close),
                (Some('\''), Some('\''))
                    | (Some('"'), Some('"'))
                    | (Some('`'), Some('`'))
                    | (Some('{'), Some('}'))
            )
        }
        Echo::Token => {
            let (Some(first), Some(last)) = (secret.chars().next(), secret.chars().next_back())
            else {
                return false;
            };
            !joined(first, before) && !joined(last, after)
        }
    }
}

/// Whether `edge`, a secret's first or last character, continues into the text beside it
/// (`beside`, read away from the secret): a letter, digit or `_` beside a word character, a
/// `-` inside a word, a `.` inside a number.
fn joined(edge: char, mut beside: impl Iterator<Item = char>) -> bool {
    if !is_word(edge) {
        return false;
    }
    match (beside.next(), beside.next()) {
        (Some(c), _) if is_word(c) => true,
        (Some('-'), Some(c)) => is_word(c),
        (Some('.'), Some(c)) => edge.is_ascii_digit() && c.is_ascii_digit(),
        _ => false,
    }
}

/// End of a secret value left in a message at `start`, or `start` when there is none to hide
/// (empty, or already the marker).
fn unredacted_value_end(text: &str, start: usize) -> usize {
    let rest = &text[start..];
    let after_brace = rest.strip_prefix('{').unwrap_or(rest);
    if after_brace.starts_with(MARKER) || rest.is_empty() || rest.starts_with(';') {
        return start;
    }
    start + rest.find(';').unwrap_or(rest.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(text: &str, connstring: &str) -> String {
        let values = connstr::secret_values(connstring, &[]);
        redact_with(text, &values, &[]).into_owned()
    }

    #[test]
    fn the_driver_managers_message_loses_the_password() {
        let cs = "Driver={PostgreSQL Unicode;Server=h;PWD=hunter2;Port=1";
        let msg =
            "Can't open lib 'PostgreSQL Unicode;Server=h;PWD=hunter2;Port=1' : file not found";
        assert_eq!(
            with(msg, cs),
            "Can't open lib 'PostgreSQL Unicode;Server=h;PWD=***;Port=1' : file not found"
        );
    }

    #[test]
    fn braces_and_escapes() {
        let cs = "Driver={X;pwd={se;c}}ret}";
        // unixODBC undoes the `}}` of the outer braced value.
        let msg = "Can't open lib 'X;pwd={se;c}ret' : file not found";
        let out = with(msg, cs);
        assert!(!out.contains("se;c") && !out.contains("ret'"), "{out}");
    }

    #[test]
    fn a_value_cut_short_is_hidden_to_its_end() {
        let out = with("lib 'X;Password=hunt", "Driver={X;Password=hunter2");
        assert_eq!(out, "lib 'X;Password=***");
        let out = redact_with("echo: PWD = changed-by-driver; next", &[], &[]);
        assert_eq!(out, "echo: PWD = ***; next");
    }

    #[test]
    fn a_secret_inside_other_words_is_left_alone() {
        let out = with(
            "user x with password abcd: abcde, xabcdx, abcd.",
            "PWD=abcd",
        );
        assert_eq!(out, "user x with password ***: abcde, xabcdx, ***.");
    }

    #[test]
    fn weak_passwords_leave_codes_prefixes_and_names_intact() {
        // The message of issue 29, with password `1`: before, every `1` became `***`.
        let msg = "[42S02] [ma-3.1.15][10.11.6-MariaDB-0+deb12u1]Table 'test.no_such_table_1146' \
                   doesn't exist (1146)";
        for pwd in [
            "1", "11", "114", "1146", "sqla", "MariaDB", "ma", "test", "42S02", "6",
        ] {
            let out = with(msg, &format!("Driver={{MariaDB}};PWD={pwd}"));
            for kept in [
                "[42S02]",
                "[ma-3.1.15][10.11.6-MariaDB-0+deb12u1]",
                "no_such_table_1146",
                "(1146)",
            ] {
                assert!(out.contains(kept), "{pwd}: {out}");
            }
        }
        // Where such a password is a value of the message, it goes.
        let out = with("Access denied for 'sqla'@'h' using sqla", "PWD=sqla");
        assert_eq!(out, "Access denied for '***'@'h' using ***");
        let out = with("password '1' is {1}, 1 is a number", "PWD=1");
        assert_eq!(out, "password '***' is {***}, 1 is a number");
        let out = with("Table 'test.sqlasecret' doesn't exist", "PWD=sqlasecret");
        assert_eq!(out, "Table 'test.***' doesn't exist");
    }

    #[test]
    fn numbers_and_long_random_secrets() {
        let out = with("took 3.1415 s; pin 1234 and '1234'", "PWD=1234");
        assert_eq!(out, "took 3.1415 s; pin 1234 and '***'");
        let out = with("v 2.1415 and 1415.2", "PWD=abc1415");
        assert_eq!(out, "v 2.1415 and 1415.2");
        let long = "Zq9-Kx7;Vw4 Mn=";
        let out = with(&format!("echo {long} end"), &format!("PWD={{{long}}}"));
        assert_eq!(out, "echo *** end");
        let out = with("secret-Zq9Kx7Vw4Mn-x and Zq9Kx7Vw4Mn_y", "PWD=Zq9Kx7Vw4Mn");
        assert_eq!(out, "secret-Zq9Kx7Vw4Mn-x and Zq9Kx7Vw4Mn_y");
    }

    #[test]
    fn every_echo_of_a_secret_goes() {
        let out = with("a Hunter2 b Hunter2, 'Hunter2' (Hunter2)", "PWD=Hunter2");
        assert_eq!(out, "a *** b ***, '***' (***)");
    }

    #[test]
    fn messages_without_secrets_are_borrowed() {
        let text = "[42P01] relation \"t\" does not exist";
        assert!(matches!(
            redact_with(text, &["zzz".into()], &[]),
            Cow::Borrowed(_)
        ));
    }

    #[test]
    fn named_attributes_and_leases() {
        let lease = SecretLease::register("Driver=x;AppToken=t0k-lease-test", &["AppToken".into()]);
        assert_eq!(redact("got t0k-lease-test"), "got ***");
        assert_eq!(redact("apptoken=other;"), "apptoken=***;");
        drop(lease);
        assert_eq!(redact("got t0k-lease-test"), "got t0k-lease-test");
        assert_eq!(redact("apptoken=other;"), "apptoken=other;");
    }
}
