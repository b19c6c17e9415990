//! Extraction: HTML, PDF and Word bytes become plain text plus a [`Structure`],
//! the map from byte ranges of that text back to the source (the element a
//! block came from, the page a stretch of text is on, what kind of block it
//! is). Every strategy chunks the extracted text, so chunk offsets point into
//! it (`chunktui chunk FILE --extracted` prints it); [`Structure::annotate`]
//! then fills `meta.element` / `meta.pages` from the map, whatever strategy
//! cut the chunks. The `html` strategy also reads the blocks through
//! [`crate::strategy::Context::structure`].

pub mod csv;
#[cfg(feature = "docx")]
pub mod docx;
pub mod html;
pub mod json;
pub mod pdf;
#[cfg(feature = "pdf")]
pub mod pdf_guard;

use crate::chunk::Chunk;
use std::ops::Range;

/// Whether `bytes` open like a zip archive (a `.docx` is one).
pub fn is_zip(bytes: &[u8]) -> bool {
    bytes.starts_with(b"PK\x03\x04")
}

/// Whether `bytes` open like an OLE compound file: a password-encrypted
/// `.docx` or an old binary `.doc`, which the Word extractor names as such.
pub fn is_ole(bytes: &[u8]) -> bool {
    bytes.starts_with(&[0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1])
}

/// A Word file's text and structure, or why it cannot be read.
#[cfg(feature = "docx")]
pub fn docx_checked(bytes: &[u8], name: &str) -> crate::error::Result<Extracted> {
    docx::extract(bytes, name)
}

/// Without the `docx` feature a Word file is refused with what to do.
#[cfg(not(feature = "docx"))]
pub fn docx_checked(_bytes: &[u8], name: &str) -> crate::error::Result<Extracted> {
    Err(crate::error::Error::input(format!(
        "{name} is a zip archive (a Word file?); this chunktui was built without the 'docx' feature: \
         rebuild with it, or save the document as text"
    )))
}

/// What a block of extracted text was in the source.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlockKind {
    /// `<h1>`..`<h6>`: the level.
    Heading(u8),
    /// A paragraph, or a run of text directly inside a container.
    Paragraph,
    /// A whole `<ul>` / `<ol>` / `<dl>`, one line per item.
    List,
    /// A whole `<table>`, one line per row.
    Table,
    /// `<pre>`: whitespace kept as it was.
    Preformatted,
}

/// One block of the extracted text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block {
    /// Bytes of the extracted text (never empty, no surrounding blank lines).
    pub range: Range<usize>,
    pub kind: BlockKind,
    /// HTML: the element's path (see [`html`] for the form).
    pub element: Option<String>,
}

/// The map from the extracted text back to its source.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Structure {
    /// In text order, not overlapping; what lies between them is separator
    /// whitespace (blank lines, page breaks).
    pub blocks: Vec<Block>,
    /// PDF: the bytes of each page's text, page 1 first. Empty for HTML.
    pub pages: Vec<Range<usize>>,
    /// Record data (JSONL lines, CSV rows, a JSON array's items): each
    /// record's bytes, in order. The text is then the source itself, so
    /// these are ranges of the file. Empty for documents.
    pub records: Vec<Record>,
    /// What the records are, when there are any.
    pub record_kind: Option<RecordKind>,
    /// CSV / TSV: the header row (the column names), which every chunk's
    /// embed text starts with.
    pub header: Option<Range<usize>>,
    /// CSV / TSV: the field delimiter.
    pub delimiter: Option<u8>,
}

/// What the records of record data are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecordKind {
    /// A JSON document's top-level array items (or the whole document, as
    /// one record, when it is not an array).
    JsonItems,
    /// A JSONL file's lines: each its own JSON document.
    JsonLines,
    /// A CSV or TSV file's data rows.
    CsvRows,
}

/// One record of record data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    /// Bytes of the source, no line break at the end.
    pub range: Range<usize>,
    /// The 1-based line the record starts on.
    pub line: u32,
}

/// Extracted text and its structure.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Extracted {
    pub text: String,
    pub structure: Structure,
}

