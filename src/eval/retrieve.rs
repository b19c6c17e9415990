//! Retrievers over a list of chunk texts: what "my retriever" returns for a
//! question. Three kinds, as in most RAG stacks:
//!
//! - [`Lexical`]: BM25 (the `bm25` crate) over words, with Chinese,
//!   Japanese and Korean runs cut into character bigrams, so CJK text needs
//!   no word segmenter and no model;
//! - [`Dense`]: cosine similarity of embeddings from any [`Embedder`];
//! - [`Hybrid`]: both, fused by reciprocal rank (RRF, k = 60).
//!
//! Every ranking is deterministic: equal scores keep chunk order.

use crate::embedding::{cosine, Control, Embedder};
use crate::error::Result;
use std::sync::Arc;
use unicode_segmentation::UnicodeSegmentation;

/// One ranked chunk.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hit {
    /// Index into the chunk list the retriever was built from.
    pub chunk: usize,
    pub score: f64,
}

/// Ranks chunks for a question.
pub trait Retriever: Send + Sync {
    /// The best `k` chunks, best first.
    fn rank(&self, question: &str, k: usize) -> Result<Vec<Hit>>;
}

/// Which retriever `--retriever` names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RetrieverKind {
    Dense,
    Bm25,
    Hybrid,
}

impl RetrieverKind {
    pub const ALL: [RetrieverKind; 3] = [RetrieverKind::Dense, RetrieverKind::Bm25, RetrieverKind::Hybrid];

    pub fn name(self) -> &'static str {
        match self {
            RetrieverKind::Dense => "dense",
            RetrieverKind::Bm25 => "bm25",
            RetrieverKind::Hybrid => "hybrid",
        }
    }

    pub fn parse(name: &str) -> Result<Self> {
        Self::ALL.into_iter().find(|k| k.name() == name).ok_or_else(|| {
            crate::error::Error::config(format!("unknown retriever '{name}': use dense, bm25 or hybrid"))
        })
    }

    pub fn needs_model(self) -> bool {
        self != RetrieverKind::Bm25
    }
}

impl std::fmt::Display for RetrieverKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Best first; equal scores in chunk order.
fn best_first(mut hits: Vec<Hit>, k: usize) -> Vec<Hit> {
    hits.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.chunk.cmp(&b.chunk)));
    hits.truncate(k);
    hits
}

/// Words for BM25: lowercase UAX #29 words; a run of CJK characters gives
/// its character bigrams (a lone character itself), so Chinese needs no
/// word segmenter.
#[derive(Debug, Clone, Copy, Default)]
pub struct Terms;

impl Terms {
    pub fn of(text: &str) -> Vec<String> {
        // UAX #29 makes every ideograph a word of its own: gather runs of
        // them, then pair neighbours.
        let ideographic = |c: char| crate::segment::is_cjk(c) && c.is_alphanumeric();
        let mut out = Vec::new();
        let mut run: Vec<char> = Vec::new();
        let flush = |run: &mut Vec<char>, out: &mut Vec<String>| {
            if run.len() == 1 {
                out.push(run[0].to_string());
            }
            out.extend(run.windows(2).map(|w| w.iter().collect::<String>()));
            run.clear();
        };
        for word in text.split_word_bounds() {
            if word.chars().all(ideographic) {
                run.extend(word.chars());
                continue;
            }
            flush(&mut run, &mut out);
            if word.chars().any(char::is_alphanumeric) {
                out.push(word.to_lowercase());
            }
        }
        flush(&mut run, &mut out);
        out
    }
}

impl bm25::Tokenizer for Terms {
    fn tokenize(&self, input_text: &str) -> Vec<String> {
        Terms::of(input_text)
    }
}

/// BM25 over the chunk texts: the `bm25` crate's embedder and scorer, as
/// its search engine uses them (the same scores and order), with the texts
/// tokenised on every core.
pub struct Lexical {
    embedder: bm25::Embedder<u32, Terms>,
    scorer: bm25::Scorer<u32, u32>,
}

impl Lexical {
    pub fn new(chunks: &[&str]) -> Self {
        Self::counting(chunks).0
    }

    /// The index, and for each word (as the index hashes it) the number of
    /// texts holding it.
    pub fn counting(chunks: &[&str]) -> (Self, std::collections::HashMap<u32, u32>) {
        let lengths = in_parallel(chunks, &|t| Terms::of(t).len() as u64);
        // The search engine's own fit: the mean length, in f64, then f32.
        let avgdl =
            if chunks.is_empty() { 256.0 } else { (lengths.iter().sum::<u64>() as f64 / chunks.len() as f64) as f32 };
        let embedder = bm25::EmbedderBuilder::<u32, Terms>::with_avgdl(avgdl).tokenizer(Terms).build();
        let embeddings = in_parallel(chunks, &|t| embedder.embed(t));
        let mut holding: std::collections::HashMap<u32, u32> = std::collections::HashMap::new();
        let mut scorer = bm25::Scorer::new();
        for (i, e) in embeddings.into_iter().enumerate() {
            let words: std::collections::HashSet<u32> = e.indices().copied().collect();
            words.into_iter().for_each(|w| *holding.entry(w).or_default() += 1);
            scorer.upsert(&(i as u32), e);
        }
        (Lexical { embedder, scorer }, holding)
    }
}

