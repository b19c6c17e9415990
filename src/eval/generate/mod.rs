//! Questions written from the user's own documents by an LLM, with
//! references located exactly (`eval --generate N`).
//!
//! Two ways to get the reference:
//! - **passage** (the default): chunktui picks a passage (a sentence or two
//!   of one paragraph) and asks the model only for a question it answers.
//!   The reference is exact by construction, and small local models manage.
//! - **quote**: the model sees a stretch of the document and writes a
//!   question and the excerpt that answers it; the excerpt is located in the
//!   document tolerantly of whitespace, and the question is rejected when it
//!   is not found.
//!
//! Passages are visited in an order fixed by the seed, answers come from the
//! LLM cache when asked before, so a run is repeatable and an interrupted
//! one resumes for free. Questions are de-duplicated.

use super::queries::{Question, Reference};
use crate::error::{Error, Result};
use crate::llm::usage::count;
use crate::llm::{Client, Request};
use crate::size::CharIndex;
use crate::strategy::llm::pieces::{pieces, Piece};
use std::collections::HashSet;
use std::ops::Range;

/// How references are found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Passage,
    Quote,
}

impl Mode {
    pub fn parse(name: &str) -> Result<Mode> {
        match name {
            "passage" => Ok(Mode::Passage),
            "quote" => Ok(Mode::Quote),
            other => Err(Error::config(format!(
                "--generate-mode '{other}' is not a mode: use passage (chunktui picks the excerpt) or quote (the model \
                 quotes it)"
            ))),
        }
    }
}

#[derive(Debug, Clone)]
pub struct Options {
    /// Questions wanted.
    pub n: usize,
    pub seed: u64,
    pub mode: Mode,
    /// Requests in flight at once.
    pub concurrency: usize,
}

/// What a generation gave.
#[derive(Debug, Clone, Default)]
pub struct Generated {
    pub questions: Vec<Question>,
    /// Answers asked for (cached ones included).
    pub asked: usize,
    /// Answers that gave no usable question (empty, a copy of the passage,
    /// a duplicate, an excerpt not in the document).
    pub rejected: usize,
}

/// A passage candidate: a document and a byte range in it.
#[derive(Debug, Clone, PartialEq)]
struct Candidate {
    doc: usize,
    range: Range<usize>,
}

/// Shortest and longest passage, in characters.
const PASSAGE_CHARS: Range<usize> = 60..500;
/// The stretch of text the model reads in quote mode, in characters.
const QUOTE_WINDOW_CHARS: usize = 1500;

/// Write up to `opts.n` questions about `docs` (`(corpus_id, text)`).
/// `progress(done, total)` follows the requests.
pub fn generate(
    client: &Client,
    docs: &[(String, &str)],
    opts: &Options,
    progress: &dyn Fn(usize, usize),
) -> Result<Generated> {
    if opts.n == 0 {
        return Err(Error::config("--generate 0 writes nothing: ask for at least 1 question"));
    }
    let mut candidates = Vec::new();
    for (doc, (_, text)) in docs.iter().enumerate() {
        let pieces = pieces(text);
        let spans = match opts.mode {
            Mode::Passage => passages(text, &pieces),
            Mode::Quote => stretches(text, &pieces),
        };
        candidates.extend(spans.into_iter().map(|range| Candidate { doc, range }));
    }
    if candidates.is_empty() {
        return Err(Error::input(
            "the documents hold no passage to ask about (prose sentences of 60 to 500 characters): give documents with \
             some running text",
        ));
    }
    shuffle(&mut candidates, opts.seed);
    let mut out = Generated::default();
    let mut seen = HashSet::new();
    let mut next = 0;
    // Rounds: ask for a few more than are missing, keep them in candidate
    // order (so the result does not depend on which answer came first).
    while out.questions.len() < opts.n && next < candidates.len() && out.asked < opts.n * 4 + 8 {
        let missing = opts.n - out.questions.len();
        let take = (missing + missing / 2 + 1).min(candidates.len() - next);
        let round = &candidates[next..next + take];
        next += take;
        let asked_before = out.asked;
        let answers = crate::llm::parallel::ask_all(
            round.len(),
            opts.concurrency,
            &|done, _| progress(asked_before + done, opts.n),
            &|| Ok(()),
            &|i| ask(client, docs, &round[i], opts.mode),
        )?;
        out.asked += round.len();
        for (c, answer) in round.iter().zip(answers) {
            if out.questions.len() == opts.n {
                break;
            }
            let (id, text) = &docs[c.doc];
            match accept(text, c, answer, &mut seen) {
                Some((question, range)) => {
                    let chars = CharIndex::new(text);
                    out.questions.push(Question {
                        question,
                        corpus_id: Some(id.clone()),
                        references: vec![Reference {
                            start_index: chars.chars_before(range.start),
                            end_index: chars.chars_before(range.end),
                            content: Some(text[range].to_string()),
                        }],
                        row: format!("generated question {}", out.questions.len() + 1),
                    });
                }
                None => {
                    out.rejected += 1;
                    count::dropped(1);
                }
            }
        }
    }
    Ok(out)
}

