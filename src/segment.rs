//! Sentence segmentation for English and Chinese (and mixed) text.
//!
//! Rules, chosen for RAG chunking rather than linguistics:
//! - `.`, `!`, `?` end a sentence when followed by whitespace or the end of the
//!   text, except after common abbreviations ("e.g.", "Dr.") and initials, or
//!   when the next word starts in lower case.
//! - CJK terminators `。！？` (and full-width `．`), `…`/`……` end a sentence
//!   with no space after them.
//! - Closing quotes and brackets after a terminator stay with its sentence.
//! - A blank line always ends a sentence; a single line break does too when
//!   the next line starts a Markdown block (heading, list item, quote, table,
//!   code fence) or the line itself is a heading. Otherwise hard-wrapped prose
//!   keeps flowing across line breaks.
//!
//! Sentences are returned as byte ranges without surrounding whitespace; they
//! cover every non-whitespace char of the input.

use std::ops::Range;

const CLOSERS: &[char] = &['"', '\'', '”', '’', ')', ']', '}', '）', '」', '』', '】', '》', '〉', '〕', '»'];
const CJK_TERMINATORS: &[char] = &['。', '！', '？', '．', '…'];
const ABBREVIATIONS: &[&str] = &[
    "e.g", "i.e", "etc", "vs", "cf", "al", "dr", "mr", "mrs", "ms", "prof", "st", "sr", "jr", "inc", "ltd", "co",
    "fig", "no", "vol", "approx", "dept", "est", "mt", "u.s", "u.k", "a.m", "p.m", "jan", "feb", "mar", "apr", "jun",
    "jul", "aug", "sep", "sept", "oct", "nov", "dec",
];

/// The key [`sentences`] of a whole text are kept under in `doc_cache`, by
/// the sentence strategy and lint alike.
pub const SENTENCES_KEY: &str = "sentences";

/// Sentence ranges of the whole text.
pub fn sentences(text: &str) -> Vec<Range<usize>> {
    sentences_in(text, 0..text.len())
}

/// Sentence ranges within `range` of `text` (offsets stay relative to `text`).
pub fn sentences_in(text: &str, range: Range<usize>) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    for_each_sentence(text, range, |s| out.push(s));
    out
}

/// [`sentences_in`], handed to `f` one at a time.
pub fn for_each_sentence(text: &str, range: Range<usize>, mut f: impl FnMut(Range<usize>)) {
    let mut start = range.start;
    let mut emit = |r: Range<usize>| {
        let r = trim_range(text, r);
        if !r.is_empty() {
            f(r);
        }
    };
    for_each_sentence_end(text, range.clone(), |end| {
        emit(start..end);
        start = end;
    });
    emit(start..range.end);
}

/// Byte offsets just after each sentence end inside `range` (terminator and
/// closers included, following whitespace not).
pub fn sentence_ends(text: &str, range: Range<usize>) -> Vec<usize> {
    let mut ends = Vec::new();
    for_each_sentence_end(text, range, |e| ends.push(e));
    ends
}

/// [`sentence_ends`], handed to `f` one at a time, in increasing order.
pub fn for_each_sentence_end(text: &str, range: Range<usize>, mut f: impl FnMut(usize)) {
    let slice = &text[range.clone()];
    let base = range.start;
    let bytes = slice.as_bytes();
    // The last end found (absolute), if any.
    let mut last: Option<usize> = None;
    let mut line_start = 0;
    let mut i = 0;
    // Only a few bytes can start a terminator or a line break; skip the rest
    // without decoding chars (this loop is the sentence strategy's and the
    // recursive splitter's hot path).
    let mut candidates = MayEnd::new(bytes);
    loop {
        i = candidates.at_or_after(i);
        if i >= bytes.len() {
            break;
        }
        let c = slice[i..].chars().next().expect("i is on a char boundary");
        if c == '\n' {
            let line_end = if i > 0 && bytes[i - 1] == b'\r' { i - 1 } else { i };
            let next_line = slice[i + 1..].trim_start_matches([' ', '\t']);
            let blank_next = next_line.starts_with('\n') || next_line.starts_with("\r\n");
            let this_line = slice[line_start..line_end].trim();
            if !this_line.is_empty()
                && (blank_next || starts_block(next_line) || this_line.starts_with('#') || starts_block(this_line))
                && !last.is_some_and(|e| slice[e - base..line_end].trim().is_empty())
            {
                last = Some(base + line_end);
                f(base + line_end);
            }
            line_start = i + 1;
            i += 1;
            continue;
        }
        let is_ascii_term = matches!(c, '.' | '!' | '?');
        if !is_ascii_term && !CJK_TERMINATORS.contains(&c) {
            i += c.len_utf8();
            continue;
        }
        // Swallow runs like "?!", "……", "。」".
        let mut end = i + c.len_utf8();
        for d in slice[end..].chars() {
            if matches!(d, '.' | '!' | '?') || CJK_TERMINATORS.contains(&d) || CLOSERS.contains(&d) {
                end += d.len_utf8();
            } else {
                break;
            }
        }
        let boundary = match slice[end..].chars().next() {
            None => false, // the range end closes it anyway
            Some(n) if !is_ascii_term => !CLOSERS.contains(&n),
            Some(n) if n.is_whitespace() => c != '.' || !is_abbreviation(slice, i, end),
            Some(n) => is_cjk(n) && !is_ascii_term, // "foo.bar" and "3.14" do not break
        };
        if boundary && last != Some(base + end) {
            last = Some(base + end);
            f(base + end);
        }
        i = end;
    }
}

