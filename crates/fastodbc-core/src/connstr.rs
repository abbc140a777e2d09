//! Reading connection strings the way the driver manager does, for two checks made before it
//! sees one: which values are secrets (`redact`), and whether it would overflow unixODBC; and
//! writing a value so it reads back whole (`escape_value`). The one home of the grammar: the
//! Python layer calls these (`_native.connstr_attributes`, `_native.connstr_escape`).

use crate::diagnostics::{Error, Result};

/// Attribute names whose values are secrets in every connection string (compared without
/// case). `Connection::connect` takes more from the caller (`fastodbc.secret_attributes`,
/// which starts from this list: `_native.SECRET_ATTRIBUTES`).
pub const SECRET_ATTRIBUTES: &[&str] = &["PWD", "PASSWORD"];

/// Longest `DRIVER` value unixODBC 2.3.11 copies safely: it keeps the value in a 1,001-byte
/// buffer, and a longer one aborts the whole process ("buffer overflow detected").
pub const MAX_DRIVER_BYTES: usize = 1000;

/// One `key=value` attribute: the key as written (trimmed) and the value's raw text (braces
/// and doubled `}}` as written).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attribute<'a> {
    pub key: &'a str,
    pub raw: &'a str,
}

/// End (exclusive) of the value starting at `start`: a braced value ends after the `}` that
/// closes it (`}}` inside is an escaped brace), or at the end of the text when none does; any
/// other value ends at the next `;`.
fn value_end(text: &str, start: usize) -> usize {
    let bytes = text.as_bytes();
    if bytes.get(start) != Some(&b'{') {
        return text[start..].find(';').map_or(text.len(), |p| start + p);
    }
    let mut i = start + 1;
    while i < bytes.len() {
        if bytes[i] == b'}' {
            if bytes.get(i + 1) == Some(&b'}') {
                i += 2;
                continue;
            }
            return i + 1;
        }
        i += 1;
    }
    text.len()
}

/// The attributes of a connection string in order, parsed as unixODBC does.
pub fn attributes(text: &str) -> Vec<Attribute<'_>> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < text.len() {
        let Some(eq) = text[i..].find('=').map(|p| i + p) else {
            break;
        };
        if let Some(semi) = text[i..eq].find(';') {
            // A piece without `=`: skip it.
            i += semi + 1;
            continue;
        }
        let end = value_end(text, eq + 1);
        out.push(Attribute {
            key: text[i..eq].trim(),
            raw: &text[eq + 1..end],
        });
        i = end;
        if text.as_bytes().get(i) == Some(&b';') {
            i += 1;
        }
    }
    out
}

/// A raw value without its braces (an open one runs to the end).
fn inner(raw: &str) -> &str {
    raw.strip_prefix('{')
        .map(|s| s.strip_suffix('}').unwrap_or(s))
        .unwrap_or(raw)
}

/// Python's `str.isspace`, which `escape_value` keeps the Python layer's rule with: Unicode
/// white space and the separators U+001C..U+001F.
fn is_py_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// `value` as a connection-string attribute value. A value that contains `;`, starts with `{`
/// or has surrounding white space is wrapped in braces with every `}` doubled (the ODBC rule),
/// so it can neither end its attribute early nor inject another one. Other values, including
/// ones with `}` or `=` inside, are left as they are: unixODBC's drivers (psqlODBC, SQLite)
/// take them literally but do not undo the doubling inside braces.
pub fn escape_value(value: &str) -> std::borrow::Cow<'_, str> {
    if !needs_braces(value) {
        return std::borrow::Cow::Borrowed(value);
    }
    std::borrow::Cow::Owned(format!("{{{}}}", value.replace('}', "}}")))
}

/// Whether `escape_value` wraps `value` in braces.
pub fn needs_braces(value: &str) -> bool {
    value.contains(';')
        || value.starts_with('{')
        || value.starts_with(is_py_space)
        || value.ends_with(is_py_space)
}

/// Refuses a connection string that would crash the driver manager (`MAX_DRIVER_BYTES`).
pub fn check_driver_manager_limits(text: &str) -> Result<()> {
    for a in attributes(text) {
        let len = inner(a.raw).replace("}}", "}").len();
        if a.key.eq_ignore_ascii_case("DRIVER") && len > MAX_DRIVER_BYTES {
            return Err(Error::Interface(format!(
                "the DRIVER value is {len} bytes long; unixODBC aborts the process beyond \
                 {MAX_DRIVER_BYTES}"
            )));
        }
    }
    Ok(())
}

/// Position just after `name` followed by optional spaces and `=` at `at`, when `name` starts
/// an attribute there: at the start of the text or after a character that cannot be part of
/// a key (`;`, `{`, a space, a quote...).
fn key_at(text: &str, at: usize, name: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let end = at + name.len();
    if end > bytes.len() || !bytes[at..end].eq_ignore_ascii_case(name.as_bytes()) {
        return None;
    }
    if at > 0 && (bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_') {
        return None;
    }
    let mut i = end;
    while bytes.get(i).is_some_and(|b| *b == b' ' || *b == b'\t') {
        i += 1;
    }
    (bytes.get(i) == Some(&b'=')).then_some(i + 1)
}

