//! Embedding models (ONNX through `ort`) and the strategies that use them.
//!
//! - [`Embedder`]: texts in, unit-length vectors out. [`OnnxEmbedder`] runs a
//!   sentence-transformers ONNX export through ONNX Runtime; [`CachedEmbedder`]
//!   wraps any embedder with an on-disk cache keyed by (model id, text hash).
//! - [`runtime`]: finds and loads ONNX Runtime's shared library
//!   (`ORT_DYLIB_PATH`, then chunktui's cache dir, then Python site-packages).
//! - [`analysis::SemanticAnalysis`]: sentences + distances computed once, then
//!   [`analysis::SemanticAnalysis::cut`] re-cuts for any threshold in
//!   microseconds (what the workbench calls while a slider moves).
//! - [`strategies`]: `langchain-semantic`, `semantic`, `semantic-grouping`,
//!   `adaptive` and `late`.

pub mod analysis;
pub mod cache;
pub mod langchain;
pub mod late;
pub mod onnx;
pub mod runtime;
pub mod strategies;

use crate::error::{Error, Result};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

pub use analysis::{Distance, Limits, SemanticAnalysis, Threshold};
pub use cache::CachedEmbedder;
pub use late::{late_chunk_embeddings, TokenVectors};
pub use onnx::{ModelInfo, ModelOptions, OnnxEmbedder};

/// Marker text of the error returned when a request was cancelled.
pub const CANCELLED: &str = "embedding cancelled by a newer request";

/// True when `err` is the error of a cancelled request (not a real failure).
pub fn is_cancelled(err: &Error) -> bool {
    matches!(err, Error::Model(m) if m == CANCELLED)
}

/// A flag a newer request sets to make an older one stop between batches.
/// Cheap to clone; all clones share the flag.
#[derive(Clone, Debug, Default)]
pub struct CancelFlag(Arc<AtomicBool>);

impl CancelFlag {
    pub fn new() -> Self {
        Self::default()
    }
    pub fn cancel(&self) {
        self.0.store(true, Ordering::Relaxed)
    }
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
    /// `Err` with [`CANCELLED`] when the flag is set.
    pub fn check(&self) -> Result<()> {
        if self.is_cancelled() {
            Err(Error::Model(CANCELLED.into()))
        } else {
            Ok(())
        }
    }
}

/// Progress and cancellation for one embedding request.
#[derive(Clone, Copy)]
pub struct Control<'a> {
    /// `progress(done, total)` after each batch, in texts.
    pub progress: &'a dyn Fn(usize, usize),
    /// Checked between batches.
    pub cancel: Option<&'a CancelFlag>,
}

impl<'a> Control<'a> {
    pub fn none() -> Control<'static> {
        Control { progress: &|_, _| {}, cancel: None }
    }
    pub fn new(progress: &'a dyn Fn(usize, usize), cancel: Option<&'a CancelFlag>) -> Self {
        Control { progress, cancel }
    }
    pub fn check(&self) -> Result<()> {
        self.cancel.map_or(Ok(()), |c| c.check())
    }
}

/// Vectors for a list of texts, and which texts were cut to the model's
/// maximum input (truncation is never silent).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Embeddings {
    pub vectors: Vec<Vec<f32>>,
    /// Indices (into the request) of texts longer than the model's input.
    pub truncated: Vec<usize>,
}

/// Turns texts into unit-length vectors.
pub trait Embedder: Send + Sync {
    /// Identifies the model (and its settings) in caches and exported configs.
    fn model_id(&self) -> &str;

