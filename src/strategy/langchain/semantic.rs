//! `langchain-semantic`: LangChain's `SemanticChunker` (langchain-experimental
//! 0.4), step for step. Given the same embeddings it finds the same
//! breakpoints and returns the same texts: sentences from
//! `re.split(sentence_split_regex, text)`, windows of `buffer_size` sentences
//! joined with `" "`, cosine distances between neighbouring windows, the
//! threshold from [`DistanceStats`], chunks joined with `" "`
//! (so [`crate::chunk::ChunkMeta::text`] holds them) and `min_chunk_size` in chars.

use crate::chunk::{Chunk, ChunkMeta};
use crate::config::SemanticOptions;
use crate::embedding::{Control, Embedder};
use crate::error::{Error, Result};
use crate::strategy::semantic::analysis::{neighbour_distances, DistanceStats, Threshold};
use crate::strategy::semantic::BUFFER;
use crate::strategy::{Context, OverlapRule, SizeRule, Spec, Strategy};
use std::ops::Range;

/// LangChain's default `sentence_split_regex`.
pub const DEFAULT_SPLIT_REGEX: &str = r"(?<=[.?!])\s+";

/// Python's `re.split(pattern, text)` (pattern without groups): the pieces
/// between matches, as byte ranges (possibly empty).
pub fn split_sentences(text: &str, pattern: &str) -> Result<Vec<Range<usize>>> {
    // A look-around that reads without bound is rescanned at every position (see split.rs).
    super::split::check_lookarounds(pattern, "sentence_split_regex")?;
    let re = fancy_regex::Regex::new(pattern)
        .map_err(|e| Error::config(format!("sentence_split_regex '{pattern}' is not a valid regex: {e}")))?;
    let mut out = Vec::new();
    let mut last = 0;
    for m in re.find_iter(text) {
        let m = m.map_err(|e| Error::config(format!("sentence_split_regex failed: {e}")))?;
        out.push(last..m.start());
        last = m.end();
    }
    out.push(last..text.len());
    Ok(out)
}

/// LangChain's `combine_sentences`: sentence i with `buffer` neighbours, joined with " ".
/// Any `buffer` works: past the ends of the text the window simply stops.
///
/// Each window is cut to its first `cap` bytes (on a char boundary): the
/// model reads only its first tokens anyway, and the cut is far past them
/// (16 bytes a token, see [`window_cap`]). Building stops there, so a huge
/// `buffer` costs a bounded amount per sentence, not the whole text each.
pub fn combine(pieces: &[&str], buffer: usize, cap: usize) -> Vec<String> {
    let n = pieces.len();
    (0..n)
        .map(|i| {
            let left = &pieces[i.saturating_sub(buffer)..i];
            let right = &pieces[(i + 1).min(n)..(i + 1).saturating_add(buffer).min(n)];
            let parts = left
                .iter()
                .flat_map(|p| [*p, " "])
                .chain(std::iter::once(pieces[i]))
                .chain(right.iter().flat_map(|p| [" ", *p]));
            let mut s = String::new();
            for part in parts {
                let room = cap - s.len();
                if part.len() <= room {
                    s.push_str(part);
                    continue;
                }
                let mut end = room;
                while !part.is_char_boundary(end) {
                    end -= 1;
                }
                s.push_str(&part[..end]);
                break;
            }
            s
        })
        .collect()
}

/// The longest window worth building for a model that reads at most
/// `max_tokens` tokens: 16 bytes a token (text runs about 4), 64 KiB when
/// the model does not say.
pub fn window_cap(max_tokens: Option<usize>) -> usize {
    max_tokens.map_or(64 * 1024, |t| t.saturating_mul(16).clamp(16, 64 * 1024))
}

/// The result of LangChain's algorithm before sizes are attached.
#[derive(Debug, Clone, PartialEq)]
pub struct LcChunk {
    pub text: String,
    /// From the first piece's start to the last piece's end in the source.
    pub range: Range<usize>,
}

/// Given the pieces and their window embeddings, LangChain's chunks.
pub fn chunks_from_embeddings(
    text: &str,
    pieces: &[Range<usize>],
    vectors: &[Vec<f32>],
    t: Threshold,
    min_chunk_chars: Option<usize>,
) -> Vec<LcChunk> {
    let stats = DistanceStats::new(neighbour_distances(vectors));
    let above = stats.breakpoints(t);
    let strs: Vec<&str> = pieces.iter().map(|r| &text[r.clone()]).collect();
    let make = |i: usize, j: usize| LcChunk { text: strs[i..=j].join(" "), range: pieces[i].start..pieces[j].end };
    let mut out = Vec::new();
    let mut start = 0;
    for idx in above {
        if start > idx {
            continue; // cannot happen with LangChain's monotone indices; kept for safety
        }
        let c = make(start, idx);
        if let Some(min) = min_chunk_chars {
            if c.text.chars().count() < min {
                continue;
            }
        }
        out.push(c);
        start = idx + 1;
    }
    if start < pieces.len() {
        out.push(make(start, pieces.len() - 1));
    }
    out
}

