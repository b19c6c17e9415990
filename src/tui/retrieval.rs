//! The retrieval thread: index a pane's chunks with a retriever (BM25,
//! dense, hybrid), rank the probe question, score the question set. Never
//! on the UI thread; one job at a time, cancelled jobs skipped. The last
//! index of each pane is kept, so asking another question about the same
//! chunks embeds nothing again. Progress goes back as
//! [`Msg::RetrieveProgress`], the answer as [`Msg::Retrieved`].

use super::msg::Msg;
use crate::chunk::Chunk;
use crate::config::ChunkConfig;
use crate::embedding::{CancelFlag, Control};
use crate::error::{Error, Result};
use crate::eval::queries::Resolved;
use crate::eval::retrieve::{Dense, Hit, Hybrid, Lexical, Retriever, RetrieverKind};
use crate::eval::{evaluate, Chunked, Evaluation, Pool};
use crate::Chunker;
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::Arc;

/// One retrieval job for one pane's chunks.
#[derive(Debug, Clone)]
pub struct RetrieveReq {
    pub pane: usize,
    pub id: u64,
    pub kind: RetrieverKind,
    /// The pane's config: the model dense and hybrid embed with.
    pub config: ChunkConfig,
    pub text: Arc<str>,
    pub chunks: Arc<Vec<Chunk>>,
    /// The probe question, when this job answers it.
    pub question: Option<String>,
    /// The question set, when this job scores it.
    pub questions: Option<Arc<Vec<Resolved>>>,
    /// Chunks retrieved per question of the set.
    pub k: usize,
    pub cancel: CancelFlag,
}

/// What a job found.
#[derive(Debug, Clone)]
pub struct Retrieval {
    /// Every chunk the retriever scores for the probe question, best first.
    pub probe: Option<Vec<Hit>>,
    pub eval: Option<Evaluation>,
    /// The model dense and hybrid used.
    pub model_id: Option<String>,
}

pub fn spawn(tx: Sender<Msg>) -> Sender<RetrieveReq> {
    let (req_tx, req_rx) = channel();
    std::thread::Builder::new().name("retriever".into()).spawn(move || worker(req_rx, tx)).expect("spawn retriever");
    req_tx
}

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

fn worker(rx: Receiver<RetrieveReq>, tx: Sender<Msg>) {
    let mut indexes = Indexes::default();
    while let Ok(req) = rx.recv() {
        // Requests replaced while queued were cancelled by update().
        if req.cancel.is_cancelled() {
            continue;
        }
        if run(&req, &tx, &mut indexes).is_err() {
            return; // the UI is gone
        }
    }
}

/// Run one job on this thread and return the messages it sent (tests).
pub fn run_sync(req: &RetrieveReq) -> Vec<Msg> {
    let (tx, rx) = channel();
    let _ = run(req, &tx, &mut Indexes::default());
    drop(tx);
    rx.into_iter().collect()
}

fn run(req: &RetrieveReq, tx: &Sender<Msg>, indexes: &mut Indexes) -> std::result::Result<(), ()> {
    let (pane, id) = (req.pane, req.id);
    match answer(req, tx, indexes) {
        Err(Error::Cancelled) => Ok(()),
        result => tx.send(Msg::Retrieved { pane, id, result: result.map_err(|e| e.to_string()) }).map_err(|_| ()),
    }
}

fn model_key(c: &ChunkConfig) -> Option<String> {
    c.semantic.model.clone().filter(|m| m != crate::config::DEFAULT_MODEL)
}

fn answer(req: &RetrieveReq, tx: &Sender<Msg>, indexes: &mut Indexes) -> Result<Retrieval> {
    let slot = &mut indexes.0[req.pane.min(1)];
    let model = req.kind.needs_model().then(|| model_key(&req.config)).flatten();
    let reusable = slot.as_ref().is_some_and(|i| {
        Arc::ptr_eq(&i.chunks, &req.chunks) && Arc::ptr_eq(&i.text, &req.text) && i.kind == req.kind && i.model == model
    });
    if !reusable {
        *slot = None;
        let (retriever, model_id) = build(req, tx)?;
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
fn build(req: &RetrieveReq, tx: &Sender<Msg>) -> Result<(Box<dyn Retriever>, Option<String>)> {
    let texts: Vec<&str> = req.chunks.iter().map(|c| c.checked_text(&req.text).unwrap_or("")).collect();
    if req.kind == RetrieverKind::Bm25 {
        return Ok((Box::new(Lexical::new(&texts)), None));
    }
    let (pane, id) = (req.pane, req.id);
    let _ = tx.send(Msg::RetrieveProgress { pane, id, done: 0, total: 0 });
    let model = Chunker::new(&req.config)?
        .model()
        .map_err(|e| Error::Model(format!("{e} (r switches to bm25, which needs no model)")))?;
    let model_id = model.model_id().to_string();
    let last = std::cell::Cell::new(std::time::Instant::now() - std::time::Duration::from_secs(1));
    let progress = |done: usize, total: usize| {
        if done == total || last.get().elapsed() >= std::time::Duration::from_millis(80) {
            last.set(std::time::Instant::now());
            let _ = tx.send(Msg::RetrieveProgress { pane, id, done, total });
        }
    };
    let dense = Dense::new(model, &texts, Control::new(&progress, Some(&req.cancel)))?;
    let retriever: Box<dyn Retriever> = match req.kind {
        RetrieverKind::Dense => Box::new(dense),
        _ => Box::new(Hybrid::new(vec![Box::new(dense), Box::new(Lexical::new(&texts))], texts.len())),
    };
    Ok((retriever, Some(model_id)))
}
