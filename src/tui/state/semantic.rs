//! What the workbench keeps for the model strategies: the cached sentence
//! analyses (by [`AnalysisKey`]) and each pane's embedding job. The logic
//! that fills them is [`crate::tui::features::semantic`].

use crate::config::{ChunkConfig, StrategyKind};
use std::sync::Arc;

pub use crate::embedding::CancelFlag;
pub use crate::strategy::semantic::analysis::{SemanticAnalysis, Threshold};
pub use crate::strategy::semantic::ModelWarning;

/// Strategies whose cut can be redone from cached sentence distances.
pub fn recuts(kind: StrategyKind) -> bool {
    kind.spec().recut.is_some()
}

/// What an analysis depends on. `semantic-grouping` compares single
/// sentences, so its buffer is 0 (and it shares an analysis with
/// `semantic` at buffer 0, which computes the same numbers).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AnalysisKey {
    pub doc_rev: u64,
    /// `--model DIR`, or None for the default model.
    pub model: Option<String>,
    pub buffer: usize,
    /// What the pieces embedded are (sentences, or cluster's pieces and
    /// what cuts them).
    pub pieces: String,
}

impl AnalysisKey {
    pub fn for_config(doc_rev: u64, c: &ChunkConfig) -> AnalysisKey {
        let recut = c.strategy.spec().recut;
        let buffer = recut.map_or(c.semantic.buffer_size, |r| r.buffer(c));
        let pieces = recut.map_or_else(|| "sentences".to_string(), |r| r.pieces_key(c));
        // No model named and the default model named are the same model.
        let model = c.model_key();
        AnalysisKey { doc_rev, model, buffer, pieces }
    }
}

/// A cached analysis, with the unit and tokenizer its sizes were counted in
/// (a unit change re-sizes it on the chunker thread; no embedding).
#[derive(Debug, Clone)]
pub struct Cached {
    pub key: AnalysisKey,
    pub analysis: Arc<SemanticAnalysis>,
    pub sized_for: (crate::config::Unit, String),
    /// The model's id (name + short hash).
    pub model_id: String,
}

/// An embedding job on its way for one pane.
#[derive(Debug, Clone)]
pub struct Job {
    pub id: u64,
    /// The analysis it computes (None: a whole langchain-semantic/late run).
    pub key: Option<AnalysisKey>,
    pub cancel: CancelFlag,
    /// Texts embedded so far and in all (0 of 0 while the model loads).
    pub done: usize,
    pub total: usize,
}

/// Embedding state of one pane.
#[derive(Debug, Clone, Default)]
pub struct SemState {
    pub job: Option<Job>,
    /// The model that made the chunks on screen, and what it warns about.
    pub model_id: Option<String>,
    pub warnings: Vec<ModelWarning>,
    /// The chunks on screen were cut from the visible part of the
    /// document only; the whole analysis must re-cut them.
    pub partial: bool,
}

/// Analyses kept at once (a few: A/B panes, a reload, a buffer change).
pub const CACHE_SLOTS: usize = 4;
