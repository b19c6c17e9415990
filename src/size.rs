//! Sizes in the chosen unit. A [`Sizer`] knows the unit and tokenizer; for one
//! document it builds a [`SizeIndex`] that answers "how big is this byte
//! range?" in O(log n), so strategies can try many candidate ranges without
//! re-tokenizing or re-scanning text. The document is tokenized once.

mod wordpiece_load;

use crate::error::{Error, Result};
use std::ops::Range;
use std::panic::resume_unwind;
use std::path::Path;
use std::sync::Arc;
use tokenizers::models::ModelWrapper;
use unicode_segmentation::UnicodeSegmentation;

// What sizes count (the config's `unit`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Unit {
    /// Unicode code points (Python's `len(str)`).
    Chars,
    /// Unicode (UAX #29) words; each CJK ideograph counts as one word.
    Words,
    /// Tokens of the configured tokenizer.
    Tokens,
    /// UTF-8 bytes: only the `fast` strategy counts them (its size is a
    /// byte budget), and it counts nothing else.
    Bytes,
}

impl Unit {
    /// The units any strategy may count in (what the workbench cycles):
    /// [`Unit::Bytes`] is not one of them, only `fast` counts bytes.
    pub const ALL: [Unit; 3] = [Unit::Chars, Unit::Words, Unit::Tokens];
    /// [`Unit::ALL`] and [`Unit::Bytes`].
    pub const EVERY: [Unit; 4] = [Unit::Chars, Unit::Words, Unit::Tokens, Unit::Bytes];
    pub fn name(self) -> &'static str {
        match self {
            Unit::Chars => "chars",
            Unit::Words => "words",
            Unit::Tokens => "tokens",
            Unit::Bytes => "bytes",
        }
    }
    pub fn parse(name: &str) -> Result<Self> {
        match name {
            "chars" | "characters" | "char" => Ok(Unit::Chars),
            "words" | "word" => Ok(Unit::Words),
            "tokens" | "token" => Ok(Unit::Tokens),
            "bytes" | "byte" => Ok(Unit::Bytes),
            _ => Err(Error::config(format!("unknown unit '{name}': use chars, words, tokens or bytes (fast only)"))),
        }
    }
}

impl std::fmt::Display for Unit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Tokenizers that work offline with no file.
pub const BUILTIN_TOKENIZERS: [&str; 2] = ["cl100k_base", "o200k_base"];

/// A tokenizer that reports where each token sits in the text.
#[derive(Clone)]
pub enum Tokenizer {
    Tiktoken {
        name: String,
        bpe: &'static crate::bpe::Bpe,
    },
    HuggingFace {
        name: String,
        inner: Arc<tokenizers::Tokenizer>,
        /// Set when counts add up word by word (BERT-style): counted fast.
        additive: Option<crate::word_counts::Additive>,
    },
}

impl std::fmt::Debug for Tokenizer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Tokenizer({})", self.name())
    }
}

impl Tokenizer {
    /// `cl100k_base`, `o200k_base`, `hf:PATH`, or a path ending in `.json`.
    pub fn load(spec: &str) -> Result<Self> {
        if let Some(bpe) = crate::bpe::builtin(spec) {
            return Ok(Tokenizer::Tiktoken { name: spec.into(), bpe });
        }
        let path = spec.strip_prefix("hf:").unwrap_or(spec);
        if spec.starts_with("hf:") || path.ends_with(".json") {
            Self::load_hf(Path::new(path), spec)
        } else {
            Err(Error::Tokenizer(format!(
                "unknown tokenizer '{spec}': use {} or hf:PATH to a tokenizer.json",
                BUILTIN_TOKENIZERS.join(", ")
            )))
        }
    }

    fn load_hf(path: &Path, spec: &str) -> Result<Self> {
        let path = if path.is_dir() { path.join("tokenizer.json") } else { path.to_path_buf() };
        if !path.exists() {
            return Err(Error::Tokenizer(format!(
                "tokenizer file {} not found: give hf:PATH to an existing tokenizer.json",
                path.display()
            )));
        }
        // Read within the tokenizer limit: a FIFO or /dev/zero is refused, not streamed.
        let bytes = crate::input::read_capped(crate::input::Source::Path(&path), &crate::input::Cap::tokenizer()?)?;
        let loaded = wordpiece_load::load(&bytes).map(Ok).unwrap_or_else(|| tokenizers::Tokenizer::from_bytes(&bytes));
        let mut tok =
            loaded.map_err(|e| Error::Tokenizer(format!("{} is not a usable tokenizer.json: {e}", path.display())))?;
        // Many tokenizer.json files ship fixed padding and truncation (MiniLM:
        // 128). Counting with them would cap and pad every count.
        tok.with_truncation(None).map_err(|e| Error::Tokenizer(e.to_string()))?;
        tok.with_padding(None);
        let additive = crate::word_counts::Additive::of_file(&bytes);
        Ok(Tokenizer::HuggingFace { name: spec.into(), inner: Arc::new(tok), additive })
    }

    pub fn name(&self) -> &str {
        match self {
            Tokenizer::Tiktoken { name, .. } | Tokenizer::HuggingFace { name, .. } => name,
        }
    }

    /// Count the tokens of a string on its own (no special tokens). Counts
    /// of longer strings are remembered.
    pub fn count(&self, text: &str) -> usize {
        // A BERT-style count is already a lookup per word: hashing the whole
        // text for the shared memo (a lock per call) would cost as much.
        let additive = matches!(self, Tokenizer::HuggingFace { additive: Some(_), .. });
        if !additive && text.len() >= count_memo::MIN_BYTES {
            return count_memo::get_or_count(self.name(), text, || self.count_now(text));
        }
        self.count_now(text)
    }

