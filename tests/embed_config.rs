//! Model settings given in the chunktui config (`semantic.max_tokens`,
//! `semantic.prefix`) override the model directory's, and reach the model:
//! a small input limit makes long sentences be flagged as truncated.

use chunktui::config::{ChunkConfig, StrategyKind};
use chunktui::Chunker;
use std::path::PathBuf;
mod common;
use common::test_model_dir;

fn truncated_chunks(max_tokens: Option<usize>) -> usize {
    let mut cfg = ChunkConfig { strategy: StrategyKind::Semantic, size: 2000, overlap: 0, ..Default::default() };
    cfg.semantic.model = Some(test_model_dir().display().to_string());
    cfg.semantic.buffer_size = 0;
    cfg.semantic.max_tokens = max_tokens;
    let text = "Rivers carry water from the mountains through wide green valleys down to the sea, \
                and along the way they shape the land, feed the fields and give towns their names. \
                A mutex lets one thread at a time enter a critical section of a concurrent program. \
                Short one.";
    let chunks = Chunker::new(&cfg).expect("config").chunk(text).expect("the model runs (scripts/test.sh sets it up)");
    chunks.iter().filter(|c| c.meta.fields.iter().any(|(k, _)| k == "embedding_truncated")).count()
}

#[test]
fn config_max_tokens_reaches_the_model() {
    assert_eq!(truncated_chunks(None), 0, "me5 reads 512 tokens: nothing here is cut");
    assert!(truncated_chunks(Some(12)) > 0, "with max_tokens = 12 the long sentences are cut and flagged");
}

#[test]
fn chunk_embeddings_flag_exports_late_chunking_vectors() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_chunktui"))
        .args(["chunk", "samples/notes.txt", "--strategy", "late", "--size", "400", "--embeddings", "--model"])
        .arg(test_model_dir())
        .current_dir(&root)
        .output()
        .expect("run chunktui");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let lines: Vec<serde_json::Value> =
        String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert!(lines.len() >= 2);
    for l in &lines {
        let v: Vec<f64> =
            l["embedding"].as_array().expect("an embedding per chunk").iter().map(|x| x.as_f64().unwrap()).collect();
        assert_eq!(v.len(), 384);
        let norm: f64 = v.iter().map(|x| x * x).sum();
        assert!((norm - 1.0).abs() < 1e-3, "unit length, got {norm}");
    }
    let refused = std::process::Command::new(env!("CARGO_BIN_EXE_chunktui"))
        .args(["chunk", "samples/notes.txt", "--embeddings"])
        .current_dir(&root)
        .output()
        .expect("run chunktui");
    assert_eq!(refused.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("--strategy late"));
}
