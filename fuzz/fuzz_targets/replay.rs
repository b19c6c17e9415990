//! Replay mode shared by every fuzz target when built without cargo-fuzz:
//! each command-line argument is a file or a directory of files, and each
//! file is one input. A saved crash or the kept corpus replays this way.

use std::path::{Path, PathBuf};

/// Feed every input named on the command line to `check`; returns how many.
pub fn replay(check: fn(&[u8])) -> usize {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.is_empty() {
        let me = std::env::args().next().unwrap_or_default();
        eprintln!("usage: {me} DIR_OR_FILE...  (replays each file as one fuzz input)");
        std::process::exit(2);
    }
    let mut n = 0;
    for arg in args {
        for file in inputs(Path::new(&arg)) {
            let data = std::fs::read(&file).unwrap_or_else(|e| panic!("read {}: {e}", file.display()));
            check(&data);
            n += 1;
        }
    }
    n
}

fn inputs(path: &Path) -> Vec<PathBuf> {
    if !path.is_dir() {
        return vec![path.to_path_buf()];
    }
    let entries = std::fs::read_dir(path).unwrap_or_else(|e| panic!("read dir {}: {e}", path.display()));
    let mut files: Vec<PathBuf> = entries.filter_map(|e| e.ok()).map(|e| e.path()).filter(|p| p.is_file()).collect();
    files.sort();
    files
}
