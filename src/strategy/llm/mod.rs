//! `llm`: the model decides where chunks end, chunktui decides what a chunk
//! is. The document becomes numbered pieces (sentences, paragraph starts and
//! headings marked, [`pieces`]); the pieces go to the model in windows that
//! fit its context, neighbours overlapping; the model answers with the
//! numbers of the pieces where a new chunk starts. Every number is checked:
//! out of range, repeated or out of order is repaired, an answer with no
//! usable number makes that window fall back to sentence grouping, and both
//! are counted ([`crate::llm::usage()`]). Chunks are source ranges that tile
//! the document; a group over `size` is split at its best piece boundary
//! (a heading, else a paragraph, nearest the middle), a piece over `size`
//! at whitespace.
//!
//! `propositions` ([`propositions`]) shares the pieces, windows and client.

// Without the `llm` feature only the pure parts are used (no client to ask).
#![cfg_attr(not(feature = "llm"), allow(unused_imports, dead_code))]

pub mod agentic;
pub mod pieces;
pub mod propositions;

use super::{sized, Context, OptionKnob, OverlapRule, SizeRule, Spec, Strategy};
use crate::chunk::Chunk;
use crate::config::{ChunkConfig, LlmOptions};
#[cfg(not(feature = "llm"))]
use crate::error::Error;
use crate::error::Result;
use crate::size::SizeIndex;
use pieces::{Piece, Window};
use std::ops::Range;

pub const SPEC: Spec = Spec {
    name: "llm",
    help: "an LLM picks where chunks start among the sentences; exact source ranges within size",
    needs_llm: true,
    size: SizeRule::Limit,
    overlap: OverlapRule::None,
    options: &["--llm-url", "--llm-model", "--llm-cache"],
    option: Some(CONCURRENCY),
    ..Spec::new(build)
};

/// The option key cycles how many requests run at once.
pub(crate) const CONCURRENCY: OptionKnob = OptionKnob {
    show: |c| format!("{} at once", c.llm.concurrency),
    next: |c| {
        c.llm.concurrency = match c.llm.concurrency {
            1 => 2,
            2 => 4,
            _ => 1,
        };
        format!("llm requests at once: {}", c.llm.concurrency)
    },
};

#[cfg(feature = "llm")]
fn build(config: &ChunkConfig) -> Result<Box<dyn Strategy>> {
    Ok(Box::new(LlmChunker { asker: Asker::new(&config.llm)? }))
}

#[cfg(not(feature = "llm"))]
fn build(_config: &ChunkConfig) -> Result<Box<dyn Strategy>> {
    Err(Error::config("this chunktui was built without the 'llm' feature: rebuild with it for the LLM strategies"))
}

/// The client and the settings every LLM strategy asks with.
#[cfg(feature = "llm")]
pub(crate) struct Asker {
    pub client: std::sync::Arc<crate::llm::Client>,
    pub opts: LlmOptions,
}

#[cfg(feature = "llm")]
impl Asker {
    pub fn new(opts: &LlmOptions) -> Result<Asker> {
        Ok(Asker { client: std::sync::Arc::new(crate::llm::Client::new(opts)?), opts: opts.clone() })
    }

    /// Ask `question(i)` for every i in 0..n, `llm.concurrency` at once,
    /// with the context's progress and cancellation.
    pub fn ask_all<T: Send>(
        &self,
        n: usize,
        cx: &Context<'_>,
        question: &(dyn Fn(usize) -> Result<T> + Sync),
    ) -> Result<Vec<T>> {
        crate::llm::parallel::ask_all(n, self.opts.concurrency, cx.control.progress, &|| cx.control.check(), question)
    }
}

#[cfg(feature = "llm")]
struct LlmChunker {
    asker: Asker,
}

/// The reply schema: where chunks start.
#[cfg(feature = "llm")]
fn starts_schema() -> serde_json::Value {
    serde_json::json!({
        "type": "object",
        "properties": {"starts": {"type": "array", "items": {"type": "integer"}}},
        "required": ["starts"]
    })
}

/// Instructions and reply room leave this much of the context for pieces.
#[cfg(feature = "llm")]
fn piece_budget(opts: &LlmOptions, answer_tokens: usize) -> usize {
    opts.context_tokens.saturating_sub(answer_tokens + 400).max(128)
}

/// Longest shown piece, in characters.
const SHOWN_CHARS: usize = 240;
/// Pieces neighbouring windows share.
const WINDOW_OVERLAP: usize = 4;

