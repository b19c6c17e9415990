//! Late chunking: embed the whole document once at token level, then pool
//! each chunk's token vectors over its byte span. Every chunk vector has seen
//! the context around it (up to the model's window). Documents longer than the
//! model's input are run in overlapping windows; each token keeps the vector
//! from the window where it sits furthest from an edge.

use super::{normalize, Control, Embedder};
use crate::chunk::Chunk;
use crate::config::StrategyKind;
use crate::error::{Error, Result};
use crate::strategy::Chunker;
use std::ops::Range;

/// One model run over document tokens `range`; its vectors are used for `keep`.
#[derive(Debug, Clone, PartialEq)]
pub struct Window {
    pub range: Range<usize>,
    pub keep: Range<usize>,
}

/// Windows of at most `room` tokens over `n` tokens, overlapping by `overlap`.
/// The `keep` ranges partition `0..n`.
pub fn windows(n: usize, room: usize, overlap: usize) -> Vec<Window> {
    let room = room.max(1);
    let overlap = overlap.min(room - 1);
    if n == 0 {
        return Vec::new();
    }
    let step = room - overlap;
    let mut ranges = Vec::new();
    let mut s = 0;
    loop {
        let e = (s + room).min(n);
        ranges.push(s..e);
        if e == n {
            break;
        }
        s += step;
    }
    let mut out = Vec::with_capacity(ranges.len());
    for (k, r) in ranges.iter().enumerate() {
        let keep_start = if k == 0 { 0 } else { (ranges[k - 1].end + r.start).div_ceil(2) };
        let keep_end = if k + 1 == ranges.len() { n } else { (r.end + ranges[k + 1].start).div_ceil(2) };
        out.push(Window { range: r.clone(), keep: keep_start..keep_end });
    }
    out
}

/// Token vectors of a document, with each token's byte span in it.
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

/// The chunker that gives late chunking its boundaries.
pub fn boundary_chunker(chunker: &Chunker) -> Result<Chunker> {
    let kind = chunker.config.semantic.late_boundaries.unwrap_or(StrategyKind::Recursive);
    if kind == StrategyKind::Late {
        return Err(Error::config("late_boundaries cannot be 'late' itself: use recursive, sentence, semantic, ..."));
    }
    let mut cfg = chunker.config.clone();
    cfg.strategy = kind;
    let mut inner = Chunker::new(&cfg)?;
    if let Some(e) = chunker.embedder() {
        inner = inner.with_embedder(e.clone());
    }
    Ok(inner)
}

/// Late chunking: the boundary strategy's chunks, each with the vector pooled
/// from whole-document token embeddings over its span. This is the function
/// to call to export late-chunking embeddings.
pub fn late_chunk_embeddings(chunker: &Chunker, text: &str) -> Result<Vec<(Chunk, Vec<f32>)>> {
    late_chunk_embeddings_with(chunker, text, Control::none())
}

pub fn late_chunk_embeddings_with(chunker: &Chunker, text: &str, ctl: Control<'_>) -> Result<Vec<(Chunk, Vec<f32>)>> {
    let embedder = super::strategies::embedder_for(chunker)?;
    let chunks = boundary_chunker(chunker)?.chunk(text)?;
    let tokens = embedder.token_vectors(text, ctl)?;
    Ok(chunks
        .into_iter()
        .map(|c| {
            let v = tokens.pool(c.range.clone());
            (c, v)
        })
        .collect())
}

/// Pool given token vectors over chunk ranges (for callers that keep the
/// token vectors to re-pool after boundaries move).
pub fn pool_chunks(tokens: &TokenVectors, ranges: &[Range<usize>]) -> Vec<Vec<f32>> {
    ranges.iter().map(|r| tokens.pool(r.clone())).collect()
}

/// Token vectors for `text` from any embedder (convenience).
pub fn token_vectors(embedder: &dyn Embedder, text: &str) -> Result<TokenVectors> {
    embedder.token_vectors(text, Control::none())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_partition_tokens() {
        for (n, room, ov) in [(10, 4, 1), (100, 30, 7), (5, 10, 2), (31, 10, 0), (1, 1, 0)] {
            let w = windows(n, room, ov);
            assert_eq!(w.first().unwrap().keep.start, 0);
            assert_eq!(w.last().unwrap().keep.end, n);
            for pair in w.windows(2) {
                assert_eq!(pair[0].keep.end, pair[1].keep.start);
            }
            for x in &w {
                assert!(x.range.len() <= room);
                assert!(x.range.start <= x.keep.start && x.keep.end <= x.range.end, "{x:?}");
            }
        }
        assert!(windows(0, 10, 2).is_empty());
    }
}
