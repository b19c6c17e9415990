//! The embedding thread: one job at a time, never on the UI thread. Jobs
//! carry a cancel flag that `update` sets when a newer request replaces them
//! (a new document, model or buffer); cancelled jobs are skipped, or stop
//! between batches. Progress goes back as [`Msg::EmbedProgress`].
//!
//! Also [`recut_now`], the chunker thread's side of [`Cmd::Recut`](super::msg::Cmd::Recut).

use super::msg::Msg;
use super::semantic::AnalysisKey;
use crate::chunk::Chunk;
use crate::config::ChunkConfig;
use crate::embedding::{CancelFlag, Control};
use crate::stats::Stats;
use crate::strategy::semantic::{self, analysis::SemanticAnalysis};
use std::sync::mpsc::{channel, Receiver, Sender};
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

/// What the embedding thread does with finished chunks besides reporting them
/// (the runtime hands them to the token counter).
pub type OnChunks = Box<dyn Fn(usize, u64, &Arc<Vec<Chunk>>, &Arc<str>, &str) + Send>;

pub fn spawn(tx: Sender<Msg>, on_chunks: OnChunks) -> Sender<EmbedReq> {
    let (req_tx, req_rx) = channel();
    std::thread::Builder::new()
        .name("embedder".into())
        .spawn(move || worker(req_rx, tx, on_chunks))
        .expect("spawn embedder");
    req_tx
}

fn worker(rx: Receiver<EmbedReq>, tx: Sender<Msg>, on_chunks: OnChunks) {
    while let Ok(req) = rx.recv() {
        // Requests replaced while queued were cancelled by update().
        if req.cancel.is_cancelled() {
            continue;
        }
        if run(&req, &tx, &on_chunks).is_err() {
            return; // the UI is gone
        }
    }
}

/// Run one job on this thread and return the messages it sent (tests, benches).
pub fn run_sync(req: &EmbedReq) -> Vec<Msg> {
    let (tx, rx) = channel();
    fn ignore(_: usize, _: u64, _: &Arc<Vec<Chunk>>, _: &Arc<str>, _: &str) {}
    let _ = run(req, &tx, &(Box::new(ignore) as OnChunks));
    drop(tx);
    rx.into_iter().collect()
}

fn run(req: &EmbedReq, tx: &Sender<Msg>, on_chunks: &OnChunks) -> Result<(), ()> {
    use super::msg::Analyzed;
    use crate::error::Error;
    use crate::Chunker;
    use std::cell::Cell;
    use std::time::{Duration, Instant};
    let (pane, id) = (req.pane, req.id);
    let send = |m: Msg| tx.send(m).map_err(|_| ());
    send(Msg::EmbedProgress { pane, id, done: 0, total: 0 })?;
    let last = Cell::new(Instant::now() - Duration::from_secs(1));
    let progress = |done: usize, total: usize| {
        // A few updates a second are enough for a progress bar.
        if done == total || last.get().elapsed() >= Duration::from_millis(80) {
            last.set(Instant::now());
            let _ = tx.send(Msg::EmbedProgress { pane, id, done, total });
        }
    };
    let ctl = Control::new(&progress, Some(&req.cancel));
    let loaded = Chunker::new(&req.config).and_then(|chunker| {
        let model = chunker.model()?;
        Ok((chunker.with_embedder(model.clone()), model))
    });
    let (chunker, model) = match loaded {
        Ok(x) => x,
        Err(e) => {
            let e = e.to_string();
            return match &req.key {
                Some(_) => send(Msg::Analyzed { pane, id, result: Err(e) }),
                None => send(Msg::ModelChunked { pane, id, rev: req.rev, model_id: None, result: Err(e) }),
            };
        }
    };
    let model_id = model.model_id().to_string();
    match &req.key {
        Some(key) => {
            let sized_for = (req.config.unit, req.config.tokenizer.clone());
            if let Some(part) = visible_part(req, key, model.as_ref(), &chunker, ctl) {
                match part {
                    Ok(a) => {
                        let result = Analyzed {
                            key: key.clone(),
                            analysis: Arc::new(a),
                            model_id: model_id.clone(),
                            sized_for: sized_for.clone(),
                        };
                        send(Msg::AnalyzedPart { pane, id, result })?;
                    }
                    Err(Error::Cancelled) => return Ok(()),
                    // The whole analysis below reports the error.
                    Err(_) => {}
                }
            }
            let analysis = chunker
                .sizer
                .index(&req.text)
                .and_then(|index| semantic::analyze(&req.text, key.buffer, model.as_ref(), &index, ctl));
            match analysis {
                Err(Error::Cancelled) => Ok(()),
                Err(e) => send(Msg::Analyzed { pane, id, result: Err(e.to_string()) }),
                Ok(a) => send(Msg::Analyzed {
                    pane,
                    id,
                    result: Ok(Analyzed { key: key.clone(), analysis: Arc::new(a), model_id, sized_for }),
                }),
            }
        }
        None => match chunker.chunk_with(&req.text, ctl) {
            Err(Error::Cancelled) => Ok(()),
            r => {
                let result = r.map_err(|e| e.to_string()).map(|chunks| {
                    let limit = req.config.strategy.promises_size_limit().then_some(req.config.size);
                    let stats = Stats::compute(&chunks, &req.text, limit);
                    (Arc::new(chunks), stats)
                });
                if let Ok((chunks, _)) = &result {
                    on_chunks(pane, req.rev, chunks, &req.text, &req.config.tokenizer);
                }
                send(Msg::ModelChunked { pane, id, rev: req.rev, model_id: Some(model_id), result })
            }
        },
    }
}

/// The analysis of the sentences overlapping `req.first`, when that is a
/// real part of the document (None otherwise). Its windows stop at the
/// part's edges; the whole analysis that follows replaces it. The embedding
/// cache keeps what it embedded, so the whole pays little for it twice.
fn visible_part(
    req: &EmbedReq,
    key: &AnalysisKey,
    model: &dyn crate::embedding::Embedder,
    chunker: &crate::Chunker,
    ctl: Control<'_>,
) -> Option<crate::Result<SemanticAnalysis>> {
    let first = req.first.clone()?;
    let all = crate::segment::sentences(&req.text);
    let part: Vec<_> = all.iter().filter(|s| s.start < first.end && s.end > first.start).cloned().collect();
    if part.is_empty() || part.len() * 2 > all.len() {
        return None; // most of the document: just embed it all
    }
    Some(
        chunker
            .sizer
            .index(&req.text)
            .and_then(|index| SemanticAnalysis::compute(&req.text, part, key.buffer, model, &index, ctl)),
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
    // The same embed text as the chunker gives (fit is refused for model strategies).
    let chunks = crate::contextual::attach(chunks, text, &configured).map_err(|e| e.to_string())?;
    let stats = Stats::compute(&chunks, text, Some(config.size));
    Ok((chunks, stats))
}
