//! The chunker's jobs: cut a pane's text (or re-cut it from a cached
//! analysis), then hand the chunks to the token counter.

use super::count::CountReq;
use super::{Reply, Worker};
use crate::chunk::Chunk;
use crate::config::ChunkConfig;
use crate::embedding::Control;
use crate::extract::Structure;
use crate::stats::Stats;
use crate::tui::app::msg::Msg;
use crate::tui::features::embedder;
use crate::tui::features::semantic::SemanticAnalysis;
use crate::Chunker;
use std::sync::Arc;

pub struct ChunkReq {
    pub pane: usize,
    pub rev: u64,
    pub config: ChunkConfig,
    pub text: Arc<str>,
    pub structure: Option<Arc<Structure>>,
    /// Re-cut from this analysis (and re-size it first when true).
    pub analysis: Option<(Arc<SemanticAnalysis>, bool)>,
}

/// Chunk one request: what the chunker thread does (the bench calls it too).
pub fn chunk_now(config: &ChunkConfig, text: &str) -> Result<(Vec<Chunk>, Stats), String> {
    chunk_structured_now(config, text, None)
}

/// [`chunk_now`] of extracted text (HTML, PDF) with its structure.
pub fn chunk_structured_now(
    config: &ChunkConfig,
    text: &str,
    structure: Option<&Structure>,
) -> Result<(Vec<Chunk>, Stats), String> {
    chunk_with(config, text, structure, Control::none())
}

fn chunk_with(
    config: &ChunkConfig,
    text: &str,
    structure: Option<&Structure>,
    ctl: Control<'_>,
) -> Result<(Vec<Chunk>, Stats), String> {
    let chunker = Chunker::new(config).map_err(|e| e.to_string())?;
    let chunks = chunker.chunk_structured(text, structure, ctl).map_err(|e| e.to_string())?;
    let limit = config.strategy.promises_size_limit().then_some(config.size);
    let stats = Stats::compute(&chunks, text, limit);
    Ok((chunks, stats))
}

/// One chunk job; the chunks it delivers are counted next.
pub fn run(req: ChunkReq, reply: &Reply, counter: &Worker<CountReq>) {
    let result = match &req.analysis {
        Some((a, resize)) => embedder::recut_now(&req.config, &req.text, a, *resize),
        None => {
            // LLM strategies report requests answered; the others nothing.
            let progress = |done: usize, total: usize| {
                if total > 0 {
                    reply.send(Msg::LlmProgress { pane: req.pane, rev: req.rev, done, total });
                }
            };
            let llm = req.config.strategy.needs_llm() || !req.config.llm.enrich.is_empty();
            let none = |_: usize, _: usize| {};
            let ctl = Control::new(if llm { &progress } else { &none }, Some(reply.cancel_flag()));
            chunk_with(&req.config, &req.text, req.structure.as_deref(), ctl)
        }
    };
    let result = result.map(|(chunks, stats)| (Arc::new(chunks), stats));
    let chunks = result.as_ref().ok().map(|(c, _)| c.clone());
    // Counted only once delivered, so the counts always arrive after the chunks.
    if reply.send(Msg::Chunked { pane: req.pane, rev: req.rev, result }) {
        if let Some(chunks) = chunks {
            counter.submit(req.pane as u64, CountReq::new(req.pane, req.rev, chunks, req.text, req.config.tokenizer));
        }
    }
}
