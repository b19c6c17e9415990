//! Writing results: chunks as JSON/JSONL records with byte and code-point
//! offsets. The files themselves are written through [`crate::io`].

use crate::chunk::{Chunk, ChunkMeta};
use crate::document::CharOffsets;
use serde::Serialize;
use std::ops::Range;

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

/// The records of `chunks`, made one at a time as they are written (the
/// output of a large file cut small is many times its size: it is never held).
pub fn records<'a>(chunks: &'a [Chunk], text: &'a str) -> impl Iterator<Item = ChunkRecord<'a>> + 'a {
    let offsets = CharOffsets::new(text);
    chunks.iter().enumerate().map(move |(index, c)| record(index, c, text, &offsets))
}

/// The record of chunk number `index` of `text`.
pub fn record<'a>(index: usize, c: &'a Chunk, text: &'a str, offsets: &CharOffsets<'_>) -> ChunkRecord<'a> {
    ChunkRecord {
        path: None,
        index,
        start: c.range.start,
        end: c.range.end,
        char_start: offsets.at(c.range.start),
        char_end: offsets.at(c.range.end),
        size: c.size,
        text: c.text(text),
        meta: &c.meta,
        embed_text: c.meta.embed.as_ref().map(|e| e.text.as_str()),
        embed_size: c.meta.embed.as_ref().map(|e| e.size),
        embed_tokens: c.meta.embed.as_ref().map(|e| e.tokens),
        embedding: None,
    }
}

/// Each chunk's range in code points (what Python slices with), as the
/// records have it.
pub fn char_ranges<'a>(chunks: &'a [Chunk], text: &'a str) -> impl Iterator<Item = Range<usize>> + 'a {
    let offsets = CharOffsets::new(text);
    chunks.iter().map(move |c| offsets.at(c.range.start)..offsets.at(c.range.end))
}

pub use crate::io::{check_output, protect_input, write_atomic, write_atomic_with, write_error, Produce};
