//! LangChain-compatible splitters: the same chunks as `langchain-text-splitters`
//! (1.1.3), chunk for chunk, quirks included. Parity is proven against the real
//! package by `tests/langchain_parity.rs` over fixtures that
//! `scripts/parity/generate.py` writes.
//!
//! LangChain chunks are strings. Each one is placed where LangChain's own
//! `add_start_index` would put it (`text.find(chunk, index + previous_len -
//! chunk_overlap)`, in code points); `meta.text` holds the chunk only when it is
//! not a verbatim slice of the source at that range. When LangChain's search
//! fails (it then reports `start_index = -1`) the chunk keeps the source span it
//! was cut from.
//!
//! Every splitter here streams: chunks are cut, placed and handed over one at
//! a time ([`crate::strategy::Strategy::chunk_each`]), so nothing holds the
//! chunk list (nor the list of raw chunks before placement); `chunk` collects
//! what `chunk_each` hands over.
//!
//! - [`split`]. `CharacterTextSplitter` and `RecursiveCharacterTextSplitter`
//!   (`_split_text_with_regex`, `_merge_splits`).
//! - [`token`]. `TokenTextSplitter` (`split_text_on_tokens`) over tiktoken.
//! - [`markdown`]. `MarkdownHeaderTextSplitter`.

pub mod json;
mod lengths;
pub mod markdown;
mod search;
pub mod semantic;
pub mod split;
pub mod token;

pub(crate) use search::bytes_eq;
use search::{find_from, GramIndex};

use super::OptionKnob;
use crate::chunk::Chunk;
use crate::config::Unit;
use crate::error::{Error, Result};
use crate::size::{count_chars, Sizer, Tokenizer};
use std::ops::Range;

/// The option key of LangChain's splitters: `strip_whitespace`.
pub(crate) const STRIP_WHITESPACE: OptionKnob = OptionKnob {
    show: |c| format!("strip_whitespace={}", c.langchain.strip_whitespace),
    next: |c| {
        c.langchain.strip_whitespace = !c.langchain.strip_whitespace;
        format!("langchain strip_whitespace {}", c.langchain.strip_whitespace)
    },
};

/// LangChain's `length_function`: `len()` (code points) or the sizer's count.
pub enum LenFn<'a> {
    Chars,
    Sizer(&'a Sizer),
}

impl<'a> LenFn<'a> {
    pub fn new(sizer: &'a Sizer) -> Self {
        match sizer.unit {
            Unit::Chars => LenFn::Chars,
            _ => LenFn::Sizer(sizer),
        }
    }

    #[inline]
    pub fn len(&self, s: &str) -> usize {
        match self {
            LenFn::Chars => count_chars(s.as_bytes()),
            LenFn::Sizer(sizer) => sizer.size(s),
        }
    }
}

/// `tiktoken.encode(..., disallowed_special="all")`, which LangChain's tiktoken
/// length functions and `TokenTextSplitter` use, raises on text holding a
/// special token; our counts (`encode_ordinary`) would silently differ, so
/// refuse the same texts LangChain refuses.
pub(crate) fn check_special_tokens(text: &str, sizer: &Sizer) -> Result<()> {
    if let (Unit::Tokens, Some(Tokenizer::Tiktoken { bpe, name })) = (sizer.unit, &sizer.tokenizer) {
        check_special_bpe(text, bpe.core(), name)?;
    }
    Ok(())
}

pub(crate) fn check_special_bpe(text: &str, bpe: &tiktoken_rs::CoreBPE, name: &str) -> Result<()> {
    if !text.contains("<|") {
        return Ok(());
    }
    let mut specials: Vec<&str> = bpe.special_tokens().into_iter().collect();
    specials.sort_unstable();
    if let Some(s) = specials.into_iter().find(|s| text.contains(s)) {
        return Err(Error::input(format!(
            "the text holds the {name} special token '{s}', which LangChain's tiktoken encoding refuses \
             (disallowed_special=\"all\"): remove it or use a non-LangChain strategy"
        )));
    }
    Ok(())
}

/// A LangChain chunk before placement: verbatim `text[range]` (`text: None`) or
/// rewritten text cut from around `range`.
#[derive(Debug, Clone)]
pub struct Raw {
    pub text: Option<String>,
    pub range: Range<usize>,
    /// Size when the splitter knows it (token windows); else measured.
    pub size: Option<usize>,
}

impl Raw {
    pub fn slice(range: Range<usize>) -> Self {
        Raw { text: None, range, size: None }
    }
    pub fn owned(text: String, range: Range<usize>) -> Self {
        Raw { text: Some(text), range, size: None }
    }
    fn as_str<'a>(&'a self, source: &'a str) -> &'a str {
        self.text.as_deref().unwrap_or(&source[self.range.clone()])
    }
}

/// Python's `str.isspace()`: Rust's White_Space plus U+001C..U+001F.
#[inline]
pub fn is_py_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// Python's `str.strip()`.
pub fn py_strip(s: &str) -> &str {
    s.trim_matches(is_py_space)
}