    /// Whether counts add up word by word (BERT-style), so that
    /// [`Tokenizer::tally`] gives one.
    pub fn adds_up(&self) -> bool {
        matches!(self, Tokenizer::HuggingFace { additive: Some(_), .. })
    }

    /// A [`Tally`](crate::word_counts::Tally) of `text`, when this
    /// tokenizer's counts add up word by word (BERT-style); see
    /// [`Tokenizer::count_in`].
    pub fn tally(&self, text: &str) -> Option<crate::word_counts::Tally> {
        match self {
            Tokenizer::HuggingFace { additive: Some(words), inner, .. } => match inner.get_model() {
                ModelWrapper::WordPiece(model) => words.tally(text, model, |piece| self.count_segments(piece)),
                _ => None,
            },
            _ => None,
        }
    }

    /// The tokens of `text[range]`, from `tally` (made of `text` by this
    /// tokenizer): exactly [`Tokenizer::count`] of that text.
    pub fn count_in(&self, tally: &crate::word_counts::Tally, text: &str, range: Range<usize>) -> usize {
        tally.count(text, range, |edge| if edge.is_empty() { 0 } else { self.count_now(edge) })
    }

    /// Long strings are counted piece by piece (see [`token_segments`]).
    fn count_now(&self, text: &str) -> usize {
        match self {
            Tokenizer::HuggingFace { additive: Some(words), inner, .. } => match inner.get_model() {
                ModelWrapper::WordPiece(model) => words.count(text, model, |piece| self.count_segments(piece)),
                _ => self.count_segments(text),
            },
            _ => self.count_segments(text),
        }
    }

    fn count_segments(&self, text: &str) -> usize {
        token_segments(text)
            .into_iter()
            .map(|seg| {
                let text = &text[seg];
                match self {
                    Tokenizer::Tiktoken { bpe, .. } => bpe.count(text),
                    Tokenizer::HuggingFace { inner, .. } => {
                        inner.encode_fast(text, false).map(|e| e.get_ids().len()).unwrap_or(0)
                    }
                }
            })
            .sum()
    }

    /// Byte spans of every token of `text`, in order, snapped to char boundaries.
    ///
    /// A long text's pieces (see [`token_segments`]) are tokenized on every
    /// core: the text in runs of pieces, two threads a run, one from each
    /// end, meeting wherever the text's cost puts them (equal bytes are not
    /// equal work: a run of CJK or of hashes costs more). Every piece is
    /// encoded on its own anyway, so the spans are the same on one thread or
    /// many.
    pub fn token_spans(&self, text: &str) -> Result<Vec<(u32, u32)>> {
        let segments = token_segments(text);
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(segments.len());
        if threads < 2 {
            return self.segment_spans(text, &segments);
        }
        let runs = runs_by_bytes(&segments, threads.div_ceil(2));
        let parts: Vec<Result<Vec<(u32, u32)>>> = std::thread::scope(|scope| {
            let mut rest = runs[1..]
                .iter()
                .map(|run| scope.spawn(|| self.run_spans_from_both_ends(text, run)))
                .collect::<Vec<_>>();
            let first = self.run_spans_from_both_ends(text, runs[0]);
            std::iter::once(first)
                .chain(rest.drain(..).map(|h| h.join().unwrap_or_else(|p| resume_unwind(p))))
                .collect()
        });
        // The first run's spans, the others' appended (one copy of those).
        let mut parts = parts.into_iter();
        let mut all = parts.next().expect("one run at least")?;
        let rest: Vec<Vec<(u32, u32)>> = parts.collect::<Result<_>>()?;
        append_all(&mut all, rest);
        Ok(all)
    }

    /// The spans of a run of pieces, tokenized by this thread from the front
    /// and by another from the back, each into one list.
    fn run_spans_from_both_ends(&self, text: &str, run: &[Range<usize>]) -> Result<Vec<(u32, u32)>> {
        let left = std::sync::Mutex::new(0..run.len());
        let take = |front: bool| {
            let mut left = left.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            if front {
                left.next()
            } else {
                left.next_back()
            }
        };
        // On an error the other thread is left nothing more to do.
        let stop = || *left.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = 0..0;
        let tokenize = |front: bool| {
            let mut spans = Vec::with_capacity(segments_bytes(run) / 2);
            // Where each piece's spans start (the back's pieces come last first).
            let mut starts = Vec::new();
            while let Some(i) = take(front) {
                starts.push(spans.len());
                self.spans_into(text, &run[i..=i], &mut spans).inspect_err(|_| stop())?;
            }
            Ok::<_, Error>((spans, starts))
        };
        let (back, front) = crate::parallel::join(|| tokenize(false), || tokenize(true));
        let (mut spans, _) = front?;
        let (back, starts) = back?;
        spans.reserve(back.len());
        for (k, &start) in starts.iter().enumerate().rev() {
            spans.extend_from_slice(&back[start..starts.get(k + 1).copied().unwrap_or(back.len())]);
        }
        Ok(spans)
    }

    /// The spans of the tokens of `text`'s `segments`, in order, snapped.
    fn segment_spans(&self, text: &str, segments: &[Range<usize>]) -> Result<Vec<(u32, u32)>> {
        // About a token per 3 to 4 bytes of prose (2 of CJK text): reserved once
        // rather than grown (each growth copies every span and touches fresh pages).
        let mut spans = Vec::with_capacity(segments_bytes(segments) / 2);
        self.spans_into(text, segments, &mut spans)?;
        Ok(spans)
    }

