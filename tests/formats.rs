//! Record data in: JSON, JSONL, CSV and TSV. The `json` strategy's chunks
//! are exact source ranges of whole values and never cut a string that
//! fits; JSONL keeps a record per chunk; CSV rows stay whole with the header
//! in front of every chunk's embed text; `stats` says when records need no
//! chunking; bad data is one clear line.

mod common;

use chunktui::chunk::Chunk;
use chunktui::config::{ChunkConfig, StrategyKind, Unit};
use chunktui::extract::json::{parse, range_of};
use chunktui::{Chunker, Document};
use jsonc_parser::ast::Value as Node;
use proptest::prelude::*;
use serde_json::{json, Value};
use std::ops::Range;
use std::process::{Command, Output};

fn chunktui(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_chunktui")).args(args).output().expect("run chunktui")
}

fn cut(doc: &Document, strategy: StrategyKind, unit: Unit, size: usize) -> Vec<Chunk> {
    let mut config = ChunkConfig { strategy, unit, size, overlap: 0, ..ChunkConfig::default() };
    config.normalize();
    Chunker::new(&config).unwrap().chunk_document(doc).unwrap()
}

fn doc(name: &str, text: &str) -> Document {
    Document::from_named_bytes(text.as_bytes().to_vec(), name, false).unwrap()
}