/// Where the bytes that can begin a sentence end are: ASCII terminators,
/// the line feed, and the UTF-8 lead bytes of `…` (E2), `。` (E3) and
/// full-width `！？．` (EF). Three vector searches (memchr), each asked
/// again only once the loop has passed what it found: a byte-by-byte test
/// was most of a cut in sentences on megabytes of prose.
struct MayEnd<'a> {
    bytes: &'a [u8],
    /// The next match of each search (the length: none).
    next: [usize; 3],
}

impl<'a> MayEnd<'a> {
    fn new(bytes: &'a [u8]) -> Self {
        let mut may = MayEnd { bytes, next: [0; 3] };
        for k in 0..3 {
            may.next[k] = may.find(k, 0);
        }
        may
    }

    fn find(&self, k: usize, from: usize) -> usize {
        let rest = &self.bytes[from..];
        let found = match k {
            0 => memchr::memchr3(b'.', b'!', b'?', rest),
            1 => memchr::memchr3(b'\n', 0xE2, 0xE3, rest),
            _ => memchr::memchr(0xEF, rest),
        };
        found.map_or(self.bytes.len(), |p| from + p)
    }

    /// The first such byte at or after `i` (the length: none).
    fn at_or_after(&mut self, i: usize) -> usize {
        for k in 0..3 {
            if self.next[k] < i {
                self.next[k] = self.find(k, i);
            }
        }
        self.next.into_iter().min().unwrap_or(self.bytes.len())
    }
}

fn starts_block(line: &str) -> bool {
    let l = line.trim_start();
    l.starts_with('#')
        || l.starts_with("- ")
        || l.starts_with("* ")
        || l.starts_with("+ ")
        || l.starts_with("> ")
        || l.starts_with('|')
        || l.starts_with("```")
        || l.starts_with("~~~")
        || {
            let digits = l.bytes().take_while(|b| b.is_ascii_digit()).count();
            digits > 0 && (l[digits..].starts_with(". ") || l[digits..].starts_with(") "))
        }
}

/// Is the '.' at `dot` (ending at `end`) part of an abbreviation or initial,
/// or followed by a lower-case word (so not a sentence end)?
fn is_abbreviation(slice: &str, dot: usize, end: usize) -> bool {
    let word_start = slice[..dot]
        .char_indices()
        .rev()
        .find(|&(_, ch)| !(ch.is_alphanumeric() || ch == '.'))
        .map_or(0, |(j, ch)| j + ch.len_utf8());
    let word = slice[word_start..dot].to_lowercase();
    if ABBREVIATIONS.contains(&word.as_str()) {
        return true;
    }
    // A single capital letter: an initial as in "J. R. R. Tolkien".
    let mut chars = slice[word_start..dot].chars();
    if let (Some(first), None) = (chars.next(), chars.next()) {
        if first.is_uppercase() {
            return true;
        }
    }
    // "... etc. and more": the next word starts in lower case.
    let next_word = slice[end..].trim_start();
    next_word.chars().next().is_some_and(|n| n.is_lowercase())
}

/// `c.is_alphabetic()`, with CJK ideographs, Hangul syllables and the
/// common CJK and general punctuation answered before the Unicode table's
/// search: that search was most of the time of a pass over Chinese text
/// (`text_language` on every `chunk`).
#[inline]
pub fn is_letter(c: char) -> bool {
    match c as u32 {
        0..=0x7F => c.is_ascii_alphabetic(),
        0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xAC00..=0xD7A3 => true,
        code if is_common_punctuation(code) => false,
        _ => c.is_alphabetic(),
    }
}

