//! Without a runtime or model, model strategies fail with a message that says
//! what to run, and non-model strategies keep working. (Its own test binary:
//! ONNX Runtime is process-wide once loaded.)

#![cfg(feature = "embed")]

use chunktui::embed::{runtime, ModelOptions, OnnxEmbedder};
use chunktui::{ChunkConfig, Chunker, StrategyKind};
use std::path::Path;

#[test]
fn a_bad_runtime_path_is_a_clean_error_that_says_what_to_run() {
    let err = runtime::environment(Some(Path::new("/nonexistent/libonnxruntime.so.1.31.1"))).unwrap_err();
    assert!(err.to_string().contains("chunktui setup"), "{err}");
    // A file that is not a library: an error, not a crash.
    let not_lib = tempfile::NamedTempFile::new().unwrap();
    let err = runtime::environment(Some(not_lib.path())).unwrap_err();
    assert!(err.to_string().contains("chunktui setup"), "{err}");
}

#[test]
fn a_missing_model_says_what_to_run_and_other_strategies_still_work() {
    let err = OnnxEmbedder::load(Path::new("/nonexistent/model-dir"), None, &ModelOptions::default()).unwrap_err();
    assert!(err.to_string().contains("chunktui setup") && err.to_string().contains("--model"), "{err}");
    let mut cfg = ChunkConfig::default();
    cfg.strategy = StrategyKind::Semantic;
    cfg.semantic.model = Some("/nonexistent/model-dir".into());
    let err = Chunker::new(&cfg).unwrap().chunk("One. Two. Three.").unwrap_err();
    assert!(err.to_string().contains("chunktui setup"), "{err}");
    cfg.strategy = StrategyKind::Recursive;
    cfg.size = 10;
    cfg.overlap = 0;
    assert!(Chunker::new(&cfg).unwrap().chunk("One. Two. Three.").unwrap().len() >= 2);
}
