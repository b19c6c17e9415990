//! The embedding interface the model strategies are written against. The
//! core defines it and never implements it: `embed/` supplies the ONNX
//! implementation, tests a tiny deterministic one, a Python binding its own.
//! Nothing here loads a model or knows about ONNX Runtime.

use crate::error::{Error, Result};
use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

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
    /// `Err(Error::Cancelled)` when the flag is set.
    pub fn check(&self) -> Result<()> {
        if self.is_cancelled() {
            Err(Error::Cancelled)
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

/// Token vectors of a document, with each token's byte span in it (late chunking).
#[derive(Debug, Clone, Default)]
pub struct TokenVectors {
    pub spans: Vec<(usize, usize)>,
    pub vectors: Vec<Vec<f32>>,
    pub dim: usize,
    /// Model runs it took.
    pub windows: usize,
}

impl TokenVectors {
    /// Mean of the vectors of tokens overlapping `range`, L2-normalised.
    pub fn pool(&self, range: Range<usize>) -> Vec<f32> {
        let first = self.spans.partition_point(|s| s.1 <= range.start);
        let mut v = vec![0f32; self.dim];
        let mut n = 0;
        for (span, vec) in self.spans[first..].iter().zip(&self.vectors[first..]) {
            if span.0 >= range.end {
                break;
            }
            if span.1 > span.0 && !vec.is_empty() {
                v.iter_mut().zip(vec).for_each(|(a, b)| *a += b);
                n += 1;
            }
        }
        if n > 0 {
            normalize(&mut v);
        }
        v
    }
}