/// `c.is_numeric()` for a char that is no letter (`is_letter(c)` false),
/// fast for CJK text as [`is_letter`] is: `is_letter(c) ||
/// is_digit_not_letter(c)` is `c.is_alphanumeric()`.
#[inline]
pub fn is_digit_not_letter(c: char) -> bool {
    !is_common_punctuation(c as u32) && c.is_numeric()
}

/// General punctuation (quotes, dashes), CJK punctuation (、。《》「」【】)
/// and the fullwidth punctuation of Chinese text (，！？：；（）): neither
/// letters nor digits. (〇 U+3007 and the marks near it are letters.)
#[inline]
fn is_common_punctuation(code: u32) -> bool {
    matches!(code, 0x2000..=0x206F | 0x3000..=0x3004 | 0x3008..=0x3020 | 0xFF01..=0xFF0F | 0xFF1A..=0xFF20)
}

pub fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF | 0xAC00..=0xD7AF
        | 0x3000..=0x303F | 0xFF00..=0xFFEF | 0x20000..=0x2FA1F)
}

/// Share of letters that are CJK, to warn when an English-only model meets Chinese.
pub fn cjk_ratio(text: &str) -> f64 {
    let (mut cjk, mut letters) = (0usize, 0usize);
    for c in text.chars().take(200_000) {
        if is_letter(c) {
            letters += 1;
            if is_cjk(c) {
                cjk += 1;
            }
        }
    }
    if letters == 0 {
        0.0
    } else {
        cjk as f64 / letters as f64
    }
}

/// Push `range` shrunk to exclude leading and trailing whitespace, if anything is left.
pub fn push_trimmed(text: &str, range: Range<usize>, out: &mut dyn RangeSink) {
    let r = trim_range(text, range);
    if !r.is_empty() {
        out.put(r);
    }
}

/// Where a splitter puts the ranges it cuts, in order: a list, or
/// [`EachRange`], a function that sees each range as it is cut (statistics
/// over a large file cut small then hold no list).
pub trait RangeSink {
    fn put(&mut self, range: Range<usize>);
}

impl RangeSink for Vec<Range<usize>> {
    fn put(&mut self, range: Range<usize>) {
        self.push(range);
    }
}

/// A [`RangeSink`] that hands each range to a function.
pub struct EachRange<F: FnMut(Range<usize>)>(pub F);

impl<F: FnMut(Range<usize>)> RangeSink for EachRange<F> {
    fn put(&mut self, range: Range<usize>) {
        (self.0)(range);
    }
}

pub fn trim_range(text: &str, range: Range<usize>) -> Range<usize> {
    let s = &text[range.clone()];
    let start = range.start + (s.len() - s.trim_start().len());
    let end = range.start + s.trim_end().len();
    if end <= start {
        start..start
    } else {
        start..end
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fast_letter_tests_agree_with_unicode_on_every_char() {
        for c in (0..=0x10FFFF).filter_map(char::from_u32) {
            assert_eq!(is_letter(c), c.is_alphabetic(), "{c:?}");
            assert_eq!(is_letter(c) || is_digit_not_letter(c), c.is_alphanumeric(), "{c:?}");
        }
    }

    fn texts(t: &str) -> Vec<&str> {
        sentences(t).into_iter().map(|r| &t[r]).collect()
    }

    #[test]
    fn english_keeps_abbreviations_and_initials() {
        let t = "Dr. Smith arrived, e.g. at noon. He left! Did J. R. R. Tolkien write it? Yes.";
        assert_eq!(
            texts(t),
            ["Dr. Smith arrived, e.g. at noon.", "He left!", "Did J. R. R. Tolkien write it?", "Yes."]
        );
    }

    #[test]
    fn chinese_breaks_without_spaces_and_keeps_closing_quotes() {
        let t = "我们学习Rust。它很快！真的吗？“是的。”他说……然后走了";
        assert_eq!(texts(t), ["我们学习Rust。", "它很快！", "真的吗？", "“是的。”", "他说……", "然后走了"]);
    }

    #[test]
    fn blank_lines_and_markdown_blocks_break_wrapped_prose_does_not() {
        let t = "# Title\nSome text that\nwraps here.\n\n- item one\n- item two\r\n\r\nLast";
        assert_eq!(texts(t), ["# Title", "Some text that\nwraps here.", "- item one", "- item two", "Last"]);
    }

    #[test]
    fn numbers_and_dotted_names_do_not_break() {
        assert_eq!(texts("Pi is 3.14 and std.io works. Next"), ["Pi is 3.14 and std.io works.", "Next"]);
    }
}
