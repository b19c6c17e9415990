//! Shared invariant checks for chunking results, used by tests/invariants.rs,
//! tests/properties.rs and the fuzz target (fuzz/fuzz_targets/chunk_invariants.rs
//! includes this file by path, so keep it free of dev-dependencies: only std,
//! chunktui and unicode-segmentation).
//!
//! [`Checker::check`] states what every strategy promises about its chunks:
//!
//! - every range is non-empty, inside the text and on char boundaries;
//! - chunks are ordered (start and end never decrease) and no chunk repeats;
//! - together they cover every non-whitespace char of the text;
//! - `size` is the size of the range in the configured unit;
//! - strategies that promise a size limit stay within it, except a chunk that
//!   cannot be cut: a single grapheme cluster, or tokens chained by shared
//!   chars (see `Checker::uncuttable`);
//! - overlap between neighbours follows the strategy's rule: `fixed` is the
//!   exact stride rule, `recursive`/`markdown` overlap at most `overlap`
//!   units (`html` too), `sentence` repeats at most `overlap_sentences` whole sentences (or,
//!   inside one oversize sentence, at most `overlap` units), `document` is one
//!   chunk of the whole text, `code` chunks never overlap;
//! - the LangChain-compatible strategies get looser checks: their chunks may
//!   carry rewritten text (`meta.text`) and drop separators;
//! - `hierarchical` nests its chunks, so these rules hold per level there
//!   (see hierarchy.rs).
#![allow(dead_code)]

use chunktui::config::{ChunkConfig, StrategyKind, Unit};
use chunktui::size::{SizeIndex, Sizer};
use chunktui::stats::uncovered_non_whitespace;
use chunktui::{Chunk, Chunker};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use unicode_segmentation::UnicodeSegmentation;

mod data;
mod hierarchy;
// Each test crate uses some of these, none uses all.
#[allow(unused_imports)]
pub use data::{corpus_dir, corpus_file, test_model_dir, CORPUS_VAR, TEST_MODEL_VAR};

// Only for test crates: it needs tempfile, a dev-dependency the fuzz crate
// (which includes this file by path) does not have.
#[cfg(test)]
pub mod api_run;
#[cfg(test)]
pub mod fake_llm;
#[cfg(test)]
pub mod llama_server;
#[cfg(test)]
mod temp_dir;
#[cfg(test)]
pub mod tmux;
#[cfg(test)]
#[allow(unused_imports)]
pub use temp_dir::{files_under, Dir};

/// Every strategy that needs no embedding model and cuts any text, read
/// from the strategy table (so a new strategy is checked as soon as it has
/// a row). The ones made for a format (JSON, CSV) have tests of their own.
pub fn non_model() -> Vec<StrategyKind> {
    StrategyKind::ALL.iter().copied().filter(|k| k.is_plain() && k.spec().reads_any_text()).collect()
}

/// Whether `kind` can run in `unit` (LangChain's token splitter always
/// counts tokens, `fast` always bytes, and only `fast` counts bytes).
pub fn runs_in(kind: StrategyKind, unit: Unit) -> bool {
    match kind.spec().forces_unit {
        Some(forced) => forced == unit,
        None => unit != Unit::Bytes,
    }
}

pub fn is_langchain(kind: StrategyKind) -> bool {
    kind.name().starts_with("langchain-")
}

/// Text holding a tiktoken special token such as `<|endoftext|>`, which
/// LangChain's tiktoken encoding refuses (`disallowed_special="all"`), and so
/// does its port.
fn has_special_token(text: &str) -> bool {
    text.contains("<|") && text.contains("|>")
}

pub fn config(kind: StrategyKind, unit: Unit, size: usize, overlap: usize) -> ChunkConfig {
    ChunkConfig { strategy: kind, unit, size, overlap, ..ChunkConfig::default() }
}

/// Run `cfg` on `text` and check every invariant. `Ok(None)` when a
/// LangChain strategy refuses a text with a tokenizer special token (as
/// LangChain does).
pub fn run_and_check(checker: &Checker<'_>, cfg: &ChunkConfig) -> Result<Option<Vec<Chunk>>, String> {
    run_and_check_in(checker, cfg, None)
}

