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

pub const SPEC: Spec = Spec {
    name: "late",
    help:
        "another strategy's boundaries, each chunk's vector pooled from whole-document token embeddings (--embeddings)",
    needs_model: true,
    needs_llm: false,
    size: SizeRule::Limit,
    overlap: OverlapRule::Units,
    has_threshold: false,
    forces_unit: None,
    options: &["--model", "semantic.late_boundaries", "--embeddings"],
    option: Some(OptionKnob { show: |c| format!("boundaries={}", boundary_kind(c)), next: next_boundaries }),
    recut: None,
    formats: &[],
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
