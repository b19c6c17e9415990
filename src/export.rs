//! Writing results: chunks as JSON/JSONL records with byte and code-point
//! offsets, and file writes that never leave a half-written file nor replace
//! a device, a FIFO, a symlink or the input document.

use crate::chunk::{Chunk, ChunkMeta};
use crate::document::CharOffsets;
use crate::error::{Error, Result};
use crate::input::Source;
use serde::Serialize;
use std::io::{IsTerminal, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// One chunk as exported: byte offsets for Rust/Go users, code-point offsets
/// for Python users, the text, and its size in the configured unit.
#[derive(Debug, Serialize)]
pub struct ChunkRecord<'a> {
    /// The input file, when one run chunks many.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<&'a str>,
    pub index: usize,
    pub start: usize,
    pub end: usize,
    pub char_start: usize,
    pub char_end: usize,
    pub size: usize,
    pub text: &'a str,
    pub meta: &'a ChunkMeta,
    /// What to embed for this chunk and its sizes (`[embed_text]`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub embed_text: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub embed_size: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub embed_tokens: Option<usize>,
    /// The chunk's vector (late chunking with `--embeddings`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub embedding: Option<&'a [f32]>,
}

pub fn records<'a>(chunks: &'a [Chunk], text: &'a str) -> Vec<ChunkRecord<'a>> {
    chunks
        .iter()
        .zip(char_ranges(chunks, text))
        .enumerate()
        .map(|(index, (c, chars))| ChunkRecord {
            path: None,
            index,
            start: c.range.start,
            end: c.range.end,
            char_start: chars.start,
            char_end: chars.end,
            size: c.size,
            text: c.text(text),
            meta: &c.meta,
            embed_text: c.meta.embed.as_ref().map(|e| e.text.as_str()),
            embed_size: c.meta.embed.as_ref().map(|e| e.size),
            embed_tokens: c.meta.embed.as_ref().map(|e| e.tokens),
            embedding: None,
        })
        .collect()
}

/// Each chunk's range in code points (what Python slices with), as the
/// records have it.
pub fn char_ranges<'a>(chunks: &'a [Chunk], text: &'a str) -> impl Iterator<Item = Range<usize>> + 'a {
    let offsets = CharOffsets::new(text);
    chunks.iter().map(move |c| offsets.at(c.range.start)..offsets.at(c.range.end))
}

/// Write `bytes` to `path` without losing what is there. A regular file (or
/// a new one) is replaced through a temp file in its folder and a rename, so
/// readers never see a partial file; it keeps the old file's permissions and
/// owner. A symlink is followed: its target is replaced, the link stays.
/// Character devices and FIFOs are written to in place (`/dev/null`,
/// `/dev/stdout`, a pipe), never replaced. The input document is refused.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let target = check_output(path)?;
    // The kernel's view decides the kind: it follows /dev/stdout's magic links too.
    match std::fs::metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => replace(path, &target, bytes, None),
        Err(e) => Err(write_error(&path.display().to_string(), &e)),
        Ok(meta) if meta.is_file() => replace(path, &target, bytes, Some(&meta)),
        Ok(meta) if meta.is_dir() => {
            Err(Error::Io(format!("{} is a directory: give a file path to write to", path.display())))
        }
        Ok(meta) if crate::input::is_streamable(&meta.file_type()) => write_in_place(path, bytes),
        Ok(meta) => Err(Error::Io(format!(
            "{} is {}: chunktui writes to files, character devices and FIFOs, give a file path",
            path.display(),
            crate::input::special_kind(&meta.file_type())
        ))),
    }
}

/// Check an output path before any work is done: refuse the document being
/// chunked (by path through symlinks, or by device and inode for hard links
/// and `./doc.md`). Returns the file the path ends at after its symlinks.
pub fn check_output(path: &Path) -> Result<PathBuf> {
    let target = follow_links(path)?;
    let target_id = file_id(path);
    let canonical = canonical(&target);
    let inputs = PROTECTED.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(input) = inputs.iter().find(|i| {
        let id = i.id();
        (id.is_some() && id == target_id) || (i.canonical.is_some() && i.canonical == canonical)
    }) {
        return Err(Error::Io(format!(
            "{} is the document being chunked ({}): writing there would destroy it, choose another output path",
            path.display(),
            input.name
        )));
    }
    Ok(target)
}