/// Every string literal's byte range in `text`.
fn strings(text: &str) -> Vec<Range<usize>> {
    fn walk(node: &Node<'_>, out: &mut Vec<Range<usize>>) {
        match node {
            Node::StringLit(_) => out.push(range_of(node)),
            Node::Array(a) => a.elements.iter().for_each(|e| walk(e, out)),
            Node::Object(o) => o.properties.iter().for_each(|p| walk(&p.value, out)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(&parse(text, "test").unwrap(), &mut out);
    out
}

/// Whole values: the chunk parses as a value, as a list of items or as an
/// object's members.
fn whole_values(chunk: &str) -> bool {
    let parses = |s: &str| serde_json::from_str::<serde::de::IgnoredAny>(s).is_ok();
    parses(chunk) || parses(&format!("[{chunk}]")) || parses(&format!("{{{chunk}}}"))
}

/// The `json` strategy's promises on `text` cut at `size` in `unit`.
fn check_json(text: &str, unit: Unit, size: usize) -> Result<(), String> {
    let d = doc("data.json", text);
    let chunks = cut(&d, StrategyKind::Json, unit, size);
    let sizer = common::sizer(unit);
    let strings = strings(text);
    let oversize_string = |r: &Range<usize>| {
        strings.iter().any(|s| s.start < r.start && r.end < s.end && sizer.size(&text[s.clone()]) > size)
            || strings.iter().any(|s| s.start <= r.start && r.end <= s.end && sizer.size(&text[s.clone()]) > size)
    };
    let mut last_end = 0;
    for c in &chunks {
        let r = c.range.clone();
        if c.meta.text.is_some() || !text.is_char_boundary(r.start) || !text.is_char_boundary(r.end) {
            return Err(format!("chunk {r:?} is not an exact slice"));
        }
        if r.start < last_end {
            return Err(format!("chunk {r:?} overlaps the one before or is out of order"));
        }
        last_end = r.end;
        let piece = &text[r.clone()];
        if !whole_values(piece) && !oversize_string(&r) {
            return Err(format!("chunk {piece:?} is neither whole values nor a piece of a string over the size"));
        }
        if !c.meta.json_path.as_deref().is_some_and(|p| p.starts_with('$')) {
            return Err(format!("chunk {piece:?} has no JSON path"));
        }
        if c.size > size && whole_values(piece) && (piece.starts_with(['{', '[']) || piece.contains(',')) {
            return Err(format!("chunk {piece:?} is over {size} {unit} and could have been cut"));
        }
    }
    for s in &strings {
        if sizer.size(&text[s.clone()]) <= size {
            if let Some(c) = chunks.iter().find(|c| {
                let r = &c.range;
                (s.start < r.start && r.start < s.end) || (s.start < r.end && r.end < s.end)
            }) {
                return Err(format!("string {:?} fits and was cut by chunk {:?}", &text[s.clone()], c.range));
            }
        }
    }
    Ok(())
}

fn arb_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        (-1e6f64..1e6).prop_map(|f| json!(f)),
        "[a-z 中文。，é\"\\\\\n\t🦀]{0,40}".prop_map(Value::String),
    ];
    leaf.prop_recursive(5, 120, 8, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..8).prop_map(Value::Array),
            prop::collection::vec(("[a-z_ 键]{1,8}", inner), 0..8)
                .prop_map(|members| Value::Object(members.into_iter().collect())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn json_chunks_are_whole_values_and_never_cut_a_string_that_fits(
        value in arb_json(), pretty in any::<bool>(), size in 8usize..300
    ) {
        let text = if pretty { serde_json::to_string_pretty(&value) } else { serde_json::to_string(&value) }.unwrap();
        check_json(&text, Unit::Chars, size).map_err(TestCaseError::fail)?;
    }
}

/// A nested export with lists of records, CJK text and long strings, at
/// several sizes and in tokens.
#[test]
fn a_nested_export_is_cut_at_its_values_in_chars_and_tokens() {
    let records: Vec<Value> = (0..40)
        .map(|i| {
            json!({
                "id": i,
                "title": format!("Record {i}: 第{i}条记录"),
                "body": "Chunk boundaries decide what an embedding sees. ".repeat(1 + i % 7),
                "tags": ["rag", "检索", format!("t{i}")],
                "scores": {"bm25": i as f64 * 0.37, "dense": [0.1, 0.2, i as f64]},
            })
        })
        .collect();
    let value = json!({"corpora": {"finance": records, "empty": [], "none": {}}, "version": "1.0"});
    let text = serde_json::to_string_pretty(&value).unwrap();
    for size in [40, 150, 600, 5000] {
        check_json(&text, Unit::Chars, size).unwrap_or_else(|e| panic!("size {size}: {e}"));
    }
    check_json(&text, Unit::Tokens, 64).unwrap();
    let chunks = cut(&doc("x.json", &text), StrategyKind::Json, Unit::Chars, 600);
    let paths: Vec<&str> = chunks.iter().filter_map(|c| c.meta.json_path.as_deref()).collect();
    assert!(paths.iter().any(|p| p.starts_with("$.corpora.finance[")), "{paths:?}");
}

#[test]
fn jsonl_is_a_chunk_per_record_and_a_long_record_keeps_its_line() {
    let mut text = String::new();
    for i in 0..20 {
        text.push_str(&serde_json::to_string(&json!({"q": format!("问题 {i}?"), "a": "short answer"})).unwrap());
        text.push('\n');
    }
    text.push('\n');
    let long = json!({"q": "long one", "a": "A long answer sentence. ".repeat(60), "refs": [1, 2, 3]});
    text.push_str(&serde_json::to_string(&long).unwrap());
    text.push('\n');
    let d = doc("faq.jsonl", &text);
    let chunks = cut(&d, StrategyKind::Json, Unit::Chars, 300);
    let lines: Vec<&str> = text.lines().collect();
    for (i, c) in chunks.iter().take(20).enumerate() {
        assert_eq!(&text[c.range.clone()], lines[i], "record {i} is one chunk, exactly its line");
        assert_eq!(c.meta.line, Some(i as u32 + 1));
    }
    let pieces = &chunks[20..];
    assert!(pieces.len() > 1, "the long record is cut");
    let line_start = text.rfind("{\"a\"").unwrap();
    for p in pieces {
        assert_eq!(p.meta.line, Some(22), "each piece keeps its record's line");
        assert!(p.range.start >= line_start && p.size <= 300, "{:?}", p.range);
    }
    // `document`: a chunk per record, as is.
    let records = cut(&d, StrategyKind::Document, Unit::Chars, 300);
    assert_eq!(records.len(), 21);
    assert_eq!(records[20].meta.line, Some(22));
}

/// Rows with quoted commas, quotes and line breaks, CJK text, and one row
/// too big for any chunk.
fn products_csv() -> String {
    let mut text = String::from("sku,name,price,description\r\n");
    for i in 0..30 {
        text.push_str(&format!(
            "{i},\"Widget, model {i}\",{}.99,\"Says \"\"hello\"\",\nthen 第{i}行 continues\"\r\n",
            i * 3
        ));
    }
    text.push_str(&format!("99,Huge,1.00,\"{}\"\r\n", "very long description ".repeat(40)));
    text
}

#[test]
fn csv_rows_stay_whole_and_every_chunk_is_embedded_under_the_header() {
    let text = products_csv();
    let d = doc("products.csv", &text);
    let rows = d.structure.as_ref().unwrap().records.clone();
    assert_eq!(rows.len(), 31, "quoted line breaks do not start rows");
    let chunks = cut(&d, StrategyKind::Rows, Unit::Chars, 400);
    let starts: Vec<usize> = rows.iter().map(|r| r.range.start).collect();
    let ends: Vec<usize> = rows.iter().map(|r| r.range.end).collect();
    for c in &chunks {
        let embed = c.meta.embed.as_ref().expect("rows always gives embed text");
        assert!(embed.text.starts_with("sku,name,price,description\n\n"), "{}", embed.text);
        assert!(embed.size <= 400, "header and rows fit the size together: {}", embed.size);
        let [first, last] = c.meta.rows.unwrap();
        if first < 31 {
            assert_eq!(c.range.start, starts[first as usize - 1]);
            assert_eq!(c.range.end, ends[last as usize - 1], "whole rows only");
        } else {
            let huge = &rows[30].range;
            assert!(huge.start <= c.range.start && c.range.end <= huge.end, "a piece of the huge row");
        }
    }
    let covered: usize = chunks
        .iter()
        .filter(|c| c.meta.rows != Some([31, 31]))
        .map(|c| c.meta.rows.unwrap()[1] as usize - c.meta.rows.unwrap()[0] as usize + 1)
        .sum();
    assert_eq!(covered, 30, "every row in exactly one chunk");
    // `document`: a chunk per row, each with the header.
    let per_row = cut(&d, StrategyKind::Document, Unit::Chars, 400);
    assert_eq!(per_row.len(), 31);
    assert_eq!(per_row[3].meta.header.as_deref(), Some("sku,name,price,description"));
}

#[test]
fn tsv_is_read_by_its_extension() {
    let d = doc("x.tsv", "a\tb\n1\t\"two, three\"\n4\t5\n");
    let chunks = cut(&d, StrategyKind::Document, Unit::Chars, 100);
    let texts: Vec<&str> = chunks.iter().map(|c| &d.text[c.range.clone()]).collect();
    assert_eq!(texts, ["1\t\"two, three\"", "4\t5"]);
    assert_eq!(chunks[0].meta.header.as_deref(), Some("a\tb"));
}

#[test]
fn stats_says_short_records_need_no_chunking_and_lint_leaves_them_alone() {
    let dir = tempfile::tempdir().unwrap();
    let short = dir.path().join("faq.jsonl");
    let mut text = String::new();
    for i in 0..40 {
        text.push_str(&format!("{{\"question\": \"How do I reset {i}?\", \"answer\": \"Press R.\"}}\n"));
    }
    std::fs::write(&short, &text).unwrap();
    let out = chunktui(&["stats", short.to_str().unwrap()]);
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(said.contains("40 of 40 records (100%) already fit") && said.contains("no chunking is needed"), "{said}");
    assert!(said.contains("--strategy document"), "{said}");
    let lint = chunktui(&["lint", short.to_str().unwrap(), "--strategy", "document", "--size", "2000"]);
    let found = String::from_utf8_lossy(&lint.stdout);
    assert!(!found.contains("tiny-fragment"), "records are not fragments: {found}");
    assert!(lint.status.success(), "{found}");

    let long = dir.path().join("long.jsonl");
    let body = "Answer text that runs on. ".repeat(80);
    std::fs::write(&long, format!("{{\"a\": \"{body}\"}}\n{{\"a\": \"{body}\"}}\n{{\"a\": \"x\"}}\n")).unwrap();
    let out = chunktui(&["stats", long.to_str().unwrap(), "--json"]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["fit"]["total"], 3);
    assert_eq!(v["fit"]["fit"], 1);
    assert_eq!(v["fit"]["needs_chunking"], true);
    assert!(v["fit"]["advice"].as_str().unwrap().contains("need chunking"), "{v}");

    // A folder: its records and documents together.
    std::fs::write(dir.path().join("note.md"), "# Note\n\nA short note.\n").unwrap();
    let out = chunktui(&["stats", dir.path().to_str().unwrap()]);
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(said.contains("chunking? 42 of 44 records and documents"), "{said}");
}

#[test]
fn data_files_get_their_strategy_and_a_format_can_be_named() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("p.csv");
    std::fs::write(&csv, products_csv()).unwrap();
    let out = chunktui(&["stats", csv.to_str().unwrap(), "--json"]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["strategy"], "rows");
    // The same rows in a .txt file, read as CSV when told.
    let txt = dir.path().join("p.txt");
    std::fs::write(&txt, products_csv()).unwrap();
    let out = chunktui(&["chunk", txt.to_str().unwrap(), "--format-in", "csv", "--strategy", "rows"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("\"header\":\"sku,name,price,description\""));
    let out = chunktui(&["chunk", txt.to_str().unwrap(), "--format-in", "yaml"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("--format-in 'yaml'") && err.contains("jsonl"), "{err}");
}

#[test]
fn bad_data_is_one_clear_line() {
    let dir = tempfile::tempdir().unwrap();
    let deep = "[".repeat(200_000);
    let cases: [(&str, &str, &str); 6] = [
        ("broken.json", "{\"a\": [1, 2,]}", "is not valid JSON"),
        ("deep.json", &deep, "deeper than 128 levels"),
        ("bad.jsonl", "{\"a\": 1}\n{\"a\": }\n", "line 2 is not one JSON value"),
        ("blank.jsonl", "\n \n", "holds only whitespace"),
        ("header.csv", "a,b,c\n", "no data rows"),
        ("rows.json", "[1, 2]", ""),
    ];
    for (name, body, expected) in cases {
        let path = dir.path().join(name);
        std::fs::write(&path, body).unwrap();
        let out = chunktui(&["chunk", path.to_str().unwrap()]);
        let err = String::from_utf8_lossy(&out.stderr);
        if expected.is_empty() {
            assert!(out.status.success(), "{name}: {err}");
            continue;
        }
        assert_eq!(out.status.code(), Some(2), "{name}: {err}");
        assert!(err.contains(expected) && err.trim().lines().count() == 1, "{name}: {err}");
        assert!(!err.contains("panicked"), "{name}: {err}");
    }
}
