//! Python's `json.dumps` of what `json.loads` makes of a JSON literal, byte
//! for byte, with the defaults LangChain's `RecursiveJsonSplitter` uses:
//! `ensure_ascii=True` (every char outside printable ASCII as `\uXXXX` in
//! lower-case hex, astral chars as a surrogate pair), separators `", "` and
//! `": "`.
//!
//! - Strings: `\"`, `\\`, `\n`, `\r`, `\t`, `\b`, `\f`; everything else
//!   outside `' '..='~'` (DEL included) as `\u00XX`.
//! - Integers: Python's `int` of the literal, which JSON allows only in the
//!   form `int` prints but for `-0` (printed `0`); any number of digits.
//! - Floats (a literal with a fraction or an exponent): `float.__repr__`,
//!   the shortest digits that read back to the same double, fixed notation
//!   for decimal exponents from -4 to 15 (`100000.0`, `0.0001`), else
//!   `1e+16` / `1.5e-07`; `-0.0`; a literal too large for a double is
//!   `Infinity` (or `-Infinity`).

use std::borrow::Cow;

/// `json.dumps(s)`: `s` quoted and escaped.
pub fn push_str(out: &mut String, s: &str) {
    out.reserve(s.len() + 2);
    out.push('"');
    let bytes = s.as_bytes();
    let mut run = 0;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if is_plain(b) {
            i += 1;
            continue;
        }
        out.push_str(&s[run..i]);
        if b < 0x80 {
            push_ascii_escape(out, b);
            i += 1;
        } else {
            // The char starting here (`i` is a char boundary: only whole
            // chars are passed over).
            let c = s[i..].chars().next().expect("a char at a boundary");
            push_u(out, c);
            i += c.len_utf8();
        }
        run = i;
    }
    out.push_str(&s[run..]);
    out.push('"');
}

/// `json.dumps(s)` of a string literal: borrowed when Python prints the
/// literal exactly as written (`raw`, quotes included, holds only printable
/// ASCII with no escapes), else rewritten from the decoded `value`.
pub fn string<'t>(raw: &'t str, value: &str) -> Cow<'t, str> {
    let inner = &raw.as_bytes()[1..raw.len().saturating_sub(1)];
    if raw.len() >= 2 && inner.iter().all(|&b| is_plain(b)) {
        return Cow::Borrowed(raw);
    }
    let mut out = String::with_capacity(value.len() + 8);
    push_str(&mut out, value);
    Cow::Owned(out)
}

/// Printable ASCII that needs no escape.
#[inline]
fn is_plain(b: u8) -> bool {
    (0x20..0x7f).contains(&b) && b != b'"' && b != b'\\'
}

fn push_ascii_escape(out: &mut String, b: u8) {
    match b {
        b'"' => out.push_str("\\\""),
        b'\\' => out.push_str("\\\\"),
        b'\n' => out.push_str("\\n"),
        b'\r' => out.push_str("\\r"),
        b'\t' => out.push_str("\\t"),
        0x08 => out.push_str("\\b"),
        0x0c => out.push_str("\\f"),
        _ => push_hex4(out, b as u16),
    }
}

/// `\uXXXX`, or a surrogate pair for a char beyond the BMP.
fn push_u(out: &mut String, c: char) {
    let mut units = [0u16; 2];
    for &unit in c.encode_utf16(&mut units).iter() {
        push_hex4(out, unit);
    }
}

fn push_hex4(out: &mut String, unit: u16) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.push_str("\\u");
    for shift in [12, 8, 4, 0] {
        out.push(HEX[((unit >> shift) & 0xf) as usize] as char);
    }
}

/// Whether Python reads the number literal as a float (a fraction or an
/// exponent), not an int.
pub fn is_float(literal: &str) -> bool {
    literal.bytes().any(|b| matches!(b, b'.' | b'e' | b'E'))
}

/// `json.dumps(json.loads(literal))` of a JSON number literal.
pub fn number(literal: &str) -> Cow<'_, str> {
    if is_float(literal) {
        // JSON's grammar is a subset of what Rust parses; Rust rounds
        // correctly, as Python's `float()` does, and overflows to infinity.
        let x: f64 = literal.parse().unwrap_or(f64::NAN);
        Cow::Owned(float_repr(x))
    } else if literal == "-0" {
        Cow::Borrowed("0")
    } else {
        Cow::Borrowed(literal)
    }
}

