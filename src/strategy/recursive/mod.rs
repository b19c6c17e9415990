//! Recursive splitting on separators in priority order (paragraph, line,
//! sentence, clause, word, character...), on byte ranges of the original text.
//!
//! At each level the range is cut at that level's separators; neighbouring
//! pieces are packed greedily while the chunk stays within `size`; a piece
//! that alone is over `size` is cut again at the next level. When a chunk is
//! full, the next one starts with as many trailing pieces of it as fit in
//! `overlap` (the same rule as LangChain's merge, so results feel familiar),
//! which is why the real overlap moves with separator boundaries.
//!
//! Separators stay with the text before them ("end." / "，"), except that a
//! separator which starts with line breaks and continues with text ("\nfn ")
//! starts the next piece. `\r\n` counts as a line break wherever `\n` does.

pub(crate) mod region;

use super::pack::Packer;
use crate::chunk::Chunk;
use crate::config::{RecursiveOptions, StrategyKind};
use crate::error::{Error, Result};
use crate::segment::{for_each_sentence_end, push_trimmed, trim_range, EachRange, RangeSink};
use crate::size::SizeIndex;
use crate::strategy::{
    ranges_to_chunks, regex_size_limit, regex_too_big, sized, Context, OverlapRule, SizeRule, Spec, Strategy,
};
use memchr::memmem;
use std::ops::Range;
use std::sync::OnceLock;
use unicode_segmentation::UnicodeSegmentation;

/// One level of separators.
#[derive(Clone, Debug)]
pub enum Sep {
    /// One or more blank lines.
    Paragraph,
    /// A line break.
    Line,
    /// Sentence ends (see [`crate::segment`]).
    Sentence,
    /// Any of these literal strings (clause punctuation, words...).
    Literals(Vec<String>),
    /// Matches of a regular expression.
    Regex(regex::Regex),
    /// Lines that start with one of some words (`def `, `class `...): a
    /// regex whose matches are each a line break, an indent and the word,
    /// so they are found the same from anywhere in the text (unlike a
    /// user's regex, which may reach back over many lines).
    LineStarts(regex::Regex),
    /// Runs of whitespace.
    Whitespace,
    /// Between grapheme clusters: the last resort, always succeeds.
    Grapheme,
}

#[derive(Clone, Debug)]
pub struct Separators(pub Vec<Sep>);

/// One preset of `assets/separators.toml` (the file explains the levels).
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Preset {
    name: String,
    #[serde(default)]
    aliases: Vec<String>,
    levels: Vec<Level>,
}

#[derive(serde::Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
enum Level {
    Paragraph,
    Line,
    Sentence,
    Whitespace,
    Grapheme,
    Any(Vec<String>),
    Regex(String),
    LineStarts(Vec<String>),
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct PresetsAsset {
    preset: Vec<Preset>,
}

const SEPARATORS_ASSET: &str = include_str!("../../../assets/separators.toml");

/// The presets, parsed once from the embedded asset (tests prove it parses).
fn presets() -> &'static [Preset] {
    static PRESETS: OnceLock<Vec<Preset>> = OnceLock::new();
    PRESETS.get_or_init(|| {
        toml::from_str::<PresetsAsset>(SEPARATORS_ASSET).expect("assets/separators.toml is valid").preset
    })
}

/// The preset names, in the order the workbench cycles through them.
pub fn preset_names() -> &'static [&'static str] {
    static NAMES: OnceLock<Vec<&'static str>> = OnceLock::new();
    NAMES.get_or_init(|| presets().iter().map(|p| p.name.as_str()).collect())
}

impl Separators {
    pub fn from_options(opts: &RecursiveOptions, strategy: StrategyKind) -> Result<Self> {
        // (Count and length of a custom list are checked in `Chunker::new`.)
        if let Some(list) = &opts.separators {
            return Self::custom(list, opts.is_regex);
        }
        // The heading strategies cut oversize sections with prose separators.
        let sections = matches!(strategy, StrategyKind::Markdown | StrategyKind::Html);
        let preset = if sections && opts.preset == "markdown" { "english" } else { &opts.preset };
        Self::preset(preset)
    }

