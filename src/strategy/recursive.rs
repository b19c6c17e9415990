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

use crate::config::{RecursiveOptions, StrategyKind};
use crate::error::{Error, Result};
use crate::segment::{push_trimmed, sentence_ends, trim_range};
use crate::size::SizeIndex;
use memchr::memmem;
use std::ops::Range;
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
    /// Runs of whitespace.
    Whitespace,
    /// Between grapheme clusters: the last resort, always succeeds.
    Grapheme,
}

#[derive(Clone, Debug)]
pub struct Separators(pub Vec<Sep>);

pub const PRESETS: [&str; 9] = ["english", "chinese", "markdown", "rust", "python", "javascript", "go", "java", "c"];

impl Separators {
    pub fn from_options(opts: &RecursiveOptions, strategy: StrategyKind) -> Result<Self> {
        if let Some(list) = &opts.separators {
            return Self::custom(list, opts.is_regex);
        }
        // The markdown strategy cuts oversize sections with prose separators.
        let preset = if strategy == StrategyKind::Markdown && opts.preset == "markdown" { "english" } else { &opts.preset };
        Self::preset(preset)
    }

    pub fn preset(name: &str) -> Result<Self> {
        let lits = |v: &[&str]| Sep::Literals(v.iter().map(|s| s.to_string()).collect());
        let code = |starts: &[&str]| -> Result<Separators> {
            let alternatives: Vec<String> = starts.iter().map(|s| regex::escape(s)).collect();
            let re = format!(r"\n[ \t]*(?:{})", alternatives.join("|"));
            Ok(Separators(vec![
                Sep::Regex(compile(&re)?),
                Sep::Paragraph,
                Sep::Line,
                Sep::Whitespace,
                Sep::Grapheme,
            ]))
        };
        Ok(match name {
            "english" | "default" => Separators(vec![
                Sep::Paragraph,
                Sep::Line,
                Sep::Sentence,
                lits(&["; ", ": ", ", "]),
                Sep::Whitespace,
                Sep::Grapheme,
            ]),
            "chinese" | "zh" => Separators(vec![
                Sep::Paragraph,
                Sep::Line,
                Sep::Sentence,
                lits(&["；", "：", "; "]),
                lits(&["，", "、", ", "]),
                Sep::Whitespace,
                Sep::Grapheme,
            ]),
            "markdown" => Separators(vec![
                Sep::Regex(compile(r"\n#{1,2} ")?),
                Sep::Regex(compile(r"\n#{3,6} ")?),
                Sep::Regex(compile(r"\n(?:```|~~~)")?),
                Sep::Regex(compile(r"\n(?:\*\*\*+|---+|___+)[ \t]*\r?\n")?),
                Sep::Paragraph,
                Sep::Line,
                Sep::Sentence,
                lits(&["; ", "；", ", ", "，"]),
                Sep::Whitespace,
                Sep::Grapheme,
            ]),
            "rust" => code(&["fn ", "pub fn ", "impl ", "struct ", "enum ", "trait ", "mod ", "const ", "let ", "if ", "for ", "while ", "match "])?,
            "python" => code(&["class ", "def ", "async def ", "if ", "for ", "while ", "with ", "try:"])?,
            "javascript" => code(&["function ", "export ", "class ", "const ", "let ", "var ", "if ", "for ", "while ", "switch "])?,
            "go" => code(&["func ", "type ", "var ", "const ", "if ", "for ", "switch "])?,
            "java" => code(&["class ", "interface ", "public ", "private ", "protected ", "static ", "if ", "for ", "while ", "switch "])?,
            "c" => code(&["#include", "#define", "struct ", "typedef ", "static ", "int ", "void ", "if ", "for ", "while ", "switch "])?,
            other => {
                return Err(Error::config(format!(
                    "unknown separators preset '{other}': use one of {}, or give a custom list",
                    PRESETS.join(", ")
                )))
            }
        })
    }

    /// A user's list, in priority order. `""` means "between characters" and
    /// is added at the end when missing, so every text can be cut.
    pub fn custom(list: &[String], is_regex: bool) -> Result<Self> {
        let mut seps = Vec::with_capacity(list.len() + 1);
        for s in list {
            if s.is_empty() {
                seps.push(Sep::Grapheme);
            } else if is_regex {
                seps.push(Sep::Regex(compile(s)?));
            } else if s.contains('\n') {
                // Let "\n" also match "\r\n".
                seps.push(Sep::Regex(compile(&regex::escape(s).replace(r"\n", r"\r?\n"))?));
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

fn compile(pattern: &str) -> Result<regex::Regex> {
    regex::Regex::new(pattern)
        .map_err(|e| Error::config(format!("bad separator regex '{pattern}': {}", e.to_string().replace('\n', " "))))
}

impl Sep {
    /// Byte offsets inside `range` where a new piece starts (excluding range.start).
    fn cut_points(&self, text: &str, range: Range<usize>, out: &mut Vec<usize>) {
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
                            out.push(base + end);
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
                        out.push(base + p + 1);
                    }
                }
            }
            Sep::Sentence => {
                out.extend(sentence_ends(text, range.clone()).into_iter().filter(|&e| e < range.end));
            }
            Sep::Literals(lits) => {
                let start = out.len();
                for lit in lits {
                    for p in memmem::find_iter(bytes, lit.as_bytes()) {
                        let cut = p + lit.len();
                        if cut < bytes.len() {
                            out.push(base + cut);
                        }
                    }
                }
                if lits.len() > 1 {
                    out[start..].sort_unstable();
                    let mut v = out.split_off(start);
                    v.dedup();
                    out.extend(v);
                }
            }
            Sep::Regex(re) => {
                for m in re.find_iter(slice) {
                    let s = m.as_str();
                    let leading_newlines = s.len() - s.trim_start_matches(['\r', '\n']).len();
                    let cut = if leading_newlines > 0 && leading_newlines < s.len() && !s.trim().is_empty() {
                        m.start() + leading_newlines
                    } else {
                        m.end()
                    };
                    if cut > 0 && cut < bytes.len() {
                        out.push(base + cut);
                    }
                }
            }
            Sep::Whitespace => {
                let mut in_space = false;
                for (i, c) in slice.char_indices() {
                    let space = c.is_whitespace();
                    if in_space && !space {
                        out.push(base + i);
                    }
                    in_space = space;
                }
            }
            Sep::Grapheme => {
                out.extend(slice.grapheme_indices(true).skip(1).map(|(i, _)| base + i));
            }
        }
    }
}