/// A document being read, which no output may replace.
struct Protected {
    name: String,
    /// The path as given, to look its inode up afresh at each check: once a
    /// document is deleted or renamed over (hot reload), its old inode
    /// number can be reused by an unrelated file.
    path: Option<PathBuf>,
    canonical: Option<PathBuf>,
    /// Standard input's file: held open by the process, so its inode stays its own.
    stdin: Option<(u64, u64)>,
}

impl Protected {
    fn id(&self) -> Option<(u64, u64)> {
        self.path.as_deref().and_then(file_id).or(self.stdin)
    }
}

static PROTECTED: Mutex<Vec<Protected>> = Mutex::new(Vec::new());

/// Mark an input (a file, or standard input when it is redirected from one)
/// so that [`write_atomic`] and [`check_output`] refuse to write over it.
pub fn protect_input(src: Source<'_>) {
    let entry = match src {
        Source::Path(p) => Protected {
            name: p.display().to_string(),
            path: Some(p.to_path_buf()),
            canonical: canonical(p),
            stdin: None,
        },
        Source::Stdin => {
            Protected { name: "standard input reads it".into(), path: None, canonical: None, stdin: stdin_id() }
        }
    };
    if entry.canonical.is_some() || entry.stdin.is_some() {
        PROTECTED.lock().unwrap_or_else(|p| p.into_inner()).push(entry);
    }
}

/// The path with every symlink followed, even to a target that does not
/// exist yet (a dangling link gets its target created, and stays a link).
fn follow_links(path: &Path) -> Result<PathBuf> {
    let mut p = path.to_path_buf();
    for _ in 0..40 {
        match std::fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() => {
                let link = std::fs::read_link(&p).map_err(|e| write_error(&path.display().to_string(), &e))?;
                // A relative link is relative to the folder holding it.
                p = p.parent().map_or(link.clone(), |dir| dir.join(&link));
            }
            _ => return Ok(p),
        }
    }
    Err(Error::Io(format!("{}: too many levels of symbolic links: give the file itself", path.display())))
}

/// Canonical path of a file, or of its folder plus its name when the file
/// does not exist yet.
fn canonical(path: &Path) -> Option<PathBuf> {
    std::fs::canonicalize(path).ok().or_else(|| {
        let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
        Some(std::fs::canonicalize(dir).ok()?.join(path.file_name()?))
    })
}

#[cfg(unix)]
fn file_id(path: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    // Only regular files: two writes to one device are not a conflict.
    std::fs::metadata(path).ok().filter(|m| m.is_file()).map(|m| (m.dev(), m.ino()))
}

#[cfg(unix)]
fn stdin_id() -> Option<(u64, u64)> {
    use std::os::fd::AsFd;
    use std::os::unix::fs::MetadataExt;
    let fd = std::io::stdin().as_fd().try_clone_to_owned().ok()?;
    let meta = std::fs::File::from(fd).metadata().ok()?;
    meta.is_file().then(|| (meta.dev(), meta.ino()))
}

#[cfg(not(unix))]
fn file_id(_path: &Path) -> Option<(u64, u64)> {
    None
}

#[cfg(not(unix))]
fn stdin_id() -> Option<(u64, u64)> {
    None
}

/// Replace the regular file `target` (or create it) through a temp file
/// next to it. `shown` is the path as the user gave it, for messages.
fn replace(shown: &Path, target: &Path, bytes: &[u8], existing: Option<&std::fs::Metadata>) -> Result<()> {
    let err = |e: &std::io::Error| write_error(&shown.display().to_string(), e);
    let dir = target.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name = target
        .file_name()
        .ok_or_else(|| Error::Io(format!("{} is not a file path: give a file name to write to", shown.display())))?;
    let (tmp, mut f) = create_temp(dir, &name.to_string_lossy(), existing.is_some()).map_err(|e| err(&e))?;
    let result = (|| {
        f.write_all(bytes)?;
        if let Some(meta) = existing {
            keep_owner(&f, meta);
            f.set_permissions(meta.permissions())?;
        }
        f.sync_all()?;
        drop(f);
        std::fs::rename(&tmp, target)
    })();
    result.map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        err(&e)
    })
}