#[cfg(feature = "llm")]
impl Strategy for LlmChunker {
    fn chunk(&self, text: &str, cx: &Context<'_>) -> Result<Vec<Chunk>> {
        let pieces = pieces::pieces(text);
        if pieces.is_empty() {
            return Ok(Vec::new());
        }
        let index = cx.sizer.index(text)?;
        let shown: Vec<String> =
            pieces.iter().enumerate().map(|(i, p)| pieces::shown(text, i + 1, p, SHOWN_CHARS)).collect();
        let costs: Vec<usize> = shown.iter().map(|s| pieces::rough_tokens(s)).collect();
        let opts = &self.asker.opts;
        let answer_tokens = opts.max_tokens;
        let windows = pieces::windows(&costs, piece_budget(opts, answer_tokens), WINDOW_OVERLAP);
        let config = cx.config;
        let decide = |w: usize| -> Result<Vec<usize>> {
            let win = &windows[w];
            // No size in the prompt: the model places topic boundaries, the
            // size is held here, so a size change asks nothing again.
            let system = "You split a document into chunks for retrieval search. A chunk holds one topic: a few \
                          paragraphs at most. Start a new chunk where the topic changes or at a heading. The pieces \
                          are numbered [n]; ¶ marks a paragraph start, # a heading. Answer with the numbers of the \
                          pieces where a new chunk starts, in increasing order, as {\"starts\": [n, ...]}.";
            let user = shown[win.shown.clone()].join("\n");
            let answer = self.asker.client.ask(&crate::llm::Request {
                system,
                user: &user,
                schema: Some(&starts_schema()),
                max_tokens: answer_tokens,
            })?;
            Ok(checked_starts(&answer, win, |range| fallback_starts(&pieces, range, &index, config.size)))
        };
        let decided = self.asker.ask_all(windows.len(), cx, &decide)?;
        let mut starts: Vec<usize> = decided.into_iter().flatten().collect();
        starts.insert(0, 0);
        starts.dedup();
        Ok(tile(text, &pieces, &starts, &index, config.size))
    }
}

/// The piece indices where chunks start among `win.decides`, from the
/// model's `answer` (numbers 1-based, as shown). Invalid numbers are dropped
/// and an unsorted list sorted (counted as repaired); an answer with no
/// number that names a shown piece falls back to `fallback` (counted).
#[cfg(feature = "llm")]
fn checked_starts(answer: &str, win: &Window, fallback: impl FnOnce(Range<usize>) -> Vec<usize>) -> Vec<usize> {
    use crate::llm::usage::count;
    let Some(numbers) = crate::llm::reply::numbers(answer, "starts") else {
        count::fallbacks(1);
        return fallback(win.decides.clone());
    };
    let valid: Vec<usize> = numbers
        .iter()
        .filter_map(|&n| usize::try_from(n).ok()?.checked_sub(1))
        .filter(|i| win.shown.contains(i))
        .collect();
    if valid.is_empty() && !numbers.is_empty() {
        count::fallbacks(1);
        return fallback(win.decides.clone());
    }
    let mut starts = valid.clone();
    starts.sort_unstable();
    starts.dedup();
    if starts != valid || valid.len() != numbers.len() {
        count::repaired(1);
    }
    starts.retain(|i| win.decides.contains(i));
    starts
}

/// Sentence grouping over `range` of the pieces: a new chunk where the
/// open one would pass `size`.
fn fallback_starts(pieces: &[Piece], range: Range<usize>, index: &SizeIndex<'_>, size: usize) -> Vec<usize> {
    let mut starts = Vec::new();
    let mut open = range.start;
    for i in range.clone() {
        if i > open && index.size(pieces[open].range.start..pieces[i].range.end) > size {
            starts.push(i);
            open = i;
        }
    }
    if range.start > 0 {
        starts.insert(0, range.start);
    }
    starts
}

/// Chunks that tile `text`: one per group of pieces from each start to the
/// next, groups over `size` split.
pub(crate) fn tile(text: &str, pieces: &[Piece], starts: &[usize], index: &SizeIndex<'_>, size: usize) -> Vec<Chunk> {
    let edge = |i: usize| {
        if i == 0 {
            0
        } else if i >= pieces.len() {
            text.len()
        } else {
            pieces[i].range.start
        }
    };
    let mut out = Vec::new();
    for (k, &a) in starts.iter().enumerate() {
        let b = starts.get(k + 1).copied().unwrap_or(pieces.len());
        split_group(text, pieces, a..b, &edge, index, size, &mut out);
    }
    out
}

