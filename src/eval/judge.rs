//! RAGAS-style judging of what a retriever returned (`eval --judge`).
//!
//! - `context_precision`: the reference excerpt is the ground truth. A
//!   retrieved chunk is relevant when it holds a character of a reference;
//!   the score is the mean of precision@k over the ranks k of the relevant
//!   chunks — RAGAS's average precision with its `1e-10` in the denominator
//!   (`NonLLMContextPrecisionWithReference`). No LLM.
//! - `context_relevance`: the model rates the retrieved contexts, joined by
//!   line breaks, for the question: 0 (nothing relevant), 1 (partly), 2
//!   (relevant), twice with differently worded prompts. Each rating is
//!   halved; the score is their mean, or the first judge's alone when only
//!   it could be read (RAGAS's `nv_context_relevance`, quirks included).
//!   An empty question or context, or a context that only repeats the
//!   question, scores 0 without asking.

// Without the `llm` feature only the pure parts are used (no client to ask).
#![cfg_attr(not(feature = "llm"), allow(unused_imports, dead_code))]

#[cfg(feature = "llm")]
use crate::error::Result;
#[cfg(feature = "llm")]
use crate::llm::{Client, Request};

/// RAGAS's average precision of `verdicts` (1 relevant, 0 not), best rank first.
pub fn context_precision(verdicts: &[bool]) -> f64 {
    let mut hits = 0usize;
    let mut numerator = 0.0;
    for (i, &v) in verdicts.iter().enumerate() {
        if v {
            hits += 1;
            numerator += hits as f64 / (i + 1) as f64;
        }
    }
    numerator / (hits as f64 + 1e-10)
}

/// A judge's rating read from its answer: the first of 2, 1, 0 it contains
/// (in that order, as RAGAS reads it), halved; `None` when it holds none.
pub fn rating(answer: &str) -> Option<f64> {
    ['2', '1', '0'].into_iter().find(|d| answer.contains(*d)).map(|d| f64::from(d as u8 - b'0') / 2.0)
}

/// The two judges' ratings as one score, as RAGAS combines them: their
/// mean; with only the first, the first. With only the second RAGAS gets
/// NaN (`max(nan, x)` in Python keeps the NaN), and so does this: `None`.
pub fn combine(first: Option<f64>, second: Option<f64>) -> Option<f64> {
    match (first, second) {
        (Some(x), Some(y)) => Some((x + y) / 2.0),
        (x, _) => x,
    }
}

/// The score when no judge needs asking: 0 for an empty question or
/// context, or a context that is (or is inside) the question.
pub fn trivial_relevance(question: &str, contexts: &[&str]) -> Option<f64> {
    let (q, c) = (question.trim(), contexts.join("\n"));
    let c = c.trim();
    (q.is_empty() || c.is_empty() || q == c || q.contains(c)).then_some(0.0)
}

const JUDGE_1: &str = "You rate how well a retrieved context answers a question, using only the context and the \
                       question, not what you know. Say 0 if the context holds nothing that helps answer the \
                       question, 1 if it holds part of what is needed, 2 if it holds what is needed. Answer as \
                       {\"score\": n}.";
const JUDGE_2: &str = "As a judge of a search engine, decide whether this context gives the information needed to \
                       answer the question, reading nothing into it. Reply 2 when it does, 1 when it does in part, 0 \
                       when it does not. Reply as {\"score\": n}.";

#[cfg(feature = "llm")]
fn rating_schema() -> serde_json::Value {
    serde_json::json!({
        "type": "object",
        "properties": {"score": {"type": "integer", "enum": [0, 1, 2]}},
        "required": ["score"]
    })
}

/// `context_relevance` of `contexts` for `question`, asking the model twice;
/// `None` when neither answer holds a rating.
#[cfg(feature = "llm")]
pub fn context_relevance(client: &Client, question: &str, contexts: &[&str]) -> Result<Option<f64>> {
    if let Some(score) = trivial_relevance(question, contexts) {
        return Ok(Some(score));
    }
    let user = format!("Question: {question}\n\nContext:\n{}", contexts.join("\n"));
    let mut ratings = [None, None];
    for (judge, slot) in [JUDGE_1, JUDGE_2].into_iter().zip(&mut ratings) {
        // A schema where the server takes one: even a small model then answers a digit.
        let answer =
            client.ask(&Request { system: judge, user: &user, schema: Some(&rating_schema()), max_tokens: 16 })?;
        *slot = rating(&answer);
        if slot.is_none() {
            crate::llm::usage::count::fallbacks(1);
        }
    }
    Ok(combine(ratings[0], ratings[1]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn average_precision_as_ragas_computes_it() {
        assert!((context_precision(&[true, false, true]) - (1.0 + 2.0 / 3.0) / 2.0).abs() < 1e-9);
        assert_eq!(context_precision(&[false, false]), 0.0);
        assert!((context_precision(&[false, true]) - 0.5).abs() < 1e-9);
        assert!((context_precision(&[true]) - 1.0).abs() < 1e-9);
    }

    #[test]
    fn ratings_read_as_ragas_reads_them() {
        assert_eq!(rating("2"), Some(1.0));
        assert_eq!(rating("The score is 1 out of 2"), Some(1.0), "2 is looked for first");
        assert_eq!(rating(" 0."), Some(0.0));
        assert_eq!(rating("none"), None);
        assert_eq!(combine(Some(1.0), Some(0.5)), Some(0.75));
        assert_eq!(combine(Some(0.5), None), Some(0.5));
        assert_eq!(combine(None, Some(0.5)), None, "as RAGAS: max(nan, x) is nan");
        assert_eq!(combine(None, None), None);
        assert_eq!(trivial_relevance("What is X?", &["X is", "What is X?"]), None);
        assert_eq!(trivial_relevance("What is X?", &["What is X?"]), Some(0.0));
        assert_eq!(trivial_relevance("  ", &["text"]), Some(0.0));
    }
}