/// Chunk `range` of `text`.
pub fn chunk(
    text: &str,
    index: &SizeIndex,
    seps: &Separators,
    size: usize,
    overlap: usize,
    range: Range<usize>,
) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let splitter = Splitter { text, index, seps, size, overlap };
    if index.size(trim_range(text, range.clone())) <= size {
        push_trimmed(text, range, &mut out);
    } else {
        splitter.split(range, 0, &mut out);
    }
    out
}

struct Splitter<'a, 't> {
    text: &'a str,
    index: &'a SizeIndex<'t>,
    seps: &'a Separators,
    size: usize,
    overlap: usize,
}

impl Splitter<'_, '_> {
    fn split(&self, range: Range<usize>, level: usize, out: &mut Vec<Range<usize>>) {
        // Find the first level from `level` on that cuts this range at all.
        let mut cuts = Vec::new();
        let mut level = level;
        while level < self.seps.0.len() {
            self.seps.0[level].cut_points(self.text, range.clone(), &mut cuts);
            if !cuts.is_empty() {
                break;
            }
            level += 1;
        }
        if cuts.is_empty() {
            // A single grapheme over the limit: it cannot be cut further.
            push_trimmed(self.text, range, out);
            return;
        }
        let mut bounds = Vec::with_capacity(cuts.len() + 2);
        bounds.push(range.start);
        bounds.extend(cuts);
        bounds.push(range.end);
        let pieces: Vec<Range<usize>> = bounds.windows(2).map(|w| w[0]..w[1]).filter(|r| !r.is_empty()).collect();
        self.merge(&pieces, level, out);
    }

    fn merge(&self, pieces: &[Range<usize>], level: usize, out: &mut Vec<Range<usize>>) {
        pack(self.text, self.index, pieces, self.size, self.overlap, out, &mut |piece, out| {
            self.split(piece, level + 1, out)
        });
    }
}

/// What `pack` does with a piece that alone is over the size: cut it and
/// push the resulting ranges.
pub type OversizeHandler<'a> = dyn FnMut(Range<usize>, &mut Vec<Range<usize>>) + 'a;

/// Pack pieces greedily into chunks of at most `size`, carrying up to
/// `overlap` worth of trailing pieces into the next chunk. A piece over `size`
/// closes the open chunk and is handed to `oversize`.
pub fn pack(
    text: &str,
    index: &SizeIndex,
    pieces: &[Range<usize>],
    size: usize,
    overlap: usize,
    out: &mut Vec<Range<usize>>,
    oversize: &mut OversizeHandler,
) {
    // Chunks are emitted without surrounding whitespace, so measure them that way.
    let size_of = |a: usize, b: usize| index.size(trim_range(text, pieces[a].start..pieces[b].end));
    // Most checks are settled by a bound that needs no counting (a range of
    // n bytes holds at most n chars): the hot loop of the recursive splitter.
    let within = |a: usize, b: usize, limit: usize| {
        index.at_most(pieces[a].start..pieces[b].end) <= limit || size_of(a, b) <= limit
    };
    let mut first: Option<usize> = None; // first piece of the open chunk
    for (j, piece) in pieces.iter().enumerate() {
        if !within(j, j, size) {
            if let Some(f) = first.take() {
                push_trimmed(text, pieces[f].start..pieces[j - 1].end, out);
            }
            oversize(piece.clone(), out);
            continue;
        }
        let Some(f) = first else {
            first = Some(j);
            continue;
        };
        if within(f, j, size) {
            continue;
        }
        push_trimmed(text, pieces[f].start..pieces[j - 1].end, out);
        // Keep trailing pieces of the chunk just emitted as overlap.
        let mut g = f + 1;
        while g < j && (!within(g, j - 1, overlap) || !within(g, j, size)) {
            g += 1;
        }
        first = Some(g);
    }
    if let Some(f) = first {
        push_trimmed(text, pieces[f].start..pieces[pieces.len() - 1].end, out);
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
