//! Semantic, adaptive and late chunking behind [`Chunker::chunk`].
//!
//! | strategy            | sentences                   | cut                                        |
//! |---------------------|-----------------------------|--------------------------------------------|
//! | `langchain-semantic`| LangChain's regex split     | LangChain's `SemanticChunker`, joined text |
//! | `semantic`          | [`crate::segment`] (CJK)    | [`SemanticAnalysis::cut`], exact offsets   |
//! | `semantic-grouping` | [`crate::segment`]          | [`SemanticAnalysis::group_by_mean`]        |
//! | `adaptive`          | [`crate::segment`]          | [`SemanticAnalysis::adaptive`]             |
//! | `late`              | boundaries of another strategy | vectors: [`super::late_chunk_embeddings`] |
//!
//! For a workbench: compute [`analyze`] once per (document, model, buffer),
//! then call [`recut`] on every threshold or size change.

use super::analysis::{split_oversized, Limits, SemanticAnalysis, Threshold};
use super::{Control, Embedder};
use crate::chunk::Chunk;
use crate::config::{ChunkConfig, StrategyKind};
use crate::error::{Error, Result};
use crate::size::SizeIndex;
use crate::strategy::{ranges_to_chunks, Chunker};
use std::ops::Range;
use std::sync::Arc;

/// The embedder a chunker uses: the attached one, else the model its config
/// names (or the default model), loaded once per process.
pub fn embedder_for(chunker: &Chunker) -> Result<Arc<dyn Embedder>> {
    match chunker.embedder() {
        Some(e) => Ok(e.clone()),
        None => super::load_model_for(&chunker.config.semantic),
    }
}

pub fn chunk(chunker: &Chunker, text: &str, kind: StrategyKind) -> Result<Vec<Chunk>> {
    chunk_with(chunker, text, kind, Control::none())
}

/// [`chunk`] with progress and cancellation.
pub fn chunk_with(chunker: &Chunker, text: &str, kind: StrategyKind, ctl: Control<'_>) -> Result<Vec<Chunk>> {
    let embedder = embedder_for(chunker)?;
    let cfg = &chunker.config;
    match kind {
        StrategyKind::LangchainSemantic => {
            let chunks = super::langchain::split(text, &cfg.semantic, embedder.as_ref(), ctl)?;
            Ok(super::langchain::to_chunks(chunks, |t| chunker.size_of(t)))
        }
        StrategyKind::Semantic | StrategyKind::SemanticGrouping | StrategyKind::Adaptive => {
            let index = chunker.sizer.index(text)?;
            let analysis = if kind == StrategyKind::SemanticGrouping {
                // Grouping compares single sentences with the chunk's mean.
                let mut c = cfg.clone();
                c.semantic.buffer_size = 0;
                analyze_with(text, &c, embedder.as_ref(), &index, ctl)?
            } else {
                analyze_with(text, cfg, embedder.as_ref(), &index, ctl)?
            };
            let ranges = recut(kind, &analysis, cfg)?;
            let ranges = split_oversized(text, &index, ranges, cfg.size);
            let mut chunks = ranges_to_chunks(ranges, &index);
            flag_truncated(&mut chunks, &analysis);
            Ok(chunks)
        }
        StrategyKind::Late => super::late::boundary_chunker(chunker)?.chunk(text),
        other => Err(Error::config(format!("strategy '{other}' does not use an embedding model"))),
    }
}

/// Embed `text`'s sentences (windows of `cfg.semantic.buffer_size` neighbours)
/// and measure every boundary: the expensive step, done once per document.
pub fn analyze(chunker: &Chunker, text: &str, ctl: Control<'_>) -> Result<SemanticAnalysis> {
    let embedder = embedder_for(chunker)?;
    let index = chunker.sizer.index(text)?;
    analyze_with(text, &chunker.config, embedder.as_ref(), &index, ctl)
}

pub fn analyze_with(
    text: &str,
    cfg: &ChunkConfig,
    embedder: &dyn Embedder,
    index: &SizeIndex<'_>,
    ctl: Control<'_>,
) -> Result<SemanticAnalysis> {
    let sentences = crate::segment::sentences(text);
    SemanticAnalysis::compute(text, sentences, cfg.semantic.buffer_size, embedder, index, ctl)
}

/// Re-cut from a cached analysis (no embedding). `semantic-grouping` wants
/// an analysis computed with `buffer_size = 0` (single-sentence vectors; the
/// Chunker path does that). Threshold from
/// `cfg.semantic`, max size `cfg.size`, min size `cfg.semantic.min_size`.
/// Sentences longer than `size` on their own are left whole here; the
/// [`Chunker`] path splits them with [`split_oversized`].
pub fn recut(kind: StrategyKind, analysis: &SemanticAnalysis, cfg: &ChunkConfig) -> Result<Vec<Range<usize>>> {
    let t = Threshold::from_options(&cfg.semantic);
    let limits = Limits { max: cfg.size, min: cfg.semantic.min_size };
    Ok(match kind {
        StrategyKind::Semantic => analysis.cut(t, limits),
        StrategyKind::SemanticGrouping => analysis.group_by_mean(t, limits),
        StrategyKind::Adaptive => analysis.adaptive(t, limits),
        other => {
            return Err(Error::config(format!(
            "strategy '{other}' cannot be re-cut from sentence distances (use semantic, semantic-grouping or adaptive)"
        )))
        }
    })
}

fn flag_truncated(chunks: &mut [Chunk], analysis: &SemanticAnalysis) {
    for &i in &analysis.truncated {
        let s = &analysis.sentences[i];
        if let Some(c) = chunks.iter_mut().find(|c| c.range.start <= s.start && s.start < c.range.end) {
            if !c.meta.fields.iter().any(|(k, _)| k == "embedding_truncated") {
                c.meta.fields.push((
                    "embedding_truncated".into(),
                    "a sentence window here was longer than the model's input and was cut for embedding".into(),
                ));
            }
        }
    }
}

/// Warnings worth showing beside model chunks (e.g. an English-only model on
/// Chinese text).
pub fn model_warnings(model_id: &str, text: &str, analysis: Option<&SemanticAnalysis>) -> Vec<String> {
    let mut w = Vec::new();
    let id = model_id.to_lowercase();
    if id.contains("minilm") && !id.contains("multilingual") && crate::segment::cjk_ratio(text) > 0.2 {
        w.push(format!(
            "model '{model_id}' is English-only and separates Chinese/Japanese/Korean sentences poorly: \
             pass --model with a multilingual model (e.g. multilingual-e5-small)"
        ));
    }
    if let Some(a) = analysis {
        if !a.truncated.is_empty() {
            w.push(format!(
                "{} sentence window(s) were longer than the model's input and were cut for embedding",
                a.truncated.len()
            ));
        }
    }
    w
}
