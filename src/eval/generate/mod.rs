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
//! A reference exact by construction says nothing of the question: small
//! models write "What is the passage about?" for any passage. A question is
//! kept only when it is about its passage ([`about`], settings in
//! [`GenerateOptions`]): no generic template, in its reference's language,
//! content words shared with it, and with an embedding model ([`Rules::embedder`]) a cosine
//! similarity to it of at least `min_similarity`, as Chroma's synthetic
//! pipeline filters. Near-duplicates (the same words, or with the model a
//! similarity above `duplicate_similarity`) keep the first. Every answer
//! asked is counted in [`Generated`]: kept, or why not.
//!
//! Passages are visited in an order fixed by the seed, answers come from the
//! LLM cache when asked before, so a run is repeatable and an interrupted
//! one resumes for free.

pub mod about;

use super::queries::{Question, Reference};
use crate::config::GenerateOptions;
use crate::embedding::Embedder;
use crate::error::{Error, Result};
use crate::llm::usage::count;
use crate::llm::{Client, Request};
use crate::size::CharIndex;
use crate::strategy::llm::pieces::{pieces, Piece};
use std::collections::HashSet;
use std::ops::Range;
use std::sync::Arc;

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

    pub fn name(self) -> &'static str {
        match self {
            Mode::Passage => "passage",
            Mode::Quote => "quote",
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

/// What a question must be to be kept: the `[generate]` settings, and the
/// embedding model of the similarity rules (none: only the word rules).
#[derive(Clone, Default)]
pub struct Rules {
    pub settings: GenerateOptions,
    pub embedder: Option<Arc<dyn Embedder>>,
}

impl std::fmt::Debug for Rules {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Rules")
            .field("settings", &self.settings)
            .field("embedder", &self.embedder.as_ref().map(|e| e.model_id().to_string()))
            .finish()
    }
}

/// Why answers gave no question, by rule.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Rejections {
    /// No question in the answer (empty, under 8 columns (a CJK character
    /// is two) or over 300 characters, no letters), or one that copies its
    /// passage.
    pub unusable: usize,
    /// Quote mode: the excerpt is not in the document.
    pub not_found: usize,
    /// A generic template ([`about::is_template`]).
    pub template: usize,
    /// Not in its reference's language ([`about::same_language`]): an
    /// English question about a Chinese passage.
    pub language: usize,
    /// Fewer content words shared with the reference than `min_shared`.
    pub unshared: usize,
    /// Less similar to the reference than `min_similarity`.
    pub dissimilar: usize,
    /// The same words as a question kept before, or more similar to one
    /// than `duplicate_similarity`.
    pub duplicate: usize,
}

impl Rejections {
    /// Not about its passage: a template, in another language, no content
    /// shared, or too far from its reference.
    pub fn generic(&self) -> usize {
        self.template + self.language + self.unshared + self.dissimilar
    }

    pub fn total(&self) -> usize {
        self.unusable + self.not_found + self.generic() + self.duplicate
    }
}

/// Why a generation stopped.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Stop {
    /// As many questions as asked for.
    #[default]
    Enough,
    /// Every passage of the documents was asked about.
    PassagesRanOut,
    /// `attempts` answers per question wanted were asked.
    AttemptsUsed,
}