/// [`run_and_check`] of extracted text (HTML, PDF) with its structure, as
/// `Chunker::chunk_document` cuts it.
pub fn run_and_check_in(
    checker: &Checker<'_>,
    cfg: &ChunkConfig,
    structure: Option<&chunktui::extract::Structure>,
) -> Result<Option<Vec<Chunk>>, String> {
    let chunker = Chunker::new(cfg).map_err(|e| format!("Chunker::new({}): {e}", describe(cfg)))?;
    let control = chunktui::embedding::Control::none();
    let chunks = match chunker.chunk_structured(checker.text, structure, control) {
        Ok(c) => c,
        Err(_) if is_langchain(cfg.strategy) && has_special_token(checker.text) => return Ok(None),
        Err(e) => return Err(format!("{}: chunk() failed: {e}", describe(cfg))),
    };
    checker.check(cfg, &chunks).map_err(|e| format!("{}: {e}", describe(cfg)))?;
    if structure.is_none() {
        check_regions(&chunker, checker.text, &chunks).map_err(|e| format!("{}: {e}", describe(cfg)))?;
        check_fresh_starts(&chunker, checker.text, &chunks).map_err(|e| format!("{}: {e}", describe(cfg)))?;
        check_screen_early(&chunker, checker.text, &chunks).map_err(|e| format!("{}: {e}", describe(cfg)))?;
    }
    Ok(Some(chunks))
}

/// Where the strategy cuts a stretch around a screen on its own (what the
/// workbench shows first deep in a long document), that stretch holds the
/// screen and its cut is exactly the whole cut's chunks there. Screens at
/// the start, the quarters and the end of the text.
fn check_regions(chunker: &Chunker, text: &str, chunks: &[Chunk]) -> Result<(), String> {
    let boundary = |at: usize| (at.min(text.len())..=text.len()).find(|&i| text.is_char_boundary(i)).unwrap_or(0);
    for quarter in 0..=4 {
        let start = boundary(text.len() * quarter / 4);
        let screen = start..boundary(start + 40);
        let Some(region) = chunker.region_around(text, None, screen.clone()) else { continue };
        if region.start > screen.start || region.end < screen.end || region.end > text.len() {
            return Err(format!("the stretch {region:?} does not hold the screen {screen:?}"));
        }
        let alone = chunker
            .chunk_region(text, region.clone(), chunktui::embedding::Control::none())
            .map_err(|e| format!("the stretch {region:?} alone: {e}"))?;
        let whole: Vec<Chunk> = chunks.iter().filter(|c| region.contains(&c.range.start)).cloned().collect();
        if alone != whole {
            let show_all = |c: &[Chunk]| c.iter().map(|c| show(text, &c.range)).collect::<Vec<_>>().join("\n    ");
            return Err(format!(
                "the stretch {region:?} around {screen:?} cut alone differs from the whole cut there:\n  alone:\n    {}\n  whole:\n    {}",
                show_all(&alone),
                show_all(&whole)
            ));
        }
    }
    Ok(())
}

/// Where the strategy cuts from a place before the screen where the cut
/// starts afresh (`Chunker::chunks_from_fresh_start`), what it gives is a
/// run of consecutive chunks of the whole cut that holds every chunk
/// meeting the screen. Screens at the start, the quarters and the end.
fn check_fresh_starts(chunker: &Chunker, text: &str, chunks: &[Chunk]) -> Result<(), String> {
    let boundary = |at: usize| (at.min(text.len())..=text.len()).find(|&i| text.is_char_boundary(i)).unwrap_or(0);
    for quarter in 0..=4 {
        let start = boundary(text.len() * quarter / 4);
        let screen = start..boundary(start + 40);
        let early = chunker
            .chunks_from_fresh_start(text, None, screen.clone(), chunktui::embedding::Control::none())
            .map_err(|e| format!("the chunks from a fresh start before {screen:?}: {e}"))?;
        let Some(early) = early else { continue };
        check_run_holds_screen(text, chunks, &early, &screen)
            .map_err(|e| format!("the chunks from a fresh start before {screen:?}: {e}"))?;
    }
    Ok(())
}