    pub fn preset(name: &str) -> Result<Self> {
        let named = |p: &&Preset| p.name == name || p.aliases.iter().any(|a| a == name);
        let Some(preset) = presets().iter().find(named) else {
            return Err(Error::config(format!(
                "unknown separators preset '{name}': use one of {}, or give a custom list",
                preset_names().join(", ")
            )));
        };
        let levels = preset.levels.iter().map(|level| {
            Ok(match level {
                Level::Paragraph => Sep::Paragraph,
                Level::Line => Sep::Line,
                Level::Sentence => Sep::Sentence,
                Level::Whitespace => Sep::Whitespace,
                Level::Grapheme => Sep::Grapheme,
                Level::Any(literals) => Sep::Literals(literals.clone()),
                Level::Regex(pattern) => Sep::Regex(compile(pattern, 1)?),
                Level::LineStarts(starts) => {
                    let alternatives: Vec<String> = starts.iter().map(|s| regex::escape(s)).collect();
                    Sep::LineStarts(compile(&format!(r"\n[ \t]*(?:{})", alternatives.join("|")), 1)?)
                }
            })
        });
        Ok(Separators(levels.collect::<Result<_>>()?))
    }

    /// A user's list, in priority order. `""` means "between characters" and
    /// is added at the end when missing, so every text can be cut.
    pub fn custom(list: &[String], is_regex: bool) -> Result<Self> {
        let mut seps = Vec::with_capacity(list.len() + 1);
        let regexes = list.iter().filter(|s| !s.is_empty() && (is_regex || s.contains('\n'))).count();
        for s in list {
            if s.is_empty() {
                seps.push(Sep::Grapheme);
            } else if is_regex {
                seps.push(Sep::Regex(compile(s, regexes)?));
            } else if s.contains('\n') {
                // Let "\n" also match "\r\n".
                seps.push(Sep::Regex(compile(&regex::escape(s).replace(r"\n", r"\r?\n"), regexes)?));
            } else {
                seps.push(Sep::Literals(vec![s.clone()]));
            }
        }
        if !matches!(seps.last(), Some(Sep::Grapheme)) {
            seps.push(Sep::Grapheme);
        }
        Ok(Separators(seps))
    }
}

/// Compile one of `count` separator regexes: the `regex` crate (linear time,
/// no lookaround), within its share of the compiled-size allowance.
fn compile(pattern: &str, count: usize) -> Result<regex::Regex> {
    let limit = regex_size_limit(count);
    regex::RegexBuilder::new(pattern).size_limit(limit).dfa_size_limit(limit).build().map_err(|e| match e {
        regex::Error::CompiledTooBig(_) => regex_too_big(pattern, limit, count),
        e => Error::config(format!("bad separator regex '{pattern}': {}", e.to_string().replace('\n', " "))),
    })
}

