//! A chunk is a byte range into the original text plus metadata. Overlap is
//! derived from neighbouring ranges, never stored.

use serde::{Deserialize, Serialize};
use std::ops::Range;

#[derive(Debug, Clone, PartialEq)]
pub struct Chunk {
    /// Byte range into the original document text; always on char boundaries.
    pub range: Range<usize>,
    /// Size in the configured unit (chars, words or tokens).
    pub size: usize,
    pub meta: ChunkMeta,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ChunkMeta {
    /// Heading path of the section the chunk belongs to, outermost first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub headings: Vec<String>,
    /// The chunk text when it is not a verbatim slice of the source. Only the
    /// LangChain-compatible strategies produce such chunks (their joins and
    /// decodes rewrite text); `range` is then where LangChain's own
    /// `add_start_index` would place it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Free-form key/value metadata (LangChain header metadata, ...).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fields: Vec<(String, String)>,
    /// Source code: the symbols enclosing the chunk, outermost first
    /// (`impl Searcher`, `fn find`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub symbols: Vec<String>,
    /// HTML: the element path of the section the chunk starts in, which maps
    /// its offsets (into the extracted text) back to the page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub element: Option<String>,
    /// PDF: the first and last page the chunk's text comes from, 1-based.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pages: Option<[u32; 2]>,
    /// Hierarchical chunks: an id stable across runs of the same config on
    /// the same text, the id of the enclosing chunk one level up (absent at
    /// the top), and the level (0 = the largest).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<u8>,
    /// Contextual text (`[embed_text]`): what a pipeline should embed for this
    /// chunk. Exported next to the text (`embed_text`, `embed_size`,
    /// `embed_tokens` in a record), not inside `meta`.
    #[serde(skip)]
    pub embed: Option<EmbedText>,
}

/// The text to embed for a chunk and its sizes (see [`crate::contextual`]).
#[derive(Debug, Clone, PartialEq)]
pub struct EmbedText {
    pub text: String,
    /// In the config's unit, as `Chunk::size` is.
    pub size: usize,
    /// In the config's tokenizer's tokens, whatever the unit.
    pub tokens: usize,
}

impl Chunk {
    pub fn new(range: Range<usize>, size: usize) -> Self {
        Chunk { range, size, meta: ChunkMeta::default() }
    }

    /// The chunk's text: the source slice, or the rewritten text of a
    /// LangChain-compatible chunk.
    pub fn text<'a>(&'a self, source: &'a str) -> &'a str {
        match &self.meta.text {
            Some(t) => t,
            None => &source[self.range.clone()],
        }
    }

    /// The chunk's text, or None when its range does not fit `source` (a
    /// chunk held against another text than the one it was cut from). What
    /// code that cannot prove the pairing (the workbench's views) calls.
    pub fn checked_text<'a>(&'a self, source: &'a str) -> Option<&'a str> {
        match &self.meta.text {
            Some(t) => Some(t),
            None => source.get(self.range.clone()),
        }
    }

    /// Bytes this chunk shares with the next one (0 when they do not overlap).
    pub fn overlap_bytes(&self, next: &Chunk) -> usize {
        self.range.end.saturating_sub(next.range.start).min(next.range.len())
    }
}

/// The byte ranges that neighbouring chunks share, in order.
pub fn overlaps(chunks: &[Chunk]) -> Vec<Range<usize>> {
    chunks
        .windows(2)
        .filter(|w| w[0].range.end > w[1].range.start)
        .map(|w| w[1].range.start..w[0].range.end.min(w[1].range.end))
        .collect()
}