/// `early` is a run of consecutive chunks of `chunks` holding every chunk
/// that meets `screen`.
fn check_run_holds_screen(text: &str, chunks: &[Chunk], early: &[Chunk], screen: &Range<usize>) -> Result<(), String> {
    let at = (0..=chunks.len().saturating_sub(early.len())).find(|&i| chunks[i..].starts_with(early));
    let Some(at) = at else {
        return Err(format!("the {} chunks are not a run of the whole cut", early.len()));
    };
    let meets = |c: &Chunk| c.range.start < screen.end && c.range.end > screen.start;
    if let Some(missed) = chunks.iter().enumerate().find(|(i, c)| meets(c) && !(at..at + early.len()).contains(i)) {
        return Err(format!(
            "chunk {} ({}) meets the screen but is not among them",
            missed.0,
            show(text, &missed.1.range)
        ));
    }
    Ok(())
}

/// Where the strategy hands the chunks on a screen over early in its pass
/// (what the workbench shows first deep in a long document), the pass
/// still hands over the whole cut, and the early chunks are a run of
/// consecutive chunks of it that holds every chunk meeting the screen.
/// Screens at the quarters of the text.
fn check_screen_early(chunker: &Chunker, text: &str, chunks: &[Chunk]) -> Result<(), String> {
    if !chunker.hands_screen_early() {
        return Ok(());
    }
    let boundary = |at: usize| (at.min(text.len())..=text.len()).find(|&i| text.is_char_boundary(i)).unwrap_or(0);
    for quarter in 1..=3 {
        let start = boundary(text.len() * quarter / 4);
        let screen = start..boundary(start + 40);
        let (mut early, mut streamed) = (None, Vec::new());
        chunker
            .chunk_each_around_in(
                text,
                None,
                chunktui::embedding::Control::none(),
                screen.clone(),
                &mut |around| early = Some(around),
                &mut |c| streamed.push(c),
            )
            .map_err(|e| format!("the pass with the screen {screen:?} first: {e}"))?;
        if streamed != chunks {
            return Err(format!("the pass with the screen {screen:?} first did not hand over the whole cut"));
        }
        let early = early.ok_or_else(|| format!("the chunks on the screen {screen:?} never came early"))?;
        check_run_holds_screen(text, chunks, &early, &screen)
            .map_err(|e| format!("handed over early for the screen {screen:?}: {e}"))?;
    }
    Ok(())
}

pub fn describe(cfg: &ChunkConfig) -> String {
    format!("{} {} size {} overlap {}", cfg.strategy, cfg.unit, cfg.size, cfg.overlap)
}

/// cl100k_base is loaded once per process.
pub fn sizer(unit: Unit) -> Sizer {
    static TOKENS: OnceLock<Sizer> = OnceLock::new();
    match unit {
        Unit::Tokens => TOKENS.get_or_init(|| Sizer::for_unit(Unit::Tokens, "cl100k_base").unwrap()).clone(),
        _ => Sizer::for_unit(unit, "cl100k_base").unwrap(),
    }
}

/// Checks chunk lists for one text in one unit. The size index and the
/// sentence list are built once and reused across strategies and settings.
pub struct Checker<'t> {
    pub text: &'t str,
    pub unit: Unit,
    pub index: SizeIndex<'t>,
    sentences: OnceLock<Vec<Range<usize>>>,
}

fn show(text: &str, r: &Range<usize>) -> String {
    if r.end <= text.len() && text.is_char_boundary(r.start) && text.is_char_boundary(r.end) && r.start <= r.end {
        let s = &text[r.clone()];
        if s.len() > 80 {
            let cut = (0..=60).rev().find(|&i| s.is_char_boundary(i)).unwrap_or(0);
            format!("{r:?} {:?}…", &s[..cut])
        } else {
            format!("{r:?} {s:?}")
        }
    } else {
        format!("{r:?}")
    }
}

impl<'t> Checker<'t> {
    pub fn new(text: &'t str, unit: Unit) -> Self {
        let index = sizer(unit).index(text).expect("index the text");
        Checker { text, unit, index, sentences: OnceLock::new() }
    }

    fn sentences(&self) -> &[Range<usize>] {
        self.sentences.get_or_init(|| chunktui::segment::sentences(self.text))
    }

