//! The whole document as one chunk: the baseline every other strategy is
//! measured against (and what a small file often needs). Record data (a
//! JSONL file's lines, a CSV file's rows, a JSON array's items) is a chunk
//! per record: each record is a document of its own, and when records are
//! short, cutting them further only hurts (`chunktui stats` says when).

use super::{ranges_to_chunks, sized, Context, OverlapRule, SizeRule, Spec, Strategy};
use crate::chunk::Chunk;
use crate::error::Result;
use crate::extract::{RecordKind, Structure};

pub const SPEC: Spec = Spec {
    name: "document",
    help: "the whole file as one chunk, byte for byte (a baseline); JSON, JSONL and CSV: a chunk per record",
    needs_model: false,
    needs_llm: false,
    size: SizeRule::Ignored,
    overlap: OverlapRule::None,
    has_threshold: false,
    forces_unit: None,
    options: &[],
    option: None,
    recut: None,
    formats: &[],
    build: |_| Ok(Box::new(Whole)),
};

struct Whole;

impl Strategy for Whole {
    fn chunk(&self, text: &str, cx: &Context<'_>) -> Result<Vec<Chunk>> {
        if let Some(structure) = cx.structure.filter(|s| s.record_kind.is_some() && !s.records.is_empty()) {
            return records(text, structure, cx);
        }
        // Nothing at all for blank text.
        let whole = if text.trim().is_empty() { Vec::new() } else { std::iter::once(0..text.len()).collect() };
        Ok(ranges_to_chunks(whole, &cx.sizer.index(text)?))
    }
}

/// A chunk per record, with what says where it is: its line (JSONL), its
/// row and header (CSV), its index (a JSON array's item).
fn records(text: &str, structure: &Structure, cx: &Context<'_>) -> Result<Vec<Chunk>> {
    let index = cx.size_index(text)?;
    let header = structure.header.clone().map(|r| text[r].to_string());
    let chunks = structure.records.iter().enumerate().map(|(i, record)| {
        let mut c = sized(record.range.clone(), &index);
        match structure.record_kind {
            Some(RecordKind::JsonLines) => c.meta.line = Some(record.line),
            Some(RecordKind::CsvRows) => {
                c.meta.header = header.clone();
                c.meta.rows = Some([i as u32 + 1; 2]);
            }
            Some(RecordKind::JsonItems) => c.meta.json_path = Some(format!("$[{i}]")),
            None => {}
        }
        c
    });
    Ok(chunks.collect())
}
