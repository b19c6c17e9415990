//! Writing files: outputs that never leave a half-written file, never
//! replace a device, a FIFO, a symlink or an input, and clean up the temp
//! files of writers that died. Everything chunktui writes (records, configs,
//! exported splitters, sweep results) goes through here.

use crate::error::{Error, Result};
use crate::input::Source;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Write `bytes` to `path` without losing what is there. A regular file (or
/// a new one) is replaced through a temp file in its folder and a rename, so
/// readers never see a partial file; it keeps the old file's permissions and
/// owner. A symlink is followed: its target is replaced, the link stays.
/// Character devices and FIFOs are written to in place (`/dev/null`,
/// `/dev/stdout`, a pipe), never replaced. The input document is refused.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    write_atomic_with(path, &mut |w| w.write_all(bytes))
}

/// What writes an output, called once with where it goes (buffered).
pub type Produce<'a> = dyn FnMut(&mut dyn Write) -> std::io::Result<()> + Send + 'a;

/// [`write_atomic`] of what `produce` writes, streamed: an output many times
/// the input (hierarchical records of a large file) is never held whole.
pub fn write_atomic_with(path: &Path, produce: &mut Produce<'_>) -> Result<()> {
    let target = check_output(path)?;
    // The kernel's view decides the kind: it follows /dev/stdout's magic links too.
    match std::fs::metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => replace(path, &target, produce, None),
        Err(e) => Err(write_error(&path.display().to_string(), &e)),
        Ok(meta) if meta.is_file() => replace(path, &target, produce, Some(&meta)),
        Ok(meta) if meta.is_dir() => {
            Err(Error::Io(format!("{} is a directory: give a file path to write to", path.display())))
        }
        Ok(meta) if crate::input::is_streamable(&meta.file_type()) => write_in_place(path, produce),
        Ok(meta) => Err(Error::Io(format!(
            "{} is {}: chunktui writes to files, character devices and FIFOs, give a file path",
            path.display(),
            crate::input::special_kind(&meta.file_type())
        ))),
    }
}

pub use crate::protect::check_output;

/// Mark an input (a file, or standard input when it is redirected from one)
/// so that [`write_atomic`] and [`check_output`] refuse to write over it.
/// Files read through [`crate::input`] are marked as they are read; this is
/// for marking them before any work.
pub fn protect_input(src: Source<'_>) {
    match src {
        Source::Path(p) => crate::protect::protect_path(p, "document"),
        Source::Stdin => crate::protect::protect_stdin(),
    }
}

