//! One error type for the library. Every message names the problem and, where
//! there is one, the fix: the CLI prints it as is on one line.

use std::fmt;

#[derive(Debug)]
pub enum Error {
    /// Settings that cannot work (size 0, overlap >= size, unknown strategy...).
    Config(String),
    /// The input document cannot be used (empty, binary, invalid UTF-8...).
    Input(String),
    /// A tokenizer could not be loaded or run.
    Tokenizer(String),
    /// An embedding model or ONNX Runtime is missing or failed.
    Model(String),
    /// A file could not be read or written.
    Io(String),
    /// An LLM endpoint could not be reached or refused the request.
    Llm(String),
    /// Not a failure to run: a check the user asked to fail on found what it
    /// looks for (`chunktui diff --fail-on changed`, findings of `chunktui
    /// lint`). Exit status 1, not 2.
    Changed(String),
    /// A newer request replaced this one and it stopped between batches:
    /// not a failure, nothing to report.
    Cancelled,
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub fn config(msg: impl Into<String>) -> Self {
        Error::Config(msg.into())
    }
    pub fn input(msg: impl Into<String>) -> Self {
        Error::Input(msg.into())
    }
    /// A file that could not be read: what happened, and what to do about
    /// it when there is something to do.
    pub fn io(path: &std::path::Path, err: &std::io::Error) -> Self {
        Self::io_doing(path, err, "read")
    }

    /// [`Error::io`] for a file that could not be written.
    pub fn io_write(path: &std::path::Path, err: &std::io::Error) -> Self {
        Self::io_doing(path, err, "write")
    }

    fn io_doing(path: &std::path::Path, err: &std::io::Error, doing: &str) -> Self {
        let what = match err.kind() {
            std::io::ErrorKind::NotFound => "no such file".to_string(),
            std::io::ErrorKind::PermissionDenied => format!(
                "permission denied: check its permissions (ls -l {}) or run as a user who can {doing} it",
                shell_word(&path.display().to_string())
            ),
            _ => err.to_string(),
        };
        Error::Io(format!("{}: {what}", shown_path(path)))
    }
}

/// `s` safe to print to a terminal: control characters (ESC, a bare CR,
/// C1 controls, bidi overrides) are written as `\u{1b}`, so a file name
/// cannot move the cursor, recolour the screen or hide part of a message.
/// Line breaks and tabs stay: callers print line by line.
pub fn printable(s: &str) -> String {
    if !s.chars().any(needs_escape) {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if needs_escape(c) {
            out.push_str(&c.escape_unicode().to_string());
        } else {
            out.push(c);
        }
    }
    out
}

/// A path as a message shows it: [`printable`], and a line break in a file
/// name escaped too, so the message stays one line.
pub fn shown_path(path: &std::path::Path) -> String {
    printable(&path.display().to_string()).replace('\n', "\\n").replace('\t', "\\t")
}

fn needs_escape(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t')
        || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{2028}' | '\u{2029}')
}

/// `s` as one shell word: as is when it is plain, else in single quotes.
fn shell_word(s: &str) -> String {
    let plain = !s.is_empty() && s.chars().all(|c| c.is_alphanumeric() || "/._-+,:@%=".contains(c));
    if plain {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Config(m)
            | Error::Input(m)
            | Error::Tokenizer(m)
            | Error::Model(m)
            | Error::Io(m)
            | Error::Llm(m)
            | Error::Changed(m) => f.write_str(m),
            Error::Cancelled => f.write_str("cancelled by a newer request"),
        }
    }
}

impl std::error::Error for Error {}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Error as IoError, ErrorKind};
    use std::path::Path;

    #[test]
    fn permission_denied_says_what_to_check() {
        let e = Error::io(Path::new("/srv/my docs/a.md"), &IoError::from(ErrorKind::PermissionDenied)).to_string();
        assert_eq!(
            e,
            "/srv/my docs/a.md: permission denied: check its permissions (ls -l '/srv/my docs/a.md') \
             or run as a user who can read it"
        );
        let e = Error::io_write(Path::new("/out.jsonl"), &IoError::from(ErrorKind::PermissionDenied)).to_string();
        assert!(e.ends_with("(ls -l /out.jsonl) or run as a user who can write it"), "{e}");
        assert_eq!(Error::io(Path::new("x"), &IoError::from(ErrorKind::NotFound)).to_string(), "x: no such file");
    }
}