/// LangChain's `SemanticChunker.split_text` over `text` with an embedder.
pub fn split(text: &str, o: &SemanticOptions, embedder: &dyn Embedder, ctl: Control<'_>) -> Result<Vec<LcChunk>> {
    let pattern = o.sentence_split_regex.as_deref().unwrap_or(DEFAULT_SPLIT_REGEX);
    let pieces = split_sentences(text, pattern)?;
    let t = Threshold::from_options(o);
    let whole = |pieces: &[Range<usize>]| {
        pieces.iter().map(|r| LcChunk { text: text[r.clone()].to_string(), range: r.clone() }).collect()
    };
    if pieces.len() == 1 {
        return Ok(whole(&pieces));
    }
    if matches!(t, Threshold::Gradient(_)) && pieces.len() == 2 {
        return Ok(whole(&pieces));
    }
    let strs: Vec<&str> = pieces.iter().map(|r| &text[r.clone()]).collect();
    let combined = combine(&strs, o.buffer_size, window_cap(embedder.max_input_tokens()));
    let refs: Vec<&str> = combined.iter().map(|s| s.as_str()).collect();
    let emb = embedder.embed_texts(&refs, ctl)?;
    let min = if o.min_size > 0 { Some(o.min_size) } else { None };
    Ok(chunks_from_embeddings(text, &pieces, &emb.vectors, t, min))
}

/// As [`Chunk`]s: `range` spans the source pieces, `meta.text` the joined text.
pub fn to_chunks(chunks: Vec<LcChunk>, size_of: impl Fn(&str) -> usize) -> Vec<Chunk> {
    chunks
        .into_iter()
        .map(|c| {
            let size = size_of(&c.text);
            Chunk { range: c.range, size, meta: ChunkMeta { text: Some(c.text), ..Default::default() }.into() }
        })
        .collect()
}

pub const SPEC: Spec = Spec {
    name: "langchain-semantic",
    help:
        "LangChain's SemanticChunker (langchain-experimental): breaks where neighbouring sentence windows drift apart",
    needs_model: true,
    needs_llm: false,
    size: SizeRule::Ignored,
    overlap: OverlapRule::None,
    has_threshold: true,
    forces_unit: None,
    options: &[
        "--model",
        "--threshold-type",
        "--threshold",
        "--buffer-size",
        "--min-size",
        "semantic.number_of_chunks",
        "semantic.sentence_split_regex",
    ],
    option: Some(BUFFER),
    recut: None,
    formats: &[],
    build: |_| Ok(Box::new(SemanticChunker)),
};

struct SemanticChunker;

impl Strategy for SemanticChunker {
    fn chunk(&self, text: &str, cx: &Context<'_>) -> Result<Vec<Chunk>> {
        let chunks = split(text, &cx.config.semantic, cx.model()?, cx.control)?;
        Ok(to_chunks(chunks, |t| cx.sizer.size(t)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_like_python_re_split() {
        let t = "One. Two?  Three!\nFour";
        let p = split_sentences(t, DEFAULT_SPLIT_REGEX).unwrap();
        let s: Vec<&str> = p.iter().map(|r| &t[r.clone()]).collect();
        assert_eq!(s, ["One.", "Two?", "Three!", "Four"]);
        let t = "Ends. ";
        let p = split_sentences(t, DEFAULT_SPLIT_REGEX).unwrap();
        let s: Vec<&str> = p.iter().map(|r| &t[r.clone()]).collect();
        assert_eq!(s, ["Ends.", ""]);
        assert_eq!(combine(&["a", "b", "c"], 1, 100), ["a b", "a b c", "b c"]);
        assert_eq!(combine(&["a", "b", "c"], usize::MAX, 100), ["a b c", "a b c", "a b c"]);
        // Cut at the cap, on a char boundary.
        assert_eq!(combine(&["ab", "中文", "c"], usize::MAX, 5), ["ab ", "ab ", "ab "]);
        assert_eq!(combine(&["ab", "中文", "c"], usize::MAX, 6), ["ab 中", "ab 中", "ab 中"]);
        // A huge buffer over many sentences builds bounded windows.
        let many = vec!["word."; 20_000];
        assert!(combine(&many, usize::MAX, 64).iter().all(|w| w.len() <= 64));
    }
}
