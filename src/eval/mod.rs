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
//! - [`evaluate`]: all of it for one set of chunks (post-chunking's
//!   scores are in [`crate::post_chunking::evaluate`]).

#[cfg(feature = "llm")]
pub mod generate;
pub mod judge;
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
    /// `eval --judge`: RAGAS-style scores (see [`judge`]); relevance is
    /// `None` when no judge's answer held a rating.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context_precision: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context_relevance: Option<f64>,
}

/// The scores of a question set.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Evaluation {
    #[serde(flatten)]
    pub report: Report,
    /// `eval --judge`: over the questions (relevance over those rated).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context_precision: Option<metrics::Summary>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context_relevance: Option<metrics::Summary>,
    pub per_question: Vec<Answered>,
}

impl Evaluation {
    /// Add `context_precision` (the references are the ground truth) and,
    /// with `relevance` (question index -> rating), `context_relevance`.
    pub fn judge(
        &mut self,
        pool: &Pool<'_>,
        questions: &[Resolved],
        relevance: Option<&dyn Fn(usize) -> Result<Option<f64>>>,
    ) -> Result<()> {
        for (i, (a, q)) in self.per_question.iter_mut().zip(questions).enumerate() {
            let verdicts: Vec<bool> = a
                .retrieved
                .iter()
                .map(|&c| {
                    let got = &pool.located[c];
                    got.doc == q.doc
                        && q.references.iter().any(|r| r.start.max(got.span.start) < r.end.min(got.span.end))
                })
                .collect();
            a.context_precision = Some(judge::context_precision(&verdicts));
            if let Some(rate) = relevance {
                a.context_relevance = rate(i)?;
            }
        }
        self.context_precision =
            Some(metrics::Summary::of(self.per_question.iter().filter_map(|a| a.context_precision)));
        // Over the questions rated; none when no judge's answer held a rating.
        let rated: Vec<f64> = self.per_question.iter().filter_map(|a| a.context_relevance).collect();
        self.context_relevance = (!rated.is_empty()).then(|| metrics::Summary::of(rated));
        Ok(())
    }
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
            context_precision: None,
            context_relevance: None,
        });
    }
    Ok(Evaluation { report: Report::of(&scores), context_precision: None, context_relevance: None, per_question })
}
