//! The model strategies live in the model-free core and run on any
//! [`Embedder`]; only loading a model needs the `embed` feature. This file
//! runs in every build: `scripts/test.sh` also runs it with
//! `--no-default-features --features tui`, where the tests at the bottom
//! check what a build without ONNX support says.

use chunktui::config::{ChunkConfig, StrategyKind};
use chunktui::embedding::{Control, Embedder, Embeddings, TokenVectors};
use chunktui::{Chunker, Result};
use std::sync::Arc;

/// A tiny deterministic embedder for the arithmetic only (never what a user
/// gets): letter counts, so sentences about different things differ.
struct Letters;

fn letters(text: &str) -> Vec<f32> {
    let mut v = vec![0f32; 26];
    for c in text.chars().filter(char::is_ascii_alphabetic) {
        v[(c.to_ascii_lowercase() as u8 - b'a') as usize] += 1.0;
    }
    chunktui::embedding::normalize(&mut v);
    v
}

impl Embedder for Letters {
    fn model_id(&self) -> &str {
        "letters"
    }
    fn embed_texts(&self, texts: &[&str], ctl: Control<'_>) -> Result<Embeddings> {
        ctl.check()?;
        Ok(Embeddings { vectors: texts.iter().map(|t| letters(t)).collect(), truncated: vec![] })
    }
    fn token_vectors(&self, text: &str, _: Control<'_>) -> Result<TokenVectors> {
        let spans: Vec<(usize, usize)> = text.char_indices().map(|(i, c)| (i, i + c.len_utf8())).collect();
        let vectors = spans.iter().map(|&(s, e)| letters(&text[s..e])).collect();
        Ok(TokenVectors { spans, vectors, dim: 26, windows: 1 })
    }
}

const TEXT: &str = "Cats purr and nap in the sun. Kittens chase yarn all day. \
                    Compilers parse tokens into trees. Type checkers reject bad programs. \
                    雨が降っています。今日は寒いです。";

fn model_config(kind: StrategyKind) -> ChunkConfig {
    ChunkConfig { strategy: kind, size: 120, overlap: 10, ..ChunkConfig::default() }
}

#[test]
fn every_model_strategy_runs_on_an_attached_embedder() {
    let kinds: Vec<_> = StrategyKind::ALL.iter().copied().filter(|k| k.needs_model()).collect();
    assert!(kinds.len() >= 5, "{kinds:?}");
    for kind in kinds {
        let chunker = Chunker::new(&model_config(kind)).unwrap().with_embedder(Arc::new(Letters));
        let chunks = chunker.chunk(TEXT).unwrap_or_else(|e| panic!("{kind}: {e}"));
        assert!(!chunks.is_empty(), "{kind}");
        for c in &chunks {
            assert!(c.checked_text(TEXT).is_some(), "{kind}: {:?} is not a range of the text", c.range);
        }
        if kind.promises_size_limit() {
            assert!(
                chunks.iter().all(|c| c.size <= 120),
                "{kind}: {:?}",
                chunks.iter().map(|c| c.size).collect::<Vec<_>>()
            );
        }
    }
}

#[test]
fn a_cancelled_request_is_a_typed_cancellation() {
    let flag = chunktui::embedding::CancelFlag::new();
    flag.cancel();
    let chunker = Chunker::new(&model_config(StrategyKind::Semantic)).unwrap().with_embedder(Arc::new(Letters));
    let err = chunker.chunk_with(TEXT, Control::new(&|_, _| {}, Some(&flag))).unwrap_err();
    assert!(matches!(err, chunktui::Error::Cancelled), "{err}");
}

#[cfg(not(feature = "embed"))]
#[test]
fn without_onnx_support_a_model_strategy_says_how_to_get_one() {
    let err = Chunker::new(&model_config(StrategyKind::Semantic)).unwrap().chunk(TEXT).unwrap_err();
    let msg = err.to_string();
    assert!(matches!(err, chunktui::Error::Model(_)), "{msg}");
    assert!(msg.contains("no ONNX support") && msg.contains("'embed' feature"), "{msg}");
    // The model-free strategies are all there.
    let plain = Chunker::new(&ChunkConfig::default()).unwrap().chunk(TEXT).unwrap();
    assert!(!plain.is_empty());
}

#[cfg(all(not(feature = "embed"), feature = "cli"))]
#[test]
fn without_onnx_support_the_cli_refuses_a_model_strategy_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let doc = dir.path().join("doc.txt");
    std::fs::write(&doc, TEXT).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_chunktui"))
        .args(["chunk", doc.to_str().unwrap(), "--strategy", "semantic"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no ONNX support") && err.trim().lines().count() == 1, "{err}");
    assert!(out.stdout.is_empty());
}

#[cfg(all(not(feature = "embed"), feature = "tui"))]
#[test]
fn without_onnx_support_the_workbench_reports_the_error_for_the_pane() {
    use chunktui::tui::embedder::{run_sync, EmbedReq};
    use chunktui::tui::msg::Msg;
    let req = EmbedReq {
        pane: 0,
        id: 1,
        rev: 1,
        key: None,
        config: model_config(StrategyKind::LangchainSemantic),
        text: Arc::from(TEXT),
        cancel: chunktui::embedding::CancelFlag::new(),
        first: None,
    };
    let msgs = run_sync(&req);
    let err = msgs.iter().find_map(|m| match m {
        Msg::ModelChunked { result: Err(e), .. } => Some(e.clone()),
        _ => None,
    });
    let err = err.unwrap_or_else(|| panic!("no error reached the pane: {} messages", msgs.len()));
    assert!(err.contains("no ONNX support"), "{err}");
}

/// The same promise for the `code` strategy's tree-sitter grammars: a build
/// without them refuses a source file's language in one line that says how
/// to get them, and still cuts text with no language (the recursive presets).
#[cfg(all(not(feature = "code"), feature = "cli"))]
#[test]
fn without_tree_sitter_the_code_strategy_says_how_to_get_it() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("lib.rs");
    std::fs::write(&src, "fn main() {\n    println!(\"hi\");\n}\n").unwrap();
    let run = |file: &std::path::Path| {
        std::process::Command::new(env!("CARGO_BIN_EXE_chunktui"))
            .args(["chunk", file.to_str().unwrap(), "--strategy", "code", "--size", "20"])
            .output()
            .unwrap()
    };
    let out = run(&src);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("feature 'code'") && err.contains("--preset rust"), "{err}");
    assert!(err.trim().lines().count() == 1 && out.stdout.is_empty(), "{err}");
    let doc = dir.path().join("doc.txt");
    std::fs::write(&doc, TEXT).unwrap();
    assert!(run(&doc).status.success());
}
