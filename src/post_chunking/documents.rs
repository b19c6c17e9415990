//! The first step of post-chunking: which whole documents a question is
//! about. BM25 needs nothing; a dense index embeds every document. A
//! document longer than the model reads is not cut to its opening (what the
//! model would do): it is packed into windows of whole sentences that fit,
//! and its vector is the mean of theirs, normalised. [`DocumentIndex::shown`]
//! says so in one line, for the report.

use super::lexical::Collection;
use crate::embedding::{Control, Embedder};
use crate::error::Result;
use crate::eval::retrieve::{Dense, Hybrid, Lexical, Retriever, RetrieverKind};
use std::ops::Range;
use std::sync::Arc;

/// Bytes a window may hold per token of the model's input: ~4 bytes make an
/// English word piece and 3 a Chinese character, so 3 keeps both inside.
const BYTES_PER_TOKEN: usize = 3;
/// Window size for a model that states no input size.
const WINDOW_BYTES_DEFAULT: usize = 1500;

/// Documents ranked for a question.
pub struct DocumentIndex {
    retriever: Box<dyn Retriever>,
    /// How documents are represented, for the report.
    pub shown: String,
    /// Texts sent to the model to build it (windows), 0 for BM25.
    pub embedded: usize,
}

impl DocumentIndex {
    /// The index, and the collection's word statistics (counted in the
    /// same pass when the index is lexical).
    pub fn new(
        kind: RetrieverKind,
        texts: &[&str],
        model: Option<Arc<dyn Embedder>>,
        control: Control<'_>,
    ) -> Result<(Self, Arc<Collection>)> {
        let (bm25, holding) = Lexical::counting(texts);
        let collection = Arc::new(Collection::from_counts(holding, texts.len()));
        let lexical = Box::new(bm25) as Box<dyn Retriever>;
        if kind == RetrieverKind::Bm25 {
            let shown = "whole documents, BM25 over their words".to_string();
            return Ok((DocumentIndex { retriever: lexical, shown, embedded: 0 }, collection));
        }
        let model = model.ok_or_else(|| {
            crate::error::Error::Model(format!(
                "--doc-retriever {kind} embeds whole documents and needs a model: name one with --model, or use \
                 --doc-retriever bm25"
            ))
        })?;
        let cap = model.max_input_tokens().map_or(WINDOW_BYTES_DEFAULT, |t| t.saturating_mul(BYTES_PER_TOKEN).max(64));
        let windows: Vec<Vec<Range<usize>>> = texts.iter().map(|t| windows(t, cap)).collect();
        let pieces: Vec<&str> =
            texts.iter().zip(&windows).flat_map(|(t, ws)| ws.iter().map(move |w| &t[w.clone()])).collect();
        let vectors = model.embed_texts(&pieces, control)?.vectors;
        let mut at = 0;
        let mut means = Vec::with_capacity(texts.len());
        for ws in &windows {
            means.push(mean(&vectors[at..at + ws.len()], vectors.first().map_or(0, Vec::len)));
            at += ws.len();
        }
        let split = windows.iter().filter(|w| w.len() > 1).count();
        let shown = format!(
            "whole documents embedded by {}; {split} of {} over its input ({} bytes) are the mean of their \
             windows' vectors (whole sentences, at most {cap} bytes each), normalised",
            model.model_id(),
            texts.len(),
            cap,
        );
        let dense: Box<dyn Retriever> = Box::new(Dense::from_vectors(model, means));
        let retriever = match kind {
            RetrieverKind::Dense => dense,
            _ => Box::new(Hybrid::new(vec![dense, lexical], texts.len())),
        };
        Ok((DocumentIndex { retriever, shown, embedded: pieces.len() }, collection))
    }

    /// The best `n` documents for `question`, best first: (index, score).
    pub fn rank(&self, question: &str, n: usize) -> Result<Vec<(usize, f64)>> {
        Ok(self.retriever.rank(question, n)?.into_iter().map(|h| (h.chunk, h.score)).collect())
    }
}

/// `text` packed into windows of whole sentences of at most `cap` bytes (a
/// longer sentence is cut at the last character that fits). A blank text is
/// one empty window, so every document has a vector.
pub fn windows(text: &str, cap: usize) -> Vec<Range<usize>> {
    let mut out: Vec<Range<usize>> = Vec::new();
    let mut current: Option<Range<usize>> = None;
    for sentence in crate::segment::sentences(text) {
        let mut s = sentence;
        while s.len() > cap {
            if let Some(c) = current.take() {
                out.push(c);
            }
            let end = crate::size::floor_char_boundary(text, s.start + cap).max(s.start + 1);
            let end = (s.start..=s.end).find(|&e| e >= end && text.is_char_boundary(e)).unwrap_or(s.end);
            out.push(s.start..end);
            s = end..s.end;
        }
        if s.is_empty() {
            continue;
        }
        current = match current {
            Some(c) if s.end - c.start <= cap => Some(c.start..s.end),
            Some(c) => {
                out.push(c);
                Some(s)
            }
            None => Some(s),
        };
    }
    out.extend(current);
    if out.is_empty() {
        out.push(0..text.len().min(cap));
    }
    out
}

/// The normalised mean of unit vectors.
pub fn mean(vectors: &[Vec<f32>], dim: usize) -> Vec<f32> {
    let mut sum = vec![0f32; dim];
    for v in vectors {
        sum.iter_mut().zip(v).for_each(|(s, x)| *s += x);
    }
    let norm = sum.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        sum.iter_mut().for_each(|x| *x /= norm);
    }
    sum
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_hold_whole_sentences_within_the_cap() {
        let text = "First sentence here. Second one is a bit longer. Third. 第一句话。第二句话很长很长很长。";
        for cap in [8, 20, 40, 200] {
            let ws = windows(text, cap);
            assert_eq!(ws.first().unwrap().start, 0);
            assert_eq!(ws.last().unwrap().end, text.len());
            for pair in ws.windows(2) {
                assert!(pair[0].end <= pair[1].start, "{ws:?}");
            }
            for w in &ws {
                assert!(w.len() <= cap.max(4), "{cap}: {w:?}");
                assert!(text.is_char_boundary(w.start) && text.is_char_boundary(w.end));
            }
        }
        assert_eq!(windows(text, 1000), vec![0..text.len()]);
        assert_eq!(windows("", 10), vec![0..0]);
    }

    #[test]
    fn the_mean_is_normalised() {
        let m = mean(&[vec![1.0, 0.0], vec![0.0, 1.0]], 2);
        assert!((m[0] - m[1]).abs() < 1e-6 && (m[0] * m[0] + m[1] * m[1] - 1.0).abs() < 1e-6);
    }
}