    /// [`Tokenizer::segment_spans`], appended to `spans`.
    fn spans_into(&self, text: &str, segments: &[Range<usize>], spans: &mut Vec<(u32, u32)>) -> Result<()> {
        // One `encode` of a whole book holds every token's string and several
        // arrays per token (hundreds of MB for a few MB of text; BPE's merge
        // state alone is ~56 bytes per byte of one pre-token). Encoding piece
        // by piece keeps memory small and the work in cache;
        // tests/token_segments.rs (HuggingFace) and tests/limits.rs
        // (tiktoken) check the tokens are exactly those of one whole encode.
        for segment in segments {
            let base = segment.start;
            let piece = &text[segment.clone()];
            match self {
                Tokenizer::Tiktoken { bpe, .. } => {
                    let mut pos = base;
                    // Snapped to char boundaries as they are made (a byte-level
                    // token may end inside a char).
                    bpe.token_lens(piece, |len| {
                        spans.push((floor_char_boundary(text, pos) as u32, ceil_char_boundary(text, pos + len) as u32));
                        pos += len;
                    });
                }
                Tokenizer::HuggingFace { inner, .. } => {
                    let enc = inner.encode(piece, false).map_err(|e| Error::Tokenizer(e.to_string()))?;
                    spans.reserve(enc.len());
                    for &(s, e) in enc.get_offsets() {
                        if e > s {
                            let (s, e) = (floor_char_boundary(text, base + s), ceil_char_boundary(text, base + e));
                            spans.push((s as u32, e as u32));
                        }
                    }
                }
            }
        }
        Ok(())
    }
}

/// The bytes `segments` (in order, adjoining) cover.
fn segments_bytes(segments: &[Range<usize>]) -> usize {
    segments.last().map_or(0, |s| s.end) - segments.first().map_or(0, |s| s.start)
}

/// `parts` appended to `all`, in order, reserved once.
fn append_all(all: &mut Vec<(u32, u32)>, parts: Vec<Vec<(u32, u32)>>) {
    all.reserve(parts.iter().map(Vec::len).sum());
    for part in parts {
        all.extend(part);
    }
}

/// `segments` cut into `n` runs (fewer when there are fewer segments) of
/// about equal bytes, in order.
fn runs_by_bytes(segments: &[Range<usize>], n: usize) -> Vec<&[Range<usize>]> {
    let total = segments.last().map_or(0, |s| s.end) - segments.first().map_or(0, |s| s.start);
    let mut runs = Vec::with_capacity(n);
    let mut from = 0;
    for k in 1..n {
        let goal = segments.first().map_or(0, |s| s.start) + total * k / n;
        let to = segments.partition_point(|s| s.end <= goal).max(from + 1).min(segments.len());
        if to > from && to < segments.len() {
            runs.push(&segments[from..to]);
            from = to;
        }
    }
    runs.push(&segments[from..]);
    runs
}

/// Target size of the pieces a long text is tokenized in.
const SEGMENT_BYTES: usize = 64 * 1024;

/// The pieces [`Tokenizer::token_spans`] and long counts encode `text` in.
pub(crate) fn token_segments(text: &str) -> Vec<Range<usize>> {
    word_segments(text, SEGMENT_BYTES)
}

/// Cut `text` into pieces of `target` to `4 * target` bytes (a shorter text
/// stays whole). Each cut is, by preference, searched for from `target`
/// bytes into the piece:
///
/// 1. right before a single space that follows a non-space and precedes a
///    letter or digit (" word"): every common pre-tokenizer (BERT whitespace
///    splitting, byte-level BPE's " word" pieces, SentencePiece's "▁word")
///    starts a fresh piece there, so the tokens come out exactly as in one
///    whole encode;
/// 2. else right after a line break that precedes a non-space: exact for
///    tiktoken and BERT-style tokenizers, while a SentencePiece tokenizer that
///    prepends "▁" to each input may count one token more there;
/// 3. else (a line of over `3 * target` bytes with neither: a giant "word",
///    minified code, base64) at the char boundary `target` bytes in. Encoding
///    such a run whole costs time and memory out of proportion (tens of bytes
///    per byte for BPE's merge state, minutes for 50 MB); cut, the tokens next
///    to each cut may differ from a whole encode's: a BPE token that would
///    straddle the cut becomes two, so the count can be one higher per cut
///    (8 MB of random letters, cl100k: 122 cuts, 19 tokens more in 4.3 M),
///    and a WordPiece word over its length limit is one `[UNK]` per piece
///    instead of one in all.
fn word_segments(text: &str, target: usize) -> Vec<Range<usize>> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut start = 0;
    while text.len() - start > 2 * target {
        let from = start + target;
        let to = (start + 4 * target).min(text.len());
        let word = || {
            memchr::memchr_iter(b' ', &bytes[from..to]).map(|p| from + p).find(|&p| {
                !bytes[p - 1].is_ascii_whitespace() && text[p + 1..].chars().next().is_some_and(|c| c.is_alphanumeric())
            })
        };
        let line = || {
            memchr::memchr_iter(b'\n', &bytes[from..to])
                .map(|p| from + p + 1)
                .find(|&p| p < text.len() && !bytes[p].is_ascii_whitespace())
        };
        let cut = word().or_else(line).unwrap_or_else(|| floor_char_boundary(text, from));
        out.push(start..cut);
        start = cut;
    }
    out.push(start..text.len());
    out
}

/// Measures sizes in one unit; cheap to clone.
#[derive(Clone, Debug)]
pub struct Sizer {
    pub unit: Unit,
    pub tokenizer: Option<Tokenizer>,
}