/// `str.strip()` applied to `text[range]`, as a range.
pub fn py_strip_range(text: &str, range: Range<usize>) -> Range<usize> {
    let s = &text[range.clone()];
    let t = s.trim_start_matches(is_py_space);
    let start = range.start + (s.len() - t.len());
    let t = t.trim_end_matches(is_py_space);
    start..start + t.len()
}

/// Maps code-point offsets to byte offsets and back. LangChain's placement
/// can jump far back (after a failed search), so lookups go through the
/// sampled char index (O(log n)) rather than walking chars.
struct CpCursor<'t> {
    index: crate::size::CharIndex<'t>,
    total_cp: usize,
}

impl<'t> CpCursor<'t> {
    fn new(text: &'t str) -> Self {
        let index = crate::size::CharIndex::of(text);
        let total_cp = index.chars_before(text.len());
        CpCursor { index, total_cp }
    }

    /// Byte offset of code point `cp` (`cp <= total_cp`).
    fn byte_of(&mut self, cp: usize) -> usize {
        self.index.byte_of_char(cp)
    }

    /// Code point offset of byte `byte` (a char boundary).
    fn cp_of(&mut self, byte: usize) -> usize {
        self.index.chars_before(byte)
    }
}

/// Places chunks one at a time, as the splitters make them, the way
/// `TextSplitter.create_documents(add_start_index=True)` does: `index =
/// text.find(chunk, max(0, index + previous_chunk_len - chunk_overlap))`, all
/// in code points, `index = -1` when not found. A search may start far back
/// (after a failed one, from the text's start), but it searches the text,
/// never the chunks before: all placement keeps of them is where the last one
/// went and its length. So a chunk placed after a failed search can start
/// before the chunk handed over before it.
pub struct Placer<'t, 'l> {
    text: &'t str,
    cursor: CpCursor<'t>,
    chunk_overlap: usize,
    len: &'l LenFn<'l>,
    /// Where the last chunk was found, in code points (-1: not found).
    index: i64,
    /// The last chunk's length in code points.
    previous_len: i64,
    /// Whether the text holds U+FFFD (looked up once, when first asked): a
    /// decoded token window that cut a character holds it, and when the text
    /// does not, such a chunk is not found anywhere. Knowing that spares a
    /// search through the rest of the text for every such window.
    replacement_in_text: Option<bool>,
    /// The text's gram index, once a search had to look far.
    grams: Option<std::sync::Arc<GramIndex>>,
    /// `length_function` of a range of the text, when the splitter has a
    /// remembering one (see [`split::Measure`]).
    measured: Option<&'l dyn Fn(Range<usize>) -> usize>,
}

impl<'t, 'l> Placer<'t, 'l> {
    pub fn new(text: &'t str, chunk_overlap: usize, len: &'l LenFn<'l>) -> Self {
        Placer {
            text,
            cursor: CpCursor::new(text),
            chunk_overlap,
            len,
            index: 0,
            previous_len: 0,
            replacement_in_text: None,
            grams: None,
            measured: None,
        }
    }

    /// Measure chunks that are slices of the text with `measured`.
    pub fn measuring(mut self, measured: &'l dyn Fn(Range<usize>) -> usize) -> Self {
        self.measured = Some(measured);
        self
    }

