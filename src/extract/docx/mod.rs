//! Word (`.docx`) to text with the structure kept: paragraphs, headings,
//! lists and tables in document order, each a block of the extracted text
//! (blocks a blank line apart, as for HTML and PDF), so chunk offsets point
//! into the text `chunktui chunk FILE --extracted` prints. docs/word.md is
//! the user's account of what follows.
//!
//! **Crates.** The zip container is read with `zip` (deflate only, through
//! flate2) and the XML parts with `quick-xml`'s namespace-aware event
//! reader; no dedicated docx crate. `docx-rs` parses the whole document
//! into its own tree (recursively, and with no bound on inflation, so a
//! bomb or deep nesting is its runaway, not ours), drops what it does not
//! model, and gives no way to map text back to `w:body` children;
//! `docx-lite`/`dotext` keep no structure. Reading the few elements that
//! matter from the event stream keeps every limit here, in one pass, in
//! memory proportional to the text.
//!
//! **What is read.** The body of the main document part only (not headers,
//! footers, footnotes, endnotes or comments), including content controls
//! (`w:sdt`), custom XML, hyperlinks, simple fields' results, inserted
//! tracked changes (`w:ins`, `w:moveTo`) and equations' text (`m:t`).
//! Skipped: deleted and moved-away text (`w:del`, `w:delText`,
//! `w:moveFrom`), field codes (`w:instrText`), ruby guide text (`w:rt`)
//! and the old properties of tracked changes. Of an `mc:AlternateContent`
//! only the first `mc:Choice` is read (the `mc:Fallback` when there is no
//! Choice), so nothing is doubled. Text boxes are included: each of their
//! paragraphs is a line of the paragraph that anchors the box. `w:tab` is a
//! tab, `w:br` / `w:cr` a line break, `w:noBreakHyphen` a `-`.
//!
//! **Blocks.** A paragraph is a block (its blank lines dropped); a heading
//! is a `Heading(level)` block (see [`styles`] for how a paragraph is found
//! to be one and [`levels`] for its level; a chapter number and the chapter
//! title right after it are one heading of two lines); consecutive list paragraphs
//! (`w:numPr` on the paragraph or its style, `w:numId` not 0) are one
//! `List` block, an item a line, indented two spaces per `w:ilvl`, marked
//! `- ` or with its number as numbering.xml formats it (`1.`, `a.`, `iv.`);
//! a table is one `Table` block, a row a line, cells joined by ` | ` (as
//! for HTML), a cell's paragraphs and nested tables flattened onto its line.
//!
//! **Element paths.** `Block::element` is the XPath of the block's element
//! under `w:document` without prefixes: `body/p[17]`, `body/tbl[2]`,
//! `body/sdt[1]/sdtContent/p[3]` (the 17th `w:p` child of the body, ...).
//! A list's path is its first item's; a text box's text is in its anchor's.
//!
//! **Limits.** See [`package`]: not a zip, an OLE file (an encrypted
//! `.docx` or an old `.doc`), a damaged zip, encrypted entries, more than
//! [`package::MAX_ENTRIES`] entries, parts inflating past the document
//! limit (`--max-input-mb`, 1 GiB by default) in all, malformed XML and
//! elements nested deeper than [`xml::MAX_DEPTH`] are each one line.

mod body;
pub mod package;
pub mod styles;
pub mod xml;

#[cfg(test)]
mod tests;

use super::{BlockKind, Extracted};
use crate::error::{Error, Result};

/// Extract the text and structure of the `.docx` in `bytes`; `name` is used
/// in messages. Inflation is limited by the process's document limit.
pub fn extract(bytes: &[u8], name: &str) -> Result<Extracted> {
    extract_limited(bytes, name, crate::input::Cap::document().bytes)
}

/// [`extract`] with the parts allowed to inflate to `limit` bytes in all.
pub fn extract_limited(bytes: &[u8], name: &str, limit: u64) -> Result<Extracted> {
    let mut pkg = package::Package::open(bytes, name, limit)?;
    let main = pkg.main_part()?;
    let dir = main.rsplit_once('/').map_or("", |(d, _)| d);
    let beside = |file: &str| if dir.is_empty() { file.to_string() } else { format!("{dir}/{file}") };
    let document = pkg.part(&main)?.ok_or_else(|| Error::input(format!("{name}: {main} cannot be read")))?;
    let styles_path = beside("styles.xml");
    let styles = match pkg.part(&styles_path)? {
        Some(b) => styles::Styles::parse(&b, &styles_path, name)?,
        None => styles::Styles::default(),
    };
    let numbering_path = beside("numbering.xml");
    let numbering = match pkg.part(&numbering_path)? {
        Some(b) => styles::Numbering::parse(&b, &numbering_path, name)?,
        None => styles::Numbering::default(),
    };
    let mut walker = body::Walker::new(&styles, &numbering);
    walker.walk(&mut xml::Xml::new(&document, &main, name))?;
    let headings = std::mem::take(&mut walker.headings);
    let mut out = std::mem::take(&mut walker.b.out);
    levels(&mut out, &headings);
    if out.text.trim().is_empty() {
        return Err(Error::input(format!(
            "{name} holds no text in its body (empty, or only images, charts or headers): there is nothing to chunk"
        )));
    }
    Ok(out)
}

/// Heading levels from ranks: the distinct ranks the document's headings
/// have, in order, are levels 1, 2, 3... (past 6 all are 6). A document with
/// `Title`, `heading 1` and `heading 2` has them at 1, 2, 3; one with
/// `ChapterTitle`, `HeadA` and `HeadB` at 1, 2, 3; one with only `heading
/// 2` and `heading 3` at 1 and 2.
pub fn levels(out: &mut Extracted, headings: &[(usize, u8)]) {
    let mut ranks: Vec<u8> = headings.iter().map(|h| h.1).collect();
    ranks.sort_unstable();
    ranks.dedup();
    for &(block, rank) in headings {
        let level = ranks.partition_point(|&r| r < rank) + 1;
        if let Some(b) = out.structure.blocks.get_mut(block) {
            b.kind = BlockKind::Heading(level.min(6) as u8);
        }
    }
}
