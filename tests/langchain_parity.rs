//! Parity with the real `langchain-text-splitters` (1.1.3): every case of
//! every fixture in tests/fixtures/langchain/ (written by
//! scripts/parity/generate.py) must give the same chunks, chunk for chunk:
//! count, LangChain's `add_start_index` offset (code points and bytes), length
//! in code points and sha256 of the chunk text; for the markdown header
//! splitter, the metadata too.

use chunktui::{ChunkConfig, Chunker};
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
mod common;
use common::corpus_file;

fn manifest() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn sha16(s: &str) -> String {
    let digest = Sha256::digest(s.as_bytes());
    digest.iter().take(8).map(|b| format!("{b:02x}")).collect()
}

struct Texts {
    cache: HashMap<String, String>,
}

impl Texts {
    fn get(&mut self, source: &Value) -> (String, bool) {
        if let Some(v) = source.get("value") {
            return (v.as_str().expect("inline text").to_string(), true);
        }
        let name = source["corpus"].as_str().expect("corpus file name");
        let text = self.cache.entry(name.to_string()).or_insert_with(|| {
            let path = corpus_file(name);
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
        });
        (text.clone(), false)
    }
}

fn fixture_files() -> Vec<PathBuf> {
    let dir = manifest().join("tests/fixtures/langchain");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        // json.json (RecursiveJsonSplitter) has its own format and test: tests/langchain_json.rs.
        .filter(|p| p.file_name().is_some_and(|n| n != "json.json"))
        .collect();
    files.sort();
    files
}

/// Compare one case; returns the problems found (empty = parity).
fn check_case(case: &Value, texts: &mut Texts) -> Vec<String> {
    let name = case["name"].as_str().unwrap();
    let config: ChunkConfig = serde_json::from_value(case["config"].clone())
        .unwrap_or_else(|e| panic!("{name}: fixture config is not a ChunkConfig: {e}"));
    let (text, _own) = texts.get(&case["source"]);
    let chunker = Chunker::new(&config).unwrap_or_else(|e| panic!("{name}: {e}"));
    let chunks = chunker.chunk(&text).unwrap_or_else(|e| panic!("{name}: chunking failed: {e}"));
    let expected = case["chunks"].as_array().unwrap();
    let mut problems = Vec::new();
    let count = case["count"].as_u64().unwrap() as usize;
    if chunks.len() != count {
        problems.push(format!("{name}: {} chunks, LangChain has {count}", chunks.len()));
    }
    let markdown = config.strategy == chunktui::StrategyKind::LangchainMarkdownHeader;
    let mut prev_end = 0;
    for (i, (chunk, row)) in chunks.iter().zip(expected).enumerate() {
        let row = row.as_array().unwrap();
        let got = chunk.text(&text);
        assert!(
            text.is_char_boundary(chunk.range.start) && text.is_char_boundary(chunk.range.end),
            "{name} #{i}: range {:?} off char boundaries",
            chunk.range
        );
        if chunk.meta.text.is_none() {
            assert_eq!(got, &text[chunk.range.clone()]);
        } else {
            assert_ne!(
                chunk.meta.text.as_deref(),
                Some(&text[chunk.range.clone()]),
                "{name} #{i}: meta.text set for a verbatim slice"
            );
        }
        let mut bad = |what: &str, ours: String, theirs: String| {
            if ours != theirs && problems.len() < 20 {
                problems.push(format!("{name} #{i}: {what}: ours {ours}, LangChain {theirs}"));
            }
        };
        let (len_col, sha_col) = if markdown { (0, 1) } else { (2, 3) };
        bad("length", got.chars().count().to_string(), row[len_col].to_string());
        bad("sha256", sha16(got), row[sha_col].as_str().unwrap().to_string());
        if let Some(t) = row.get(sha_col + 1).and_then(Value::as_str).filter(|_| !markdown) {
            bad("text", format!("{got:?}"), format!("{t:?}"));
        }
        if markdown {
            let key: Vec<String> = chunk.meta.fields.iter().map(|(k, v)| format!("{k}\u{1e}{v}")).collect();
            bad("metadata", sha16(&key.join("\u{1f}")), row[2].as_str().unwrap().to_string());
            let values: Vec<&str> = chunk.meta.fields.iter().map(|(_, v)| v.as_str()).collect();
            assert_eq!(chunk.meta.headings, values, "{name} #{i}: headings follow the metadata values");
            if let Some(t) = row.get(3).and_then(Value::as_str) {
                bad("text", format!("{got:?}"), format!("{t:?}"));
            }
            // Source spans follow each other.
            assert!(chunk.range.start >= prev_end, "{name} #{i}: range {:?} goes back", chunk.range);
            prev_end = chunk.range.end;
        } else {
            let start_cp = row[0].as_i64().unwrap();
            let start_byte = row[1].as_i64().unwrap();
            if start_cp >= 0 {
                bad("start (bytes)", chunk.range.start.to_string(), start_byte.to_string());
                bad("start (code points)", text[..chunk.range.start].chars().count().to_string(), start_cp.to_string());
            } else {
                // LangChain's own search failed: the chunk keeps its source span,
                // and the text is verbatim there or carried in meta.text.
                assert!(chunk.range.end <= text.len());
            }
        }
        if config.unit == chunktui::Unit::Chars {
            bad("size", chunk.size.to_string(), got.chars().count().to_string());
        }
    }
    problems
}

#[test]
fn langchain_parity_on_every_fixture() {
    let mut texts = Texts { cache: HashMap::new() };
    let files = fixture_files();
    assert!(files.len() >= 5, "expected the fixtures of scripts/parity/generate.py, found {files:?}");
    let mut problems = Vec::new();
    let mut cases = 0;
    let mut chunks = 0;
    for file in &files {
        let fixture: Value = serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
        for case in fixture["cases"].as_array().unwrap() {
            cases += 1;
            chunks += case["count"].as_u64().unwrap();
            problems.extend(check_case(case, &mut texts));
        }
    }
    assert!(problems.is_empty(), "{} problems:\n{}", problems.len(), problems.join("\n"));
    eprintln!("LangChain parity: {cases} cases, {chunks} chunks");
}

#[test]
fn corpus_fixtures_hold_no_corpus_text() {
    for file in fixture_files() {
        let fixture: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        for case in fixture["cases"].as_array().unwrap() {
            if case["source"].get("corpus").is_some() {
                assert!(case["source"].get("value").is_none());
                for row in case["chunks"].as_array().unwrap() {
                    let n = row.as_array().unwrap().len();
                    assert!(n <= 4, "{}: {}: corpus rows must not carry text", file.display(), case["name"]);
                }
            }
        }
    }
}
