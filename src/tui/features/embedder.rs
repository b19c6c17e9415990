//! The embedding jobs, on the embedder's thread ([`crate::tui::jobs`]), never on
//! the UI thread. Jobs carry a cancel flag that `update` sets when a newer
//! request replaces them (a new document, model or buffer); cancelled jobs
//! are skipped, or stop between batches. Progress goes back as
//! [`Msg::EmbedProgress`].
//!
//! Also [`recut_now`], the chunker thread's side of [`Cmd::Recut`](crate::tui::msg::Cmd::Recut).

use crate::chunk::Chunk;
use crate::config::ChunkConfig;
use crate::embedding::{CancelFlag, Control};
use crate::stats::Stats;
use crate::strategy::semantic::{self, analysis::SemanticAnalysis};
use crate::tui::features::semantic::AnalysisKey;
use crate::tui::msg::Msg;
use crate::tui::threads::count::CountReq;
use crate::tui::threads::{Reply, Worker};
use std::sync::mpsc::channel;
use std::sync::Arc;

pub struct EmbedReq {
    pub pane: usize,
    pub id: u64,
    pub rev: u64,
    pub key: Option<AnalysisKey>,
    pub config: ChunkConfig,
    pub text: Arc<str>,
    pub cancel: CancelFlag,
    /// Embed the sentences of this byte range first (see [`Msg::AnalyzedPart`]).
    pub first: Option<std::ops::Range<usize>>,
}

/// Run one job on this thread and return the messages it sent (tests, benches).
pub fn run_sync(req: &EmbedReq) -> Vec<Msg> {
    let (tx, rx) = channel();
    run(req, &Reply::detached(tx, req.cancel.clone()), None);
    rx.into_iter().collect()
}

/// One embedding job; whole runs hand their chunks to the token counter.
pub fn run(req: &EmbedReq, reply: &Reply, counter: Option<&Worker<CountReq>>) {
    use crate::chunker::Chunker;
    use crate::error::Error;
    use crate::tui::msg::Analyzed;
    let (pane, id) = (req.pane, req.id);
    if !reply.send(Msg::EmbedProgress { pane, id, done: 0, total: 0 }) {
        return; // cancelled before it began, or the UI is gone
    }
    let progress = reply.progress(|done, total| Msg::EmbedProgress { pane, id, done, total });
    let ctl = Control::new(&progress, Some(&req.cancel));
    let loaded = Chunker::new(&req.config).and_then(|chunker| {
        let model = chunker.model()?;
        Ok((chunker.with_embedder(model.clone()), model))
    });
    let (chunker, model) = match loaded {
        Ok(x) => x,
        Err(e) => {
            let e = e.to_string();
            reply.send(match &req.key {
                Some(_) => Msg::Analyzed { pane, id, result: Err(e) },
                None => Msg::ModelChunked { pane, id, rev: req.rev, model_id: None, result: Err(e) },
            });
            return;
        }
    };
    let model_id = model.model_id().to_string();
    let (Some(key), Some(recut)) = (&req.key, req.config.strategy.spec().recut) else {
        let result = match chunker.chunk_with(&req.text, ctl) {
            Err(Error::Cancelled) => return,
            r => r.map_err(|e| e.to_string()).map(|chunks| {
                let limit = req.config.strategy.promises_size_limit().then_some(req.config.size);
                let stats = Stats::compute(&chunks, &req.text, limit);
                (Arc::new(chunks), stats)
            }),
        };
        let chunks = result.as_ref().ok().map(|(c, _)| c.clone());
        if chunks.is_some() {
            if let Some(msg) = crate::tui::features::edits::resolved_msg(pane, req.rev, &req.config, &req.text, None) {
                reply.send(msg);
            }
        }
        let msg = Msg::ModelChunked { pane, id, rev: req.rev, model_id: Some(model_id), result };
        // Counted only once delivered, so the counts always arrive after the chunks.
        if let (true, Some(chunks), Some(counter)) = (reply.send(msg), chunks, counter) {
            let count = CountReq::new(pane, req.rev, chunks, req.text.clone(), req.config.tokenizer.clone());
            counter.submit(pane as u64, count);
        }
        return;
    };
    let sized_for = (req.config.unit, req.config.tokenizer.clone());
    let analyzed = |a: SemanticAnalysis| Analyzed {
        key: key.clone(),
        analysis: Arc::new(a),
        model_id: model_id.clone(),
        sized_for: sized_for.clone(),
    };
    match visible_part(req, &recut, model.as_ref(), &chunker, ctl) {
        Some(Ok(a)) => {
            reply.send(Msg::AnalyzedPart { pane, id, result: analyzed(a) });
        }
        Some(Err(Error::Cancelled)) => return,
        // The whole analysis below reports the error.
        Some(Err(_)) | None => {}
    }
    let analysis = chunker
        .sizer
        .index(&req.text)
        .and_then(|index| semantic::analyze(&req.text, &recut, &req.config, model.as_ref(), &index, ctl));
    match analysis {
        Err(Error::Cancelled) => {}
        result => {
            reply.send(Msg::Analyzed { pane, id, result: result.map(analyzed).map_err(|e| e.to_string()) });
        }
    }
}

