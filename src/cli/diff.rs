//! `chunktui diff A B [FILE…]`: how two chunkings differ. A and B are each a
//! config (chunked here, over every FILE) or a chunk file (JSONL or a JSON
//! list: chunktui's own output, or any tool's records with `start`/`end`
//! and/or `text`). Positions are code points, as Python tools count them.
//! `--fail-on changed` exits 1 when anything differs, for CI.

use super::args::{DiffCmd, FailOn};
use crate::chunker::Chunker;
use crate::config::ChunkConfig;
use crate::diff::{diff, Diff};
use crate::document::{CharOffsets, Document};
use crate::error::{Error, Result};
use crate::input::{read_text_capped, Cap};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::ops::Range;
use std::path::Path;

/// Boundaries listed one per line before the summary stops listing.
const SHOWN: usize = 20;

/// One side of the comparison.
enum Side {
    /// A config's chunker, and whether the config names its embedding model
    /// (if not, each document's language picks it, as for `chunktui chunk`).
    Config(Box<Chunker>, bool),
    /// Records per `path` (None: records without one).
    Records(BTreeMap<Option<String>, Vec<Record>>),
}

/// A chunk record from any tool: offsets, text, or both.
#[derive(Deserialize)]
struct Record {
    #[serde(default)]
    path: Option<String>,
    #[serde(default)]
    start: Option<usize>,
    #[serde(default)]
    end: Option<usize>,
    #[serde(default)]
    char_start: Option<usize>,
    #[serde(default)]
    char_end: Option<usize>,
    /// LangChain's `start_index` metadata, flattened by some exporters.
    #[serde(default)]
    start_index: Option<usize>,
    #[serde(default)]
    text: Option<String>,
}

/// Where a config side's hand-made boundaries are in one file: cuts and
/// joins, as code points (see [`crate::edits`]).
#[derive(Default)]
struct HandMade {
    cuts: Vec<usize>,
    joins: Vec<usize>,
}

/// One file's comparison: its name, the diff, the document when read, and
/// each side's hand-made boundaries.
type Compared = (String, Diff, Option<Document>, [HandMade; 2]);

impl super::args::Run for DiffCmd {
    fn run(self, _: &super::args::ChunkFlags) -> Result<()> {
        run(self)
    }
}

pub fn run(cmd: DiffCmd) -> Result<()> {
    let a = Side::load(&cmd.a)?;
    let b = Side::load(&cmd.b)?;
    let mut results: Vec<Compared> = Vec::new();
    if cmd.files.is_empty() {
        let (Side::Records(ra), Side::Records(rb)) = (&a, &b) else {
            return Err(Error::input(
                "a config side needs the documents to chunk: `chunktui diff A.toml B.toml FILE…`",
            ));
        };
        let keys: std::collections::BTreeSet<&Option<String>> = ra.keys().chain(rb.keys()).collect();
        for key in keys {
            let ranges = |r: &BTreeMap<Option<String>, Vec<Record>>| -> Result<Vec<Range<usize>>> {
                r.get(key).map_or(Ok(Vec::new()), |list| char_ranges(list, None, &display(key)))
            };
            results.push((display(key), diff(&ranges(ra)?, &ranges(rb)?), None, Default::default()));
        }
    } else {
        for file in &cmd.files {
            let doc = Document::load(file, false)?;
            let d = diff(&a.ranges(file, &doc)?, &b.ranges(file, &doc)?);
            let hand = [a.hand_made(&doc), b.hand_made(&doc)];
            results.push((file.display().to_string(), d, Some(doc), hand));
        }
    }
    let changed = results.iter().filter(|(_, d, _, _)| d.changed()).count();
    let out = if cmd.json { json(&results, changed) } else { human(&results, changed, cmd.all) };
    super::output::emit(out.as_bytes(), None)?;
    if changed > 0 && cmd.fail_on == FailOn::Changed {
        return Err(Error::Changed(format!(
            "chunks changed in {changed} of {} file(s) (--fail-on changed)",
            results.len()
        )));
    }
    Ok(())
}

fn display(key: &Option<String>) -> String {
    key.clone().unwrap_or_else(|| "(chunks)".to_string())
}

