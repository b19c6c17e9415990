//! A temporary directory for the CLI tests' documents, configs and outputs,
//! removed when dropped.

use std::path::{Path, PathBuf};

pub struct Dir(tempfile::TempDir);

impl Dir {
    pub fn new() -> Self {
        Dir(tempfile::tempdir().expect("create a temporary directory"))
    }

    /// The directory itself.
    pub fn root(&self) -> &Path {
        self.0.path()
    }

    /// `name` inside the directory.
    pub fn path(&self, name: &str) -> PathBuf {
        self.0.path().join(name)
    }

    /// Write `bytes` to `name` and return its path as a string (for arguments).
    pub fn write(&self, name: &str, bytes: &[u8]) -> String {
        let path = self.path(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).unwrap_or_else(|e| panic!("mkdir {}: {e}", parent.display()));
        }
        std::fs::write(&path, bytes).unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
        path.to_str().expect("temporary paths are UTF-8").to_string()
    }

    /// The names in the directory, sorted: to prove a failed run wrote nothing.
    pub fn entries(&self) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(self.root())
            .expect("read the temporary directory")
            .map(|e| e.expect("directory entry").file_name().to_string_lossy().into())
            .collect();
        names.sort();
        names
    }
}

/// Every file under `root`, at any depth (what a run wrote: outputs, caches).
pub fn files_under(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out
}
