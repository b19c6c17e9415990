//! Standalone token counts of a pane's chunks, on their own thread so that
//! counting a huge chunk never delays the next cut.

use super::Reply;
use crate::chunk::Chunk;
use crate::size::Tokenizer;
use crate::tui::msg::Msg;
use std::collections::HashMap;
use std::sync::Arc;

pub struct CountReq {
    pane: usize,
    rev: u64,
    chunks: Arc<Vec<Chunk>>,
    text: Arc<str>,
    tokenizer: String,
}

impl CountReq {
    pub fn new(pane: usize, rev: u64, chunks: Arc<Vec<Chunk>>, text: Arc<str>, tokenizer: String) -> CountReq {
        CountReq { pane, rev, chunks, text, tokenizer }
    }
}

/// Tokenizers by name, loaded once (None: it cannot be loaded; nothing is counted).
pub type Tokenizers = HashMap<String, Option<Tokenizer>>;

/// Count every chunk, checking between batches whether a newer cut replaced them.
pub fn run(req: CountReq, reply: &Reply, tokenizers: &mut Tokenizers) {
    let tok = tokenizers.entry(req.tokenizer.clone()).or_insert_with(|| Tokenizer::load(&req.tokenizer).ok());
    let Some(tok) = tok else { return };
    let mut counts = Vec::with_capacity(req.chunks.len());
    for batch in req.chunks.chunks(16) {
        if reply.cancelled() {
            return;
        }
        counts.extend(batch.iter().map(|c| c.checked_text(&req.text).map_or(0, |t| tok.count(t))));
    }
    reply.send(Msg::TokensCounted { pane: req.pane, rev: req.rev, counts });
}