impl Side {
    fn load(path: &Path) -> Result<Side> {
        let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("").to_ascii_lowercase();
        let config = |path: &Path| -> Result<Side> {
            let config = ChunkConfig::load(path)?;
            Ok(Side::Config(Box::new(Chunker::new(&config)?), config.semantic.model.is_some()))
        };
        if ext == "toml" {
            return config(path);
        }
        let text = read_text_capped(path, &Cap::document())?;
        let trimmed = text.trim_start();
        // A JSON config is one object holding `version`; anything else JSON is chunks.
        if ext == "json" && trimmed.starts_with('{') && ChunkConfig::parse(&text, true).is_ok() {
            return config(path);
        }
        let records = parse_records(&text).map_err(|e| Error::input(format!("{}: {e}", path.display())))?;
        let mut by_path: BTreeMap<Option<String>, Vec<Record>> = BTreeMap::new();
        for r in records {
            by_path.entry(r.path.clone()).or_default().push(r);
        }
        Ok(Side::Records(by_path))
    }

    /// This side's chunks of `file`, as code-point ranges.
    fn ranges(&self, file: &Path, doc: &Document) -> Result<Vec<Range<usize>>> {
        match self {
            Side::Config(chunker, named) => {
                let offsets = CharOffsets::new(&doc.text);
                let chunks = if !*named && chunker.config.strategy.needs_model() {
                    let mut config = chunker.config.clone();
                    super::model::choose(&mut config, None, &[&doc.text]);
                    Chunker::new(&config)?.chunk_document(doc)?
                } else {
                    chunker.chunk_document(doc)?
                };
                Ok(chunks.iter().map(|c| offsets.at(c.range.start)..offsets.at(c.range.end)).collect())
            }
            Side::Records(by_path) => {
                let name = file.display().to_string();
                // Records that name their file are matched by name (or by its
                // last components); records without a path are this file's.
                let list = by_path
                    .iter()
                    .find(|(k, _)| k.as_deref().is_some_and(|p| same_file(p, file)))
                    .or_else(|| by_path.get_key_value(&None))
                    .map(|(_, v)| v)
                    .ok_or_else(|| Error::input(format!("the chunk file has no records for {name}")))?;
                char_ranges(list, Some(&doc.text), &name)
            }
        }
    }
}

impl Side {
    /// A config side's hand-made boundaries in `doc` (none for records).
    fn hand_made(&self, doc: &Document) -> HandMade {
        let Side::Config(chunker, _) = self else { return HandMade::default() };
        let resolved = chunker.resolve_edits(doc);
        let offsets = CharOffsets::new(&doc.text);
        let cp = |list: &[usize]| list.iter().map(|&b| offsets.at(b)).collect();
        HandMade { cuts: cp(&resolved.cuts), joins: cp(&resolved.joins) }
    }
}

/// " (cut by hand in B)" when a boundary at `at` is a side's hand-made one.
fn by_hand(hand: &[HandMade; 2], at: usize) -> String {
    let mut out = String::new();
    for (side, h) in ["A", "B"].iter().zip(hand) {
        if h.cuts.contains(&at) {
            out.push_str(&format!(" (cut by hand in {side})"));
        }
        if h.joins.contains(&at) {
            out.push_str(&format!(" (joined by hand in {side})"));
        }
    }
    out
}

fn same_file(recorded: &str, file: &Path) -> bool {
    let recorded = Path::new(recorded);
    recorded == file || file.ends_with(recorded) || recorded.ends_with(file)
}

/// JSONL, or one JSON list of records.
fn parse_records(text: &str) -> std::result::Result<Vec<Record>, String> {
    if text.trim_start().starts_with('[') {
        return serde_json::from_str(text).map_err(|e| format!("not a JSON list of chunk records: {e}"));
    }
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        out.push(serde_json::from_str(line).map_err(|e| format!("line {}: not a chunk record: {e}", n + 1))?);
    }
    if out.is_empty() {
        return Err("holds no chunk records".into());
    }
    Ok(out)
}

