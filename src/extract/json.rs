//! JSON and JSONL input. Unlike HTML or PDF nothing is extracted: the text
//! is the file itself, so every chunk is an exact range of it. What loading
//! adds is the records ([`super::Record`]): a JSONL file's lines, a JSON
//! array's items, which `document` keeps one to a chunk and `stats` measures.
//!
//! Two parsers, each for what it does well: serde_json checks the text
//! (strict JSON, a clear line and column on error, nesting held to 128 levels
//! so that a bracket bomb is refused rather than overflowing a stack), then
//! jsonc-parser gives every value's byte range, which serde_json does not
//! keep. The second parse only ever sees text the first accepted.

use super::{Record, Structure};
use crate::error::{Error, Result};
use jsonc_parser::ast::Value;
use std::ops::Range;

/// The parsed tree of `text`, every node with its byte range. `name` is
/// used in messages.
pub fn parse<'t>(text: &'t str, name: &str) -> Result<Value<'t>> {
    check(text).map_err(|e| Error::input(format!("{name} is not valid JSON: {e}")))?;
    tree(text).map_err(|e| Error::input(format!("{name} could not be read as JSON: {e}")))
}

/// [`parse`] of text that loading checked already when `checked` (a `.json`
/// file's whole text, a JSONL file's line: see [`loaded`]): the tree alone,
/// without checking it again.
pub fn parse_loaded<'t>(text: &'t str, name: &str, checked: bool) -> Result<Value<'t>> {
    if !checked {
        return parse(text, name);
    }
    tree(text).map_err(|e| Error::input(format!("{name} could not be read as JSON: {e}")))
}

/// Whether loading checked the JSON of the text `structure` describes: a
/// JSON file whole, a JSONL file line by line.
pub fn loaded(structure: Option<&Structure>) -> bool {
    structure
        .is_some_and(|s| matches!(s.record_kind, Some(super::RecordKind::JsonItems | super::RecordKind::JsonLines)))
}

/// How deep arrays and objects may nest (serde_json's own limit for values).
pub const MAX_DEPTH: usize = 128;

/// Strict JSON, at most [`MAX_DEPTH`] levels deep.
fn check(text: &str) -> std::result::Result<(), String> {
    if let Some(at) = too_deep(text.as_bytes()) {
        let (line, column) = crate::input::line_col(&text.as_bytes()[..at]);
        return Err(format!("it nests deeper than {MAX_DEPTH} levels at line {line} column {column}"));
    }
    serde_json::from_str::<serde::de::IgnoredAny>(text).map(|_| ()).map_err(|e| e.to_string())
}