/// The model's answer about one candidate: `(question, excerpt)` as written.
fn ask(
    client: &Client,
    docs: &[(String, &str)],
    c: &Candidate,
    mode: Mode,
) -> Result<(Option<String>, Option<String>)> {
    let (id, text) = &docs[c.doc];
    let passage = &text[c.range.clone()];
    let answer = match mode {
        Mode::Passage => client.ask(&Request {
            system: "You write questions to test a search engine. Given a passage from a document, write one question \
                     that the passage answers, in the passage's language. The question must make sense on its own: \
                     name the subject instead of saying \"the passage\" or \"it\". Answer as {\"question\": \"...\"}.",
            user: &format!("Document: {id}\n\nPassage:\n{passage}"),
            schema: Some(&serde_json::json!({
                "type": "object", "properties": {"question": {"type": "string"}}, "required": ["question"]
            })),
            max_tokens: 96,
        })?,
        Mode::Quote => client.ask(&Request {
            system: "You write questions to test a search engine. Read the text, pick one fact in it, and write a \
                     question about that fact in the text's language, plus the excerpt of the text that answers it, \
                     copied word for word (one or two sentences). Answer as {\"question\": \"...\", \"excerpt\": \
                     \"...\"}.",
            user: &format!("Document: {id}\n\nText:\n{passage}"),
            schema: Some(&serde_json::json!({
                "type": "object",
                "properties": {"question": {"type": "string"}, "excerpt": {"type": "string"}},
                "required": ["question", "excerpt"]
            })),
            max_tokens: 256,
        })?,
    };
    Ok((crate::llm::reply::string(&answer, "question"), crate::llm::reply::string(&answer, "excerpt")))
}

/// The question and its reference range, when the answer is usable.
fn accept(
    text: &str,
    c: &Candidate,
    (question, excerpt): (Option<String>, Option<String>),
    seen: &mut HashSet<String>,
) -> Option<(String, Range<usize>)> {
    let question = question?.split_whitespace().collect::<Vec<_>>().join(" ");
    let chars = question.chars().count();
    if !(8..=300).contains(&chars) || !question.chars().any(char::is_alphabetic) {
        return None;
    }
    let range = match excerpt {
        // Quote mode: the excerpt must be in the stretch shown (else anywhere in the document).
        Some(e) => locate(text, c.range.clone(), &e).or_else(|| locate(text, 0..text.len(), &e))?,
        None => c.range.clone(),
    };
    let key = squeeze(&question);
    // A "question" that copies the passage asks nothing.
    if key.len() > 20 && squeeze(&text[range.clone()]).contains(&key) {
        return None;
    }
    seen.insert(key).then_some((question, range))
}

/// Lower-case letters and digits only: what makes two questions the same.
fn squeeze(s: &str) -> String {
    s.chars().filter(|c| c.is_alphanumeric()).flat_map(char::to_lowercase).collect()
}

/// Where `excerpt` is in `range` of `text`, whitespace runs matching any
/// whitespace run (line breaks, double spaces).
pub fn locate(text: &str, range: Range<usize>, excerpt: &str) -> Option<Range<usize>> {
    let words: Vec<String> = excerpt.split_whitespace().map(regex::escape).collect();
    if words.is_empty() || excerpt.chars().count() < 4 {
        return None;
    }
    let re = regex::Regex::new(&words.join(r"\s+")).ok()?;
    re.find(&text[range.clone()]).map(|m| range.start + m.start()..range.start + m.end())
}

/// Passages: a sentence, or two of one paragraph, of usual length, no
/// headings or code.
fn passages(text: &str, pieces: &[Piece]) -> Vec<Range<usize>> {
    let usable = |p: &Piece| !p.heading && !text[p.range.clone()].starts_with("```") && prose(&text[p.range.clone()]);
    let mut out = Vec::new();
    let mut i = 0;
    while i < pieces.len() {
        if !usable(&pieces[i]) {
            i += 1;
            continue;
        }
        let mut range = pieces[i].range.clone();
        let mut used = 1;
        let short = |r: &Range<usize>| text[r.clone()].chars().count() < PASSAGE_CHARS.start * 2;
        if short(&range) && i + 1 < pieces.len() && !pieces[i + 1].paragraph && usable(&pieces[i + 1]) {
            range.end = pieces[i + 1].range.end;
            used = 2;
        }
        if PASSAGE_CHARS.contains(&text[range.clone()].chars().count()) {
            out.push(range);
        }
        i += used;
    }
    out
}