impl Retriever for Lexical {
    fn rank(&self, question: &str, k: usize) -> Result<Vec<Hit>> {
        let query = self.embedder.embed(question);
        let hits = self
            .scorer
            .matches(&query)
            .into_iter()
            .map(|d| Hit { chunk: d.id as usize, score: d.score as f64 })
            .collect();
        Ok(best_first(hits, k))
    }
}

/// `f` of every text, on every core, in order.
fn in_parallel<T: Send>(texts: &[&str], f: &(dyn Fn(&str) -> T + Sync)) -> Vec<T> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(texts.len().max(1));
    let per = texts.len().div_ceil(threads).max(1);
    std::thread::scope(|scope| {
        let parts: Vec<_> =
            texts.chunks(per).map(|part| scope.spawn(move || part.iter().map(|t| f(t)).collect::<Vec<T>>())).collect();
        parts.into_iter().flat_map(|h| h.join().expect("a tokenising thread")).collect()
    })
}

/// Cosine similarity of the question's embedding to each chunk's.
pub struct Dense {
    model: Arc<dyn Embedder>,
    vectors: Vec<Vec<f32>>,
}

impl Dense {
    /// Embed every chunk (the model's own cache makes repeats cheap).
    pub fn new(model: Arc<dyn Embedder>, chunks: &[&str], control: Control<'_>) -> Result<Self> {
        let vectors = model.embed_texts(chunks, control)?.vectors;
        Ok(Dense { model, vectors })
    }

    /// Over vectors embedded already (by `model`, for the questions).
    pub fn from_vectors(model: Arc<dyn Embedder>, vectors: Vec<Vec<f32>>) -> Self {
        Dense { model, vectors }
    }
}

impl Retriever for Dense {
    fn rank(&self, question: &str, k: usize) -> Result<Vec<Hit>> {
        let q = self.model.embed_texts(&[question], Control::none())?.vectors.pop().unwrap_or_default();
        let hits = self.vectors.iter().enumerate().map(|(i, v)| Hit { chunk: i, score: cosine(&q, v) }).collect();
        Ok(best_first(hits, k))
    }
}

/// Reciprocal rank fusion: each chunk scores Σ 1 / (60 + rank) over the
/// retrievers' full rankings.
pub struct Hybrid {
    parts: Vec<Box<dyn Retriever>>,
    chunks: usize,
}

/// The usual RRF constant (Cormack et al. 2009).
const RRF_K: f64 = 60.0;

impl Hybrid {
    pub fn new(parts: Vec<Box<dyn Retriever>>, chunks: usize) -> Self {
        Hybrid { parts, chunks }
    }
}

impl Retriever for Hybrid {
    fn rank(&self, question: &str, k: usize) -> Result<Vec<Hit>> {
        let mut fused = vec![0f64; self.chunks];
        for part in &self.parts {
            for (rank, hit) in part.rank(question, self.chunks)?.iter().enumerate() {
                fused[hit.chunk] += 1.0 / (RRF_K + rank as f64 + 1.0);
            }
        }
        let hits = fused
            .into_iter()
            .enumerate()
            .filter(|(_, s)| *s > 0.0)
            .map(|(chunk, score)| Hit { chunk, score })
            .collect();
        Ok(best_first(hits, k))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bm25_ranks_as_the_crates_search_engine_ranks() {
        let docs = [
            "the river ferry crosses",
            "a river bank",
            "ferry ferry timetable",
            "mountain pass",
            "渡船过河",
            "",
            "the the the",
        ];
        let ours = Lexical::new(&docs);
        let items = docs.iter().enumerate().map(|(i, t)| bm25::Document::new(i as u32, *t));
        let theirs = bm25::SearchEngineBuilder::<u32, u32, Terms>::with_tokenizer_and_documents(Terms, items).build();
        for q in ["ferry", "river ferry", "mountain", "渡船", "nothing here", "the"] {
            let a: Vec<(usize, f64)> = ours.rank(q, 10).unwrap().iter().map(|h| (h.chunk, h.score)).collect();
            let b: Vec<Hit> = theirs
                .search(q, None)
                .into_iter()
                .map(|r| Hit { chunk: r.document.id as usize, score: r.score as f64 })
                .collect();
            let b: Vec<(usize, f64)> = best_first(b, 10).iter().map(|h| (h.chunk, h.score)).collect();
            assert_eq!(a, b, "{q}");
        }
        let (_, holding) = Lexical::counting(&docs);
        let river = bm25::EmbedderBuilder::<u32, Terms>::with_avgdl(1.0).tokenizer(Terms).build().embed("river");
        assert_eq!(holding[river.indices().next().unwrap()], 2);
    }
}
