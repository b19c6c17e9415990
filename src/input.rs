//! Reading what the user points chunktui at, with a size cap. Every file
//! chunktui reads (documents, standard input, configs, themes, keymaps,
//! tokenizer.json) goes through [`read_capped`], which stops at the limit
//! plus one byte: `/dev/zero` or an endless pipe ends with a one-line error
//! naming the limit and how to raise it, never with memory growing until the
//! machine gives out. Settings files are read whole and never streamed, so a
//! FIFO or device given as one is refused before anything blocks on it.

use crate::error::{Error, Result};
use std::fs::FileType;
use std::io::{IsTerminal, Read};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

pub const MIB: u64 = 1 << 20;
/// Documents: 1 GiB unless `--max-input-mb` says otherwise.
pub const DOCUMENT_LIMIT: u64 = 1 << 30;
/// Config, theme and keymap files (`CHUNKTUI_MAX_CONFIG_MB`).
pub const CONFIG_LIMIT: u64 = MIB;
/// tokenizer.json (`CHUNKTUI_MAX_TOKENIZER_MB`); the largest common ones are ~20 MB.
pub const TOKENIZER_LIMIT: u64 = 64 * MIB;
/// Question files for eval, sweep and the workbench (`CHUNKTUI_MAX_QUESTIONS_MB`):
/// a hundred thousand questions with their references fit in a few MB.
pub const QUESTIONS_LIMIT: u64 = 64 * MIB;
/// Bytes looked at before the rest is read (the binary check reads as many).
pub const HEAD: usize = 8192;
/// A stream silent for this long at a terminal gets a "waiting for" notice.
const SILENT: Duration = Duration::from_millis(400);

/// The document limit for this process: the CLI sets it from `--max-input-mb`
/// once, and every later document read (hot reload included) obeys it.
static DOCUMENT_BYTES: AtomicU64 = AtomicU64::new(DOCUMENT_LIMIT);

/// How much of one kind of input is accepted and how to accept more.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cap {
    pub bytes: u64,
    /// What the input is, for messages: "document", "config file"...
    pub what: &'static str,
    /// The next step when it is too big: names the flag or env var.
    pub raise: &'static str,
    /// Whether stdin, FIFOs and character devices are read; settings files never are.
    pub streams: bool,
}

impl Cap {
    pub fn document() -> Cap {
        Cap {
            bytes: DOCUMENT_BYTES.load(Ordering::Relaxed),
            what: "document",
            raise: "split it, or raise the limit with --max-input-mb N",
            streams: true,
        }
    }
    /// Config, theme or keymap files (`what` names which).
    pub fn settings(what: &'static str) -> Result<Cap> {
        let bytes = env_limit("CHUNKTUI_MAX_CONFIG_MB", CONFIG_LIMIT)?;
        Ok(Cap { bytes, what, raise: "raise the limit with CHUNKTUI_MAX_CONFIG_MB=N", streams: false })
    }
    pub fn tokenizer() -> Result<Cap> {
        let bytes = env_limit("CHUNKTUI_MAX_TOKENIZER_MB", TOKENIZER_LIMIT)?;
        Ok(Cap {
            bytes,
            what: "tokenizer file",
            raise: "raise the limit with CHUNKTUI_MAX_TOKENIZER_MB=N",
            streams: false,
        })
    }
    /// A question file: read from a pipe too (`--queries -`).
    pub fn questions() -> Result<Cap> {
        let bytes = env_limit("CHUNKTUI_MAX_QUESTIONS_MB", QUESTIONS_LIMIT)?;
        Ok(Cap {
            bytes,
            what: "question file",
            raise: "split it, or raise the limit with CHUNKTUI_MAX_QUESTIONS_MB=N",
            streams: true,
        })
    }
}

/// Set the document limit in MiB (`--max-input-mb`).
pub fn set_document_limit_mb(mb: u64) -> Result<()> {
    let bytes = mb_to_bytes(mb).ok_or_else(|| {
        Error::config(format!("--max-input-mb {mb}: give a whole number of MiB from 1 to {}", u64::MAX / MIB))
    })?;
    DOCUMENT_BYTES.store(bytes, Ordering::Relaxed);
    Ok(())
}