/// Python's `json.dumps(x)` of a float (`float.__repr__` for finite ones).
pub fn float_repr(x: f64) -> String {
    if x.is_nan() {
        return "NaN".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    if x == 0.0 {
        return if x.is_sign_negative() { "-0.0" } else { "0.0" }.into();
    }
    // Rust's `{:e}` gives the shortest digits that read back to `x`, as
    // Python's repr does (`d.ddde±x`). When two strings of that length are
    // equally near (the double lies halfway: 2113062213193150.25), Python
    // takes the even one and Rust's shortest may take the other; Rust's
    // fixed-precision form rounds halfway cases to even, so it is Python's
    // whenever it reads back to `x` too.
    let a = x.abs();
    let short = format!("{a:e}");
    let n = short.split_once('e').map_or(0, |(m, _)| m.bytes().filter(u8::is_ascii_digit).count());
    let even = format!("{a:.*e}", n.saturating_sub(1));
    let sci = if even != short && even.parse::<f64>() == Ok(a) { even } else { short };
    let (mantissa, exp) = sci.split_once('e').expect("{:e} has an exponent");
    let exp: i32 = exp.parse().expect("an integer exponent");
    let digits: String = mantissa.chars().filter(|&c| c != '.').collect();
    let n = digits.len() as i32;
    // The value is 0.DIGITS * 10^decpt.
    let decpt = exp + 1;
    let mut out = String::with_capacity(digits.len() + 8);
    if x < 0.0 {
        out.push('-');
    }
    if decpt <= -4 || decpt > 16 {
        out.push_str(&digits[..1]);
        if n > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        out.push('e');
        out.push(if exp < 0 { '-' } else { '+' });
        out.push_str(&format!("{:02}", exp.abs()));
    } else if decpt <= 0 {
        out.push_str("0.");
        out.extend(std::iter::repeat_n('0', (-decpt) as usize));
        out.push_str(&digits);
    } else if decpt >= n {
        out.push_str(&digits);
        out.extend(std::iter::repeat_n('0', (decpt - n) as usize));
        out.push_str(".0");
    } else {
        out.push_str(&digits[..decpt as usize]);
        out.push('.');
        out.push_str(&digits[decpt as usize..]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The length of `json.dumps(s)`, without writing it.
    fn str_len(s: &str) -> usize {
        let mut n = 2;
        for c in s.chars() {
            n += match c {
                '"' | '\\' | '\n' | '\r' | '\t' | '\u{8}' | '\u{c}' => 2,
                ' '..='~' => 1,
                c if (c as u32) < 0x1_0000 => 6,
                _ => 12,
            };
        }
        n
    }

    fn dumps(s: &str) -> String {
        let mut out = String::new();
        push_str(&mut out, s);
        assert_eq!(out.len(), str_len(s), "{s:?}");
        out
    }

    #[test]
    fn strings_escape_as_python_with_ensure_ascii() {
        assert_eq!(dumps("a\"b\\c\n\r\t\u{8}\u{c}"), r#""a\"b\\c\n\r\t\b\f""#);
        assert_eq!(dumps("\u{1}\u{1f}\u{7f} ~"), r#""\u0001\u001f\u007f ~""#);
        assert_eq!(dumps("é中"), r#""\u00e9\u4e2d""#);
        assert_eq!(dumps("😀"), r#""\ud83d\ude00""#);
        assert_eq!(dumps("/"), r#""/""#);
        assert_eq!(string(r#""plain""#, "plain"), r#""plain""#);
        assert!(matches!(string(r#""plain""#, "plain"), Cow::Borrowed(_)));
        assert_eq!(string(r#""\/""#, "/"), r#""/""#);
        assert_eq!(string(r#""\u00E9""#, "é"), r#""\u00e9""#);
    }

    #[test]
    fn numbers_print_as_python() {
        let cases = [
            ("0", "0"),
            ("-0", "0"),
            ("123456789012345678901234567890", "123456789012345678901234567890"),
            ("1.0", "1.0"),
            ("1E5", "100000.0"),
            ("1e16", "1e+16"),
            ("1e15", "1000000000000000.0"),
            ("9999999999999998.0", "9999999999999998.0"),
            ("12345678901234567890.0", "1.2345678901234567e+19"),
            ("0.0001", "0.0001"),
            ("0.00001", "1e-05"),
            ("1.5e-7", "1.5e-07"),
            ("-0.0", "-0.0"),
            ("-0e5", "-0.0"),
            ("0.1", "0.1"),
            ("1e400", "Infinity"),
            ("-1e400", "-Infinity"),
            ("1e-400", "0.0"),
            ("2.5e100", "2.5e+100"),
            ("5e-324", "5e-324"),
            ("1.7976931348623157e308", "1.7976931348623157e+308"),
            ("123.456", "123.456"),
            ("0.30000000000000004", "0.30000000000000004"),
            // Halfway between two 17-digit strings: Python takes the even one.
            ("2113062213193150.2", "2113062213193150.2"),
            ("2113062213193150.3", "2113062213193150.2"),
        ];
        for (literal, python) in cases {
            assert_eq!(number(literal), python, "{literal}");
        }
    }
}
