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
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub fn config(msg: impl Into<String>) -> Self {
        Error::Config(msg.into())
    }
    pub fn input(msg: impl Into<String>) -> Self {
        Error::Input(msg.into())
    }
    pub fn io(path: &std::path::Path, err: &std::io::Error) -> Self {
        let what = match err.kind() {
            std::io::ErrorKind::NotFound => "no such file".to_string(),
            std::io::ErrorKind::PermissionDenied => "permission denied".to_string(),
            _ => err.to_string(),
        };
        Error::Io(format!("{}: {what}", path.display()))
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Config(m) | Error::Input(m) | Error::Tokenizer(m) | Error::Model(m) | Error::Io(m) => {
                f.write_str(m)
            }
        }
    }
}

impl std::error::Error for Error {}
