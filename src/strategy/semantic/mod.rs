//! `semantic`, `semantic-grouping` and `adaptive`: three cuts of one
//! [`SemanticAnalysis`] (sentences from [`crate::segment`], CJK-aware, their
//! embeddings and the distance across every boundary).
//!
//! | strategy            | cut                                   |
//! |---------------------|---------------------------------------|
//! | `semantic`          | [`SemanticAnalysis::cut`]             |
//! | `semantic-grouping` | [`SemanticAnalysis::group_by_mean`]   |
//! | `adaptive`          | [`SemanticAnalysis::adaptive`]        |
//!
//! Embedding is the expensive step; a workbench runs [`analyze`] once per
//! (document, model, buffer) and then [`chunks_from_analysis`] on every
//! threshold or size change. A chunker runs both in a row. Either way the
//! chunks come out of [`chunks_from_analysis`], so they are the same.

pub mod analysis;
pub mod cluster;

use super::{ranges_to_chunks, Context, OptionKnob, OverlapRule, SizeRule, Spec, Strategy};
use crate::chunk::Chunk;
use crate::config::ChunkConfig;
use crate::embedding::{Control, Embedder};
use crate::error::Result;
use crate::size::SizeIndex;
use analysis::{split_oversized, Limits, SemanticAnalysis, Threshold};
use std::ops::Range;

/// The pieces an analysis embeds and measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pieces {
    /// Sentences ([`crate::segment::sentences`]), each embedded with
    /// `semantic.buffer_size` neighbours on each side; `single`: without
    /// neighbours, whatever the buffer says (grouping compares a sentence
    /// with a mean).
    Sentences { single: bool },
    /// Recursive pieces of at most `cluster.piece_size` tokens, each
    /// embedded alone ([`cluster`]).
    Recursive,
}

/// How a strategy cuts a cached analysis.
#[derive(Clone, Copy)]
pub struct Recut {
    pub pieces: Pieces,
    pub cut: fn(&SemanticAnalysis, &str, &ChunkConfig) -> Vec<Range<usize>>,
}

impl Recut {
    /// The buffer the analysis this strategy cuts is computed with.
    pub fn buffer(&self, config: &ChunkConfig) -> usize {
        match self.pieces {
            Pieces::Sentences { single: false } => config.semantic.buffer_size,
            Pieces::Sentences { single: true } | Pieces::Recursive => 0,
        }
    }

    /// `text`'s pieces, exact byte ranges in order.
    pub fn pieces_of(&self, text: &str, config: &ChunkConfig, control: Control<'_>) -> Result<Vec<Range<usize>>> {
        match self.pieces {
            Pieces::Sentences { .. } => Ok(crate::segment::sentences(text)),
            Pieces::Recursive => cluster::pieces(text, config, control),
        }
    }

    /// What the pieces depend on besides the text: analyses with equal keys
    /// (and buffers) hold the same numbers.
    pub fn pieces_key(&self, config: &ChunkConfig) -> String {
        match self.pieces {
            Pieces::Sentences { .. } => "sentences".into(),
            Pieces::Recursive => cluster::pieces_key(config),
        }
    }
}

/// The option key of the sentence-window strategies: sentences joined on
/// each side before embedding.
pub(crate) const BUFFER: OptionKnob = OptionKnob {
    show: |c| format!("buffer={}", c.semantic.buffer_size),
    next: |c| {
        c.semantic.buffer_size = (c.semantic.buffer_size + 1) % 4;
        format!("buffer_size {} (sentences joined on each side before embedding)", c.semantic.buffer_size)
    },
};

const OPTIONS: &[&str] =
    &["--model", "--threshold-type", "--threshold", "--buffer-size", "--min-size", "semantic.number_of_chunks"];

pub const SEMANTIC: Spec = Spec {
    name: "semantic",
    help: "cut where the embeddings of neighbouring sentences drift apart (the threshold), within --size",
    needs_model: true,
    needs_llm: false,
    size: SizeRule::Limit,
    overlap: OverlapRule::None,
    has_threshold: true,
    forces_unit: None,
    options: OPTIONS,
    option: Some(BUFFER),
    recut: Some(Recut { pieces: Pieces::Sentences { single: false }, cut: |a, _, c| a.cut(threshold(c), limits(c)) }),
    formats: &[],
    build: |c| Ok(Box::new(FromAnalysis(recut_of(c)))),
};

pub const GROUPING: Spec = Spec {
    name: "semantic-grouping",
    help: "grow a chunk while each next sentence stays close to the chunk's mean embedding, within --size",
    needs_model: true,
    needs_llm: false,
    size: SizeRule::Limit,
    overlap: OverlapRule::None,
    has_threshold: true,
    forces_unit: None,
    options: &["--model", "--threshold-type", "--threshold", "--min-size", "semantic.number_of_chunks"],
    option: None,
    recut: Some(Recut {
        pieces: Pieces::Sentences { single: true },
        cut: |a, _, c| a.group_by_mean(threshold(c), limits(c)),
    }),
    formats: &[],
    build: |c| Ok(Box::new(FromAnalysis(recut_of(c)))),
};

