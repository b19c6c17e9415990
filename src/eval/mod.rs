//! The retrieval check: given chunks and questions whose answers are known
//! passages, what would a retriever return, and how much of the answers
//! does it find? Model-free like the rest of the core: the dense retriever
//! takes any [`crate::embedding::Embedder`].
//!
//! - [`queries`]: question sets (JSONL, or Chroma's CSV), checked against
//!   the documents;
//! - [`retrieve`]: BM25, dense and hybrid retrievers over chunk texts;
//! - [`language`]: which retriever when none is named (the documents'
//!   language against the model's);
//! - [`model_choice`]: which embedding model when none is named (the
//!   documents' language, and whether the multilingual model is installed);
//! - [`metrics`]: recall, precision, IoU, precision ω, hit rate and MRR on
//!   character ranges, as Chroma's chunking evaluation defines them;
//! - [`evaluate`]: all of it for one set of chunks.

pub mod language;
pub mod metrics;
pub mod model_choice;
pub mod queries;
pub mod retrieve;

use crate::chunk::Chunk;
use crate::error::Result;
use crate::size::CharIndex;
use metrics::{Located, Report, Scores};
use queries::Resolved;
use retrieve::Retriever;

/// One document and its chunks.
#[derive(Debug, Clone, Copy)]
pub struct Chunked<'a> {
    pub text: &'a str,
    pub chunks: &'a [Chunk],
}

/// Every chunk of every document in one list, as one index holds them
/// (Chroma's evaluation puts all documents in one collection too).
pub struct Pool<'a> {
    /// Each chunk's document and span in code points.
    pub located: Vec<Located>,
    /// Each chunk's text, for the retrievers.
    pub texts: Vec<&'a str>,
}

impl<'a> Pool<'a> {
    pub fn new(docs: &[Chunked<'a>]) -> Self {
        let mut located = Vec::new();
        let mut texts = Vec::new();
        for (doc, d) in docs.iter().enumerate() {
            let chars = CharIndex::new(d.text);
            for c in d.chunks {
                located.push(Located { doc, span: chars.chars_before(c.range.start)..chars.chars_before(c.range.end) });
                texts.push(c.text(d.text));
            }
        }
        Pool { located, texts }
    }
}

/// One question's outcome.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Answered {
    pub question: String,
    #[serde(flatten)]
    pub scores: Scores,
    /// Indices into the pool of the retrieved chunks, best first.
    pub retrieved: Vec<usize>,
}

/// The scores of a question set.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Evaluation {
    #[serde(flatten)]
    pub report: Report,
    pub per_question: Vec<Answered>,
}

/// Ask every question, keep the top `k` chunks, score them.
pub fn evaluate(pool: &Pool<'_>, questions: &[Resolved], retriever: &dyn Retriever, k: usize) -> Result<Evaluation> {
    let mut scores = Vec::with_capacity(questions.len());
    let mut per_question = Vec::with_capacity(questions.len());
    for q in questions {
        let hits = retriever.rank(&q.question, k)?;
        let retrieved: Vec<Located> = hits.iter().map(|h| pool.located[h.chunk].clone()).collect();
        let s = metrics::score(q.doc, &q.references, &retrieved, &pool.located);
        scores.push(s);
        per_question.push(Answered {
            question: q.question.clone(),
            scores: s,
            retrieved: hits.iter().map(|h| h.chunk).collect(),
        });
    }
    Ok(Evaluation { report: Report::of(&scores), per_question })
}
