//! Post-chunking scored as pre-chunking is: for each question the
//! [`PostChunker`] retrieves documents, cuts them (or finds them cut) and
//! ranks their chunks; the top `k` are scored with the same metrics over
//! the same references. The questions run twice, so the report has a query
//! time with the documents still to cut (cold) and with them cut (warm);
//! then once more through the query-aware cut.

use super::{Cost, Found, PostChunker};
use crate::error::Result;
use crate::eval::metrics::{self, Located, Report, Scores};
use crate::eval::queries::Resolved;
use crate::size::CharIndex;
use std::collections::HashMap;
use std::time::Instant;

/// One question under post-chunking.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct PostAnswer {
    pub question: String,
    #[serde(flatten)]
    pub scores: Scores,
    /// The retrieved spans, best first: document id and code points.
    pub retrieved: Vec<Retrieved>,
}

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Retrieved {
    pub doc: String,
    pub start: usize,
    pub end: usize,
}

/// The scores of one way of cutting after retrieval.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct PostScores {
    #[serde(flatten)]
    pub report: Report,
    pub per_question: Vec<PostAnswer>,
}

/// Post-chunking over a question set: the config's chunks, the query-aware
/// cut, and what they cost.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct PostEvaluation {
    pub plain: PostScores,
    pub query_aware: PostScores,
    /// After the cold and warm passes of the plain cut.
    pub cost: Cost,
    /// Mean milliseconds per question: the first pass (documents cut or read
    /// from the chunk cache as they are first retrieved), the second (all in
    /// memory), and the query-aware cut (after both).
    pub query_ms_cold: f64,
    pub query_ms_warm: f64,
    pub query_aware_ms: f64,
}

/// Score `post` on `questions`, top `k`. `all_chunks` are the config's
/// chunks of every document (pre-chunking's pool): precision ω is a
/// property of the config's chunks, so both cuts report the config's.
pub fn evaluate_post(
    post: &PostChunker,
    questions: &[Resolved],
    k: usize,
    all_chunks: &[Located],
    progress: &dyn Fn(usize, usize),
) -> Result<PostEvaluation> {
    let total = questions.len() * 3;
    let mut spans = Spans::new(post);
    let pass = |aware: bool, offset: usize, spans: &mut Spans<'_>| -> Result<(PostScores, f64)> {
        let mut answers = Vec::with_capacity(questions.len());
        let started = Instant::now();
        let mut found_all = Vec::with_capacity(questions.len());
        for (i, q) in questions.iter().enumerate() {
            let found = if aware { post.query_aware(&q.question, k)? } else { post.query(&q.question, k)? };
            found_all.push(found);
            progress(offset + i + 1, total);
        }
        let ms = started.elapsed().as_secs_f64() * 1000.0 / questions.len().max(1) as f64;
        for (q, found) in questions.iter().zip(found_all) {
            let located: Vec<Located> = found.iter().map(|f| spans.located(f)).collect();
            let scores = metrics::score(q.doc, &q.references, &located, all_chunks);
            let retrieved = located
                .iter()
                .map(|l| Retrieved { doc: post.documents()[l.doc].id.clone(), start: l.span.start, end: l.span.end })
                .collect();
            answers.push(PostAnswer { question: q.question.clone(), scores, retrieved });
        }
        let report = Report::of(&answers.iter().map(|a| a.scores).collect::<Vec<_>>());
        Ok((PostScores { report, per_question: answers }, ms))
    };
    let (plain, query_ms_cold) = pass(false, 0, &mut spans)?;
    let (_, query_ms_warm) = pass(false, questions.len(), &mut spans)?;
    let cost = post.cost();
    let (query_aware, query_aware_ms) = pass(true, 2 * questions.len(), &mut spans)?;
    Ok(PostEvaluation { plain, query_aware, cost, query_ms_cold, query_ms_warm, query_aware_ms })
}

/// Byte ranges to code-point spans, each document indexed once.
struct Spans<'a> {
    post: &'a PostChunker,
    indexes: HashMap<usize, CharIndex<'a>>,
}

impl<'a> Spans<'a> {
    fn new(post: &'a PostChunker) -> Self {
        Spans { post, indexes: HashMap::new() }
    }

    fn located(&mut self, f: &Found) -> Located {
        let text = &self.post.documents()[f.doc].text;
        let chars = self.indexes.entry(f.doc).or_insert_with(|| CharIndex::new(text));
        Located { doc: f.doc, span: chars.chars_before(f.range.start)..chars.chars_before(f.range.end) }
    }
}
