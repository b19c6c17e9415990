//! Writing results: chunks as JSON/JSONL records with byte and code-point
//! offsets, and atomic file writes that never leave a half-written file.

use crate::chunk::{Chunk, ChunkMeta};
use crate::document::CharOffsets;
use crate::error::{Error, Result};
use serde::Serialize;
use std::io::Write;
use std::path::Path;

/// One chunk as exported: byte offsets for Rust/Go users, code-point offsets
/// for Python users, the text, and its size in the configured unit.
#[derive(Debug, Serialize)]
pub struct ChunkRecord<'a> {
    pub index: usize,
    pub start: usize,
    pub end: usize,
    pub char_start: usize,
    pub char_end: usize,
    pub size: usize,
    pub text: &'a str,
    pub meta: &'a ChunkMeta,
    /// The chunk's vector (late chunking with `--embeddings`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub embedding: Option<&'a [f32]>,
}

pub fn records<'a>(chunks: &'a [Chunk], text: &'a str) -> Vec<ChunkRecord<'a>> {
    let offsets = CharOffsets::new(text);
    chunks
        .iter()
        .enumerate()
        .map(|(index, c)| ChunkRecord {
            index,
            start: c.range.start,
            end: c.range.end,
            char_start: offsets.at(c.range.start),
            char_end: offsets.at(c.range.end),
            size: c.size,
            text: c.text(text),
            meta: &c.meta,
            embedding: None,
        })
        .collect()
}

/// Write `bytes` to `path` through a temp file in the same folder and a
/// rename, so readers never see a partial file.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name = path.file_name().ok_or_else(|| Error::Io(format!("{} is not a file path", path.display())))?;
    let tmp = dir.join(format!(".{}.tmp{}", name.to_string_lossy(), std::process::id()));
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    result.map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        Error::io(path, &e)
    })
}
