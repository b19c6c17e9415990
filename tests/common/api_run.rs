//! Running the chunktui binary against an API server (tests/llm_server.rs,
//! tests/embed_api.rs): a cache folder of the test's own, one API key from
//! the environment variable the client reads, `$OPENAI_API_KEY` removed.

use std::path::Path;
use std::process::{Command, Output};
use std::time::Instant;

pub struct Run {
    pub out: Output,
    pub stdout: String,
    pub stderr: String,
    pub seconds: f64,
}

/// `chunktui ARGS` in `dir`, with `key_var=key` and its cache in `dir/cache`.
pub fn chunktui(dir: &Path, args: &[&str], key_var: &str, key: &str) -> Run {
    let started = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_chunktui"))
        .current_dir(dir)
        .args(args)
        .env("CHUNKTUI_CACHE_DIR", dir.join("cache"))
        .env(key_var, key)
        .env_remove("OPENAI_API_KEY")
        .output()
        .expect("run chunktui");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    Run { out, stdout, stderr, seconds: started.elapsed().as_secs_f64() }
}

/// Exit 0 and no panic.
pub fn ok(run: &Run, what: &str) {
    assert!(run.out.status.success(), "{what}: {}", run.stderr);
    assert!(!run.stderr.contains("panicked"), "{what}: {}", run.stderr);
}

/// The first paragraphs of a corpus document up to about `bytes`, cut at a
/// blank line (line ends made `\n`: War and Peace has `\r\n`).
pub fn excerpt(name: &str, bytes: usize) -> String {
    let text = std::fs::read_to_string(super::corpus_file(name)).unwrap().replace("\r\n", "\n");
    let mut end = 0;
    for (i, _) in text.match_indices("\n\n") {
        if i > bytes {
            break;
        }
        end = i + 1;
    }
    text[..end].to_string()
}