impl Structure {
    /// The block holding byte `at`, or the first block after it (a byte in
    /// the blank lines between two blocks belongs to the next one).
    pub fn block_at(&self, at: usize) -> Option<&Block> {
        let i = self.blocks.partition_point(|b| b.range.end <= at);
        self.blocks.get(i)
    }

    /// The 1-based pages that `range` of the text spans: from the page holding
    /// (or following) its first byte to the page holding (or preceding) its
    /// last. None when the text has no pages.
    pub fn pages_of(&self, range: &Range<usize>) -> Option<[u32; 2]> {
        let n = self.pages.len();
        if n == 0 {
            return None;
        }
        let first = self.pages.partition_point(|p| p.end <= range.start).min(n - 1) + 1;
        let last_byte = range.end.max(range.start + 1) - 1;
        let last = self.pages.partition_point(|p| p.start <= last_byte).max(1);
        let (first, last) = (first.min(last), last.max(first.min(last)));
        Some([first as u32, last as u32])
    }

    /// Fill `meta.element` (the element the chunk starts in) and `meta.pages`
    /// from this map. What [`crate::chunker::Chunker::chunk_document`] does after any
    /// strategy.
    pub fn annotate(&self, chunks: &mut [Chunk]) {
        for c in chunks {
            let start = c.range.start;
            if let Some(element) = self.block_at(start).and_then(|b| b.element.clone()) {
                c.meta.element = Some(element);
            }
            if let Some(pages) = self.pages_of(&c.range) {
                c.meta.pages = Some(pages);
            }
        }
    }
}

/// Builds extracted text block by block: blocks are separated by one blank
/// line, so every paragraph-aware strategy sees the source's blocks.
#[derive(Default)]
pub(crate) struct TextBuilder {
    pub out: Extracted,
}

impl TextBuilder {
    /// Append `text` as a block (nothing when it is blank); leading and
    /// trailing blank lines are dropped, indentation inside is kept.
    pub fn block(&mut self, text: &str, kind: BlockKind, element: Option<String>) {
        let text = text.trim_end();
        let text = text.trim_start_matches(['\n', '\r']);
        if text.trim().is_empty() {
            return;
        }
        let out = &mut self.out.text;
        if !out.is_empty() {
            out.push_str("\n\n");
        }
        let start = out.len();
        out.push_str(text);
        self.out.structure.blocks.push(Block { range: start..out.len(), kind, element });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pages(ranges: &[Range<usize>]) -> Structure {
        Structure { pages: ranges.to_vec(), ..Structure::default() }
    }

    #[test]
    fn pages_of_a_range_count_from_one_and_skip_the_breaks() {
        // "aaa\n\x0c\nbbb\n\x0c\nccc": pages at 0..3, 6..9, 12..15.
        let s = pages(&[0..3, 6..9, 12..15]);
        assert_eq!(s.pages_of(&(0..3)), Some([1, 1]));
        assert_eq!(s.pages_of(&(6..8)), Some([2, 2]));
        assert_eq!(s.pages_of(&(7..14)), Some([2, 3]));
        // Starting in the break: the next page; ending in one: the page before.
        assert_eq!(s.pages_of(&(4..9)), Some([2, 2]));
        assert_eq!(s.pages_of(&(0..5)), Some([1, 1]));
        // Nothing but a break: one page, never a reversed pair.
        assert_eq!(s.pages_of(&(3..6)), Some([1, 1]));
        assert_eq!(Structure::default().pages_of(&(0..1)), None);
    }

    #[test]
    fn builder_separates_blocks_with_one_blank_line() {
        let mut b = TextBuilder::default();
        b.block("\n\nTitle  \n", BlockKind::Heading(1), Some("h1".into()));
        b.block("   ", BlockKind::Paragraph, None);
        b.block("  indented\n  code", BlockKind::Preformatted, None);
        assert_eq!(b.out.text, "Title\n\n  indented\n  code");
        let blocks = &b.out.structure.blocks;
        assert_eq!(blocks.len(), 2);
        assert_eq!(&b.out.text[blocks[1].range.clone()], "  indented\n  code");
        assert_eq!(b.out.structure.block_at(6).map(|b| b.kind), Some(BlockKind::Preformatted));
    }
}