impl Sizer {
    pub fn chars() -> Self {
        Sizer { unit: Unit::Chars, tokenizer: None }
    }
    pub fn words() -> Self {
        Sizer { unit: Unit::Words, tokenizer: None }
    }
    pub fn tokens(tokenizer: Tokenizer) -> Self {
        Sizer { unit: Unit::Tokens, tokenizer: Some(tokenizer) }
    }
    /// UTF-8 bytes: a size is `len()`.
    pub fn bytes() -> Self {
        Sizer { unit: Unit::Bytes, tokenizer: None }
    }

    /// The sizer for a unit; `tokenizer` is only loaded for `Unit::Tokens`.
    pub fn for_unit(unit: Unit, tokenizer: &str) -> Result<Self> {
        Ok(match unit {
            Unit::Chars => Sizer::chars(),
            Unit::Words => Sizer::words(),
            Unit::Tokens => Sizer::tokens(Tokenizer::load(tokenizer)?),
            Unit::Bytes => Sizer::bytes(),
        })
    }

    /// Size of a string on its own.
    pub fn size(&self, text: &str) -> usize {
        match (self.unit, &self.tokenizer) {
            (Unit::Tokens, Some(t)) => t.count(text),
            (Unit::Words, _) => text.unicode_words().count(),
            (Unit::Bytes, _) => text.len(),
            _ => text.chars().count(),
        }
    }

    /// Index `text` once so that any range can be measured quickly.
    ///
    /// Token and word indexes of the last few texts are kept: the workbench
    /// re-chunks the same document on every key press, and tokenizing it again
    /// would cost far more than the chunking itself.
    pub fn index<'t>(&self, text: &'t str) -> Result<SizeIndex<'t>> {
        Ok(match (self.unit, &self.tokenizer) {
            (Unit::Tokens, Some(t)) => {
                SizeIndex::Spans(doc_cache::get_or_build(t.name(), text, || Ok(SpanIndex::new(t.token_spans(text)?)))?)
            }
            (Unit::Words, _) => {
                SizeIndex::Spans(doc_cache::get_or_build("words", text, || Ok(SpanIndex::new(word_spans(text))))?)
            }
            (Unit::Bytes, _) => SizeIndex::Bytes,
            _ => SizeIndex::Chars(CharIndex::of(text)),
        })
    }
}

/// Byte spans of UAX #29 words (segments holding a letter or digit).
pub fn word_spans(text: &str) -> Vec<(u32, u32)> {
    text.unicode_word_indices().map(|(i, w)| (i as u32, (i + w.len()) as u32)).collect()
}

/// Per-document size lookup; cheap to clone (the counts are shared).
#[derive(Clone)]
pub enum SizeIndex<'t> {
    Chars(CharIndex<'t>),
    /// Words or tokens: a unit counts in a range when its span overlaps it.
    Spans(Arc<SpanIndex>),
    /// UTF-8 bytes: a range's size is its length; nothing to index.
    Bytes,
}

impl SizeIndex<'_> {
    pub fn size(&self, range: Range<usize>) -> usize {
        match self {
            SizeIndex::Chars(c) => c.count(range),
            SizeIndex::Spans(s) => s.count(range),
            SizeIndex::Bytes => range.len(),
        }
    }

    /// A cheap upper bound of `size(range)`: the byte length for chars (a char
    /// is at least one byte); no useful bound for words and tokens.
    pub fn at_most(&self, range: Range<usize>) -> usize {
        match self {
            SizeIndex::Chars(_) | SizeIndex::Bytes => range.len(),
            SizeIndex::Spans(_) => usize::MAX,
        }
    }

    /// Whether this is an index of `text` (a cheap check: its length, and
    /// for chars where the bytes are).
    pub fn is_of(&self, text: &str) -> bool {
        match self {
            SizeIndex::Chars(c) => std::ptr::eq(c.bytes, text.as_bytes()),
            SizeIndex::Spans(s) => s.spans.last().is_none_or(|&(_, end)| end as usize <= text.len()),
            SizeIndex::Bytes => true,
        }
    }

    /// The spans of words or tokens, when the unit has them.
    pub fn spans(&self) -> Option<&[(u32, u32)]> {
        match self {
            SizeIndex::Spans(s) => Some(&s.spans),
            SizeIndex::Chars(_) | SizeIndex::Bytes => None,
        }
    }
}

/// Char counts sampled every `STRIDE` bytes: O(1) counts for 1/16 of the text size.
#[derive(Clone)]
pub struct CharIndex<'t> {
    bytes: &'t [u8],
    samples: Arc<[u32]>,
}

const STRIDE: usize = 64;

impl<'t> CharIndex<'t> {
    pub fn new(text: &'t str) -> Self {
        let bytes = text.as_bytes();
        let mut samples = Vec::with_capacity(bytes.len() / STRIDE + 2);
        let mut count = 0u32;
        for block in bytes.chunks(STRIDE) {
            samples.push(count);
            count += count_chars(block) as u32;
        }
        samples.push(count);
        CharIndex { bytes, samples: samples.into() }
    }

    /// [`CharIndex::new`], its samples kept per text for the next key press
    /// (a count of the whole text each time is milliseconds on megabytes).
    pub fn of(text: &'t str) -> Self {
        match doc_cache::get_or_build("char index", text, || Ok(CharIndex::new(text).samples)) {
            Ok(samples) => CharIndex { bytes: text.as_bytes(), samples: Arc::clone(&samples) },
            Err(_) => CharIndex::new(text),
        }
    }