fn mb_to_bytes(mb: u64) -> Option<u64> {
    (mb > 0).then(|| mb.checked_mul(MIB)).flatten()
}

fn env_limit(var: &str, default: u64) -> Result<u64> {
    let Some(value) = std::env::var_os(var) else { return Ok(default) };
    let text = value.to_string_lossy();
    text.trim()
        .parse::<u64>()
        .ok()
        .and_then(mb_to_bytes)
        .ok_or_else(|| Error::config(format!("{var}={text}: give a whole number of MiB, at least 1")))
}

/// Where the bytes come from: `-` on the command line means standard input.
#[derive(Debug, Clone, Copy)]
pub enum Source<'a> {
    Stdin,
    Path(&'a Path),
}

impl<'a> Source<'a> {
    pub fn from_arg(path: &'a Path) -> Self {
        if path == Path::new("-") {
            Source::Stdin
        } else {
            Source::Path(path)
        }
    }
    pub fn name(&self) -> String {
        match self {
            Source::Stdin => "standard input".into(),
            Source::Path(p) => p.display().to_string(),
        }
    }
}

/// Read all of `src`, refusing it once it passes `cap`.
pub fn read_capped(src: Source<'_>, cap: &Cap) -> Result<Vec<u8>> {
    read_capped_checked(src, cap, |_| Ok(()))
}

/// Like [`read_capped`], with `head` called on the first [`HEAD`] bytes (or
/// all of a shorter input) before the rest is read: a document that is
/// binary (`/dev/zero`) is refused after 8 KiB, not after the limit.
pub fn read_capped_checked(
    src: Source<'_>,
    cap: &Cap,
    head: impl FnOnce(&[u8]) -> Result<()> + Send,
) -> Result<Vec<u8>> {
    // Whatever a run reads, no output of that run may replace.
    match src {
        Source::Path(p) => crate::protect::protect_path(p, cap.what),
        Source::Stdin => crate::protect::protect_stdin(),
    }
    let name = src.name();
    match src {
        Source::Stdin => {
            if !cap.streams {
                return Err(Error::input(format!("a {} cannot come from standard input: give a file path", cap.what)));
            }
            let (size, at_terminal) = stdin_kind();
            if let Some(len) = size {
                check_len(&name, len, cap)?;
            }
            let notice = std::io::stderr().is_terminal().then(|| waiting_notice(&name, at_terminal));
            announce_if_silent(notice, |started| read_bounded(std::io::stdin().lock(), &name, cap, size, head, started))
        }
        Source::Path(path) => {
            let meta = std::fs::metadata(path).map_err(|e| Error::io(path, &e))?;
            let ft = meta.file_type();
            if ft.is_dir() {
                return Err(Error::input(format!("{name} is a directory: give a file ({})", cap.what)));
            }
            if ft.is_file() {
                check_len(&name, meta.len(), cap)?;
                let file = std::fs::File::open(path).map_err(|e| Error::io(path, &e))?;
                return read_bounded(file, &name, cap, Some(meta.len()), head, &|| {});
            }
            let kind = special_kind(&ft);
            if !cap.streams || !is_streamable(&ft) {
                return Err(Error::input(format!(
                    "{name} is {kind}, not a regular file: give the path of a {} (it is read whole, never streamed)",
                    cap.what
                )));
            }
            // Opening a FIFO blocks until a writer comes, so the notice covers the open too.
            // A character device chunktui waits on is most likely a terminal (/dev/tty).
            let device = kind == "a character device";
            let what = format!("{} {name}", kind.trim_start_matches("a "));
            let notice = std::io::stderr().is_terminal().then(|| waiting_notice(&what, device));
            announce_if_silent(notice, |started| {
                let file = std::fs::File::open(path).map_err(|e| Error::io(path, &e))?;
                read_bounded(file, &name, cap, None, head, started)
            })
        }
    }
}