    /// The chunk of `raw`, placed after the chunks placed before it.
    pub fn place(&mut self, raw: Raw) -> Chunk {
        let text = self.text;
        let s = raw.as_str(text);
        let len_cp = match raw.text {
            None => self.cursor.index.count(raw.range.clone()),
            Some(_) => count_chars(s.as_bytes()),
        };
        let from = (self.index + self.previous_len - self.chunk_overlap as i64).max(0) as usize;
        // A slice of the text holds U+FFFD only where the text does.
        let text_lacks = |needle: &str, known: &mut Option<bool>| {
            raw.text.is_some()
                && needle.contains('\u{FFFD}')
                && !*known.get_or_insert_with(|| text.contains('\u{FFFD}'))
        };
        let found = if from < self.cursor.total_cp && !text_lacks(s, &mut self.replacement_in_text) {
            let from_byte = self.cursor.byte_of(from);
            find_from(text, s, from_byte, raw.text.is_none().then_some(raw.range.start), &mut self.grams)
        } else {
            None
        };
        let size = raw.size.unwrap_or_else(|| match (self.len, self.measured, &raw.text) {
            (LenFn::Chars, _, _) => len_cp,
            (LenFn::Sizer(_), Some(measured), None) => measured(raw.range.clone()),
            (LenFn::Sizer(_), _, _) => self.len.len(s),
        });
        let chunk = match found {
            Some(at) => {
                self.index = self.cursor.cp_of(at) as i64;
                Chunk::new(at..at + s.len(), size)
            }
            None => {
                self.index = -1;
                let mut c = Chunk::new(raw.range.clone(), size);
                if text[raw.range.clone()] != *s {
                    c.meta.text = Some(raw.text.clone().unwrap_or_else(|| s.to_owned()));
                }
                c
            }
        };
        self.previous_len = len_cp as i64;
        chunk
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{ChunkConfig, KeepSeparator, SeparatorSide, StrategyKind};
    use crate::embedding::Control;
    use crate::strategy::Context;

    /// The strategy `cfg` names, run the way a chunker runs it.
    fn chunk(text: &str, cfg: &ChunkConfig, sizer: &Sizer) -> Result<Vec<Chunk>> {
        let strategy = (cfg.strategy.spec().build)(cfg)?;
        strategy.chunk(
            text,
            &Context { config: cfg, sizer, model: None, control: Control::none(), structure: None, index: None },
        )
    }

    fn cfg(strategy: StrategyKind, size: usize, overlap: usize) -> ChunkConfig {
        ChunkConfig { strategy, size, overlap, ..ChunkConfig::default() }
    }

    fn texts(text: &str, chunks: &[Chunk]) -> Vec<String> {
        chunks.iter().map(|c| c.text(text).to_string()).collect()
    }

    fn run(text: &str, cfg: &ChunkConfig) -> Vec<Chunk> {
        let sizer = Sizer::for_unit(cfg.unit, &cfg.tokenizer).unwrap();
        chunk(text, cfg, &sizer).unwrap()
    }

    #[test]
    fn python_whitespace_includes_information_separators() {
        assert_eq!(py_strip("\u{1c}\u{3000} a b\u{85}\u{a0}"), "a b");
        assert!(!is_py_space('\u{200b}'));
    }

    #[test]
    fn recursive_matches_langchain_on_a_small_text() {
        // RecursiveCharacterTextSplitter(chunk_size=10, chunk_overlap=4)
        let text = "Hello world, this is a test.\n\nSecond para here.";
        let c = cfg(StrategyKind::LangchainRecursive, 10, 4);
        let chunks = run(text, &c);
        assert_eq!(texts(text, &chunks), ["Hello", "world,", "this is a", "a test.", "Second", "para", "here."]);
        for ch in &chunks {
            assert!(ch.meta.text.is_none());
            assert_eq!(ch.size, ch.text(text).chars().count());
        }
    }

    #[test]
    fn character_joins_with_the_raw_regex_and_marks_the_text() {
        // CharacterTextSplitter(separator=r"\s+", is_separator_regex=True, chunk_size=7, chunk_overlap=0)
        let text = "aa bb  cc dd";
        let mut c = cfg(StrategyKind::LangchainCharacter, 7, 0);
        c.langchain.separator = r"\s+".into();
        c.langchain.is_separator_regex = true;
        let chunks = run(text, &c);
        assert_eq!(texts(text, &chunks), [r"aa\s+bb", r"cc\s+dd"]);
        assert!(chunks.iter().all(|ch| ch.meta.text.is_some()));
        assert_eq!(chunks[1].range, 7..12);
    }

    #[test]
    fn keep_separator_end_attaches_to_the_previous_piece() {
        let text = "one. two. three.";
        let mut c = cfg(StrategyKind::LangchainCharacter, 6, 0);
        c.langchain.separator = ". ".into();
        c.langchain.keep_separator = Some(KeepSeparator::Side(SeparatorSide::End));
        assert_eq!(texts(text, &run(text, &c)), ["one.", "two.", "three."]);
        c.langchain.keep_separator = Some(KeepSeparator::Side(SeparatorSide::Start));
        assert_eq!(texts(text, &run(text, &c)), ["one", ". two", ". three."]);
    }

    #[test]
    fn token_windows_decode_lossily_and_keep_their_span() {
        let text = "中文文本切分测试，看看窗口边界。".repeat(3);
        let mut c = cfg(StrategyKind::LangchainToken, 7, 2);
        c.unit = Unit::Tokens;
        let chunks = run(&text, &c);
        assert!(chunks.len() > 3);
        for ch in &chunks {
            assert!(text.is_char_boundary(ch.range.start) && text.is_char_boundary(ch.range.end));
            assert!(ch.size <= 7);
        }
        assert!(chunks.iter().any(|ch| ch.meta.text.as_deref().is_some_and(|t| t.contains('\u{fffd}'))));
    }

    #[test]
    fn markdown_header_metadata_in_dict_order() {
        let text = "## Two\nintro\n# One\nbody\n### Three\ndeep\n\nmore";
        let c = cfg(StrategyKind::LangchainMarkdownHeader, 1, 0);
        let chunks = run(text, &c);
        assert_eq!(texts(text, &chunks), ["intro", "body", "deep  \nmore"]);
        assert_eq!(chunks[2].meta.fields, [("Header 1".into(), "One".into()), ("Header 3".into(), "Three".into())]);
        assert_eq!(chunks[2].meta.headings, ["One", "Three"]);
        assert_eq!(&text[chunks[2].range.clone()], "deep\n\nmore");
    }

    #[test]
    fn special_tokens_are_refused_like_tiktoken_does() {
        let mut c = cfg(StrategyKind::LangchainToken, 10, 0);
        c.unit = Unit::Tokens;
        let sizer = Sizer::for_unit(c.unit, &c.tokenizer).unwrap();
        let err = chunk("a <|endoftext|> b", &c, &sizer).unwrap_err().to_string();
        assert!(err.contains("<|endoftext|>"), "{err}");
    }
}