    /// Chars before byte offset `at`.
    pub fn chars_before(&self, at: usize) -> usize {
        let block = at / STRIDE;
        self.samples[block] as usize + count_chars(&self.bytes[block * STRIDE..at])
    }

    pub fn count(&self, range: Range<usize>) -> usize {
        if range.end <= range.start {
            return 0;
        }
        self.chars_before(range.end) - self.chars_before(range.start)
    }

    /// Byte offset of the char with code-point index `cp` (the text length
    /// when `cp` is the char count or more).
    pub fn byte_of_char(&self, cp: usize) -> usize {
        // The last block starting with at most `cp` chars before it.
        let block = self.samples.partition_point(|&c| c as usize <= cp).saturating_sub(1);
        let mut byte = (block * STRIDE).min(self.bytes.len());
        let mut seen = self.samples[block] as usize;
        while byte < self.bytes.len() {
            if (self.bytes[byte] as i8) >= -0x40 {
                if seen == cp {
                    return byte;
                }
                seen += 1;
            }
            byte += 1;
        }
        self.bytes.len()
    }
}

/// Number of UTF-8 chars in a byte slice: the bytes that are not continuation
/// bytes (`10xxxxxx`). This is the hot loop of character-unit chunking: a
/// byte counter per 32-byte block, which the compiler turns into vector
/// compares (1.6x the speed of counting bits eight bytes at a time, where
/// the baseline x86-64 target has no popcount instruction).
pub fn count_chars(bytes: &[u8]) -> usize {
    let mut blocks = bytes.chunks_exact(32);
    let mut chars = 0;
    for block in &mut blocks {
        chars += usize::from(block.iter().map(|&b| u8::from(is_char_start(b))).sum::<u8>());
    }
    // The rest (under 32 bytes: most counts are of a range's ends between
    // two samples) eight bytes at a time.
    let rest = blocks.remainder();
    let mut words = rest.chunks_exact(8);
    for word in &mut words {
        chars += 8 - continuation_bytes(word_at(word, 0), u64::MAX);
    }
    let tail = words.remainder().len();
    if tail == 0 {
        return chars;
    }
    if bytes.len() < 8 {
        return chars + rest.iter().filter(|&&b| is_char_start(b)).count();
    }
    // The last eight bytes of the slice, of which the top `tail` are new
    // (one load, not a copy into a padded word: that stalls the load).
    let last = word_at(bytes, bytes.len() - 8);
    chars + tail - continuation_bytes(last, u64::MAX << (8 * (8 - tail)))
}

fn word_at(bytes: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"))
}

/// How many of a word's bytes under `mask` are UTF-8 continuation bytes
/// (`10xxxxxx`): bit 7 set and bit 6 clear, summed by a multiply (the
/// baseline x86-64 target has no popcount instruction).
fn continuation_bytes(word: u64, mask: u64) -> usize {
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let marks = (word & !(word << 1) & HIGH & mask) >> 7;
    (marks.wrapping_mul(0x0101_0101_0101_0101) >> 56) as usize
}

/// Not a UTF-8 continuation byte (`10xxxxxx`).
fn is_char_start(byte: u8) -> bool {
    (byte as i8) >= -0x40
}

pub struct SpanIndex {
    spans: Vec<(u32, u32)>,
    /// Span ends, sorted, when they are not already in order in `spans`
    /// (they normally are: no copy then).
    ends: Option<Vec<u32>>,
    /// How many spans start before each multiple of [`SpanIndex::BUCKET`]
    /// bytes, and how many end before it: a count reads a bucket of a few
    /// spans instead of binary-searching millions (packers in tokens ask
    /// for sizes millions of times a pass, and that search was 70–90 % of
    /// it on a 9 MB text).
    started_before: Vec<u32>,
    ended_before: Vec<u32>,
}

impl SpanIndex {
    const BUCKET: usize = 64;
    /// Spans from which the two tables are built side by side.
    const TWO_THREADS: usize = 1 << 16;

    pub fn new(mut spans: Vec<(u32, u32)>) -> Self {
        // Both orders checked in one pass over a book's million spans.
        let (mut by_start, mut by_end) = (true, true);
        for pair in spans.windows(2) {
            by_start &= pair[0].0 <= pair[1].0;
            by_end &= pair[0].1 <= pair[1].1;
        }
        if !by_start {
            spans.sort_unstable();
            by_end = spans.is_sorted_by_key(|s| s.1);
        }
        let ends = (!by_end).then(|| {
            let mut ends: Vec<u32> = spans.iter().map(|s| s.1).collect();
            ends.sort_unstable();
            ends
        });
        let ended_table = || match &ends {
            Some(ends) => Self::table(ends, |&e| e),
            None => Self::table(&spans, |s| s.1),
        };
        // Each table is a pass over every span: on a book's million tokens,
        // one on each core (this runs once per document and tokenizer).
        let (started_before, ended_before) = if spans.len() < Self::TWO_THREADS {
            (Self::table(&spans, |s| s.0), ended_table())
        } else {
            let (ended, started) = crate::parallel::join(ended_table, || Self::table(&spans, |s| s.0));
            (started, ended)
        };
        SpanIndex { spans, ends, started_before, ended_before }
    }

    /// For each multiple b·BUCKET up to past the last key, how many of the
    /// `sorted` keys are below it.
    fn table<T>(sorted: &[T], key: impl Fn(&T) -> u32) -> Vec<u32> {
        let last = sorted.last().map_or(0, |t| key(t) as usize);
        let buckets = last / Self::BUCKET + 1;
        let mut table = Vec::with_capacity(buckets + 1);
        let mut i = 0;
        for b in 0..=buckets {
            while i < sorted.len() && (key(&sorted[i]) as usize) < b * Self::BUCKET {
                i += 1;
            }
            table.push(i as u32);
        }
        table
    }

