//! Where tests and benches find their data: the shared corpus and the
//! multilingual test model. Both live outside the repository (the corpus is
//! third-party text we never copy in), so they are found by name:
//!
//! - `CHUNKTUI_CORPUS`: a directory of documents (with MANIFEST.tsv), default
//!   `../shared/corpus` beside the checkout;
//! - `CHUNKTUI_TEST_MODEL`: a model directory holding model.onnx and
//!   tokenizer.json, default `../shared/models/me5-small-q4`.
//!
//! Missing data is a failure that names the path and the variable to set,
//! never a skip. tests/common/mod.rs re-exports this file; benches include it
//! by `#[path]`, so it uses only std. (The fuzz crate includes mod.rs too,
//! where `CARGO_MANIFEST_DIR` is fuzz/ and the defaults would not resolve; no
//! fuzz target reads the corpus or the model.)
#![allow(dead_code)]

use std::path::{Path, PathBuf};

pub const CORPUS_VAR: &str = "CHUNKTUI_CORPUS";
pub const TEST_MODEL_VAR: &str = "CHUNKTUI_TEST_MODEL";

/// `var` if it is set and not empty, else `default` relative to the crate root.
fn dir_from_env(var: &str, default: &str) -> PathBuf {
    match std::env::var_os(var) {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => Path::new(env!("CARGO_MANIFEST_DIR")).join(default),
    }
}

/// The corpus directory; panics, naming it and `CHUNKTUI_CORPUS`, when it is missing.
pub fn corpus_dir() -> PathBuf {
    let dir = dir_from_env(CORPUS_VAR, "../shared/corpus");
    assert!(
        dir.is_dir(),
        "the test corpus is missing: {} is not a directory; set {CORPUS_VAR} to the corpus directory \
         (default ../shared/corpus beside the checkout, see docs/testing.md)",
        dir.display()
    );
    dir
}

/// One file of the corpus; panics, naming the path and `CHUNKTUI_CORPUS`, when it is missing.
pub fn corpus_file(name: &str) -> PathBuf {
    let path = corpus_dir().join(name);
    assert!(
        path.is_file(),
        "corpus file {} is missing; set {CORPUS_VAR} to a corpus directory that has {name}",
        path.display()
    );
    path
}

/// The multilingual test model (multilingual-e5-small, 4-bit); panics,
/// naming the path and `CHUNKTUI_TEST_MODEL`, when a file it needs is missing.
pub fn test_model_dir() -> PathBuf {
    let dir = dir_from_env(TEST_MODEL_VAR, "../shared/models/me5-small-q4");
    for file in ["model.onnx", "tokenizer.json"] {
        assert!(
            dir.join(file).is_file(),
            "the test model is missing: {} is not a file; set {TEST_MODEL_VAR} to a model directory with model.onnx and \
             tokenizer.json (default ../shared/models/me5-small-q4 beside the checkout)",
            dir.join(file).display()
        );
    }
    dir
}