/// Code-point ranges of records. Offsets are taken in this order: chunktui's
/// `char_start`/`char_end`; `start`/`end` (or `start_index`) checked against
/// the text when there is one — as code points, else as bytes; and, for
/// records with text only, the text found in the document after the previous
/// chunk's start.
fn char_ranges(records: &[Record], doc: Option<&str>, name: &str) -> Result<Vec<Range<usize>>> {
    let chars: Option<Vec<usize>> = doc.map(|d| d.char_indices().map(|(i, _)| i).chain([d.len()]).collect());
    let mut out = Vec::with_capacity(records.len());
    let mut search_from = 0usize; // a byte offset into doc
    for (n, r) in records.iter().enumerate() {
        let bad = |why: &str| Error::input(format!("{name}: chunk record {}: {why}", n + 1));
        let text_len = r.text.as_ref().map(|t| t.chars().count());
        let range = if let (Some(s), Some(e)) = (r.char_start, r.char_end) {
            s..e
        } else if let Some(s) = r.start.or(r.start_index) {
            let e = r.end.or(text_len.map(|l| s + l)).ok_or_else(|| bad("has a start but no end or text"))?;
            match (doc, &chars, &r.text) {
                (Some(d), Some(cs), Some(t)) => {
                    let as_chars = cs.get(s).zip(cs.get(e)).and_then(|(&a, &b)| d.get(a..b));
                    if as_chars == Some(t.as_str()) {
                        s..e
                    } else if d.get(s..e) == Some(t.as_str()) {
                        let at = |byte: usize| cs.partition_point(|&c| c < byte);
                        at(s)..at(e)
                    } else {
                        return Err(bad(&format!("its text is not what the document holds at {s}..{e}")));
                    }
                }
                _ => s..e,
            }
        } else if let (Some(d), Some(cs), Some(t)) = (doc, &chars, &r.text) {
            let found = d[search_from..]
                .find(t.as_str())
                .ok_or_else(|| bad("has no offsets and its text is not in the document (after the previous chunk)"))?;
            let byte = search_from + found;
            search_from = crate::size::ceil_char_boundary(d, (byte + 1).min(d.len()));
            let at = |byte: usize| cs.partition_point(|&c| c < byte);
            at(byte)..at(byte + t.len())
        } else {
            return Err(bad(
                "has neither offsets (start/end, char_start/char_end) nor text with a document to find it in",
            ));
        };
        if range.start > range.end || chars.as_ref().is_some_and(|cs| range.end >= cs.len()) {
            return Err(bad(&format!("offsets {}..{} are past the end of the document", range.start, range.end)));
        }
        out.push(range);
    }
    Ok(out)
}

fn human(results: &[Compared], changed: usize, all: bool) -> String {
    let mut out = String::new();
    for (name, d, doc, hand) in results {
        out.push_str(&format!("{name}: {}\n", d.summary()));
        let line_of = |cp: usize| -> String {
            doc.as_ref().map_or(String::new(), |doc| {
                let byte = doc.text.char_indices().nth(cp).map_or(doc.text.len(), |(i, _)| i);
                format!("  (line {})", doc.text[..byte].matches('\n').count() + 1)
            })
        };
        let mut lines: Vec<(usize, String)> = Vec::new();
        for &(from, to) in &d.moved {
            let delta = to as i64 - from as i64;
            let why = format!("{}{}", by_hand(hand, from), by_hand(hand, to));
            lines.push((from, format!("  moved    {from} → {to} ({delta:+}){}{why}", line_of(to))));
        }
        lines.extend(d.added.iter().map(|&at| (at, format!("  added    {at}{}{}", line_of(at), by_hand(hand, at)))));
        lines.extend(d.removed.iter().map(|&at| (at, format!("  removed  {at}{}{}", line_of(at), by_hand(hand, at)))));
        lines.sort();
        let shown = if all { lines.len() } else { SHOWN.min(lines.len()) };
        for (_, line) in &lines[..shown] {
            out.push_str(line);
            out.push('\n');
        }
        if shown < lines.len() {
            out.push_str(&format!("  … {} more (--all lists them)\n", lines.len() - shown));
        }
    }
    if results.len() > 1 {
        out.push_str(&format!("{} files: {changed} changed, {} identical\n", results.len(), results.len() - changed));
    }
    out
}

fn json(results: &[Compared], changed: usize) -> String {
    #[derive(serde::Serialize)]
    struct File<'a> {
        path: &'a str,
        changed: bool,
        #[serde(flatten)]
        diff: &'a Diff,
    }
    let files: Vec<File<'_>> =
        results.iter().map(|(path, diff, _, _)| File { path, changed: diff.changed(), diff }).collect();
    let value = serde_json::json!({ "changed": changed, "files": files });
    format!("{}\n", serde_json::to_string_pretty(&value).expect("plain data serialises"))
}