    /// How many of the `sorted` keys are below `t`, by `table` (see [`Self::table`]).
    fn below<T>(sorted: &[T], key: impl Fn(&T) -> u32, table: &[u32], t: usize) -> usize {
        let b = t / Self::BUCKET;
        if b + 1 >= table.len() {
            return sorted.len();
        }
        let (lo, hi) = (table[b] as usize, table[b + 1] as usize);
        lo + sorted[lo..hi].partition_point(|k| (key(k) as usize) < t)
    }

    /// Units whose span overlaps `range`: started before its end, ended after its start.
    pub fn count(&self, range: Range<usize>) -> usize {
        if range.end <= range.start {
            return 0;
        }
        let started = Self::below(&self.spans, |s| s.0, &self.started_before, range.end);
        // Ended at or before the start: below start + 1.
        let ended = match &self.ends {
            Some(ends) => Self::below(ends, |&e| e, &self.ended_before, range.start + 1),
            None => Self::below(&self.spans, |s| s.1, &self.ended_before, range.start + 1),
        };
        started.saturating_sub(ended)
    }

    pub fn spans(&self) -> &[(u32, u32)] {
        &self.spans
    }
}

/// A small process-wide cache of what was built from a whole document (span
/// indexes, token offsets...), keyed by what was built (tokenizer name,
/// "words"...) and a hash of the text. The workbench re-chunks the same
/// document on every key press; rebuilding these would cost far more than the
/// chunking itself.
pub(crate) mod doc_cache {
    use crate::error::Result;
    use std::any::Any;
    use std::sync::{Arc, Condvar, Mutex};

    /// Enough for two compared panes with different tokenizers, words,
    /// LangChain's token offsets, search index and split lengths,
    /// Markdown's blocks and outlines, sentences and the gram index of
    /// LangChain's placement.
    const KEEP: usize = 20;

    type Key = (String, usize, u64);
    type Entry = (Key, Arc<dyn Any + Send + Sync>);
    static CACHE: Mutex<Vec<Entry>> = Mutex::new(Vec::new());

    /// Texts smaller than this are indexed directly: hashing would not pay.
    const MIN_BYTES: usize = 64 * 1024;

    /// The cached `build()` for (`what`, `text`), building it on a miss. One
    /// `what` must always name the same type.
    pub fn get_or_build<T: Any + Send + Sync>(
        what: &str,
        text: &str,
        build: impl FnOnce() -> Result<T>,
    ) -> Result<Arc<T>> {
        if text.len() < MIN_BYTES {
            return Ok(Arc::new(build()?));
        }
        let key = key(what, text);
        loop {
            let hit = lock().iter().find(|(k, _)| *k == key).map(|(_, v)| v.clone());
            if let Some(hit) = hit.and_then(|v| v.downcast::<T>().ok()) {
                return Ok(hit);
            }
            // Built ahead on another thread: wait for it rather than build
            // it twice (then look again; a failed build is built here).
            let mut ahead = AHEAD.lock().unwrap_or_else(|e| e.into_inner());
            if !ahead.contains(&key) {
                break;
            }
            while ahead.contains(&key) {
                ahead = BUILT.wait(ahead).unwrap_or_else(|e| e.into_inner());
            }
        }
        let value = Arc::new(build()?);
        keep(key, value.clone());
        Ok(value)
    }

    /// Claim (`what`, `text`) for a build ahead, for a [`get_or_build`]
    /// that another thread will make soon: that one waits for the claim's
    /// [`Claim::fill`] (or its drop) instead of building it too. None when
    /// it is kept already, claimed, or the text is small. For threads of
    /// normal priority only: a waiter must not wait on a background thread
    /// the scheduler starves.
    pub fn claim(what: &str, text: &str) -> Option<Claim> {
        (text.len() >= MIN_BYTES).then_some(())?;
        let key = key(what, text);
        let mut ahead = AHEAD.lock().unwrap_or_else(|e| e.into_inner());
        if ahead.contains(&key) || lock().iter().any(|(k, _)| *k == key) {
            return None;
        }
        ahead.push(key.clone());
        Some(Claim(key))
    }

    /// Keys claimed for a build ahead, and the signal that one ended.
    static AHEAD: Mutex<Vec<Key>> = Mutex::new(Vec::new());
    static BUILT: Condvar = Condvar::new();

    /// A build ahead under way: filled, or dropped unfilled (an error or a
    /// panic), it wakes whoever waits for it.
    pub struct Claim(Key);

    impl Claim {
        /// Keep `value` under the claimed key.
        pub fn fill<T: Any + Send + Sync>(self, value: T) {
            keep(self.0.clone(), Arc::new(value));
        }
    }

    impl Drop for Claim {
        fn drop(&mut self) {
            let mut ahead = AHEAD.lock().unwrap_or_else(|e| e.into_inner());
            ahead.retain(|k| *k != self.0);
            BUILT.notify_all();
        }
    }

    /// The cached value for (`what`, `text`), if any (never for small texts).
    pub fn get<T: Any + Send + Sync>(what: &str, text: &str) -> Option<Arc<T>> {
        (text.len() >= MIN_BYTES).then_some(())?;
        let key = key(what, text);
        lock().iter().find(|(k, _)| *k == key).and_then(|(_, v)| v.clone().downcast::<T>().ok())
    }