fn split_group(
    text: &str,
    pieces: &[Piece],
    group: Range<usize>,
    edge: &dyn Fn(usize) -> usize,
    index: &SizeIndex<'_>,
    size: usize,
    out: &mut Vec<Chunk>,
) {
    let range = edge(group.start)..edge(group.end);
    if range.is_empty() {
        return;
    }
    if index.size(range.clone()) <= size {
        out.push(sized(range, index));
        return;
    }
    if group.len() < 2 {
        cut_range(text, range, index, size, out);
        return;
    }
    // The best boundary inside: a heading, else a paragraph start, nearest the middle.
    let middle = (range.start + range.end) / 2;
    let best = (group.start + 1..group.end)
        .min_by_key(|&i| {
            let rank = if pieces[i].heading {
                0
            } else if pieces[i].paragraph {
                1
            } else {
                2
            };
            // Rank only matters among boundaries that keep both halves useful.
            let off = edge(i).abs_diff(middle);
            let far = off > (range.end - range.start) / 3;
            (far, rank, off)
        })
        .expect("a group of two pieces has a boundary");
    split_group(text, pieces, group.start..best, edge, index, size, out);
    split_group(text, pieces, best..group.end, edge, index, size, out);
}

/// Cut `range` into consecutive chunks of at most `size`, each ending after
/// whitespace where there is some in its second half.
fn cut_range(text: &str, range: Range<usize>, index: &SizeIndex<'_>, size: usize, out: &mut Vec<Chunk>) {
    let mut at = range.start;
    while at < range.end {
        if index.size(at..range.end) <= size {
            out.push(sized(at..range.end, index));
            return;
        }
        let mut end = longest_within(text, at, range.end, index, size);
        let half = crate::size::floor_char_boundary(text, at + (end - at) / 2);
        if let Some(ws) = text[half..end].rfind(char::is_whitespace) {
            let after = half + ws + text[half + ws..].chars().next().map_or(1, char::len_utf8);
            if after > at && after < end {
                end = after;
            }
        }
        out.push(sized(at..end, index));
        at = end;
    }
}

/// The end of the longest text from `at` (before `limit`) within `size`, at
/// least one character: grow the step until it no longer fits, then halve
/// back (sizes grow with the end), so a long run costs a logarithm of probes.
fn longest_within(text: &str, at: usize, limit: usize, index: &SizeIndex<'_>, size: usize) -> usize {
    use crate::size::{ceil_char_boundary, floor_char_boundary};
    let first = ceil_char_boundary(text, at + 1).min(limit);
    let fits = |e: usize| index.size(at..e) <= size;
    if !fits(first) {
        return first;
    }
    let (mut good, mut step) = (first, 1usize);
    let mut bad = loop {
        let probe = ceil_char_boundary(text, good.saturating_add(step).min(limit));
        if !fits(probe) {
            break probe;
        }
        good = probe;
        if probe >= limit {
            return limit;
        }
        step *= 2;
    };
    // `good` fits, `bad` does not: close in on the last boundary that fits.
    loop {
        let mut mid = floor_char_boundary(text, good + (bad - good) / 2);
        if mid <= good {
            mid = ceil_char_boundary(text, good + 1);
        }
        if mid >= bad {
            break;
        }
        if fits(mid) {
            good = mid;
        } else {
            bad = mid;
        }
    }
    good
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::size::Sizer;

    /// Tiling holds for any starts the model may give, any text, any size.
    #[test]
    fn tiles_exactly_within_size_whatever_the_starts() {
        let texts = [
            "# 标题\n\n本书的英文原版作者为 Steve Klabnik 和 Carol Nichols，并由 Rust 社区补充完善。本简体中文译本由 Rust 中文社区翻译。\n\n第二段，没有句号的很长很长的一句话而且一直没有结束",
            "Short. Sentences here! And there?\n\n## Head\n\nA paragraph that is a good deal longer than the others, with words.",
            "nowhitespaceatallinthisverylongrunoftextthatmustbecutsomewhere",
            "  \n\n lead and trail  \n\n",
        ];
        for text in texts {
            let pieces = pieces::pieces(text);
            if pieces.is_empty() {
                continue;
            }
            for sizer in [Sizer::chars(), Sizer::words()] {
                let index = sizer.index(text).unwrap();
                for size in [1, 2, 3, 7, 20, 1000] {
                    for step in 1..=3 {
                        let starts: Vec<usize> = (0..pieces.len()).step_by(step).collect();
                        let chunks = tile(text, &pieces, &starts, &index, size);
                        let mut at = 0;
                        for c in &chunks {
                            assert_eq!(c.range.start, at, "{text:?} size {size}");
                            assert!(c.size <= size || c.range.len() <= 4, "{text:?} size {size}: {c:?}");
                            at = c.range.end;
                        }
                        assert_eq!(at, text.len());
                    }
                }
            }
        }
    }
}
