//! A chunk is a byte range into the original text plus metadata. Overlap is
//! derived from neighbouring ranges, never stored.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::ops::{Deref, DerefMut, Range};

#[derive(Debug, Clone, PartialEq)]
pub struct Chunk {
    /// Byte range into the original document text; always on char boundaries.
    pub range: Range<usize>,
    /// Size in the configured unit (chars, words or tokens).
    pub size: usize,
    pub meta: Meta,
}

/// A chunk's metadata, stored only when it holds something. Most chunks
/// carry none, and a large file cut small makes tens of millions of chunks:
/// an inline [`ChunkMeta`] is ~240 bytes, this is one pointer. Reads see an
/// empty `ChunkMeta` when nothing is stored; the first write stores one.
#[derive(Clone, Default)]
pub struct Meta(Option<Box<ChunkMeta>>);

static NO_META: ChunkMeta = ChunkMeta::EMPTY;

impl Meta {
    /// The metadata by value (empty when nothing is stored).
    pub fn into_inner(self) -> ChunkMeta {
        self.0.map_or(ChunkMeta::EMPTY, |b| *b)
    }

    pub fn is_empty(&self) -> bool {
        self.0.as_deref().is_none_or(|m| *m == NO_META)
    }
}

impl Deref for Meta {
    type Target = ChunkMeta;
    fn deref(&self) -> &ChunkMeta {
        self.0.as_deref().unwrap_or(&NO_META)
    }
}

impl DerefMut for Meta {
    fn deref_mut(&mut self) -> &mut ChunkMeta {
        self.0.get_or_insert_with(Box::default)
    }
}

impl From<ChunkMeta> for Meta {
    fn from(meta: ChunkMeta) -> Self {
        Meta((meta != NO_META).then(|| Box::new(meta)))
    }
}

impl PartialEq for Meta {
    fn eq(&self, other: &Meta) -> bool {
        **self == **other
    }
}

impl std::fmt::Debug for Meta {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        (**self).fmt(f)
    }
}

impl Serialize for Meta {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        (**self).serialize(s)
    }
}

impl<'de> Deserialize<'de> for Meta {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        ChunkMeta::deserialize(d).map(Meta::from)
    }
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
    /// JSON: the values the chunk holds, as a JSONPath into the source
    /// (`$.corpora.finance[3:7]`: members 3 to 6 of that array).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub json_path: Option<String>,
    /// JSONL: the 1-based line of the record the chunk comes from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    /// CSV / TSV: the header row (the column names) the chunk's rows are
    /// read under; its embed text starts with it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub header: Option<String>,
    /// CSV / TSV: the first and last data row the chunk holds, 1-based,
    /// the header not counted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rows: Option<[u32; 2]>,
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

impl ChunkMeta {
    /// No metadata at all (what `Default` gives, usable in a `static`).
    pub const EMPTY: ChunkMeta = ChunkMeta {
        headings: Vec::new(),
        text: None,
        fields: Vec::new(),
        symbols: Vec::new(),
        element: None,
        pages: None,
        json_path: None,
        line: None,
        header: None,
        rows: None,
        id: None,
        parent_id: None,
        level: None,
        embed: None,
    };
}

/// Longest label kept in a chunk's metadata (a heading path entry, a code
/// symbol): a one-line file whose first line is a heading would otherwise
/// copy the whole file into every chunk's `meta.headings`.
pub const MAX_LABEL_CHARS: usize = 200;

/// `raw` as a metadata label: whitespace runs as one space, at most
/// `max_chars` chars, cut ones marked with a trailing `…`. Reads no further
/// into `raw` than the label needs.
pub fn label(raw: &str, max_chars: usize) -> String {
    let mut out = String::new();
    let mut chars = 0;
    for (i, word) in raw.split_whitespace().enumerate() {
        for c in (i > 0).then_some(' ').into_iter().chain(word.chars()) {
            if chars == max_chars {
                out.truncate(out.trim_end().len());
                out.push('…');
                return out;
            }
            out.push(c);
            chars += 1;
        }
    }
    out
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
        Chunk { range, size, meta: Meta::default() }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_squeeze_whitespace_and_stop_at_the_limit() {
        assert_eq!(label("  Install \n the   tool ", 80), "Install the tool");
        assert_eq!(label("安装　工具", 80), "安装 工具", "an ideographic space is whitespace too");
        assert_eq!(label("abcdef", 6), "abcdef");
        assert_eq!(label("abcdefg", 6), "abcdef…");
        assert_eq!(label("abcde fg", 6), "abcde…", "no space before the mark");
        assert_eq!(label("第一章　开始了很长的故事", 4), "第一章…");
        let huge = "word ".repeat(2_000_000);
        let cut = label(&huge, MAX_LABEL_CHARS);
        assert!(cut.ends_with("word…") && cut.chars().count() <= MAX_LABEL_CHARS + 1, "{cut}");
    }
}