/// Read a settings file (config, theme, keymap) as UTF-8 text.
pub fn read_text_capped(path: &Path, cap: &Cap) -> Result<String> {
    let bytes = read_capped(Source::Path(path), cap)?;
    String::from_utf8(bytes).map_err(|e| {
        Error::input(format!(
            "{} is not UTF-8 text (bad byte at offset {}): save the {} as UTF-8",
            path.display(),
            e.utf8_error().valid_up_to(),
            cap.what
        ))
    })
}

fn check_len(name: &str, len: u64, cap: &Cap) -> Result<()> {
    if len > cap.bytes {
        return Err(Error::input(format!(
            "{name} is {}, over the {} limit for a {}: {}",
            human(len),
            human(cap.bytes),
            cap.what,
            cap.raise
        )));
    }
    Ok(())
}

fn too_big(name: &str, cap: &Cap) -> Error {
    Error::input(format!("{name} goes on past the {} limit for a {}: {}", human(cap.bytes), cap.what, cap.raise))
}

/// Read to the end or to `cap` + 1 bytes, whichever comes first. `started`
/// is called once the first bytes (or the end) have arrived.
fn read_bounded(
    reader: impl Read,
    name: &str,
    cap: &Cap,
    size_hint: Option<u64>,
    head: impl FnOnce(&[u8]) -> Result<()>,
    started: &dyn Fn(),
) -> Result<Vec<u8>> {
    let io_err = |e: std::io::Error| match e.kind() {
        std::io::ErrorKind::NotFound | std::io::ErrorKind::PermissionDenied => Error::io(Path::new(name), &e),
        _ => Error::Io(format!("{name}: cannot read: {e}")),
    };
    let limit = cap.bytes.saturating_add(1);
    // A regular file's length is known: one allocation. Streams grow as they come.
    let reserve = size_hint.map_or(HEAD as u64, |n| n.saturating_add(1)).min(limit);
    let mut buf = Vec::with_capacity(usize::try_from(reserve).unwrap_or(HEAD));
    let mut r = reader.take(limit);
    // The first read is where a silent stream blocks.
    let mut first = [0u8; HEAD];
    let n = loop {
        match r.read(&mut first) {
            Ok(n) => break n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(io_err(e)),
        }
    };
    started();
    buf.extend_from_slice(&first[..n]);
    if n > 0 && buf.len() < HEAD {
        (&mut r).take((HEAD - buf.len()) as u64).read_to_end(&mut buf).map_err(io_err)?;
    }
    head(&buf)?;
    r.read_to_end(&mut buf).map_err(io_err)?;
    if buf.len() as u64 > cap.bytes {
        return Err(too_big(name, cap));
    }
    Ok(buf)
}

/// Run `work` (which calls `started` once data flows) and, when `notice` is
/// given and nothing has arrived after a moment, say what chunktui waits for.
/// Quiet for a pipe that delivers at once, so pipelines print nothing extra.
pub(crate) fn announce_if_silent<T: Send>(notice: Option<String>, work: impl FnOnce(&dyn Fn()) -> T + Send) -> T {
    let Some(notice) = notice else { return work(&|| {}) };
    let (tx, rx) = std::sync::mpsc::channel::<()>();
    std::thread::scope(|s| {
        let reader = s.spawn(move || {
            work(&move || {
                let _ = tx.send(());
            })
        });
        if rx.recv_timeout(SILENT) == Err(std::sync::mpsc::RecvTimeoutError::Timeout) {
            eprintln!("chunktui: {}", crate::error::printable(&notice));
        }
        match reader.join() {
            Ok(v) => v,
            Err(panic) => std::panic::resume_unwind(panic),
        }
    })
}

fn waiting_notice(what: &str, at_terminal: bool) -> String {
    let keys = if at_terminal { "Ctrl-D ends, Ctrl-C cancels" } else { "Ctrl-C cancels" };
    format!("waiting for input on {what} ({keys})")
}

