//! What a retrieval job is asked and answers (the job itself is
//! [`crate::tui::features::retrieval`]; the probe reads the answers).

use crate::chunk::Chunk;
use crate::config::ChunkConfig;
use crate::embedding::CancelFlag;
use crate::eval::queries::Resolved;
use crate::eval::retrieve::{Hit, RetrieverKind};
use crate::eval::Evaluation;
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