/// Where brackets outside strings first open more than [`MAX_DEPTH`]
/// levels, if they do (checked before any parser recurses).
fn too_deep(bytes: &[u8]) -> Option<usize> {
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    for (i, &b) in bytes.iter().enumerate() {
        if in_string {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                if depth > MAX_DEPTH {
                    return Some(i);
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    None
}

/// jsonc-parser's tree with everything JSON does not allow turned off.
fn tree(text: &str) -> std::result::Result<Value<'_>, String> {
    let options = jsonc_parser::ParseOptions {
        allow_comments: false,
        allow_loose_object_property_names: false,
        allow_trailing_commas: false,
        allow_missing_commas: false,
        allow_single_quoted_strings: false,
        allow_hexadecimal_numbers: false,
        allow_unary_plus_numbers: false,
        allow_bare_decimal_point_numbers: false,
        allow_non_finite_numbers: false,
        allow_extended_string_escapes: false,
    };
    let parsed = jsonc_parser::parse_to_ast(text, &Default::default(), &options).map_err(|e| e.to_string())?;
    parsed.value.ok_or_else(|| "it holds no value".to_string())
}

/// The byte range of a node.
pub fn range_of(value: &Value<'_>) -> Range<usize> {
    use jsonc_parser::common::Ranged;
    let r = value.range();
    r.start..r.end
}

/// A JSON file's structure: the items of a top-level array are its
/// records; any other document has none (it is one document).
pub fn json_structure(text: &str, name: &str) -> Result<Structure> {
    check(text).map_err(|e| Error::input(format!("{name} is not valid JSON: {e}")))?;
    let lines = LineIndex::new(text);
    // The items alone, as borrowed slices of the text: no tree of a file
    // of megabytes is built just to find them.
    let items = match text.trim_start().starts_with('[') {
        true => serde_json::from_str::<Vec<&serde_json::value::RawValue>>(text)
            .map_err(|e| Error::input(format!("{name} is not valid JSON: {e}")))?,
        false => Vec::new(),
    };
    let start_of = |raw: &serde_json::value::RawValue| raw.get().as_ptr() as usize - text.as_ptr() as usize;
    let records = items
        .iter()
        .map(|raw| {
            let start = start_of(raw);
            lines.record(start..start + raw.get().len())
        })
        .collect();
    Ok(Structure { records, record_kind: Some(super::RecordKind::JsonItems), ..Structure::default() })
}

/// A JSONL file's structure: one record per non-blank line, each checked
/// to be one JSON value.
pub fn jsonl_structure(text: &str, name: &str) -> Result<Structure> {
    let mut records = Vec::new();
    let mut start = 0;
    for (i, line) in text.split_inclusive('\n').enumerate() {
        let body = line.trim_end_matches(['\n', '\r']);
        let trimmed = body.trim();
        if !trimmed.is_empty() {
            check(trimmed).map_err(|e| {
                Error::input(format!(
                    "{name} line {} is not one JSON value ({e}): JSONL holds one JSON value per line \
                     (a file holding one JSON document should be named .json)",
                    i + 1
                ))
            })?;
            let lead = body.len() - body.trim_start().len();
            let from = start + lead;
            records.push(Record { range: from..from + trimmed.len(), line: (i + 1) as u32 });
        }
        start += line.len();
    }
    if records.is_empty() {
        return Err(Error::input(format!("{name} holds no JSON lines: there is nothing to chunk")));
    }
    Ok(Structure { records, record_kind: Some(super::RecordKind::JsonLines), ..Structure::default() })
}

/// Line numbers of byte offsets, by binary search over the line starts.
pub(crate) struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    pub fn new(text: &str) -> Self {
        let starts = std::iter::once(0).chain(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1)).collect();
        LineIndex { starts }
    }

    /// The 1-based line holding byte `at`.
    pub fn line(&self, at: usize) -> u32 {
        self.starts.partition_point(|&s| s <= at) as u32
    }

    fn record(&self, range: Range<usize>) -> Record {
        Record { line: self.line(range.start), range }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_point_into_the_source() {
        let text = "{\"a\": [1, {\"b\": \"中文\"}], \"c\": null}";
        let Value::Object(obj) = parse(text, "x").unwrap() else { panic!("an object") };
        let a = &obj.properties[0].value;
        assert_eq!(&text[range_of(a)], "[1, {\"b\": \"中文\"}]");
        assert_eq!(&text[range_of(&obj.properties[1].value)], "null");
    }

    #[test]
    fn what_json_does_not_allow_is_refused_with_a_place() {
        for bad in ["{\"a\": 1,}", "// c\n{}", "{a: 1}", "[NaN]", "['x']", "[1] [2]", "[0x1]"] {
            let err = parse(bad, "f.json").unwrap_err().to_string();
            assert!(err.starts_with("f.json is not valid JSON") && err.contains("line"), "{bad}: {err}");
        }
        let deep = "[".repeat(100_000) + &"]".repeat(100_000);
        let err = parse(&deep, "deep.json").unwrap_err().to_string();
        assert!(err.contains("deeper than 128 levels at line 1 column 129"), "{err}");
        let fine = "[".repeat(128) + &"]".repeat(128);
        assert!(parse(&fine, "ok.json").is_ok());
        assert!(parse("[\"[[[[\\\"\"]", "s.json").is_ok(), "brackets in strings do not count");
    }

    #[test]
    fn jsonl_records_are_lines_and_blank_lines_are_skipped() {
        let text = "{\"q\": 1}\n\n  {\"q\": \"二\"}  \r\n[3]";
        let s = jsonl_structure(text, "x.jsonl").unwrap();
        let got: Vec<_> = s.records.iter().map(|r| (&text[r.range.clone()], r.line)).collect();
        assert_eq!(got, [("{\"q\": 1}", 1), ("{\"q\": \"二\"}", 3), ("[3]", 4)]);
        let err = jsonl_structure("{}\n{\"a\": }\n", "x.jsonl").unwrap_err().to_string();
        assert!(err.contains("line 2"), "{err}");
    }

    #[test]
    fn a_top_level_array_has_its_items_as_records() {
        let text = "[\n {\"id\": 1},\n {\"id\": 2}\n]";
        let s = json_structure(text, "x.json").unwrap();
        let lines: Vec<_> = s.records.iter().map(|r| r.line).collect();
        assert_eq!(lines, [2, 3]);
        assert!(json_structure("{\"k\": 1}", "x").unwrap().records.is_empty());
    }
}
