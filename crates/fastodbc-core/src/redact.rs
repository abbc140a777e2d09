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

/// `text` with each of `values` (longest first) replaced by `MARKER`, then the value of any
/// `name=value` left for a secret attribute (built-in or in `names`) replaced up to its `;`
/// or the end: a value cut short or rewritten by whoever wrote the message.
pub fn redact_with<'a>(text: &'a str, values: &[String], names: &[String]) -> Cow<'a, str> {
    let mut out = Cow::Borrowed(text);
    for v in values.iter().filter(|v| !v.is_empty()) {
        if out.contains(v.as_str()) {
            out = Cow::Owned(out.replace(v.as_str(), MARKER));
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
    fn every_occurrence_goes_even_inside_other_words() {
        let out = with("user x with password ab: abc, xabx", "PWD=ab");
        assert_eq!(out, "user x with password ***: ***c, x***x");
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
