//! `langchain-json` against the real `langchain-text-splitters` (1.1.3)
//! `RecursiveJsonSplitter`: every case of tests/fixtures/langchain/json.json
//! (written by scripts/parity/generate_json.py) gives the same chunks, chunk
//! for chunk (count, length, sha256 and, for the JSON written there, the
//! text), and refuses what LangChain refuses. Corpus files are turned into
//! JSON here exactly as the generator does (checked by length and sha256
//! before any chunk is compared). Then a property: random JSON never panics,
//! every chunk is a JSON object, and merging the chunks gives the document
//! back.

use chunktui::embedding::Control;
use chunktui::{Chunk, ChunkConfig, Chunker};
use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;
use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::path::Path;
mod common;
use common::corpus_file;

fn sha16(s: &str) -> String {
    let digest = Sha256::digest(s.as_bytes());
    digest.iter().take(8).map(|b| format!("{b:02x}")).collect()
}

fn fixture() -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/langchain/json.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap()
}

// Keep `book`, `book_json` and `book_jsonl` in step with generate_json.py.

/// Blocks between blank lines: `# ` starts a chapter, `## ` a section, a
/// fenced block is a section's code (its lines), anything else a paragraph.
fn book(text: &str) -> Vec<Map<String, Value>> {
    fn section(title: &str) -> Map<String, Value> {
        // Keys in sorted order, so the map serialises sorted with or
        // without serde_json's preserve_order.
        let mut s = Map::new();
        s.insert("code".into(), json!([]));
        s.insert("paragraphs".into(), json!([]));
        s.insert("title".into(), json!(title));
        s
    }
    fn chapter(title: &str) -> Map<String, Value> {
        let mut c = Map::new();
        c.insert("sections".into(), json!([]));
        c.insert("title".into(), json!(title));
        c
    }
    let mut chapters: Vec<Map<String, Value>> = Vec::new();
    for block in text.split("\n\n").filter(|b| !b.is_empty()) {
        if let Some(title) = block.strip_prefix("# ") {
            chapters.push(chapter(title));
            continue;
        }
        if chapters.is_empty() {
            chapters.push(chapter(""));
        }
        let sections = chapters.last_mut().unwrap()["sections"].as_array_mut().unwrap();
        if let Some(title) = block.strip_prefix("## ") {
            sections.push(Value::Object(section(title)));
            continue;
        }
        if sections.is_empty() {
            sections.push(Value::Object(section("")));
        }
        let last = sections.last_mut().unwrap();
        if block.starts_with("```") {
            last["code"].as_array_mut().unwrap().push(json!(block.split('\n').collect::<Vec<_>>()));
        } else {
            let mut p = Map::new();
            p.insert("chars".into(), json!(block.chars().count()));
            p.insert("text".into(), json!(block));
            p.insert("words".into(), json!(block.split(' ').count()));
            last["paragraphs"].as_array_mut().unwrap().push(Value::Object(p));
        }
    }
    chapters
}

fn book_json(text: &str, name: &str) -> String {
    let chapters = book(text);
    let mut doc = Map::new();
    doc.insert("chapters".into(), Value::Array(chapters.iter().cloned().map(Value::Object).collect()));
    doc.insert("count".into(), json!(chapters.len()));
    doc.insert("draft".into(), json!(false));
    doc.insert("source".into(), json!(name));
    serde_json::to_string_pretty(&Value::Object(doc)).unwrap()
}

fn book_jsonl(text: &str, name: &str) -> String {
    let mut out = String::new();
    for (i, chapter) in book(text).iter().enumerate() {
        for (j, section) in chapter["sections"].as_array().unwrap().iter().enumerate() {
            let mut record = Map::new();
            record.insert("chapter".into(), chapter["title"].clone());
            record.insert("id".into(), json!(format!("{i}.{j}")));
            record.insert("section".into(), section.clone());
            record.insert("source".into(), json!(name));
            out.push_str(&serde_json::to_string(&Value::Object(record)).unwrap());
            out.push('\n');
        }
    }
    out
}

/// The case's text, built from the corpus when it names a file.
fn source_text(case: &Value, built: &mut HashMap<(String, String), String>) -> (String, bool) {
    let source = &case["source"];
    if let Some(v) = source.get("value") {
        return (v.as_str().unwrap().to_string(), true);
    }
    let file = source["corpus"].as_str().unwrap().to_string();
    let how = source["build"].as_str().unwrap().to_string();
    let text = built
        .entry((file.clone(), how.clone()))
        .or_insert_with(|| {
            let raw = std::fs::read_to_string(corpus_file(&file)).unwrap();
            let text = match how.as_str() {
                "book" => book_json(&raw, &file),
                "book_jsonl" => book_jsonl(&raw, &file),
                other => panic!("unknown build {other}"),
            };
            assert_eq!(text.len() as u64, source["bytes"].as_u64().unwrap(), "{file} {how}: built JSON length");
            assert_eq!(sha16(&text), source["sha16"].as_str().unwrap(), "{file} {how}: built JSON sha256");
            text
        })
        .clone();
    (text, false)
}

