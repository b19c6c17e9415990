//! The retrieval jobs: index a pane's chunks with a retriever (BM25,
//! dense, hybrid), rank the probe question, score the question set. On the
//! retriever's thread ([`crate::tui::jobs`]), never on the UI thread; one job at
//! a time, the ones `update` cancelled skipped. The last
//! index of each pane is kept, so asking another question about the same
//! chunks embeds nothing again. Progress goes back as
//! [`Msg::RetrieveProgress`], the answer as [`Msg::Retrieved`].

use crate::chunk::Chunk;
use crate::chunker::Chunker;
use crate::config::ChunkConfig;
use crate::embedding::Control;
use crate::error::{Error, Result};
use crate::eval::retrieve::{Dense, Hybrid, Lexical, Retriever, RetrieverKind};
use crate::eval::{evaluate, Chunked, Pool};
use crate::tui::msg::Msg;
pub use crate::tui::state::retrieval::{Retrieval, RetrieveReq};
use crate::tui::threads::Reply;
use std::sync::mpsc::channel;
use std::sync::Arc;

/// The last index built for a pane: reused while the chunks, retriever and
/// model stay the same.
struct Index {
    chunks: Arc<Vec<Chunk>>,
    text: Arc<str>,
    kind: RetrieverKind,
    model: Option<String>,
    retriever: Box<dyn Retriever>,
    model_id: Option<String>,
}

#[derive(Default)]
pub struct Indexes([Option<Index>; 2]);

/// Run one job on this thread and return the messages it sent (tests).
pub fn run_sync(req: &RetrieveReq) -> Vec<Msg> {
    let (tx, rx) = channel();
    run(req, &Reply::detached(tx, req.cancel.clone()), &mut Indexes::default());
    rx.into_iter().collect()
}

/// One retrieval job, reusing the pane's last index where it can.
pub fn run(req: &RetrieveReq, reply: &Reply, indexes: &mut Indexes) {
    let (pane, id) = (req.pane, req.id);
    match answer(req, reply, indexes) {
        Err(Error::Cancelled) => {}
        result => {
            reply.send(Msg::Retrieved { pane, id, result: result.map_err(|e| e.to_string()) });
        }
    }
}

fn model_key(c: &ChunkConfig) -> Option<String> {
    c.model_key()
}

fn answer(req: &RetrieveReq, reply: &Reply, indexes: &mut Indexes) -> Result<Retrieval> {
    let slot = &mut indexes.0[req.pane.min(1)];
    let model = req.kind.needs_model().then(|| model_key(&req.config)).flatten();
    let reusable = slot.as_ref().is_some_and(|i| {
        Arc::ptr_eq(&i.chunks, &req.chunks) && Arc::ptr_eq(&i.text, &req.text) && i.kind == req.kind && i.model == model
    });
    if !reusable {
        *slot = None;
        let (retriever, model_id) = build(req, reply)?;
        *slot = Some(Index {
            chunks: req.chunks.clone(),
            text: req.text.clone(),
            kind: req.kind,
            model,
            retriever,
            model_id,
        });
    }
    let index = slot.as_ref().expect("built above");
    req.cancel.check()?;
    let n = req.chunks.len();
    let probe = match &req.question {
        Some(q) if n > 0 => Some(index.retriever.rank(q, n)?),
        Some(_) => Some(Vec::new()),
        None => None,
    };
    req.cancel.check()?;
    let eval = match &req.questions {
        Some(qs) if n > 0 => {
            let pool = Pool::new(&[Chunked { text: &req.text, chunks: &req.chunks }]);
            Some(evaluate(&pool, qs, index.retriever.as_ref(), req.k)?)
        }
        _ => None,
    };
    Ok(Retrieval { probe, eval, model_id: index.model_id.clone() })
}

/// Index the chunks: BM25 at once, dense after embedding every chunk.
fn build(req: &RetrieveReq, reply: &Reply) -> Result<(Box<dyn Retriever>, Option<String>)> {
    let texts: Vec<&str> = req.chunks.iter().map(|c| c.checked_text(&req.text).unwrap_or("")).collect();
    if req.kind == RetrieverKind::Bm25 {
        return Ok((Box::new(Lexical::new(&texts)), None));
    }
    let (pane, id) = (req.pane, req.id);
    reply.send(Msg::RetrieveProgress { pane, id, done: 0, total: 0 });
    let model = Chunker::new(&req.config)?
        .model()
        .map_err(|e| Error::Model(format!("{e} (r switches to bm25, which needs no model)")))?;
    let model_id = model.model_id().to_string();
    let progress = reply.progress(|done, total| Msg::RetrieveProgress { pane, id, done, total });
    let dense = Dense::new(model, &texts, Control::new(&progress, Some(&req.cancel)))?;
    let retriever: Box<dyn Retriever> = match req.kind {
        RetrieverKind::Dense => Box::new(dense),
        _ => Box::new(Hybrid::new(vec![Box::new(dense), Box::new(Lexical::new(&texts))], texts.len())),
    };
    Ok((retriever, Some(model_id)))
}