/// The analysis of the pieces overlapping `req.first`, when that is a
/// real part of the document (None otherwise). Its windows stop at the
/// part's edges; the whole analysis that follows replaces it. The embedding
/// cache keeps what it embedded, so the whole pays little for it twice.
fn visible_part(
    req: &EmbedReq,
    recut: &semantic::Recut,
    model: &dyn crate::embedding::Embedder,
    chunker: &crate::chunker::Chunker,
    ctl: Control<'_>,
) -> Option<crate::error::Result<SemanticAnalysis>> {
    let first = req.first.clone()?;
    let all = match recut.pieces_of(&req.text, &req.config, ctl) {
        Ok(all) => all,
        Err(e) => return Some(Err(e)),
    };
    let part: Vec<_> = all.iter().filter(|s| s.start < first.end && s.end > first.start).cloned().collect();
    if part.is_empty() || part.len() * 2 > all.len() {
        return None; // most of the document: just embed it all
    }
    Some(
        chunker.sizer.index(&req.text).and_then(|index| {
            SemanticAnalysis::compute(&req.text, part, recut.buffer(&req.config), model, &index, ctl)
        }),
    )
}

/// Chunks from a cached analysis: the re-cut a threshold key asks for. No
/// embedding; `resize` re-counts sentence sizes in the config's unit first.
/// The chunks come from the same function a chunker uses, so an export
/// equals `chunktui chunk` byte for byte.
pub fn recut_now(
    config: &ChunkConfig,
    text: &str,
    analysis: &SemanticAnalysis,
    resize: bool,
) -> Result<(Vec<Chunk>, Stats), String> {
    let recut = config.strategy.spec().recut.ok_or_else(|| {
        format!(
            "strategy '{}' cannot be re-cut from sentence distances (use semantic, semantic-grouping or adaptive)",
            config.strategy
        )
    })?;
    let configured = crate::strategy::Configured::new(config).map_err(|e| e.to_string())?;
    let index = configured.sizer.index(text).map_err(|e| e.to_string())?;
    let resized;
    let a = if resize {
        let mut r = SemanticAnalysis::from_parts(
            analysis.sentences.clone(),
            analysis.embeddings.clone(),
            analysis.distances.values.clone(),
            &index,
        );
        r.truncated = analysis.truncated.clone();
        resized = r;
        &resized
    } else {
        analysis
    };
    let chunks = semantic::chunks_from_analysis(&recut, a, text, &index, &configured.config);
    // Hand-made boundaries: a chunk across a cut is split there, then the
    // joins merge (the CLI cuts the stretches between cuts on their own;
    // from one analysis of the whole text this is the nearest re-cut).
    let resolved = configured.resolve_edits(text, None);
    let chunks = if resolved.is_empty() {
        chunks
    } else {
        let split = crate::tui::features::edits::split_at_cuts(chunks, &resolved.cuts, &|r| index.size(r));
        crate::edits::apply(split, &resolved, &|r| index.size(r))
    };
    // The same embed text as the chunker gives (fit is refused for model strategies).
    let chunks = crate::contextual::attach(chunks, text, &configured).map_err(|e| e.to_string())?;
    let stats = Stats::compute(&chunks, text, Some(config.size));
    Ok((chunks, stats))
}
