//! The inputs of a run, which no output may replace.
//!
//! Every file chunktui reads through [`crate::input`] (documents, configs,
//! question files, tokenizers, a model's files) is recorded here with what
//! it is, and [`check_output`] refuses a path that names one of them: by
//! its path through symlinks, or by device and inode for hard links and
//! `./doc.md`. Commands check their outputs before any work; the atomic
//! writer checks again at the write, for inputs read after that first check.
//!
//! Lookups are hashed, so a run over a folder of 100,000 files that writes
//! one output per file stays linear.

use crate::error::{Error, Result};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// One input: what it is and the name it was given by.
#[derive(Clone)]
struct Input {
    /// `document`, `config file`, `question file`, ...
    role: &'static str,
    name: String,
    /// The path as given, to look its inode up afresh at a check: once a
    /// document is deleted or renamed over (hot reload), its old inode
    /// number can be reused by an unrelated file.
    path: Option<PathBuf>,
}

#[derive(Default)]
struct Registry {
    by_path: HashMap<PathBuf, Input>,
    by_id: HashMap<(u64, u64), Input>,
}

static INPUTS: Mutex<Option<Registry>> = Mutex::new(None);

fn with_registry<T>(f: impl FnOnce(&mut Registry) -> T) -> T {
    let mut guard = INPUTS.lock().unwrap_or_else(|p| p.into_inner());
    f(guard.get_or_insert_with(Registry::default))
}

/// Record a file read as an input of this run (`role` says what it is).
pub fn protect_path(path: &Path, role: &'static str) {
    let input = Input { role, name: path.display().to_string(), path: Some(path.to_path_buf()) };
    let canonical = canonical(path);
    let id = file_id(path);
    with_registry(|r| {
        if let Some(c) = canonical {
            r.by_path.entry(c).or_insert_with(|| input.clone());
        }
        if let Some(id) = id {
            r.by_id.entry(id).or_insert(input);
        }
    });
}

/// Record standard input when it is redirected from a regular file: the
/// process holds that file open, so its inode stays its own.
pub fn protect_stdin() {
    if let Some(id) = stdin_id() {
        let input = Input { role: "document", name: "standard input reads it".into(), path: None };
        with_registry(|r| {
            r.by_id.entry(id).or_insert(input);
        });
    }
}

/// Check an output path before any work is done: refuse any input of this
/// run. Returns the file the path ends at after its symlinks.
pub fn check_output(path: &Path) -> Result<PathBuf> {
    let target = follow_links(path)?;
    let target_id = file_id(path);
    let canonical = canonical(&target);
    let hit = with_registry(|r| {
        let by_path = canonical.as_ref().and_then(|c| r.by_path.get(c)).cloned();
        // An inode match counts only while the input's own path still has it.
        let by_id = target_id
            .and_then(|id| r.by_id.get(&id).filter(|i| i.path.as_deref().is_none_or(|p| file_id(p) == Some(id))))
            .cloned();
        by_path.or(by_id)
    });
    match hit {
        None => Ok(target),
        Some(input) => {
            let what = match input.role {
                "document" => "the document being chunked".to_string(),
                role => format!("the {role} this run reads"),
            };
            Err(Error::Io(format!(
                "{} is {what} ({}): writing there would destroy it, choose another output path",
                shown(path),
                shown(Path::new(&input.name))
            )))
        }
    }
}

/// A path as it may be printed to a terminal: control characters (an
/// escape sequence in a file name) are shown escaped, never sent raw.
pub fn shown(path: &Path) -> String {
    crate::error::shown_path(path)
}

/// The path with every symlink followed, even to a target that does not
/// exist yet (a dangling link gets its target created, and stays a link).
pub(crate) fn follow_links(path: &Path) -> Result<PathBuf> {
    let mut p = path.to_path_buf();
    for _ in 0..40 {
        match std::fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() => {
                let link = std::fs::read_link(&p)
                    .map_err(|e| Error::Io(format!("{}: cannot read the link: {e}", shown(path))))?;
                // A relative link is relative to the folder holding it.
                p = p.parent().map_or(link.clone(), |dir| dir.join(&link));
            }
            _ => return Ok(p),
        }
    }
    Err(Error::Io(format!("{}: too many levels of symbolic links: give the file itself", shown(path))))
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