/// chunktui's chunks of a case: a JSONL text split a line at a time.
fn cut(text: &str, jsonl: bool, config: &ChunkConfig) -> chunktui::Result<Vec<Chunk>> {
    let chunker = Chunker::new(config)?;
    if jsonl {
        let structure = chunktui::extract::json::jsonl_structure(text, "case.jsonl")?;
        chunker.chunk_structured(text, Some(&structure), Control::none())
    } else {
        chunker.chunk(text)
    }
}

/// What holds for every chunk of `text`, whatever LangChain says.
fn check_shape(name: &str, text: &str, chunks: &[Chunk], jsonl: bool) {
    let mut last_start = 0;
    for (i, c) in chunks.iter().enumerate() {
        let t = c.text(text);
        assert!(c.range.start <= c.range.end && c.range.end <= text.len(), "{name} #{i}: range {:?}", c.range);
        assert!(text.is_char_boundary(c.range.start) && text.is_char_boundary(c.range.end), "{name} #{i}");
        assert!(c.range.start >= last_start, "{name} #{i}: range {:?} starts before the one before", c.range);
        last_start = c.range.start;
        assert_eq!(c.size, t.chars().count(), "{name} #{i}: size");
        assert!(t.is_ascii(), "{name} #{i}: json.dumps with ensure_ascii");
        assert!(c.meta.json_path.as_deref().is_some_and(|p| p.starts_with('$')), "{name} #{i}: json_path");
        assert_eq!(c.meta.line.is_some(), jsonl, "{name} #{i}: line");
        if let Some(m) = &c.meta.text {
            assert_ne!(m, &text[c.range.clone()], "{name} #{i}: meta.text set for a verbatim slice");
        }
    }
}

#[test]
fn langchain_json_parity_on_every_fixture_case() {
    let fixture = fixture();
    let mut built = HashMap::new();
    let mut problems = Vec::new();
    let (mut cases, mut total, mut refused) = (0, 0, 0);
    for case in fixture["cases"].as_array().unwrap() {
        cases += 1;
        let name = case["name"].as_str().unwrap();
        let config: ChunkConfig = serde_json::from_value(case["config"].clone())
            .unwrap_or_else(|e| panic!("{name}: fixture config is not a ChunkConfig: {e}"));
        let jsonl = case["jsonl"].as_bool().unwrap();
        let (text, _own) = source_text(case, &mut built);
        let got = cut(&text, jsonl, &config);
        if let Some(error) = case["error"].as_str() {
            refused += 1;
            // "TypeError: json_data must be a dict, got list. ..."
            let kind = error.split("got ").nth(1).unwrap().split('.').next().unwrap();
            match got {
                Ok(chunks) => {
                    problems.push(format!("{name}: LangChain refuses ({error}), we gave {} chunks", chunks.len()))
                }
                Err(e) => assert!(e.to_string().contains(&format!("got {kind}")), "{name}: {e}"),
            }
            continue;
        }
        let chunks = got.unwrap_or_else(|e| panic!("{name}: chunking failed: {e}"));
        check_shape(name, &text, &chunks, jsonl);
        let expected = case["chunks"].as_array().unwrap();
        let count = case["count"].as_u64().unwrap() as usize;
        total += count;
        if chunks.len() != count {
            problems.push(format!("{name}: {} chunks, LangChain has {count}", chunks.len()));
        }
        for (i, (chunk, row)) in chunks.iter().zip(expected).enumerate() {
            let t = chunk.text(&text);
            let row = row.as_array().unwrap();
            let mut bad = |what: &str, ours: String, theirs: String| {
                if ours != theirs && problems.len() < 30 {
                    problems.push(format!("{name} #{i}: {what}: ours {ours}, LangChain {theirs}"));
                }
            };
            bad("length", t.chars().count().to_string(), row[0].to_string());
            bad("sha256", sha16(t), row[1].as_str().unwrap().to_string());
            if let Some(theirs) = row.get(2).and_then(Value::as_str) {
                bad("text", format!("{t:?}"), format!("{theirs:?}"));
            }
        }
    }
    assert!(problems.is_empty(), "{} problems:\n{}", problems.len(), problems.join("\n"));
    assert!(cases >= 100 && refused >= 5 && total >= 10_000, "{cases} cases, {refused} refused, {total} chunks");
    eprintln!("langchain-json parity: {cases} cases ({refused} refused as LangChain does), {total} chunks");
}

#[test]
fn corpus_cases_hold_no_corpus_text() {
    for case in fixture()["cases"].as_array().unwrap() {
        if case["source"].get("corpus").is_some() {
            assert!(case["source"].get("value").is_none());
            for row in case["chunks"].as_array().unwrap() {
                assert_eq!(row.as_array().unwrap().len(), 2, "{}: corpus rows must not carry text", case["name"]);
            }
        }
    }
}