/// A new temp file in `dir`, never an existing one (nor a symlink planted
/// at its name). Private (0600) while it replaces an existing file, whose
/// permissions it gets once written.
fn create_temp(dir: &Path, name: &str, private: bool) -> std::io::Result<(PathBuf, std::fs::File)> {
    let mut opts = std::fs::OpenOptions::new();
    opts.write(true).create_new(true);
    #[cfg(unix)]
    if private {
        use std::os::unix::fs::OpenOptionsExt;
        opts.mode(0o600);
    }
    #[cfg(not(unix))]
    let _ = private;
    let mut n = 0u32;
    loop {
        let tmp = dir.join(format!(
            ".{name}.tmp{}{}",
            std::process::id(),
            if n == 0 { String::new() } else { format!(".{n}") }
        ));
        match opts.open(&tmp) {
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && n < 100 => n += 1,
            r => return r.map(|f| (tmp, f)),
        }
    }
}

/// Give the new file the old one's owner and group (as root, say); a user
/// who cannot keeps their own, as any editor would.
#[cfg(unix)]
fn keep_owner(f: &std::fs::File, meta: &std::fs::Metadata) {
    use std::os::unix::fs::MetadataExt;
    if let Ok(now) = f.metadata() {
        if now.uid() != meta.uid() || now.gid() != meta.gid() {
            let _ = std::os::unix::fs::fchown(f, Some(meta.uid()), Some(meta.gid()));
        }
    }
}

#[cfg(not(unix))]
fn keep_owner(_f: &std::fs::File, _meta: &std::fs::Metadata) {}

/// Write to a character device or FIFO as it is: open it for writing (never
/// create, truncate or rename) and report what the write says.
fn write_in_place(path: &Path, bytes: &[u8]) -> Result<()> {
    let name = path.display().to_string();
    // Opening a FIFO waits for its reader: say so at a terminal.
    let notice =
        std::io::stderr().is_terminal().then(|| format!("waiting for a reader to open {name} (Ctrl-C cancels)"));
    let result = crate::input::announce_if_silent(notice, |opened| {
        let mut f = std::fs::OpenOptions::new().write(true).open(path)?;
        opened();
        f.write_all(bytes)?;
        f.flush()
    });
    match result {
        // The reader closed its end: its choice, as with `| head` on stdout.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        r => r.map_err(|e| write_error(&name, &e)),
    }
}

/// One line for a failed write, naming the problem and the next step.
pub fn write_error(what: &str, e: &std::io::Error) -> Error {
    use std::io::ErrorKind as K;
    let msg = match e.kind() {
        K::StorageFull => "no space left on device: free some space or write somewhere else".to_string(),
        K::PermissionDenied => "permission denied: write somewhere you can, or fix the permissions".to_string(),
        K::ReadOnlyFilesystem => "read-only file system: write somewhere else".to_string(),
        K::NotFound => "its folder does not exist: create it first or give another path".to_string(),
        _ => format!("cannot write: {e}"),
    };
    Error::Io(format!("{what}: {msg}"))
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn a_regular_file_keeps_its_permissions_and_a_symlink_stays() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("out.jsonl");
        std::fs::write(&file, "old").unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink("out.jsonl", &link).unwrap();
        write_atomic(&link, b"new").unwrap();
        assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
        assert_eq!(std::fs::read(&file).unwrap(), b"new");
        assert_eq!(std::fs::metadata(&file).unwrap().permissions().mode() & 0o777, 0o600);
        // Nothing left over: only the file and the link.
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
    }

    #[test]
    fn a_protected_input_is_refused_by_any_name() {
        let dir = tempfile::tempdir().unwrap();
        let doc = dir.path().join("doc.md");
        std::fs::write(&doc, "# doc").unwrap();
        std::fs::hard_link(&doc, dir.path().join("hard.md")).unwrap();
        protect_input(Source::Path(&doc));
        for name in ["doc.md", "hard.md", "./doc.md"] {
            let err = write_atomic(&dir.path().join(name), b"x").unwrap_err().to_string();
            assert!(err.contains("document being chunked"), "{name}: {err}");
        }
        assert_eq!(std::fs::read(&doc).unwrap(), b"# doc");
    }
}