impl Sep {
    /// Byte offsets inside `range` where a new piece starts (excluding
    /// `range.start` and `range.end`), handed to `f` in increasing order.
    fn for_each_cut(&self, text: &str, range: Range<usize>, f: &mut dyn FnMut(usize)) {
        let slice = &text[range.clone()];
        let base = range.start;
        let bytes = slice.as_bytes();
        match self {
            Sep::Paragraph => {
                let mut i = 0;
                while let Some(p) = memchr::memchr(b'\n', &bytes[i..]) {
                    let nl = i + p;
                    // Blank line: optional spaces / \r, then another \n.
                    let mut j = nl + 1;
                    while j < bytes.len() && matches!(bytes[j], b' ' | b'\t' | b'\r') {
                        j += 1;
                    }
                    if j < bytes.len() && bytes[j] == b'\n' {
                        // Swallow the whole run of blank lines.
                        let mut end = j + 1;
                        loop {
                            let mut k = end;
                            while k < bytes.len() && matches!(bytes[k], b' ' | b'\t' | b'\r') {
                                k += 1;
                            }
                            if k < bytes.len() && bytes[k] == b'\n' {
                                end = k + 1;
                            } else {
                                break;
                            }
                        }
                        if end < bytes.len() {
                            f(base + end);
                        }
                        i = end;
                    } else {
                        i = nl + 1;
                    }
                    if i >= bytes.len() {
                        break;
                    }
                }
            }
            Sep::Line => {
                for p in memchr::memchr_iter(b'\n', bytes) {
                    if p + 1 < bytes.len() {
                        f(base + p + 1);
                    }
                }
            }
            Sep::Sentence => {
                for_each_sentence_end(text, range.clone(), |e| {
                    if e < range.end {
                        f(e)
                    }
                });
            }
            Sep::Literals(lits) => {
                // Each literal's cuts in order, merged (a cut found by two
                // literals counts once).
                let mut streams: Vec<_> = lits
                    .iter()
                    .map(|lit| {
                        let n = lit.len();
                        memmem::find_iter(bytes, lit.as_bytes())
                            .map(move |p| p + n)
                            .filter(|&cut| cut < bytes.len())
                            .peekable()
                    })
                    .collect();
                let mut last = None;
                while let Some(cut) = streams.iter_mut().filter_map(|s| s.peek().copied()).min() {
                    for s in &mut streams {
                        if s.peek() == Some(&cut) {
                            s.next();
                        }
                    }
                    if last != Some(cut) {
                        f(base + cut);
                        last = Some(cut);
                    }
                }
            }
            Sep::Regex(re) | Sep::LineStarts(re) => {
                for m in re.find_iter(slice) {
                    let s = m.as_str();
                    let leading_newlines = s.len() - s.trim_start_matches(['\r', '\n']).len();
                    let cut = if leading_newlines > 0 && leading_newlines < s.len() && !s.trim().is_empty() {
                        m.start() + leading_newlines
                    } else {
                        m.end()
                    };
                    if cut > 0 && cut < bytes.len() {
                        f(base + cut);
                    }
                }
            }
            Sep::Whitespace => {
                let mut in_space = false;
                for (i, c) in slice.char_indices() {
                    let space = c.is_whitespace();
                    if in_space && !space {
                        f(base + i);
                    }
                    in_space = space;
                }
            }
            Sep::Grapheme => {
                for (i, _) in slice.grapheme_indices(true).skip(1) {
                    f(base + i);
                }
            }
        }
    }
}

/// Chunk `range` of `text`.
pub fn chunk(
    text: &str,
    index: &SizeIndex<'_>,
    seps: &Separators,
    size: usize,
    overlap: usize,
    range: Range<usize>,
) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    chunk_into(text, index, seps, size, overlap, range, &mut out);
    out
}

/// [`chunk`], each range put in `out` as it is cut.
pub fn chunk_into(
    text: &str,
    index: &SizeIndex<'_>,
    seps: &Separators,
    size: usize,
    overlap: usize,
    range: Range<usize>,
    out: &mut dyn RangeSink,
) {
    let splitter = Splitter { text, index, seps, size, overlap };
    if index.size(trim_range(text, range.clone())) <= size {
        push_trimmed(text, range, out);
    } else {
        splitter.split(range, 0, out);
    }
}

struct Splitter<'a, 't> {
    text: &'a str,
    index: &'a SizeIndex<'t>,
    seps: &'a Separators,
    size: usize,
    overlap: usize,
}

impl Splitter<'_, '_> {
    /// Cut `range` at the first level from `level` on that cuts it at all and
    /// pack the pieces as they are found: the pieces are never all held at
    /// once (a text with no other separator has one piece per grapheme).
    fn split(&self, range: Range<usize>, level: usize, out: &mut dyn RangeSink) {
        for level in level..self.seps.0.len() {
            let mut packer: Option<Packer<'_, '_>> = None;
            let mut prev = range.start;
            let mut oversize = |piece: Range<usize>, out: &mut dyn RangeSink| self.split(piece, level + 1, out);
            self.seps.0[level].for_each_cut(self.text, range.clone(), &mut |cut| {
                debug_assert!(cut >= prev, "cuts come in order");
                let packer = packer.get_or_insert_with(|| Packer::new(self.text, self.index, self.size, self.overlap));
                if cut > prev {
                    packer.push(prev..cut, out, &mut oversize);
                }
                prev = cut;
            });
            if let Some(mut packer) = packer {
                if range.end > prev {
                    packer.push(prev..range.end, out, &mut oversize);
                }
                packer.finish(out);
                return;
            }
        }
        // A single grapheme over the limit: it cannot be cut further.
        push_trimmed(self.text, range, out);
    }
}