/// What a generation gave.
#[derive(Debug, Clone, Default)]
pub struct Generated {
    pub questions: Vec<Question>,
    /// Questions asked for.
    pub wanted: usize,
    /// Answers asked for (cached ones included).
    pub asked: usize,
    /// Answers that gave no question, by rule.
    pub rejected: Rejections,
    /// Answers of the last round not looked at: enough questions were kept
    /// before them.
    pub spare: usize,
    /// Whether the similarity rules ran (an embedding model was given).
    pub similarity: bool,
    pub stop: Stop,
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

/// Write up to `opts.n` questions about `docs` (`(corpus_id, text)`) with
/// the default rules (the `[generate]` defaults, no embedding model).
/// `progress(done, total)` follows the requests.
pub fn generate(
    client: &Client,
    docs: &[(String, &str)],
    opts: &Options,
    progress: &dyn Fn(usize, usize),
) -> Result<Generated> {
    generate_with(client, docs, opts, &Rules::default(), progress)
}

/// [`generate`], keeping only the questions `rules` keep.
pub fn generate_with(
    client: &Client,
    docs: &[(String, &str)],
    opts: &Options,
    rules: &Rules,
    progress: &dyn Fn(usize, usize),
) -> Result<Generated> {
    if opts.n == 0 {
        return Err(Error::config("--generate 0 writes nothing: ask for at least 1 question"));
    }
    let problems = rules.settings.problems();
    if !problems.is_empty() {
        return Err(Error::config(problems.join("\n")));
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
    let budget = opts.n.saturating_mul(rules.settings.attempts).saturating_add(8);
    let mut out = Generated { wanted: opts.n, similarity: rules.embedder.is_some(), ..Generated::default() };
    let mut kept = Kept::default();
    let mut next = 0;
    // Rounds: ask for a few more than are missing, keep them in candidate
    // order (so the result does not depend on which answer came first).
    while out.questions.len() < opts.n && next < candidates.len() && out.asked < budget {
        let missing = opts.n - out.questions.len();
        let take = (missing + missing / 2 + 1).min(candidates.len() - next).min(budget - out.asked);
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
        let read: Vec<Verdict> =
            round.iter().zip(answers).map(|(c, answer)| read(docs[c.doc].1, c, answer, &rules.settings)).collect();
        let vectors = embed_read(rules.embedder.as_deref(), docs, round, &read)?;
        for (i, (c, verdict)) in round.iter().zip(read).enumerate() {
            if out.questions.len() == opts.n {
                out.spare += 1;
                continue;
            }
            let verdict = verdict.and_then(|(question, range)| {
                let vectors = vectors.as_ref().map(|v| (&v[i].0, &v[i].1));
                kept.admit(&question, vectors, &rules.settings).map(|()| (question, range))
            });
            match verdict {
                Ok((question, range)) => {
                    let (id, text) = &docs[c.doc];
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
                Err(why) => {
                    why.count(&mut out.rejected);
                    count::dropped(1);
                }
            }
        }
    }
    out.stop = if out.questions.len() >= opts.n {
        Stop::Enough
    } else if next >= candidates.len() {
        Stop::PassagesRanOut
    } else {
        Stop::AttemptsUsed
    };
    Ok(out)
}

/// Why an answer gave no question.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reject {
    Unusable,
    NotFound,
    Template,
    Language,
    Unshared,
    Dissimilar,
    Duplicate,
}

impl Reject {
    fn count(self, r: &mut Rejections) {
        *match self {
            Reject::Unusable => &mut r.unusable,
            Reject::NotFound => &mut r.not_found,
            Reject::Template => &mut r.template,
            Reject::Language => &mut r.language,
            Reject::Unshared => &mut r.unshared,
            Reject::Dissimilar => &mut r.dissimilar,
            Reject::Duplicate => &mut r.duplicate,
        } += 1;
    }
}

/// An answer read alone: its question and reference range, or why not.
type Verdict = std::result::Result<(String, Range<usize>), Reject>;

/// The questions kept so far, as the duplicate rules compare them.
#[derive(Default)]
struct Kept {
    words: HashSet<String>,
    vectors: Vec<Vec<f32>>,
}

impl Kept {
    /// Keep `question` unless a rule that looks beyond it refuses it:
    /// similarity to its reference, and duplicates of questions kept before.
    /// `vectors`: the question's and its reference's, with a model.
    fn admit(
        &mut self,
        question: &str,
        vectors: Option<(&Vec<f32>, &Vec<f32>)>,
        settings: &GenerateOptions,
    ) -> std::result::Result<(), Reject> {
        let key = about::same_words(question);
        if self.words.contains(&key) {
            return Err(Reject::Duplicate);
        }
        if let Some((q, reference)) = vectors {
            if about::cosine(q, reference) < settings.min_similarity {
                return Err(Reject::Dissimilar);
            }
            if self.vectors.iter().any(|k| about::cosine(q, k) > settings.duplicate_similarity) {
                return Err(Reject::Duplicate);
            }
            self.vectors.push(q.clone());
        }
        self.words.insert(key);
        Ok(())
    }
}

/// A question's vector and its reference's.
type Pair = (Vec<f32>, Vec<f32>);

/// With a model: the vectors of each readable answer's question and
/// reference (empty for the others), embedded in one call.
fn embed_read(
    embedder: Option<&dyn Embedder>,
    docs: &[(String, &str)],
    round: &[Candidate],
    read: &[Verdict],
) -> Result<Option<Vec<Pair>>> {
    let Some(embedder) = embedder else { return Ok(None) };
    let mut texts: Vec<&str> = Vec::new();
    let mut at = Vec::new();
    for (c, verdict) in round.iter().zip(read) {
        match verdict {
            Ok((question, range)) => {
                at.push(Some(texts.len()));
                texts.push(question);
                texts.push(&docs[c.doc].1[range.clone()]);
            }
            Err(_) => at.push(None),
        }
    }
    let vectors = if texts.is_empty() { Vec::new() } else { embedder.embed(&texts, &|_, _| {})? };
    Ok(Some(
        at.into_iter()
            .map(|i| match i {
                Some(i) => (vectors[i].clone(), vectors[i + 1].clone()),
                None => (Vec::new(), Vec::new()),
            })
            .collect(),
    ))
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

/// An answer read alone: the question and its reference range, when the
/// question is usable, found, no template, in the reference's language and
/// shares content with it.
fn read(
    text: &str,
    c: &Candidate,
    (question, excerpt): (Option<String>, Option<String>),
    settings: &GenerateOptions,
) -> Verdict {
    let question = question.ok_or(Reject::Unusable)?.split_whitespace().collect::<Vec<_>>().join(" ");
    if !question.chars().any(char::is_alphabetic) {
        return Err(Reject::Unusable);
    }
    // Before the length: "What is the passage about? The passage is about..." rambling
    // on is a template too.
    if about::is_template(&question) {
        return Err(Reject::Template);
    }
    // At least 8 columns: a CJK character is two (所有权是什么？ is a question, Why? is not).
    let columns: usize = question.chars().map(|c| if crate::segment::is_cjk(c) { 2 } else { 1 }).sum();
    if columns < 8 || question.chars().count() > 300 {
        return Err(Reject::Unusable);
    }
    let range = match excerpt {
        // Quote mode: the excerpt must be in the stretch shown (else anywhere in the document).
        Some(e) => {
            locate(text, c.range.clone(), &e).or_else(|| locate(text, 0..text.len(), &e)).ok_or(Reject::NotFound)?
        }
        None => c.range.clone(),
    };
    let reference = &text[range.clone()];
    // A "question" that copies the passage asks nothing: a long stretch of
    // it, or a short one that is no question ("And to drink,").
    let key = squeeze(&question);
    let asks = question.ends_with(['?', '？']);
    if (key.len() > 20 || !asks) && squeeze(reference).contains(&key) {
        return Err(Reject::Unusable);
    }
    if !about::same_language(&question, reference) {
        return Err(Reject::Language);
    }
    if about::shared(&question, reference) < settings.min_shared {
        return Err(Reject::Unshared);
    }
    Ok((question, range))
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

    const EN: &str = "Prince Vasili always spoke languidly, like an actor repeating a stale part. Anna Pavlovna \
        Scherer, on the contrary, was full of animation and impulsiveness despite her forty years.";
    const ZH: &str = "所有权是 Rust 最独特的功能，它让 Rust 无需垃圾回收即可保证内存安全。借用检查器在编译时检查引用。";

    /// The first sentence of `text` as a passage.
    fn first(text: &str) -> Candidate {
        let end = text.find(". ").map(|i| i + 1).or_else(|| text.find('。').map(|i| i + '。'.len_utf8())).unwrap();
        Candidate { doc: 0, range: 0..end }
    }

    fn verdict(text: &str, question: &str) -> std::result::Result<(), Reject> {
        read(text, &first(text), (Some(question.into()), None), &GenerateOptions::default()).map(|_| ())
    }

    /// A bag of words as a vector (words hashed into 256 counts): texts
    /// that share words are alike, as a model would find them.
    fn bag(text: &str) -> Vec<f32> {
        let mut v = vec![0.0f32; 256];
        for w in about::words(text) {
            let h = w.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3));
            v[(h % 256) as usize] += 1.0;
        }
        v
    }

    /// `Kept::admit` with bag-of-words vectors of the question and `reference`.
    fn admit(kept: &mut Kept, question: &str, reference: &str) -> std::result::Result<(), Reject> {
        let (q, r) = (bag(question), bag(reference));
        kept.admit(question, Some((&q, &r)), &GenerateOptions::default())
    }

    #[test]
    fn an_empty_answer_or_a_copy_of_its_passage_is_unusable() {
        let c = first(EN);
        let s = GenerateOptions::default();
        assert_eq!(read(EN, &c, (None, None), &s), Err(Reject::Unusable));
        for bad in ["???", "Why?", "Prince Vasili always spoke languidly, like an actor"] {
            assert_eq!(verdict(EN, bad), Err(Reject::Unusable), "{bad}");
        }
        assert_eq!(verdict(ZH, "所有权是 Rust 最独特的功能，它让 Rust 无需垃圾回收"), Err(Reject::Unusable));
        assert_eq!(verdict(ZH, "？？？？？？？？"), Err(Reject::Unusable));
        // A short copy that asks nothing; a short question the passage holds is a question.
        assert_eq!(verdict(EN, "like an actor repeating"), Err(Reject::Unusable));
        assert_eq!(verdict(ZH, "保证内存安全"), Err(Reject::Unusable));
        assert_eq!(verdict("Who was Anna? Anna was the hostess of the evening. More.", "Who was Anna?"), Ok(()));
        assert_eq!(verdict(EN, "How did Prince Vasili speak?"), Ok(()));
        assert_eq!(verdict(ZH, "Rust 如何无需垃圾回收？"), Ok(()));
        // Short in characters, not in what it asks: a CJK character counts two.
        assert_eq!(verdict(ZH, "所有权是什么？"), Ok(()));
        assert_eq!(verdict(ZH, "什么？"), Err(Reject::Unusable));
    }

    #[test]
    fn a_quote_not_in_the_document_is_not_found() {
        let s = GenerateOptions::default();
        let whole = Candidate { doc: 0, range: 0..EN.len() };
        let quote = |q: &str, e: &str| (Some(q.to_string()), Some(e.to_string()));
        let excerpt =
            "Anna Pavlovna  Scherer, on the contrary, was full of animation and impulsiveness despite her forty years";
        let found = read(EN, &whole, quote("How old was Anna Pavlovna?", excerpt), &s).unwrap();
        assert!(EN[found.1.clone()].starts_with("Anna Pavlovna Scherer") && EN[found.1].ends_with("forty years"));
        let lost = read(EN, &whole, quote("How old was Anna Pavlovna?", "she was fifty years old"), &s);
        assert_eq!(lost, Err(Reject::NotFound));
        let whole = Candidate { doc: 0, range: 0..ZH.len() };
        let found = read(ZH, &whole, quote("借用检查器何时检查引用？", "借用检查器在编译时检查引用"), &s).unwrap();
        assert!(ZH[found.1].starts_with("借用"));
        let lost = read(ZH, &whole, quote("借用检查器何时检查引用？", "借用检查器在运行时检查"), &s);
        assert_eq!(lost, Err(Reject::NotFound));
    }

    #[test]
    fn a_template_is_generic_even_when_it_shares_words() {
        for q in [
            "What is the passage's answer to the question above?",
            "What is the answer to this question?",
            "What is the passage about?",
            "What is the main idea of the passage about Prince Vasili?",
            // Rambling on past the length a question may have: still a template.
            &format!(
                "What is the passage about? The passage is about Prince Vasili, {}",
                "and Prince Vasili ".repeat(20)
            ),
        ] {
            assert_eq!(verdict(EN, q), Err(Reject::Template), "{q}");
        }
        for q in [
            "这段文字主要讲了什么？",
            "这个问题的答案是什么？",
            "这段内容讲述了什么？",
            "本文关于所有权的主要内容是什么？",
        ] {
            assert_eq!(verdict(ZH, q), Err(Reject::Template), "{q}");
        }
    }

    #[test]
    fn a_question_that_shares_no_content_with_its_passage_is_generic() {
        for q in ["Who was the most famous general of the war?", "What did he say to her?", "Why does it matter?"] {
            assert_eq!(verdict(EN, q), Err(Reject::Unshared), "{q}");
        }
        for q in ["他为什么这样说？", "Python 是谁发明的？", "它们在哪里？"] {
            assert_eq!(verdict(ZH, q), Err(Reject::Unshared), "{q}");
        }
        assert_eq!(verdict(EN, "How did Prince Vasili speak?"), Ok(()));
        assert_eq!(verdict(EN, "What did the stale part sound like?"), Ok(()));
        assert_eq!(verdict(ZH, "Rust 为什么不需要垃圾回收？"), Ok(()));
        assert_eq!(verdict(ZH, "什么功能最独特？"), Ok(()));
        // min_shared: 2 asks for more, 0 turns the rule off (templates still refused).
        let c = first(EN);
        let two = GenerateOptions { min_shared: 2, ..GenerateOptions::default() };
        let off = GenerateOptions { min_shared: 0, ..GenerateOptions::default() };
        let ask = |q: &str| (Some(q.to_string()), None);
        assert_eq!(read(EN, &c, ask("Who was the stale actor?"), &two).map(|_| ()), Ok(()));
        assert_eq!(read(EN, &c, ask("Who was the actor?"), &two).map(|_| ()), Err(Reject::Unshared));
        assert!(read(EN, &c, ask("Why does it matter?"), &off).is_ok());
        assert_eq!(read(EN, &c, ask("What is the passage about?"), &off).map(|_| ()), Err(Reject::Template));
    }

    #[test]
    fn a_question_in_another_language_than_its_passage_is_generic() {
        assert_eq!(verdict(ZH, "What is the purpose of Rust's garbage collection?"), Err(Reject::Language));
        assert_eq!(verdict(EN, "瓦西里公爵怎样说话？"), Err(Reject::Language));
        assert_eq!(verdict(ZH, "Rust 为什么不需要垃圾回收？"), Ok(()));
        assert_eq!(verdict(EN, "How did Prince Vasili speak?"), Ok(()));
    }

    #[test]
    fn with_a_model_a_question_far_from_its_reference_is_generic() {
        let (en, zh) = (&EN[first(EN).range], &ZH[first(ZH).range]);
        // A name in common passes the word rule; the vectors say it is about something else.
        assert_eq!(verdict(EN, "Was Prince Bolkonski at the ball in Moscow?"), Ok(()));
        assert_eq!(
            admit(&mut Kept::default(), "Was Prince Bolkonski at the ball in Moscow?", en),
            Err(Reject::Dissimilar)
        );
        assert_eq!(admit(&mut Kept::default(), "How did Prince Vasili always speak, like an actor?", en), Ok(()));
        assert_eq!(verdict(ZH, "Python 的垃圾回收器在哪里？"), Ok(()));
        assert_eq!(admit(&mut Kept::default(), "Python 的垃圾回收器在哪里？", zh), Err(Reject::Dissimilar));
        assert_eq!(admit(&mut Kept::default(), "Rust 无需垃圾回收即可保证什么？", zh), Ok(()));
        // Without a model only the word rules apply.
        let mut kept = Kept::default();
        assert_eq!(
            kept.admit("Was Prince Bolkonski at the ball in Moscow?", None, &GenerateOptions::default()),
            Ok(())
        );
        // min_similarity 0 turns the rule off.
        let off = GenerateOptions { min_similarity: 0.0, ..GenerateOptions::default() };
        let (q, r) = (bag("Python 的垃圾回收器在哪里？"), bag(zh));
        assert_eq!(Kept::default().admit("Python 的垃圾回收器在哪里？", Some((&q, &r)), &off), Ok(()));
    }

    #[test]
    fn near_duplicates_keep_the_first() {
        let (en, zh) = (&EN[first(EN).range], &ZH[first(ZH).range]);
        // The same words, in any order or case: with or without a model.
        let mut kept = Kept::default();
        let s = GenerateOptions::default();
        assert_eq!(kept.admit("How did Prince Vasili speak?", None, &s), Ok(()));
        assert_eq!(kept.admit("how did prince vasili speak", None, &s), Err(Reject::Duplicate));
        assert_eq!(kept.admit("Prince Vasili spoke how?", None, &s), Ok(()), "spoke is not speak");
        assert_eq!(kept.admit("所有权是什么？", None, &s), Ok(()));
        assert_eq!(kept.admit("什么是所有权？", None, &s), Err(Reject::Duplicate));
        assert_eq!(kept.admit("谁拥有所有权？", None, &s), Ok(()));
        // With a model: more alike than duplicate_similarity.
        let mut kept = Kept::default();
        assert_eq!(admit(&mut kept, "How did Prince Vasili always speak, like an actor?", en), Ok(()));
        assert_eq!(
            admit(&mut kept, "How did Prince Vasili always speak, like a stale actor?", en),
            Err(Reject::Duplicate)
        );
        assert_eq!(admit(&mut kept, "What was Prince Vasili like as he spoke, an actor?", en), Ok(()));
        assert_eq!(admit(&mut kept, "Rust 如何保证内存安全？", zh), Ok(()));
        assert_eq!(admit(&mut kept, "Rust 如何保证内存安全和速度？", zh), Err(Reject::Duplicate));
        assert_eq!(admit(&mut kept, "Rust 最独特的功能是什么？", zh), Ok(()));
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
