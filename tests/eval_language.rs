//! The retriever chunktui picks when none is named: the documents' language
//! against the model's. A small Chinese corpus cut from the shared
//! zh_rust_book.md (with the questions of our corpus set that fall in it)
//! gets bm25 with the English-only default model, hybrid with the
//! multilingual test model, dense when asked; English text keeps dense.

mod common;

use chunktui::eval::language::{self, Languages};
use chunktui::eval::retrieve::RetrieverKind;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_chunktui");

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// `zh.md`: a window of the Chinese book around each of the first `n`
/// Chinese questions' answers, and `zh.jsonl`, the questions with their
/// offsets moved into it.
fn zh_corpus(dir: &common::Dir, n: usize) -> (String, String) {
    let book: Vec<char> = std::fs::read_to_string(common::corpus_file("zh_rust_book.md")).unwrap().chars().collect();
    let rows = std::fs::read_to_string(root().join("tests/fixtures/questions/corpus.jsonl")).unwrap();
    let (mut doc, mut questions) = (String::new(), String::new());
    let mut doc_chars = 0;
    for row in rows.lines().filter(|l| l.contains("\"zh_rust_book\"")).take(n) {
        let v: Value = serde_json::from_str(row).unwrap();
        let refs = v["references"].as_array().unwrap();
        let span = |k: &str| refs.iter().map(|r| r[k].as_u64().unwrap() as usize).collect::<Vec<_>>();
        let start = span("start_index").into_iter().min().unwrap();
        let end = span("end_index").into_iter().max().unwrap();
        let (from, to) = (start.saturating_sub(1200), (end + 1200).min(book.len()));
        let moved: Vec<Value> = refs
            .iter()
            .map(|r| {
                let at = |k: &str| r[k].as_u64().unwrap() as usize - from + doc_chars;
                serde_json::json!({"start_index": at("start_index"), "end_index": at("end_index")})
            })
            .collect();
        let q = serde_json::json!({"question": v["question"], "corpus_id": "zh", "references": moved});
        questions.push_str(&format!("{q}\n"));
        doc.extend(&book[from..to]);
        doc.push_str("\n\n");
        doc_chars += to - from + 2;
    }
    (dir.write("zh.md", doc.as_bytes()), dir.write("zh.jsonl", questions.as_bytes()))
}

fn eval(args: &[&str]) -> Output {
    Command::new(BIN).arg("eval").args(args).current_dir(root()).output().expect("run chunktui eval")
}

fn eval_json(args: &[&str]) -> Value {
    let out = eval(&[args, &["--json"]].concat());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("one JSON object")
}