    /// Keep `value` for (`what`, `text`), as [`get_or_build`] keeps what it builds.
    pub fn put<T: Any + Send + Sync>(what: &str, text: &str, value: Arc<T>) {
        if text.len() >= MIN_BYTES {
            keep(key(what, text), value);
        }
    }

    /// xxh3 rather than SipHash: the workbench looks up a whole document on
    /// every key press, and SipHash alone took ~5 ms of a 9 MB text's 16 ms
    /// frame budget. Its 64 bits with the length make a collision (a wrong
    /// index for another text) negligible; nothing here is adversarial.
    fn key(what: &str, text: &str) -> Key {
        (what.to_string(), text.len(), hash(text))
    }

    thread_local! {
        /// Texts borrowed by a [`pinned`] call on this thread: where they
        /// are, their length and, once computed, their hash.
        static PINNED: std::cell::RefCell<Vec<(usize, usize, Option<u64>)>> =
            const { std::cell::RefCell::new(Vec::new()) };
    }

    fn hash(text: &str) -> u64 {
        let at = (text.as_ptr() as usize, text.len());
        let known = PINNED.with_borrow(|p| p.iter().rev().find(|e| (e.0, e.1) == at).map(|e| e.2));
        match known {
            Some(Some(h)) => h,
            Some(None) => {
                let h = xxhash_rust::xxh3::xxh3_64(text.as_bytes());
                PINNED.with_borrow_mut(|p| {
                    if let Some(e) = p.iter_mut().rev().find(|e| (e.0, e.1) == at) {
                        e.2 = Some(h);
                    }
                });
                h
            }
            None => xxhash_rust::xxh3::xxh3_64(text.as_bytes()),
        }
    }

    /// Run `f` with `text` hashed at most once for every lookup of it on
    /// this thread: a strategy that cuts a large text a batch at a time
    /// looks it up per batch. Sound because `text` stays borrowed, so
    /// unchanged and in place, for the whole of `f`: the same address and
    /// length are the same bytes.
    pub fn pinned<R>(text: &str, f: impl FnOnce() -> R) -> R {
        struct Unpin;
        impl Drop for Unpin {
            fn drop(&mut self) {
                PINNED.with_borrow_mut(|p| p.pop());
            }
        }
        if text.len() < MIN_BYTES {
            return f();
        }
        PINNED.with_borrow_mut(|p| p.push((text.as_ptr() as usize, text.len(), None)));
        let _unpin = Unpin;
        f()
    }

    fn keep(key: Key, value: Arc<dyn Any + Send + Sync>) {
        let mut cache = lock();
        cache.retain(|(k, _)| *k != key);
        if cache.len() >= KEEP {
            cache.remove(0);
        }
        cache.push((key, value));
    }

    fn lock() -> std::sync::MutexGuard<'static, Vec<Entry>> {
        // A panic elsewhere while holding the lock leaves a usable cache.
        CACHE.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn a_build_waits_for_a_claim_and_is_not_built_twice() {
            let text = "claimed ".repeat(MIN_BYTES / 4);
            let first = claim("test claim", &text).expect("claims");
            assert!(claim("test claim", &text).is_none(), "claimed once");
            std::thread::scope(|scope| {
                let waiter = scope.spawn(|| get_or_build("test claim", &text, || Ok(1usize)));
                std::thread::sleep(std::time::Duration::from_millis(50));
                first.fill(2usize);
                assert_eq!(*waiter.join().expect("joins").expect("built"), 2, "the claim's value, not built again");
            });
            // A claim dropped unfilled (its build failed) leaves the build to the waiter.
            let other = "dropped ".repeat(MIN_BYTES / 4);
            let dropped = claim("test claim", &other).expect("claims");
            std::thread::scope(|scope| {
                let waiter = scope.spawn(|| get_or_build("test claim", &other, || Ok(3usize)));
                std::thread::sleep(std::time::Duration::from_millis(50));
                drop(dropped);
                assert_eq!(*waiter.join().expect("joins").expect("built"), 3);
            });
            assert!(claim("test claim", &other).is_none(), "kept: nothing to claim");
        }
    }
}

/// Token counts of recently counted strings, keyed by tokenizer and a hash of
/// the string. The workbench counts the same chunks again after every key
/// press (LangChain's header splitter sizes the same blocks whatever the size
/// setting; the counter thread counts every shown chunk).
mod count_memo {
    use std::collections::HashMap;
    use std::sync::Mutex;

    /// Shorter strings are counted directly: the lookup would not pay.
    pub const MIN_BYTES: usize = 256;
    /// Forget everything when this many counts are kept (a few MB).
    const KEEP: usize = 1 << 16;

    static MEMO: Mutex<Option<HashMap<(u64, usize), usize>>> = Mutex::new(None);

    pub fn get_or_count(tokenizer: &str, text: &str, count: impl FnOnce() -> usize) -> usize {
        use xxhash_rust::xxh3::{xxh3_64, xxh3_64_with_seed};
        let key = (xxh3_64_with_seed(text.as_bytes(), xxh3_64(tokenizer.as_bytes())), text.len());
        let lock = || MEMO.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(&n) = lock().as_ref().and_then(|m| m.get(&key)) {
            return n;
        }
        let n = count();
        let mut memo = lock();
        let memo = memo.get_or_insert_with(HashMap::new);
        if memo.len() >= KEEP {
            memo.clear();
        }
        memo.insert(key, n);
        n
    }
}

