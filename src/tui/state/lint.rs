//! What a lint job is asked and answers, and the lint a pane keeps of the
//! chunks on screen. The logic is [`crate::tui::features::lint`].

use crate::chunk::Chunk;
use crate::config::ChunkConfig;
use crate::document::DocKind;
use crate::lint::{Finding, Rule};
use std::sync::Arc;

/// One lint job: a pane's chunks (all levels) as cut for revision `rev`.
#[derive(Debug, Clone)]
pub struct LintReq {
    pub pane: usize,
    pub rev: u64,
    pub config: ChunkConfig,
    pub kind: DocKind,
    pub text: Arc<str>,
    pub chunks: Arc<Vec<Chunk>>,
    /// The workbench's `--max-tokens`, over the config's `lint.max_tokens`.
    pub max_tokens: Option<usize>,
    /// Record data's records, for "does it need chunking?".
    pub structure: Option<Arc<crate::extract::Structure>>,
}

/// What a lint job found: findings (indices into the pane's `all_chunks`)
/// and the rules that ran.
#[derive(Debug, Clone)]
pub struct Linted {
    pub findings: Arc<Vec<Finding>>,
    pub rules: Vec<Rule>,
    /// Does it need chunking (see [`crate::fit`]).
    pub fit: Option<crate::fit::Fit>,
}

/// The lint of the chunks on screen.
#[derive(Debug, Clone, Default)]
pub struct PaneLint {
    /// The chunk revision the findings are for (0: none yet).
    pub rev: u64,
    /// Every finding, indices into `Pane::all_chunks`.
    pub all: Arc<Vec<Finding>>,
    /// The shown level's findings, indices into `Pane::chunks`, in text order.
    pub shown: Vec<Finding>,
    /// Findings of the shown level per rule that ran, zeros included.
    pub counts: Vec<(Rule, usize)>,
    pub error: Option<String>,
    /// Does it need chunking: said for record data, and for a document that fits whole.
    pub fit: Option<crate::fit::Fit>,
}

impl PaneLint {
    /// The findings of chunk `k` of the shown level.
    pub fn of_chunk(&self, k: usize) -> impl Iterator<Item = &Finding> {
        self.shown.iter().filter(move |f| f.chunk == k)
    }

    /// Whether a shown finding points into bytes `from..to`.
    pub fn points_into(&self, from: usize, to: usize) -> bool {
        let i = self.shown.partition_point(|f| f.at < from);
        self.shown.get(i).is_some_and(|f| f.at < to)
    }
}
