//! Late chunking: embed the whole document once at token level, then pool
//! each chunk's token vectors over its byte span. Every chunk vector has seen
//! the context around it (up to the model's window). Documents longer than the
//! model's input are run in overlapping windows; each token keeps the vector
//! from the window where it sits furthest from an edge.

use super::{Configured, Context, OptionKnob, OverlapRule, SizeRule, Spec, Strategy, StrategyKind};
use crate::chunk::Chunk;
use crate::config::ChunkConfig;
use crate::embedding::{Control, Embedder, TokenVectors};
use crate::error::{Error, Result};
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

pub const SPEC: Spec = Spec {
    name: "late",
    help:
        "another strategy's boundaries, each chunk's vector pooled from whole-document token embeddings (--embeddings)",
    needs_model: true,
    size: SizeRule::Limit,
    overlap: OverlapRule::Units,
    has_threshold: false,
    forces_unit: None,
    options: &["--model", "semantic.late_boundaries", "--embeddings"],
    option: Some(OptionKnob { show: |c| format!("boundaries={}", boundary_kind(c)), next: next_boundaries }),
    recut: None,
    build: |c| Ok(Box::new(Late { boundaries: boundaries(c)? })),
};

/// Late chunking's chunks are its boundary strategy's; the vectors come from
/// [`chunks_with_vectors`].
struct Late {
    boundaries: Configured,
}

impl Strategy for Late {
    fn chunk(&self, text: &str, cx: &Context<'_>) -> Result<Vec<Chunk>> {
        self.boundaries.chunk(text, Some(cx.model()?), cx.control)
    }
}

fn boundary_kind(c: &ChunkConfig) -> StrategyKind {
    c.semantic.late_boundaries.unwrap_or(StrategyKind::Recursive)
}

fn next_boundaries(c: &mut ChunkConfig) -> String {
    use StrategyKind::*;
    let options = [Recursive, Sentence, Markdown, Fixed, Semantic];
    let i = options.iter().position(|o| *o == boundary_kind(c)).map_or(0, |i| (i + 1) % options.len());
    c.semantic.late_boundaries = Some(options[i]);
    format!("late boundaries from {}", options[i])
}

/// The strategy that gives late chunking its boundaries (`late_boundaries`,
/// recursive by default), built with the rest of `config`.
pub fn boundaries(config: &ChunkConfig) -> Result<Configured> {
    let kind = boundary_kind(config);
    if kind == StrategyKind::Late {
        return Err(Error::config("late_boundaries cannot be 'late' itself: use recursive, sentence, semantic, ..."));
    }
    let mut cfg = config.clone();
    cfg.strategy = kind;
    Configured::new(&cfg)
}

/// Late chunking: the boundary strategy's chunks, each with the vector pooled
/// from whole-document token embeddings over its span. This is the function
/// to call to export late-chunking embeddings.
pub fn chunks_with_vectors(
    config: &ChunkConfig,
    text: &str,
    model: &dyn Embedder,
    control: Control<'_>,
) -> Result<Vec<(Chunk, Vec<f32>)>> {
    let chunks = boundaries(config)?.chunk(text, Some(model), control)?;
    let tokens = model.token_vectors(text, control)?;
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
