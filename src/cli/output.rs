//! Where the CLI's output goes: `-o PATH` (written whole, atomically) or
//! standard output. Every command writes through here.

use crate::error::Result;
use crate::export::write_error;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The one way output leaves the CLI: to `-o PATH`, or to stdout, where a
/// closed pipe (`| head`) is the reader's choice and a full disk is an error.
pub fn emit(bytes: &[u8], output: Option<&Path>) -> Result<()> {
    emit_with(output, &mut |out| out.write_all(bytes))
}

/// [`emit`] of what `produce` writes, streamed (buffered) to where it goes.
pub fn emit_with(output: Option<&Path>, produce: &mut crate::export::Produce<'_>) -> Result<()> {
    match output {
        Some(path) => crate::export::write_atomic_with(path, produce),
        None => {
            let mut stdout = std::io::BufWriter::new(std::io::stdout().lock());
            match produce(&mut stdout).and_then(|_| stdout.flush()) {
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
                r => r.map_err(|e| write_error("standard output", &e)),
            }
        }
    }
}

/// `-o -` is standard output, as `-` is standard input (not a file named `-`).
pub fn dash_is_stdout(output: &mut Option<PathBuf>) {
    if output.as_deref() == Some(Path::new("-")) {
        *output = None;
    }
}