#[test]
fn chinese_text_with_the_english_only_model_gets_bm25_and_says_why() {
    let dir = common::Dir::new();
    let (doc, questions) = zh_corpus(&dir, 8);
    let v = eval_json(&[&doc, "--queries", &questions]);
    assert_eq!(v["retriever"], "bm25", "{}", v["retriever_choice"]);
    assert!(v["model"].is_null(), "no model loaded for bm25: {}", v["model"]);
    let choice = &v["retriever_choice"];
    assert_eq!(choice["asked"], false);
    assert_eq!(choice["text_language"], "zh");
    assert_eq!(choice["model_language"], "en");
    let reason = choice["reason"].as_str().unwrap();
    assert!(reason.contains("mostly Chinese") && reason.contains("--retriever dense"), "{reason}");
    assert!(v["hit_rate"]["mean"].as_f64().unwrap() >= 0.6, "bm25 finds the Chinese answers: {}", v["hit_rate"]);

    // The table says it too.
    let out = eval(&[&doc, "--queries", &questions]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    let line =
        text.lines().find(|l| l.starts_with("retriever ")).unwrap_or_else(|| panic!("no retriever line:\n{text}"));
    assert!(line.starts_with("retriever bm25: the text is mostly Chinese"), "{line}");
    assert!(text.lines().next().unwrap().contains("· bm25 top 5"), "{text}");
}

#[test]
fn an_explicit_retriever_wins_and_the_report_notes_the_mismatch() {
    let dir = common::Dir::new();
    let (doc, questions) = zh_corpus(&dir, 3);
    let v = eval_json(&[&doc, "--queries", &questions, "--retriever", "dense", "--size", "600"]);
    assert_eq!(v["retriever"], "dense");
    assert!(v["model"].as_str().unwrap().contains("MiniLM"), "{}", v["model"]);
    let choice = &v["retriever_choice"];
    assert_eq!(choice["asked"], true);
    let reason = choice["reason"].as_str().unwrap();
    assert!(reason.starts_with("dense as asked, though the text is mostly Chinese"), "{reason}");
    let v = eval_json(&[&doc, "--queries", &questions, "--retriever", "bm25"]);
    assert_eq!(
        (v["retriever"].as_str(), v["retriever_choice"]["reason"].as_str()),
        (Some("bm25"), Some("bm25 as asked"))
    );
}

#[test]
fn the_multilingual_test_model_gets_hybrid() {
    let dir = common::Dir::new();
    let (doc, questions) = zh_corpus(&dir, 3);
    let model = common::test_model_dir();
    let v = eval_json(&[&doc, "--queries", &questions, "--model", model.to_str().unwrap(), "--size", "600"]);
    assert_eq!(v["retriever"], "hybrid", "{}", v["retriever_choice"]);
    assert!(v["model"].as_str().unwrap().contains("me5-small"), "{}", v["model"]);
    assert_eq!(v["retriever_choice"]["model_language"], "multilingual");
    assert!(v["retriever_choice"]["reason"].as_str().unwrap().starts_with("hybrid: the text is mostly Chinese"));
}

/// A directory with the test model's files under a name nobody knows.
fn renamed_test_model(dir: &common::Dir) -> PathBuf {
    let renamed = dir.path("some-model");
    std::fs::create_dir_all(&renamed).unwrap();
    for file in ["model.onnx", "tokenizer.json"] {
        std::os::unix::fs::symlink(common::test_model_dir().join(file), renamed.join(file)).unwrap();
    }
    renamed
}

#[test]
fn a_models_languages_come_from_its_files_and_unknown_is_not_english() {
    let dir = common::Dir::new();
    // The test model under another name: its 250 000-piece vocabulary says multilingual.
    let found = language::model_language_in(&renamed_test_model(&dir));
    assert_eq!(found.languages, Languages::Multilingual, "{found:?}");
    assert!(found.source.starts_with("tokenizer.json: 2"), "{}", found.source);
    // The default model by its files.
    let minilm = language::model_language_in(Path::new(
        &std::env::var("CHUNKTUI_MODEL_DIR").unwrap_or_else(|_| dirs_default().to_string_lossy().into_owned()),
    ));
    assert_eq!(minilm.languages, Languages::English, "{minilm:?}");
    // chunktui-model.json "languages" comes first.
    let listed = dir.path("listed");
    std::fs::create_dir_all(&listed).unwrap();
    std::fs::write(listed.join("chunktui-model.json"), r#"{"languages": ["zh", "en"]}"#).unwrap();
    let found = language::model_language_in(&listed);
    assert_eq!(found.languages, Languages::Listed(vec!["zh".into(), "en".into()]));
    std::fs::write(listed.join("chunktui-model.json"), r#"{"languages": "multilingual"}"#).unwrap();
    assert_eq!(language::model_language_in(&listed).languages, Languages::Multilingual);

    // A model nobody knows with a small vocabulary: unknown, so Chinese text gets bm25 and says so.
    let mystery = dir.path("mystery");
    std::fs::create_dir_all(&mystery).unwrap();
    std::fs::write(mystery.join("tokenizer.json"), r#"{"model": {"type": "WordPiece", "vocab": {"a": 0, "b": 1}}}"#)
        .unwrap();
    std::fs::write(mystery.join("model.onnx"), b"not a model").unwrap();
    assert_eq!(language::model_language_in(&mystery).languages, Languages::Unknown);
    let (doc, questions) = zh_corpus(&dir, 3);
    let v = eval_json(&[&doc, "--queries", &questions, "--model", mystery.to_str().unwrap()]);
    assert_eq!(v["retriever"], "bm25");
    assert_eq!(v["retriever_choice"]["model_language"], "unknown");
    assert!(v["retriever_choice"]["reason"].as_str().unwrap().contains("are unknown"), "{}", v["retriever_choice"]);
}

fn dirs_default() -> PathBuf {
    PathBuf::from(std::env::var("HOME").unwrap()).join(".cache/chunktui/models/all-MiniLM-L6-v2-int8")
}

#[test]
fn english_text_keeps_dense() {
    let v = eval_json(&["samples/guide.md", "--queries", "samples/questions.jsonl", "--corpus-id", "guide"]);
    assert_eq!(v["retriever"], "dense", "{}", v["retriever_choice"]);
    assert_eq!(v["retriever_choice"]["text_language"], "en");
    assert_eq!(v["retriever_choice"]["asked"], false);
    assert!(v["retriever_choice"]["model_language"].is_null(), "the model's language is not needed on English");
    assert_eq!(
        language::choose(
            None,
            &[&std::fs::read_to_string(common::corpus_file("en_rust_book.md")).unwrap()],
            &Default::default()
        )
        .kind,
        RetrieverKind::Dense
    );
}

#[test]
fn sweep_picks_the_same_retriever() {
    let dir = common::Dir::new();
    let (doc, questions) = zh_corpus(&dir, 3);
    let results = dir.path("results.jsonl");
    let out = Command::new(BIN)
        .args(["sweep", &doc, "--queries", &questions, "--size", "400,800", "--results", results.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("chunktui: retriever bm25: the text is mostly Chinese"), "{err}");
    let rows = std::fs::read_to_string(&results).unwrap();
    assert_eq!(rows.lines().count(), 2);
    assert!(rows.lines().all(|l| serde_json::from_str::<Value>(l).unwrap()["retriever"] == "bm25"), "{rows}");
}

#[test]
fn the_workbench_picks_it_too_and_says_why() {
    let dir = common::Dir::new();
    let (doc, _) = zh_corpus(&dir, 3);
    let config = chunktui::ChunkConfig::default();
    let open = chunktui::tui::Options::default();
    let rect = ratatui::layout::Rect::new(0, 0, 120, 40);
    let setup = chunktui::tui::prepare(Path::new(&doc), config.clone(), &open, false, rect).unwrap();
    for p in &setup.model.panes {
        assert_eq!(p.probe.retriever, RetrieverKind::Bm25);
        assert!(p.probe.retriever_why.as_deref().unwrap().contains("mostly Chinese"));
    }
    assert!(
        setup.model.status.text.starts_with("retriever bm25: the text is mostly Chinese"),
        "{}",
        setup.model.status.text
    );
    // --retriever wins.
    let open = chunktui::tui::Options { retriever: Some("dense".into()), ..Default::default() };
    let setup = chunktui::tui::prepare(Path::new(&doc), config.clone(), &open, false, rect).unwrap();
    assert!(setup
        .model
        .panes
        .iter()
        .all(|p| p.probe.retriever == RetrieverKind::Dense && p.probe.retriever_why.is_none()));
    // English keeps dense.
    let setup =
        chunktui::tui::prepare(&root().join("samples/guide.md"), config, &Default::default(), false, rect).unwrap();
    assert!(setup.model.panes.iter().all(|p| p.probe.retriever == RetrieverKind::Dense));
}