/// Quote mode's stretches: consecutive pieces up to the window's length.
fn stretches(text: &str, pieces: &[Piece]) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < pieces.len() {
        let start = pieces[i].range.start;
        let mut end = pieces[i].range.end;
        i += 1;
        while i < pieces.len() && text[start..pieces[i].range.end].chars().count() <= QUOTE_WINDOW_CHARS {
            end = pieces[i].range.end;
            i += 1;
        }
        if prose(&text[start..end]) {
            out.push(start..end);
        }
    }
    out
}

/// Running text: mostly letters, some words (or CJK characters).
fn prose(s: &str) -> bool {
    let letters = s.chars().filter(|c| c.is_alphabetic()).count();
    let all = s.chars().filter(|c| !c.is_whitespace()).count().max(1);
    let cjk = s.chars().filter(|&c| crate::segment::is_cjk(c)).count();
    letters * 10 >= all * 7 && (s.split_whitespace().count() >= 8 || cjk >= 20)
}

/// Fisher–Yates with SplitMix64: the same seed, the same order, everywhere.
fn shuffle<T>(items: &mut [T], seed: u64) {
    let mut state = seed;
    let mut next = || {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    for i in (1..items.len()).rev() {
        let j = (next() % (i as u64 + 1)) as usize;
        items.swap(i, j);
    }
}

/// The questions in Chroma's CSV layout (`question`, `references` as a JSON
/// list of `{content, start_index, end_index}`, `corpus_id`), which
/// `eval --queries` and `sweep --queries` read.
pub fn to_csv(questions: &[Question]) -> Result<Vec<u8>> {
    let mut w = csv::Writer::from_writer(Vec::new());
    let bad = |e: csv::Error| Error::Io(format!("cannot write the questions as CSV: {e}"));
    w.write_record(["question", "references", "corpus_id"]).map_err(bad)?;
    for q in questions {
        let refs: Vec<serde_json::Value> = q
            .references
            .iter()
            .map(|r| {
                serde_json::json!({"content": r.content.clone().unwrap_or_default(), "start_index": r.start_index, "end_index": r.end_index})
            })
            .collect();
        let refs = serde_json::to_string(&refs).expect("references serialise");
        w.write_record([q.question.as_str(), refs.as_str(), q.corpus_id.as_deref().unwrap_or("")]).map_err(bad)?;
    }
    w.into_inner().map_err(|e| Error::Io(format!("cannot write the questions as CSV: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn excerpts_are_found_whatever_their_whitespace() {
        let text = "Intro.\n\nThe borrow checker\n  rejects   programs with dangling references. End.";
        let r = locate(text, 0..text.len(), "The borrow checker rejects programs with dangling references.").unwrap();
        assert!(text[r.clone()].starts_with("The borrow") && text[r].ends_with("references."));
        assert_eq!(locate(text, 0..text.len(), "The borrow checker accepts everything."), None);
        assert_eq!(locate("一二三四五六七八九十", 0..30, "四五六七八九十"), Some(9..30));
    }

    #[test]
    fn the_seed_fixes_the_order() {
        let mut a: Vec<u32> = (0..100).collect();
        let mut b = a.clone();
        shuffle(&mut a, 7);
        shuffle(&mut b, 7);
        assert_eq!(a, b);
        let mut c: Vec<u32> = (0..100).collect();
        shuffle(&mut c, 8);
        assert_ne!(a, c);
    }

    #[test]
    fn a_copy_of_the_passage_or_a_repeat_is_no_question() {
        let text = "Ownership is a set of rules that govern how a Rust program manages memory. More text follows here.";
        let c = Candidate { doc: 0, range: 0..text.find(" More").unwrap() };
        let mut seen = HashSet::new();
        let ask = |q: &str| (Some(q.to_string()), None);
        assert!(accept(text, &c, ask("What does ownership govern in a Rust program?"), &mut seen).is_some());
        assert!(accept(text, &c, ask("what does ownership govern in a Rust program"), &mut seen).is_none());
        assert!(accept(text, &c, ask("Ownership is a set of rules that govern how"), &mut seen).is_none());
        assert!(accept(text, &c, ask("???"), &mut seen).is_none());
    }

    #[test]
    fn generated_csv_reads_back_as_a_question_set() {
        let q = Question {
            question: "Why, \"exactly\"?".into(),
            corpus_id: Some("guide".into()),
            references: vec![Reference { start_index: 3, end_index: 9, content: Some("a,\"b\"\nc".into()) }],
            row: String::new(),
        };
        let csv = String::from_utf8(to_csv(std::slice::from_ref(&q)).unwrap()).unwrap();
        let set = super::super::queries::QuestionSet::parse_csv(&csv, "q.csv").unwrap();
        assert_eq!(set.questions[0].question, q.question);
        assert_eq!(set.questions[0].references, q.references);
        assert_eq!(set.questions[0].corpus_id.as_deref(), Some("guide"));
    }
}