pub const SPEC: Spec = Spec {
    name: "recursive",
    help: "split at the preset's separators, biggest first (paragraphs, lines, sentences, words), packed to --size",
    needs_model: false,
    needs_llm: false,
    size: SizeRule::Limit,
    overlap: OverlapRule::Units,
    has_threshold: false,
    forces_unit: None,
    options: &["--preset", "--separators", "--regex"],
    option: None,
    recut: None,
    formats: &[],
    build: |c| Ok(Box::new(Recursive { seps: Separators::from_options(&c.recursive, StrategyKind::Recursive)? })),
};

struct Recursive {
    seps: Separators,
}

impl Strategy for Recursive {
    fn chunk(&self, text: &str, cx: &Context<'_>) -> Result<Vec<Chunk>> {
        let (c, index) = (cx.config, cx.sizer.index(text)?);
        Ok(ranges_to_chunks(chunk(text, &index, &self.seps, c.size, c.overlap, 0..text.len()), &index))
    }

    fn streams(&self) -> bool {
        true
    }

    fn chunk_each(&self, text: &str, cx: &Context<'_>, emit: &mut dyn FnMut(Chunk)) -> Result<()> {
        let (c, index) = (cx.config, cx.sizer.index(text)?);
        let mut each = EachRange(|r| emit(sized(r, &index)));
        chunk_into(text, &index, &self.seps, c.size, c.overlap, 0..text.len(), &mut each);
        Ok(())
    }

    /// Between oversize paragraphs (or lines), where the packing starts afresh.
    fn region_around(&self, text: &str, cx: &Context<'_>, screen: Range<usize>) -> Option<Range<usize>> {
        let index = cx.size_index(text).ok()?;
        region::around(text, &index, &self.seps, cx.config.size, screen)
    }

    /// From after an oversize paragraph (or line) to a later break.
    fn region_from(&self, text: &str, cx: &Context<'_>, screen: Range<usize>) -> Option<Range<usize>> {
        let index = cx.size_index(text).ok()?;
        region::from(text, &index, &self.seps, cx.config.size, screen)
    }

    /// Measured with the whole text's index, so a child's size is the one
    /// the whole document gives it.
    fn chunk_within(&self, text: &str, ranges: &[Range<usize>], cx: &Context<'_>) -> Result<Vec<Vec<Chunk>>> {
        let (c, index) = (cx.config, cx.size_index(text)?);
        let cut =
            |r: &Range<usize>| ranges_to_chunks(chunk(text, &index, &self.seps, c.size, c.overlap, r.clone()), &index);
        Ok(ranges.iter().map(cut).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::size::Sizer;

    fn run<'a>(text: &'a str, preset: &str, size: usize, overlap: usize) -> Vec<&'a str> {
        let idx = Sizer::chars().index(text).unwrap();
        let seps = Separators::preset(preset).unwrap();
        chunk(text, &idx, &seps, size, overlap, 0..text.len()).into_iter().map(|r| &text[r]).collect()
    }

    #[test]
    fn paragraphs_first_then_sentences() {
        let text = "Short one.\n\nA longer paragraph. It has two sentences that go on.\n\nEnd.";
        assert_eq!(
            run(text, "english", 40, 0),
            ["Short one.", "A longer paragraph.", "It has two sentences that go on.", "End."]
        );
    }

    #[test]
    fn overlap_repeats_trailing_pieces() {
        let text = "aa bb cc dd ee ff gg";
        assert_eq!(run(text, "english", 8, 3), ["aa bb cc", "cc dd ee", "ee ff gg"]);
    }

    #[test]
    fn chinese_preset_cuts_at_full_width_punctuation() {
        let text = "第一句话很短。第二句话，有一个逗号，然后结束。第三句。";
        for chunk in run(text, "chinese", 10, 0) {
            assert!(chunk.chars().count() <= 10, "{chunk}");
        }
        assert_eq!(run(text, "chinese", 10, 0)[0], "第一句话很短。");
    }

    #[test]
    fn crlf_paragraphs_are_paragraphs() {
        let text = "one two\r\nthree\r\n\r\nfour five";
        assert_eq!(run(text, "english", 14, 0), ["one two\r\nthree", "four five"]);
    }

    #[test]
    fn bad_regex_is_a_config_error() {
        let err = Separators::custom(&["(".to_string()], true).unwrap_err().to_string();
        assert!(err.contains("bad separator regex"), "{err}");
    }
}