    /// Embed texts with progress, cancellation and truncation report.
    fn embed_texts(&self, texts: &[&str], ctl: Control<'_>) -> Result<Embeddings>;

    /// Embed texts; `progress(done, total)` is called as batches finish.
    fn embed(&self, texts: &[&str], progress: &dyn Fn(usize, usize)) -> Result<Vec<Vec<f32>>> {
        Ok(self.embed_texts(texts, Control::new(progress, None))?.vectors)
    }

    /// Largest input the model takes, in its own tokens (specials included).
    fn max_input_tokens(&self) -> Option<usize> {
        None
    }

    /// Token-level vectors of a whole document (late chunking). Documents
    /// longer than the model's input are run in overlapping windows.
    fn token_vectors(&self, _text: &str, _ctl: Control<'_>) -> Result<TokenVectors> {
        Err(Error::Model(format!(
            "model '{}' cannot give token-level vectors, which late chunking needs",
            self.model_id()
        )))
    }
}

/// Shared and borrowed embedders are embedders too.
macro_rules! forward_embedder {
    ($($wrapper:ty),*) => {$(
        impl<E: Embedder + ?Sized> Embedder for $wrapper {
            fn model_id(&self) -> &str {
                (**self).model_id()
            }
            fn embed_texts(&self, texts: &[&str], ctl: Control<'_>) -> Result<Embeddings> {
                (**self).embed_texts(texts, ctl)
            }
            fn max_input_tokens(&self) -> Option<usize> {
                (**self).max_input_tokens()
            }
            fn token_vectors(&self, text: &str, ctl: Control<'_>) -> Result<TokenVectors> {
                (**self).token_vectors(text, ctl)
            }
        }
    )*};
}
forward_embedder!(Arc<E>, &E);

/// Cosine similarity of two vectors (any length; 0 for a zero vector).
pub fn cosine(a: &[f32], b: &[f32]) -> f64 {
    let (mut dot, mut na, mut nb) = (0f64, 0f64, 0f64);
    for (x, y) in a.iter().zip(b) {
        dot += (*x as f64) * (*y as f64);
        na += (*x as f64) * (*x as f64);
        nb += (*y as f64) * (*y as f64);
    }
    if na == 0.0 || nb == 0.0 {
        0.0
    } else {
        dot / (na.sqrt() * nb.sqrt())
    }
}

/// Scale a vector to unit length in place (a zero vector stays zero).
pub fn normalize(v: &mut [f32]) {
    let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if n > 0.0 {
        v.iter_mut().for_each(|x| *x /= n);
    }
}

/// chunktui's cache directory: `$CHUNKTUI_CACHE_DIR`, else the platform cache
/// dir (`~/.cache/chunktui` on Linux).
pub fn cache_dir() -> Option<std::path::PathBuf> {
    if let Some(d) = std::env::var_os("CHUNKTUI_CACHE_DIR").filter(|d| !d.is_empty()) {
        return Some(d.into());
    }
    dirs::cache_dir().map(|d| d.join("chunktui"))
}

/// Where `chunktui setup` puts the default model.
pub fn default_model_dir() -> Option<std::path::PathBuf> {
    if let Some(d) = std::env::var_os("CHUNKTUI_MODEL_DIR").filter(|d| !d.is_empty()) {
        return Some(d.into());
    }
    cache_dir().map(|d| d.join("models").join(DEFAULT_MODEL_NAME))
}

/// Directory name of the default model under `<cache>/models/`.
pub const DEFAULT_MODEL_NAME: &str = crate::config::DEFAULT_MODEL;

/// Load (once per process, then shared) the embedder for a model directory,
/// or the default model when `model` is `None`, with the on-disk cache.
/// Errors say what to run when the runtime or the model is missing.
pub fn load_model(model: Option<&str>) -> Result<Arc<dyn Embedder>> {
    let opts = crate::config::SemanticOptions { model: model.map(String::from), ..Default::default() };
    load_model_for(&opts)
}

/// [`load_model`] with the model settings of a config (`semantic.model`,
/// `semantic.prefix`, `semantic.max_tokens`), which override what the model
/// directory says.
pub fn load_model_for(semantic: &crate::config::SemanticOptions) -> Result<Arc<dyn Embedder>> {
    use std::collections::HashMap;
    use std::sync::{Mutex, OnceLock};
    type Key = (std::path::PathBuf, Option<String>, Option<usize>);
    static LOADED: OnceLock<Mutex<HashMap<Key, Arc<dyn Embedder>>>> = OnceLock::new();
    let dir = match semantic.model.as_deref() {
        Some(m) if m != DEFAULT_MODEL_NAME => std::path::PathBuf::from(m),
        _ => default_model_dir().ok_or_else(|| {
            Error::Model("no cache directory on this system: pass a model directory with --model DIR".into())
        })?,
    };
    let key = (dir.clone(), semantic.prefix.clone(), semantic.max_tokens);
    let map = LOADED.get_or_init(Default::default);
    if let Some(e) = map.lock().unwrap_or_else(|p| p.into_inner()).get(&key) {
        return Ok(e.clone());
    }
    let opts = ModelOptions { prefix: semantic.prefix.clone(), max_tokens: semantic.max_tokens, ..Default::default() };
    let onnx = OnnxEmbedder::load(&dir, None, &opts)?;
    let embedder: Arc<dyn Embedder> = Arc::new(CachedEmbedder::on_disk(onnx));
    map.lock().unwrap_or_else(|p| p.into_inner()).insert(key, embedder.clone());
    Ok(embedder)
}
