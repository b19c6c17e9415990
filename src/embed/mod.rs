//! Embedding models (ONNX through `ort`) and the strategies that use them.
//! (Filled in by the embeddings work.)

pub mod strategies;

use crate::error::Result;

/// Turns texts into unit-length vectors.
pub trait Embedder: Send + Sync {
    /// Identifies the model in caches and exported configs.
    fn model_id(&self) -> &str;
    /// Embed texts; `progress(done, total)` is called as batches finish.
    fn embed(&self, texts: &[&str], progress: &dyn Fn(usize, usize)) -> Result<Vec<Vec<f32>>>;
}