    pub fn check(&self, cfg: &ChunkConfig, chunks: &[Chunk]) -> Result<(), String> {
        assert_eq!(cfg.unit, self.unit, "checker built for another unit");
        if cfg.strategy == StrategyKind::Hierarchical {
            return self.check_hierarchical(cfg, chunks);
        }
        if is_langchain(cfg.strategy) {
            return self.check_langchain(cfg, chunks);
        }
        let text = self.text;

        // Ranges: non-empty, in bounds, on char boundaries; verbatim slices.
        self.check_ranges(chunks)?;
        for (i, c) in chunks.iter().enumerate() {
            if c.range.is_empty() {
                return Err(format!("chunk {i}: empty range {:?}", c.range));
            }
            if c.meta.text.is_some() {
                return Err(format!(
                    "chunk {i}: carries rewritten text, but {} chunks are source slices",
                    cfg.strategy
                ));
            }
        }

        // Order: start and end never decrease, no chunk repeats.
        for (i, w) in chunks.windows(2).enumerate() {
            let (a, b) = (&w[0].range, &w[1].range);
            if b.start < a.start || b.end < a.end || a == b {
                return Err(format!("chunks {i} and {} out of order: {} then {}", i + 1, show(text, a), show(text, b)));
            }
        }

        // Coverage of every non-whitespace char.
        let missing = uncovered_non_whitespace(chunks, text);
        if missing > 0 {
            let gap = first_gap(chunks, text);
            return Err(format!("{missing} non-whitespace chars are in no chunk; first gap {}", show(text, &gap)));
        }

        // Reported sizes: the size of the range in the unit.
        for (i, c) in chunks.iter().enumerate() {
            let expected = self.index.size(c.range.clone());
            if c.size != expected {
                return Err(format!(
                    "chunk {i}: reported size {} but the range measures {expected}: {}",
                    c.size,
                    show(text, &c.range)
                ));
            }
        }

        self.check_limit(cfg, chunks)?;

        // Our strategies (but fixed chars and document) emit chunks without surrounding whitespace.
        let trims = [
            StrategyKind::Recursive,
            StrategyKind::Sentence,
            StrategyKind::Markdown,
            StrategyKind::Html,
            StrategyKind::Code,
        ];
        if trims.contains(&cfg.strategy) {
            for (i, c) in chunks.iter().enumerate() {
                let s = &text[c.range.clone()];
                if s.trim() != s {
                    return Err(format!("chunk {i}: surrounding whitespace: {}", show(text, &c.range)));
                }
            }
        }

        match cfg.strategy {
            StrategyKind::Fixed => self.check_fixed(cfg, chunks),
            StrategyKind::Recursive | StrategyKind::Markdown | StrategyKind::Html => {
                self.check_overlap_units(cfg, chunks)
            }
            StrategyKind::Sentence => self.check_sentence_overlap(cfg, chunks),
            // Syntax chunks never repeat code.
            StrategyKind::Code => match chunks.windows(2).position(|w| w[0].range.end > w[1].range.start) {
                Some(i) => Err(format!("code: chunks {i} and {} overlap", i + 1)),
                None => Ok(()),
            },
            StrategyKind::Document => {
                let expected: Vec<Range<usize>> =
                    std::iter::once(0..text.len()).filter(|_| !text.trim().is_empty()).collect();
                let got: Vec<_> = chunks.iter().map(|c| c.range.clone()).collect();
                if got != expected {
                    return Err(format!("document: expected {expected:?}, got {got:?}"));
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }

    fn check_ranges(&self, chunks: &[Chunk]) -> Result<(), String> {
        let text = self.text;
        for (i, c) in chunks.iter().enumerate() {
            let r = &c.range;
            if r.start > r.end || r.end > text.len() {
                return Err(format!("chunk {i}: range {r:?} out of bounds (text is {} bytes)", text.len()));
            }
            if !text.is_char_boundary(r.start) || !text.is_char_boundary(r.end) {
                return Err(format!("chunk {i}: range {r:?} not on char boundaries"));
            }
        }
        Ok(())
    }

    /// Within `size` where the strategy promises it, unless the chunk is a
    /// single grapheme cluster (nothing can cut it).
    fn check_limit(&self, cfg: &ChunkConfig, chunks: &[Chunk]) -> Result<(), String> {
        if cfg.strategy.promises_size_limit() {
            for (i, c) in chunks.iter().enumerate() {
                if c.size > cfg.size && !self.uncuttable(&c.range) {
                    return Err(format!(
                        "chunk {i}: size {} over the limit {}: {}",
                        c.size,
                        cfg.size,
                        show(self.text, &c.range)
                    ));
                }
            }
        }
        Ok(())
    }

    /// A range no strategy can cut: one grapheme cluster, or (in tokens) one
    /// run of tokens that each share a char with the next, which byte-level
    /// BPE makes when a token ends inside a char ("ーむ" in cl100k is two
    /// tokens, both holding む).
    fn uncuttable(&self, range: &Range<usize>) -> bool {
        if self.text[range.clone()].graphemes(true).count() <= 1 {
            return true;
        }
        let Some(spans) = self.index.spans() else { return false };
        let inside = spans.iter().filter(|s| (s.0 as usize) < range.end && (s.1 as usize) > range.start);
        let mut reach = None;
        for s in inside {
            if reach.is_some_and(|r| r <= s.0) {
                return false; // a token starts where all before it ended: a cut point
            }
            reach = Some(reach.map_or(s.1, |r: u32| r.max(s.1)));
        }
        true
    }

    /// The LangChain-compatible strategies reproduce LangChain's strings and
    /// its `add_start_index` placement (a forward `find` from
    /// `index + len(previous) - chunk_overlap`, mixing code points with the
    /// length unit, and falling back to the cut span when the search fails),
    /// so their ranges need not be ordered or cover the text. What holds:
    /// ranges in bounds on char boundaries; non-empty chunk text; a verbatim
    /// slice unless `meta.text` says otherwise; the reported size is the
    /// length function on the chunk text; the size limit where promised (in
    /// chars; see below); and
    /// for the character/recursive splitters with whitespace separators, the
    /// chunk texts in order still contain every non-whitespace char of the
    /// source (separators may be dropped, nothing else). Overlap and exact
    /// output are proven against LangChain itself by tests/langchain_parity.rs.
    fn check_langchain(&self, cfg: &ChunkConfig, chunks: &[Chunk]) -> Result<(), String> {
        let text = self.text;
        self.check_ranges(chunks)?;
        let sizer = sizer(self.unit);
        for (i, c) in chunks.iter().enumerate() {
            let t = c.text(text);
            if t.is_empty() {
                return Err(format!("chunk {i}: empty text at {:?}", c.range));
            }
            if let Some(m) = &c.meta.text {
                if *m == text[c.range.clone()] {
                    return Err(format!("chunk {i}: meta.text set although the range holds the same text"));
                }
            }
            if cfg.strategy == StrategyKind::LangchainToken {
                // Windows of at most `size` token ids; the decoded text may
                // hold U+FFFD for cut chars and re-encode differently.
                if c.size > cfg.size || c.size == 0 {
                    return Err(format!("chunk {i}: {} token ids, not 1..={}", c.size, cfg.size));
                }
                continue;
            }
            let expected = sizer.size(t);
            if c.size != expected {
                return Err(format!("chunk {i}: reported size {} but its text measures {expected}: {t:?}", c.size));
            }
        }
        // LangChain sums the lengths of the splits it merges; chars add up
        // exactly, but words and tokens of joined text need not (BPE merges
        // across the join), so only chars are held to the limit.
        if self.unit == Unit::Chars {
            self.check_limit(cfg, chunks)?;
        }
        let whitespace_seps = match cfg.strategy {
            StrategyKind::LangchainCharacter => {
                cfg.langchain.separator.trim().is_empty() && !cfg.langchain.is_separator_regex
            }
            StrategyKind::LangchainRecursive => cfg
                .langchain
                .separators
                .as_ref()
                .is_none_or(|v| v.iter().all(|s| s.trim().is_empty()) && !cfg.langchain.is_separator_regex),
            _ => false,
        };
        if whitespace_seps {
            text_cover(text, chunks)?;
        }
        Ok(())
    }

    fn overlap_size(&self, a: &Chunk, b: &Chunk) -> Option<(Range<usize>, usize)> {
        if a.range.end > b.range.start {
            let r = b.range.start..a.range.end.min(b.range.end);
            let size = self.index.size(r.clone());
            Some((r, size))
        } else {
            None
        }
    }

    fn check_overlap_units(&self, cfg: &ChunkConfig, chunks: &[Chunk]) -> Result<(), String> {
        for (i, w) in chunks.windows(2).enumerate() {
            if let Some((r, size)) = self.overlap_size(&w[0], &w[1]) {
                if size > cfg.overlap {
                    return Err(format!(
                        "chunks {i} and {}: overlap of {size} {} over the setting {}: {}",
                        i + 1,
                        self.unit,
                        cfg.overlap,
                        show(self.text, &r)
                    ));
                }
            }
        }
        Ok(())
    }

    fn check_sentence_overlap(&self, cfg: &ChunkConfig, chunks: &[Chunk]) -> Result<(), String> {
        let sents = self.sentences();
        let keep = cfg.sentence.overlap_sentences;
        for (i, w) in chunks.windows(2).enumerate() {
            let Some((r, size)) = self.overlap_size(&w[0], &w[1]) else { continue };
            if size <= cfg.overlap {
                continue; // inside one oversize sentence: the recursive rule
            }
            // Otherwise: whole trailing sentences of the previous chunk, at most `keep`.
            let first = sents.partition_point(|s| s.start < r.start);
            let last = sents.partition_point(|s| s.end <= r.end);
            let whole =
                first < sents.len() && sents[first].start == r.start && last > 0 && sents[last - 1].end == r.end;
            if !whole || last - first > keep {
                return Err(format!(
                    "chunks {i} and {}: overlap {} is not at most {keep} whole sentence(s) (and {size} {} > overlap {})",
                    i + 1,
                    show(self.text, &r),
                    self.unit,
                    cfg.overlap
                ));
            }
        }
        Ok(())
    }

    /// The documented stride rule, restated independently of fixed.rs.
    fn check_fixed(&self, cfg: &ChunkConfig, chunks: &[Chunk]) -> Result<(), String> {
        if let Some(spans) = self.index.spans() {
            if spans.windows(2).any(|w| w[1].0 < w[0].1) {
                // BPE split a char over tokens: fixed.rs then keeps such
                // tokens together, so windows move off the plain stride.
                // The size limit, order, no-repeat and coverage checks above
                // still hold them.
                return Ok(());
            }
        }
        let expected = fixed_expected(self.text, &self.index, self.unit, cfg.size, cfg.overlap);
        let got: Vec<Range<usize>> = chunks.iter().map(|c| c.range.clone()).collect();
        if got != expected {
            let k = got.iter().zip(&expected).position(|(a, b)| a != b).unwrap_or(got.len().min(expected.len()));
            return Err(format!(
                "fixed: {} chunks, expected {} by the stride rule; first difference at chunk {k}: got {:?}, expected {:?}",
                got.len(),
                expected.len(),
                got.get(k).map(|r| show(self.text, r)),
                expected.get(k).map(|r| show(self.text, r)),
            ));
        }
        if self.unit == Unit::Chars {
            // Every window but the last holds exactly `size` chars, and
            // neighbours share exactly `overlap` chars.
            for (i, c) in chunks.iter().enumerate() {
                if i + 1 < chunks.len() && c.size != cfg.size {
                    return Err(format!("fixed: chunk {i} holds {} chars, not {}", c.size, cfg.size));
                }
            }
            for (i, w) in chunks.windows(2).enumerate() {
                let shared = w[0].range.end.saturating_sub(w[1].range.start);
                let chars = self.text[w[1].range.start..w[1].range.start + shared].chars().count();
                if chars != cfg.overlap.min(w[1].size) {
                    return Err(format!("fixed: chunks {i} and {} share {chars} chars, not {}", i + 1, cfg.overlap));
                }
            }
        }
        Ok(())
    }
}

/// Fixed windows by the rule in fixed.rs's doc: window k starts at unit
/// k·(size − overlap) and holds `size` units; chars are cut exactly; word and
/// token windows run from the start of their first unit (the text start for
/// the first window) to the start of the unit after their last (the text end
/// for the last), minus surrounding whitespace; a window that trims to within
/// the one before it (it only added whitespace) is left out. The last window
/// is the first that reaches the end.
pub fn fixed_expected(text: &str, index: &SizeIndex<'_>, unit: Unit, size: usize, overlap: usize) -> Vec<Range<usize>> {
    let stride = size - overlap;
    let mut out = Vec::new();
    match (unit, index.spans()) {
        (Unit::Chars, _) | (_, None) => {
            let mut bounds: Vec<usize> = text.char_indices().map(|(i, _)| i).collect();
            bounds.push(text.len());
            let total = bounds.len() - 1;
            let mut k = 0;
            while k < total {
                let end = (k + size).min(total);
                out.push(bounds[k]..bounds[end]);
                if end == total {
                    break;
                }
                k += stride;
            }
        }
        (_, Some(spans)) => {
            let n = spans.len();
            let mut first = 0;
            while first < n {
                let last = (first + size).min(n);
                let start = if first == 0 { 0 } else { spans[first].0 as usize };
                let end = if last == n { text.len() } else { spans[last].0 as usize };
                let r = trim(text, start..end);
                if !r.is_empty() && !out.last().is_some_and(|p: &Range<usize>| p.start <= r.start && r.end <= p.end) {
                    out.push(r);
                }
                if last == n {
                    break;
                }
                first += stride;
            }
            if out.is_empty() {
                let r = trim(text, 0..text.len());
                if !r.is_empty() {
                    out.push(r);
                }
            }
        }
    }
    out
}

fn trim(text: &str, r: Range<usize>) -> Range<usize> {
    let s = &text[r.clone()];
    let start = r.start + (s.len() - s.trim_start().len());
    let end = r.start + s.trim_end().len();
    if end <= start {
        start..start
    } else {
        start..end
    }
}

fn first_gap(chunks: &[Chunk], text: &str) -> Range<usize> {
    let mut ranges: Vec<_> = chunks.iter().map(|c| c.range.clone()).collect();
    ranges.sort_by_key(|r| r.start);
    let mut covered = 0;
    for r in ranges.iter().chain(std::iter::once(&(text.len()..text.len()))) {
        if r.start > covered && !text[covered..r.start].trim().is_empty() {
            return covered..r.start;
        }
        covered = covered.max(r.end);
    }
    0..0
}

/// The chunk texts, in order and with (Python's) whitespace removed, are overlapping
/// pieces of the source's non-whitespace chars that leave nothing out: there
/// is a placement where each chunk starts at or before the end of what the
/// chunks before it covered, and reaches at least that end. Every placement
/// is followed (a set of reachable "covered up to" offsets), since the same
/// text can occur at several places.
pub fn text_cover(text: &str, chunks: &[Chunk]) -> Result<(), String> {
    // Python's str.strip() (what LangChain strips with) also treats the
    // information separators U+001C..U+001F as whitespace.
    let squeeze =
        |s: &str| s.chars().filter(|&c| !(c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c))).collect::<String>();
    let source = squeeze(text);
    let mut reach: std::collections::BTreeSet<usize> = [0usize].into(); // bytes of `source`
    for (i, c) in chunks.iter().enumerate() {
        let piece = squeeze(c.text(text));
        if piece.is_empty() {
            continue;
        }
        let mut next = std::collections::BTreeSet::new();
        for &covered in &reach {
            // Occurrences starting in covered-len ..= covered (they may overlap).
            let lo = covered.saturating_sub(piece.len());
            let mut k = (lo..=covered).find(|&k| source.is_char_boundary(k)).unwrap_or(covered);
            while k <= covered {
                match source[k..].find(piece.as_str()) {
                    Some(p) if k + p <= covered => {
                        next.insert(covered.max(k + p + piece.len()));
                        k += p + source[k + p..].chars().next().map_or(1, char::len_utf8);
                    }
                    _ => break,
                }
            }
        }
        if next.is_empty() {
            let covered = *reach.iter().next_back().unwrap();
            let at: String = source[covered..].chars().take(40).collect();
            return Err(format!(
                "chunk {i} does not continue the text: {:?} is not found where the chunks so far end (next source text: {at:?})",
                piece.chars().take(40).collect::<String>()
            ));
        }
        // Keep the search small: the furthest few placements.
        while next.len() > 32 {
            let first = *next.iter().next().unwrap();
            next.remove(&first);
        }
        reach = next;
    }
    if !reach.contains(&source.len()) {
        let covered = *reach.iter().next_back().unwrap();
        let rest: String = source[covered..].chars().take(40).collect();
        return Err(format!("the chunks end before the text does; left out: {rest:?}"));
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// Input files.

/// One row of MANIFEST.tsv.
pub struct CorpusFile {
    pub name: String,
    pub path: PathBuf,
    pub bytes: usize,
    pub sha256: String,
}

/// The corpus documents (*.md, *.txt) listed in MANIFEST.tsv.
pub fn corpus_files() -> Vec<CorpusFile> {
    let dir = corpus_dir();
    let manifest = corpus_file("MANIFEST.tsv");
    let manifest = std::fs::read_to_string(&manifest)
        .unwrap_or_else(|e| panic!("cannot read {}: {e} (set {CORPUS_VAR})", manifest.display()));
    let mut out = Vec::new();
    for line in manifest.lines().skip(1).filter(|l| !l.trim().is_empty()) {
        let cols: Vec<&str> = line.split('\t').collect();
        let name = cols[0].to_string();
        if !(name.ends_with(".md") || name.ends_with(".txt")) {
            continue;
        }
        out.push(CorpusFile {
            path: dir.join(&name),
            bytes: cols[1].parse().expect("bytes column"),
            sha256: cols[5].to_string(),
            name,
        });
    }
    assert!(!out.is_empty(), "{} lists no *.md or *.txt files", dir.join("MANIFEST.tsv").display());
    out
}

/// Read a corpus file, failing with its path when it is missing.
pub fn read_corpus(name: &str) -> String {
    let path = corpus_file(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read corpus file {}: {e}", path.display()))
}

/// Our own samples (samples/*.md, *.txt, *.rs); whatever exists.
pub fn sample_files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("samples");
    let mut out: Vec<PathBuf> = match std::fs::read_dir(&dir) {
        Ok(rd) => rd
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.is_file() && matches!(p.extension().and_then(|e| e.to_str()), Some("md" | "txt" | "rs")))
            .collect(),
        Err(_) => Vec::new(),
    };
    out.sort();
    out
}

/// Our own HTML and PDF samples (samples/*.html, *.pdf), read through extraction.
pub fn extracted_sample_files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("samples");
    let mut out: Vec<PathBuf> =
        std::fs::read_dir(&dir).map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect()).unwrap_or_default();
    out.retain(|p| matches!(p.extension().and_then(|e| e.to_str()), Some("html" | "pdf")));
    out.sort();
    out
}

/// Up to `n` windows of about `len` bytes spread over `text` (start, middle,
/// end...), cut at arbitrary char boundaries, so big files stay quick in
/// debug builds. A text no longer than `len` is returned whole.
pub fn windows(text: &str, len: usize, n: usize) -> Vec<(Range<usize>, &str)> {
    if text.len() <= len || n == 0 {
        return vec![(0..text.len(), text)];
    }
    let span = text.len() - len;
    (0..n)
        .map(|k| {
            let at = if n == 1 { 0 } else { span * k / (n - 1) };
            let start = floor(text, at);
            let end = floor(text, start + len);
            (start..end, &text[start..end])
        })
        .collect()
}

fn floor(text: &str, mut at: usize) -> usize {
    at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// Wait for a child process, or kill it at `limit` and fail: a test of input
/// that could hang must fail, never hang the suite.
pub fn wait_or_kill(
    child: &mut std::process::Child,
    limit: std::time::Duration,
    what: &str,
) -> std::process::ExitStatus {
    let started = std::time::Instant::now();
    loop {
        if let Some(status) = child.try_wait().expect("wait for the child") {
            return status;
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what}: still running after {limit:?}: killed (it hangs)");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// The peak memory in bytes that GNU time's `-f %M -o REPORT` wrote (its
/// last line, in KiB).
pub fn gnu_time_peak(report: &std::path::Path) -> u64 {
    let kb: u64 = std::fs::read_to_string(report)
        .unwrap()
        .lines()
        .last()
        .and_then(|l| l.trim().parse().ok())
        .expect("GNU time's %M");
    kb * 1024
}

/// The MiniLM tokenizer.json scripts/setup-models.sh installs (WordPiece):
/// `$CHUNKTUI_MODEL_DIR`, else the user cache. Fails saying how to install it.
pub fn minilm_tokenizer() -> PathBuf {
    let dir = std::env::var_os("CHUNKTUI_MODEL_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| user_cache().join("chunktui/models/all-MiniLM-L6-v2-int8"));
    let path = dir.join("tokenizer.json");
    assert!(path.exists(), "{} missing: run scripts/setup-models.sh (scripts/test.sh does)", path.display());
    path
}

/// Where scripts/setup-models.sh installs on Linux (`dirs::cache_dir`), without
/// the `dirs` crate, which only the `embed` feature brings.
fn user_cache() -> PathBuf {
    std::env::var_os("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(std::env::var_os("HOME").expect("HOME is set")).join(".cache"))
}