/// Standard input's length when it is a regular file (`< file`), and whether
/// it is a terminal.
fn stdin_kind() -> (Option<u64>, bool) {
    let stdin = std::io::stdin();
    let at_terminal = stdin.is_terminal();
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        let meta = stdin.as_fd().try_clone_to_owned().ok().and_then(|fd| std::fs::File::from(fd).metadata().ok());
        (meta.filter(|m| m.is_file()).map(|m| m.len()), at_terminal)
    }
    #[cfg(not(unix))]
    (None, at_terminal)
}

/// "a FIFO", "a character device"... for a file type that is not a regular file.
pub fn special_kind(ft: &FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if ft.is_fifo() {
            return "a FIFO";
        }
        if ft.is_char_device() {
            return "a character device";
        }
        if ft.is_block_device() {
            return "a block device";
        }
        if ft.is_socket() {
            return "a socket";
        }
    }
    if ft.is_dir() {
        "a directory"
    } else if ft.is_symlink() {
        "a symbolic link"
    } else if ft.is_file() {
        "a regular file"
    } else {
        "a special file"
    }
}

/// FIFOs and character devices are streams chunktui reads and writes;
/// block devices and sockets are not.
pub fn is_streamable(ft: &FileType) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        ft.is_fifo() || ft.is_char_device()
    }
    #[cfg(not(unix))]
    {
        let _ = ft;
        false
    }
}

/// "1 GiB", "64 MiB", or bytes when not a whole number of MiB.
pub fn human(bytes: u64) -> String {
    if bytes >= 1 << 30 && bytes % (1 << 30) == 0 {
        format!("{} GiB", bytes >> 30)
    } else if bytes >= MIB && bytes % MIB == 0 {
        format!("{} MiB", bytes >> 20)
    } else if bytes >= MIB {
        format!("{:.1} MiB", bytes as f64 / MIB as f64)
    } else {
        format!("{bytes} bytes")
    }
}

/// The 1-based line and column (in characters) just after `prefix`.
pub(crate) fn line_col(prefix: &[u8]) -> (usize, usize) {
    let line = prefix.iter().filter(|&&b| b == b'\n').count() + 1;
    let line_start = prefix.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
    let col = String::from_utf8_lossy(&prefix[line_start..]).chars().count() + 1;
    (line, col)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cap(bytes: u64) -> Cap {
        Cap { bytes, what: "document", raise: "raise it", streams: true }
    }

    #[test]
    fn reads_up_to_the_limit_and_refuses_one_byte_more() {
        let ok = read_bounded(&[b'a'; 10][..], "x", &cap(10), None, |_| Ok(()), &|| {}).unwrap();
        assert_eq!(ok.len(), 10);
        let err = read_bounded(&[b'a'; 11][..], "x", &cap(10), None, |_| Ok(()), &|| {}).unwrap_err().to_string();
        assert!(err.contains("10 bytes limit") && err.contains("raise it"), "{err}");
    }

    #[test]
    fn an_endless_stream_stops_at_the_limit() {
        let err = read_bounded(std::io::repeat(b'a'), "endless", &cap(3 * MIB), None, |_| Ok(()), &|| {}).unwrap_err();
        assert!(err.to_string().contains("past the 3 MiB limit"), "{err}");
    }

    #[test]
    fn head_sees_the_first_bytes_before_the_rest_is_read() {
        let err = read_bounded(
            std::io::repeat(0),
            "zeros",
            &cap(u64::MAX),
            None,
            |h| {
                assert_eq!(h.len(), HEAD);
                Err(Error::input("binary"))
            },
            &|| {},
        );
        assert_eq!(err.unwrap_err().to_string(), "binary");
        let short = read_bounded(
            &b"abc"[..],
            "s",
            &cap(10),
            None,
            |h| {
                assert_eq!(h, b"abc");
                Ok(())
            },
            &|| {},
        );
        assert_eq!(short.unwrap(), b"abc");
    }

    #[test]
    fn limits_in_mib_reject_zero_and_overflow() {
        assert_eq!(mb_to_bytes(2), Some(2 * MIB));
        assert_eq!(mb_to_bytes(0), None);
        assert_eq!(mb_to_bytes(u64::MAX), None);
        assert_eq!(human(1 << 30), "1 GiB");
        assert_eq!(human(64 * MIB), "64 MiB");
    }
}
