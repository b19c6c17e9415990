//! Answers kept on disk, one small JSON file each under
//! `<cache>/llm/<2 hex>/<64 hex>.json`, keyed by the request as the user
//! asked it: the endpoint, the model, the messages, the reply schema and the
//! sampling settings. Never the key: nothing of it reaches the hash or the
//! file. The same settings a second time send nothing and work with the
//! server down; an interrupted run keeps every answer it got.

use crate::error::Result;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::path::PathBuf;

#[derive(Debug, Clone)]
pub struct Cache {
    dir: PathBuf,
}

#[derive(Serialize, Deserialize)]
struct Entry {
    content: String,
}

impl Cache {
    /// The cache under chunktui's cache folder, or `None` when the system has
    /// none (then every request goes to the server).
    pub fn open() -> Option<Cache> {
        crate::io::cache_dir().map(|d| Cache { dir: d.join("llm") })
    }

    /// A cache in `dir` (tests).
    pub fn at(dir: PathBuf) -> Cache {
        Cache { dir }
    }

    /// The hex key of a request's parts.
    pub fn key(parts: &[&str]) -> String {
        let mut h = Sha256::new();
        for p in parts {
            // Length-prefixed, so ("ab", "c") and ("a", "bc") differ.
            h.update((p.len() as u64).to_le_bytes());
            h.update(p.as_bytes());
        }
        h.finalize().iter().map(|b| format!("{b:02x}")).collect()
    }

    fn path(&self, key: &str) -> PathBuf {
        self.dir.join(&key[..2]).join(format!("{key}.json"))
    }

    pub fn get(&self, key: &str) -> Option<String> {
        let bytes = std::fs::read(self.path(key)).ok()?;
        serde_json::from_slice::<Entry>(&bytes).ok().map(|e| e.content)
    }

    /// Keep an answer. A cache that cannot be written costs a re-request
    /// next time, not this run: the error is returned for the caller to
    /// ignore or report.
    pub fn put(&self, key: &str, content: &str) -> Result<()> {
        let json = serde_json::to_vec(&Entry { content: content.to_string() }).expect("a string serialises");
        self.put_raw(&self.path(key), &json)
    }

    /// Where the reply format a server accepts is kept (`key` names the server).
    pub fn format_file(&self, key: &str) -> PathBuf {
        self.dir.join("formats").join(key)
    }

    /// Write `bytes` to `path` (under the cache), its folder created.
    pub fn put_raw(&self, path: &std::path::Path, bytes: &[u8]) -> Result<()> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| crate::error::Error::io_write(dir, &e))?;
        }
        crate::io::write_atomic(path, bytes)
    }
}