#[test]
fn jsonl_chunks_keep_their_line_and_their_record_span() {
    let text = "{\"q\": \"one\", \"a\": [1, 2]}\n\n{\"q\": \"two\"}\n";
    let config =
        ChunkConfig { strategy: chunktui::StrategyKind::LangchainJson, size: 16, overlap: 0, ..Default::default() };
    let chunks = cut(text, true, &config).unwrap();
    let got: Vec<_> = chunks.iter().map(|c| (c.text(text), c.meta.line.unwrap(), &text[c.range.clone()])).collect();
    assert_eq!(
        got,
        [
            ("{\"q\": \"one\", \"a\": [1, 2]}", 1, "\"q\": \"one\", \"a\": [1, 2]"),
            ("{\"q\": \"two\"}", 3, "\"q\": \"two\""),
        ]
    );
}

// ------------------------------------------------------------- properties

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        any::<u64>().prop_map(|n| json!(n)),
        (-1e12f64..1e12).prop_map(|f| json!(f)),
        any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(|f| json!(f)),
        "[a-z \\\\\"\\n\\t\u{e9}\u{4e2d}\u{1F600}\u{1}]{0,40}".prop_map(Value::String),
    ];
    leaf.prop_recursive(6, 96, 8, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..8).prop_map(Value::Array),
            proptest::collection::vec(("[a-z\u{e9}\" ]{0,6}", inner), 0..8)
                .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

/// `convert_lists`: every list a dict keyed "0", "1", ...
fn convert(v: &Value) -> Value {
    match v {
        Value::Array(items) => {
            Value::Object(items.iter().enumerate().map(|(i, x)| (i.to_string(), convert(x))).collect())
        }
        Value::Object(m) => Value::Object(m.iter().map(|(k, x)| (k.clone(), convert(x))).collect()),
        other => other.clone(),
    }
}

/// Put `part` (a chunk) into `whole`: the chunks of a document, merged,
/// are the document.
fn merge(whole: &mut Map<String, Value>, part: Map<String, Value>) {
    for (k, v) in part {
        match (whole.get_mut(&k), v) {
            (Some(Value::Object(w)), Value::Object(p)) => merge(w, p),
            (_, v) => {
                whole.insert(k, v);
            }
        }
    }
}

/// Equal, floats within a few ulps: serde_json (without its
/// float_roundtrip feature) may read a float literal one ulp off, and the
/// chunks print floats as Python's repr, not as the source wrote them.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) if x.is_f64() || y.is_f64() => {
            let (x, y) = (x.as_f64().unwrap(), y.as_f64().unwrap());
            x == y || (x - y).abs() <= 1e-14 * x.abs().max(y.abs())
        }
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same(x, y)),
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

fn persisted(cases: u32) -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(cases);
    ProptestConfig {
        cases,
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(
            "tests/proptest-regressions/langchain_json.txt",
        ))),
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(persisted(256))]

    #[test]
    fn random_json_gives_json_chunks_that_merge_back_into_the_document(
        body in proptest::collection::vec(("[a-z]{1,4}", json_value()), 0..6),
        top_list in any::<bool>(),
        size in 1usize..400,
        min in proptest::option::of(0usize..300),
        convert_lists in any::<bool>(),
        pretty in any::<bool>(),
    ) {
        let doc = if top_list {
            Value::Array(body.into_iter().map(|(_, v)| v).collect())
        } else {
            Value::Object(body.into_iter().collect())
        };
        let text = if pretty { serde_json::to_string_pretty(&doc).unwrap() } else { doc.to_string() };
        let mut config =
            ChunkConfig { strategy: chunktui::StrategyKind::LangchainJson, size, overlap: 0, ..Default::default() };
        config.json.convert_lists = convert_lists;
        config.json.min_chunk_size = min;
        let got = cut(&text, false, &config);
        if top_list && !convert_lists {
            prop_assert!(got.is_err());
            return Ok(());
        }
        let chunks = got.map_err(|e| TestCaseError::fail(format!("{e}")))?;
        check_shape("random", &text, &chunks, false);
        let mut merged = Map::new();
        for c in &chunks {
            let part: Value = serde_json::from_str(c.text(&text))
                .map_err(|e| TestCaseError::fail(format!("chunk {:?} is not JSON: {e}", c.text(&text))))?;
            let Value::Object(part) = part else { return Err(TestCaseError::fail("a chunk is not an object")) };
            merge(&mut merged, part);
        }
        let want = if convert_lists { convert(&doc) } else { doc };
        let merged = Value::Object(merged);
        prop_assert!(same(&merged, &want), "merged chunks {merged}\nare not the document {want}");
    }
}