/// Every position where an attribute called `name` (any case) begins its value, leading
/// spaces skipped. Lenient on purpose: it also finds `pwd=` inside another attribute's value,
/// as the driver manager does when a brace left open swallows the rest of the string.
pub(crate) fn value_starts(text: &str, name: &str) -> Vec<usize> {
    let mut out = Vec::new();
    if name.is_empty() {
        return out;
    }
    for (at, _) in text.char_indices() {
        if let Some(mut v) = key_at(text, at, name) {
            while text.as_bytes().get(v).is_some_and(|b| *b == b' ') {
                v += 1;
            }
            out.push(v);
        }
    }
    out
}

/// The forms in which the secret values of `text` may reach a message: as written (braces,
/// doubled `}}`), without the braces, with `}}` undone, trimmed, and cut at a `;` (a driver
/// manager that reads a brace left open differently). Longest first, no empty ones.
pub fn secret_values(text: &str, extra_names: &[String]) -> Vec<String> {
    let names = SECRET_ATTRIBUTES
        .iter()
        .map(|n| n.to_string())
        .chain(extra_names.iter().map(|n| n.trim().to_string()));
    let mut out: Vec<String> = Vec::new();
    for name in names {
        for start in value_starts(text, &name) {
            let raw = &text[start..value_end(text, start)];
            let inner = inner(raw);
            let unescaped = inner.replace("}}", "}");
            let first_part = inner.split(';').next().unwrap_or(inner);
            for form in [raw, inner, unescaped.as_str(), first_part] {
                for v in [form, form.trim()] {
                    if !v.is_empty() && !out.iter().any(|o| o == v) {
                        out.push(v.to_string());
                    }
                }
            }
        }
    }
    out.sort_by_key(|v| std::cmp::Reverse(v.len()));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secrets(text: &str) -> Vec<String> {
        secret_values(text, &[])
    }

    #[test]
    fn attributes_follow_the_odbc_rules() {
        let a = attributes("Driver={A;B};Server=x; PWD={p}}q;r}; Empty=;Last=z");
        let pairs: Vec<_> = a.iter().map(|a| (a.key, a.raw)).collect();
        assert_eq!(
            pairs,
            [
                ("Driver", "{A;B}"),
                ("Server", "x"),
                ("PWD", "{p}}q;r}"),
                ("Empty", ""),
                ("Last", "z")
            ]
        );
    }

    #[test]
    fn an_open_brace_runs_to_the_end() {
        let a = attributes("Driver={PostgreSQL Unicode;Server=h;PWD=s");
        assert_eq!(a.len(), 1);
        assert_eq!(a[0].raw, "{PostgreSQL Unicode;Server=h;PWD=s");
    }

    #[test]
    fn plain_and_braced_secrets() {
        assert_eq!(secrets("Driver=x;PWD=hunter2;UID=u"), ["hunter2"]);
        let s = secrets("Driver=x;Password={se;c}}ret};UID=u");
        for form in ["{se;c}}ret}", "se;c}}ret", "se;c}ret", "se"] {
            assert!(s.iter().any(|v| v == form), "{form} missing from {s:?}");
        }
        assert!(s.windows(2).all(|w| w[0].len() >= w[1].len()));
    }

    #[test]
    fn secrets_inside_an_open_brace_and_any_case() {
        let s = secrets("Driver={PostgreSQL Unicode;Server=h;pWd=abc;Port=1");
        assert_eq!(s, ["abc"]);
        assert_eq!(secrets("x;password = sp ace ;y"), ["sp ace ", "sp ace"]);
    }

    #[test]
    fn a_key_must_start_an_attribute() {
        assert!(secrets("NoPWD=x;MyPassword=y;PWDX=z").is_empty());
        assert!(secrets("PWD=;Password=").is_empty());
        assert_eq!(
            secret_values("AppToken=t0k;PWD=p", &["apptoken".into()]),
            ["t0k", "p"]
        );
    }

    #[test]
    fn an_escaped_value_reads_back_whole() {
        assert_eq!(escape_value("plain}=x"), "plain}=x");
        assert_eq!(escape_value("a;b}c"), "{a;b}}c}");
        assert_eq!(escape_value("{x"), "{{x}");
        assert_eq!(escape_value(" x"), "{ x}");
        assert_eq!(escape_value("x\u{1f}"), "{x\u{1f}}");
        assert_eq!(escape_value(""), "");
        for value in ["a;b}c", "{x}", " spaced ", "p}}q;r", "x"] {
            let text = format!("K={};Next=1", escape_value(value));
            let a = attributes(&text);
            assert_eq!(a.len(), 2, "{text}");
            let read = if a[0].raw.starts_with('{') {
                inner(a[0].raw).replace("}}", "}")
            } else {
                a[0].raw.to_string()
            };
            assert_eq!(read, value, "{text}");
        }
    }

    #[test]
    fn overlong_driver_values_are_refused() {
        let ok = format!("Driver={{{}}};PWD=x", "a".repeat(MAX_DRIVER_BYTES));
        assert!(check_driver_manager_limits(&ok).is_ok());
        let open = format!("Driver={{{};PWD=x", "a".repeat(MAX_DRIVER_BYTES));
        assert!(check_driver_manager_limits(&open).is_err());
        let plain = format!("DRIVER={}", "a".repeat(MAX_DRIVER_BYTES + 1));
        assert!(check_driver_manager_limits(&plain).is_err());
    }
}