pub const ADAPTIVE: Spec = Spec {
    name: "adaptive",
    help: "semantic cuts whose chunk size follows how fast meaning changes (see docs/adaptive.md)",
    needs_model: true,
    needs_llm: false,
    size: SizeRule::Limit,
    overlap: OverlapRule::None,
    has_threshold: true,
    forces_unit: None,
    options: OPTIONS,
    option: Some(BUFFER),
    recut: Some(Recut {
        pieces: Pieces::Sentences { single: false },
        cut: |a, _, c| a.adaptive(threshold(c), limits(c)),
    }),
    formats: &[],
    build: |c| Ok(Box::new(FromAnalysis(recut_of(c)))),
};

fn threshold(c: &ChunkConfig) -> Threshold {
    Threshold::from_options(&c.semantic)
}

fn limits(c: &ChunkConfig) -> Limits {
    Limits { max: c.size, min: c.semantic.min_size }
}

fn recut_of(c: &ChunkConfig) -> Recut {
    c.strategy.spec().recut.expect("the strategies built here all re-cut an analysis")
}

/// Analyse, then cut: the chunker's path through [`chunks_from_analysis`].
pub(crate) struct FromAnalysis(pub(crate) Recut);

impl Strategy for FromAnalysis {
    fn chunk(&self, text: &str, cx: &Context<'_>) -> Result<Vec<Chunk>> {
        let index = cx.sizer.index(text)?;
        let analysis = analyze(text, &self.0, cx.config, cx.model()?, &index, cx.control)?;
        Ok(chunks_from_analysis(&self.0, &analysis, text, &index, cx.config))
    }
}

/// Embed `text`'s pieces (sentence windows of `semantic.buffer_size`
/// neighbours, or cluster's pieces) and measure every boundary: the
/// expensive step, done once per document.
pub fn analyze(
    text: &str,
    recut: &Recut,
    config: &ChunkConfig,
    model: &dyn Embedder,
    index: &SizeIndex<'_>,
    control: Control<'_>,
) -> Result<SemanticAnalysis> {
    let pieces = recut.pieces_of(text, config, control)?;
    SemanticAnalysis::compute(text, pieces, recut.buffer(config), model, index, control)
}

/// The chunks of an analysis under `config`'s threshold and limits: the cut,
/// sentences longer than `size` on their own split with the recursive
/// separators, and a note on every chunk holding a sentence window the model
/// had to truncate. The one function both the chunker and the workbench use.
pub fn chunks_from_analysis(
    recut: &Recut,
    analysis: &SemanticAnalysis,
    text: &str,
    index: &SizeIndex<'_>,
    config: &ChunkConfig,
) -> Vec<Chunk> {
    let ranges = split_oversized(text, index, (recut.cut)(analysis, text, config), config.size);
    let mut chunks = ranges_to_chunks(ranges, index);
    for &i in &analysis.truncated {
        let s = &analysis.sentences[i];
        if let Some(c) = chunks.iter_mut().find(|c| c.range.start <= s.start && s.start < c.range.end) {
            if !c.meta.fields.iter().any(|(k, _)| k == EMBEDDING_TRUNCATED) {
                c.meta.fields.push((
                    EMBEDDING_TRUNCATED.into(),
                    "a sentence window here was longer than the model's input and was cut for embedding".into(),
                ));
            }
        }
    }
    chunks
}

/// The meta field on chunks whose embedding saw a truncated window.
pub const EMBEDDING_TRUNCATED: &str = "embedding_truncated";

/// Something worth showing beside model chunks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ModelWarning {
    /// An English-only model on mostly Chinese/Japanese/Korean text.
    EnglishOnlyOnCjk { model: String },
    /// Sentence windows longer than the model's input, cut for embedding.
    Truncated { windows: usize },
}

impl ModelWarning {
    /// Short enough for one status line (the header names the model).
    pub fn short(&self) -> String {
        match self {
            ModelWarning::EnglishOnlyOnCjk { .. } => "English-only model on mostly CJK text: run `chunktui setup \
                                                     --multilingual`, or pass --model DIR with a multilingual model"
                .into(),
            w => w.to_string(),
        }
    }
}

impl std::fmt::Display for ModelWarning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ModelWarning::EnglishOnlyOnCjk { model } => write!(
                f,
                "model '{model}' is English-only and separates Chinese/Japanese/Korean sentences poorly: \
                 run `chunktui setup --multilingual` (then text that is not English gets multilingual-e5-small), \
                 or pass --model with a multilingual model"
            ),
            ModelWarning::Truncated { windows } => {
                write!(f, "{windows} sentence window(s) were longer than the model's input and were cut for embedding")
            }
        }
    }
}

/// What to warn about when `model_id` chunks `text`.
pub fn model_warnings(model_id: &str, text: &str, analysis: Option<&SemanticAnalysis>) -> Vec<ModelWarning> {
    let mut w = Vec::new();
    let id = model_id.to_lowercase();
    if id.contains("minilm") && !id.contains("multilingual") && crate::segment::cjk_ratio(text) > 0.2 {
        w.push(ModelWarning::EnglishOnlyOnCjk { model: model_id.to_string() });
    }
    if let Some(a) = analysis.filter(|a| !a.truncated.is_empty()) {
        w.push(ModelWarning::Truncated { windows: a.truncated.len() });
    }
    w
}
