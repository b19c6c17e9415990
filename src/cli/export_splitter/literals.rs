//! Python and Rust source text for the snippets: string literals that hold
//! exactly the config's values (escapes, CJK, invisible characters shown),
//! lists, booleans and calls laid out one argument a line.

use std::fmt::Write as _;

/// A Python call laid out one argument a line (the way black formats it).
pub(crate) fn py_call(callee: &str, args: &[(&str, String)]) -> String {
    if args.is_empty() {
        return format!("{callee}()");
    }
    let mut out = format!("{callee}(\n");
    for (name, value) in args {
        let value = value.replace('\n', "\n    ");
        if name.is_empty() {
            let _ = writeln!(out, "    {value},");
        } else {
            let _ = writeln!(out, "    {name}={value},");
        }
    }
    out.push(')');
    out
}

/// A Python string literal holding exactly `s`: a raw string for
/// backslash-heavy regexes when that is exact, else an escaped one. Non-ASCII
/// text ("。") stays readable; control characters are escaped.
pub(crate) fn py_str(s: &str) -> String {
    let plain = |c: char| !c.is_control() && c != '"' && !is_invisible(c);
    if s.contains('\\') && s.chars().all(plain) && !s.ends_with('\\') {
        return format!("r\"{s}\"");
    }
    quoted(s, |c, out| {
        let _ = match c as u32 {
            n @ 0..=0xff => write!(out, "\\x{n:02x}"),
            n @ 0x100..=0xffff => write!(out, "\\u{n:04x}"),
            n => write!(out, "\\U{n:08x}"),
        };
    })
}

/// A Rust string literal holding exactly `s`.
pub(crate) fn rs_str(s: &str) -> String {
    quoted(s, |c, out| {
        let _ = write!(out, "\\u{{{:x}}}", c as u32);
    })
}

/// `s` in double quotes with the escapes Python and Rust share; control and
/// invisible characters are written by `code`.
fn quoted(s: &str, code: impl Fn(char, &mut String)) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() || is_invisible(c) => code(c, &mut out),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Characters a reader cannot see in a literal (spaces other than U+0020,
/// zero-width and format characters): escaped so that the snippet shows them.
fn is_invisible(c: char) -> bool {
    c != ' ' && (c.is_whitespace() || matches!(c, '\u{200b}'..='\u{200f}' | '\u{2028}'..='\u{202e}' | '\u{feff}'))
}

/// A Python list of string literals.
pub(crate) fn py_list(items: &[String]) -> String {
    let items: Vec<String> = items.iter().map(|s| py_str(s)).collect();
    format!("[{}]", items.join(", "))
}

/// A Python bool.
pub(crate) fn py_bool(b: bool) -> String {
    if b { "True" } else { "False" }.into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_literals_escape_what_must_be_and_keep_cjk() {
        assert_eq!(py_str("\n\n"), r#""\n\n""#);
        assert_eq!(py_str("。"), "\"。\"");
        assert_eq!(py_str(r"\s+"), r#"r"\s+""#);
        assert_eq!(py_str("a\"b"), r#""a\"b""#);
        assert_eq!(py_str("\\"), r#""\\""#);
        assert_eq!(py_str("\u{3000}\u{200b}"), r#""\u3000\u200b""#);
        assert_eq!(py_str("\\\n"), r#""\\\n""#);
    }

    #[test]
    fn rust_literals_escape_what_must_be_and_keep_cjk() {
        assert_eq!(rs_str("a\n\"。\\"), r#""a\n\"。\\""#);
        assert_eq!(rs_str("\u{0}\u{3000}"), r#""\u{0}\u{3000}""#);
    }
}