pub fn floor_char_boundary(text: &str, mut at: usize) -> usize {
    at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

pub fn ceil_char_boundary(text: &str, mut at: usize) -> usize {
    at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at += 1;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The bucketed count is the plain one: spans that started before
        /// the range's end less those that ended by its start, for spans in
        /// order and spans whose ends are not (snapped outwards, nested).
        #[test]
        fn span_counts_read_from_buckets_are_the_plain_counts(
            raw in proptest::collection::vec((0u32..700, 0u32..90), 0..300),
            queries in proptest::collection::vec((0usize..900, 0usize..200), 1..40),
        ) {
            let spans: Vec<(u32, u32)> = raw.iter().map(|&(s, len)| (s, s + len)).collect();
            let index = SpanIndex::new(spans.clone());
            for (start, len) in queries {
                let range = start..start + len;
                let plain = spans.iter().filter(|&&(s, e)| (s as usize) < range.end && (e as usize) > range.start).count();
                let want = if range.is_empty() { 0 } else { plain };
                prop_assert_eq!(index.count(range.clone()), want, "{:?}", range);
            }
        }
    }

    #[test]
    fn char_index_matches_chars_count_on_mixed_text() {
        let text = "héllo 世界 🦀 ".repeat(40);
        let idx = CharIndex::new(&text);
        for start in (0..text.len()).filter(|&i| text.is_char_boundary(i)).step_by(7) {
            for end in (start..=text.len()).filter(|&i| text.is_char_boundary(i)).step_by(13) {
                assert_eq!(idx.count(start..end), text[start..end].chars().count());
            }
        }
    }

    #[test]
    fn count_chars_equals_chars_count_at_every_length_and_offset() {
        let text = "héllo 世界 🦀 plain ascii runs, ".repeat(8);
        for start in (0..text.len()).filter(|&i| text.is_char_boundary(i)) {
            for end in (start..=text.len().min(start + 100)).filter(|&i| text.is_char_boundary(i)) {
                assert_eq!(count_chars(&text.as_bytes()[start..end]), text[start..end].chars().count());
            }
        }
    }

    #[test]
    fn byte_of_char_inverts_chars_before() {
        let text = "héllo 世界 🦀 ".repeat(40);
        let idx = CharIndex::new(&text);
        for (cp, (byte, _)) in text.char_indices().enumerate() {
            assert_eq!(idx.byte_of_char(cp), byte);
            assert_eq!(idx.chars_before(byte), cp);
        }
        assert_eq!(idx.byte_of_char(text.chars().count()), text.len());
    }

    #[test]
    fn word_counts_treat_each_ideograph_as_a_word() {
        let sizer = Sizer::words();
        assert_eq!(sizer.size("Hello, world! 你好"), 4);
        let text = "one two, three. 四五";
        let idx = sizer.index(text).unwrap();
        assert_eq!(idx.size(0..text.len()), 5);
        assert_eq!(idx.size(4..8), 1);
    }

    #[test]
    fn tiktoken_spans_cover_the_text_and_count_like_a_fresh_encode() {
        let tok = Tokenizer::load("cl100k_base").unwrap();
        let text = "Chunking 中文文本 works. 🦀 done";
        let spans = tok.token_spans(text).unwrap();
        assert_eq!(spans.first().unwrap().0, 0);
        assert_eq!(spans.last().unwrap().1 as usize, text.len());
        let idx = Sizer::tokens(tok.clone()).index(text).unwrap();
        assert_eq!(idx.size(0..text.len()), tok.count(text));
    }

    #[test]
    fn word_segments_cut_before_a_space_and_cover_the_text() {
        let text = "Para one has words.\n\nPara two.\r\n\r\n  indented\n\n中文段落。\n\nEnd".repeat(50);
        let segs = word_segments(&text, 64);
        assert!(segs.len() > 5);
        assert_eq!(segs.first().unwrap().start, 0);
        assert_eq!(segs.last().unwrap().end, text.len());
        for w in segs.windows(2) {
            assert_eq!(w[0].end, w[1].start);
            let rest = &text[w[1].start..];
            assert!(rest.starts_with(' ') && rest[1..].chars().next().unwrap().is_alphanumeric(), "{rest:.10}");
        }
    }

    #[test]
    fn runs_by_bytes_cover_the_segments_in_order_and_balance_them() {
        let segments: Vec<Range<usize>> = [0..10, 10..50, 50..60, 60..100, 100..101].into_iter().collect();
        for n in 1..7 {
            let runs = runs_by_bytes(&segments, n);
            assert!(runs.len() <= n && runs.iter().all(|r| !r.is_empty()), "{n}: {runs:?}");
            assert_eq!(runs.concat(), segments, "{n}");
        }
        assert_eq!(runs_by_bytes(&segments, 2), [&segments[..2], &segments[2..]]);
    }

    #[test]
    fn spans_tokenized_on_many_threads_are_those_of_one() {
        let text = "Chunking 中文文本 works. 🦀 done\n\n".repeat(20_000);
        assert!(token_segments(&text).len() > 4);
        let tok = Tokenizer::load("cl100k_base").unwrap();
        let mut one = tok.segment_spans(&text, &token_segments(&text)).unwrap();
        for span in &mut one {
            *span =
                (floor_char_boundary(&text, span.0 as usize) as u32, ceil_char_boundary(&text, span.1 as usize) as u32);
        }
        assert!(tok.token_spans(&text).unwrap() == one, "the same spans");
        assert_eq!(one.len(), tok.count(&text));
    }

    #[test]
    fn unknown_tokenizer_says_what_to_use() {
        let err = Tokenizer::load("gpt5").unwrap_err().to_string();
        assert!(err.contains("cl100k_base") && err.contains("hf:"), "{err}");
    }
}