/// Replace the regular file `target` (or create it) through a temp file
/// next to it. `shown` is the path as the user gave it, for messages.
fn replace(shown: &Path, target: &Path, produce: &mut Produce<'_>, existing: Option<&std::fs::Metadata>) -> Result<()> {
    let err = |e: &std::io::Error| write_error(&shown.display().to_string(), e);
    let dir = target.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name = target
        .file_name()
        .ok_or_else(|| Error::Io(format!("{} is not a file path: give a file name to write to", shown.display())))?;
    remove_stale_temps(dir);
    let (tmp, mut f) = create_temp(dir, &name.to_string_lossy(), existing.is_some()).map_err(|e| err(&e))?;
    let result = (|| {
        let mut buffered = std::io::BufWriter::new(&mut f);
        produce(&mut buffered)?;
        buffered.flush()?;
        drop(buffered);
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

/// Remove the temp files a killed chunktui left in `dir` (`.NAME.tmpPID`
/// or `.NAME.tmpPID.N` whose process is gone): a `kill -9` mid-write must
/// not leave tens of megabytes behind for good. Each folder is looked at
/// once per process, so writing many files into one folder stays linear.
/// Files of a live process, and anything not named as ours, are left alone.
fn remove_stale_temps(dir: &Path) {
    use std::collections::HashSet;
    static SEEN: Mutex<Option<HashSet<PathBuf>>> = Mutex::new(None);
    let key = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    if !SEEN.lock().unwrap_or_else(|p| p.into_inner()).get_or_insert_with(HashSet::new).insert(key) {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(stale_temp_pid) else { continue };
        let ours = pid == std::process::id();
        if !ours && !process_alive(pid) && entry.file_type().is_ok_and(|t| t.is_file()) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// The process id in a temp file name of ours: `.NAME.tmpPID` or `.NAME.tmpPID.N`.
fn stale_temp_pid(name: &str) -> Option<u32> {
    let rest = name.strip_prefix('.')?;
    let (_, tail) = rest.rsplit_once(".tmp")?;
    let pid = tail.split('.').next()?;
    let n = tail.strip_prefix(pid).and_then(|r| r.strip_prefix('.')).unwrap_or("0");
    (n.bytes().all(|b| b.is_ascii_digit()) && !pid.is_empty()).then_some(())?;
    pid.parse().ok()
}

/// Whether a process with this id runs (Linux: /proc; elsewhere assume it
/// does, so nothing is removed).
fn process_alive(pid: u32) -> bool {
    let proc = Path::new("/proc");
    !proc.join("self").exists() || proc.join(pid.to_string()).exists()
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
fn write_in_place(path: &Path, produce: &mut Produce<'_>) -> Result<()> {
    let name = path.display().to_string();
    // Opening a FIFO waits for its reader: say so at a terminal.
    let notice =
        std::io::stderr().is_terminal().then(|| format!("waiting for a reader to open {name} (Ctrl-C cancels)"));
    let result = crate::input::announce_if_silent(notice, |opened| {
        let mut f = std::io::BufWriter::new(std::fs::OpenOptions::new().write(true).open(path)?);
        opened();
        produce(&mut f)?;
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
    fn temp_files_of_dead_writers_are_removed_and_others_kept() {
        let dir = tempfile::tempdir().unwrap();
        // No process has pid 4294967: it is above any pid_max Linux allows.
        let dead = [".out.jsonl.tmp4294967", ".out.jsonl.tmp4294967.3"];
        let kept = [".out.jsonl.tmp1", "notes.tmp4294967", ".out.jsonl.tmpx", "out.jsonl"];
        for name in dead.iter().chain(&kept) {
            std::fs::write(dir.path().join(name), "x").unwrap();
        }
        write_atomic(&dir.path().join("other.jsonl"), b"new").unwrap();
        for name in dead {
            assert!(!dir.path().join(name).exists(), "{name} was left");
        }
        for name in kept {
            assert!(dir.path().join(name).exists(), "{name} was removed");
        }
        assert_eq!(stale_temp_pid(".a.md.tmp12.4"), Some(12));
        assert_eq!(stale_temp_pid(".a.tmp.md.tmp7"), Some(7));
        assert_eq!(stale_temp_pid("a.md"), None);
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

/// chunktui's cache folder (models, embeddings, sweeps, LLM answers):
/// `$CHUNKTUI_CACHE_DIR`, else the platform's cache folder + `chunktui`
/// (`~/.cache/chunktui` on Linux).
pub fn cache_dir() -> Option<std::path::PathBuf> {
    if let Some(d) = std::env::var_os("CHUNKTUI_CACHE_DIR").filter(|d| !d.is_empty()) {
        return Some(d.into());
    }
    #[cfg(any(feature = "embed", feature = "llm"))]
    let platform = dirs::cache_dir();
    #[cfg(not(any(feature = "embed", feature = "llm")))]
    let platform =
        std::env::var_os("XDG_CACHE_HOME").filter(|d| !d.is_empty()).map(std::path::PathBuf::from).or_else(|| {
            std::env::var_os("HOME").filter(|d| !d.is_empty()).map(|h| std::path::PathBuf::from(h).join(".cache"))
        });
    platform.map(|d| d.join("chunktui"))
}
