//! `CharacterTextSplitter` and `RecursiveCharacterTextSplitter`.
//!
//! Splits are byte ranges into the source; lengths are measured once per split
//! and `_merge_splits` keeps a window over the splits instead of re-joining
//! strings. A merged chunk is built as a `String` only when it is not a
//! verbatim slice (dropped empty splits, a regex pattern used as the joiner).

use super::{bytes_eq, py_strip, py_strip_range, LenFn, Raw};
use crate::config::{ChunkConfig, KeepSeparator, SeparatorSide};
use crate::error::{Error, Result};
use memchr::memmem;
use std::ops::Range;

/// LangChain's `keep_separator`: `True` behaves as `"start"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keep {
    No,
    Start,
    End,
}

impl Keep {
    pub fn from_config(k: Option<KeepSeparator>, default: bool) -> Keep {
        match k {
            None => Keep::from_config(Some(KeepSeparator::Bool(default)), default),
            Some(KeepSeparator::Bool(false)) => Keep::No,
            Some(KeepSeparator::Bool(true)) | Some(KeepSeparator::Side(SeparatorSide::Start)) => Keep::Start,
            Some(KeepSeparator::Side(SeparatorSide::End)) => Keep::End,
        }
    }
}

enum Matcher {
    /// `""`: `list(text)`.
    Empty,
    Literal(memmem::Finder<'static>),
    Regex { re: fancy_regex::Regex, groups: bool },
}

/// One separator: the raw string LangChain joins with, and how it matches.
pub struct Sep {
    pub raw: String,
    matcher: Matcher,
}

impl Sep {
    pub fn new(raw: &str, is_regex: bool) -> Result<Sep> {
        let matcher = if raw.is_empty() {
            Matcher::Empty
        } else if is_regex {
            let re = fancy_regex::Regex::new(raw)
                .map_err(|e| Error::config(format!("separator regex '{raw}' does not compile: {e}")))?;
            let groups = re.captures_len() > 1;
            Matcher::Regex { re, groups }
        } else {
            Matcher::Literal(memmem::Finder::new(raw.as_bytes()).into_owned())
        };
        Ok(Sep { raw: raw.to_string(), matcher })
    }

    /// `re.search(separator, s)`.
    fn is_match(&self, s: &str) -> Result<bool> {
        Ok(match &self.matcher {
            Matcher::Empty => true,
            Matcher::Literal(f) => f.find(s.as_bytes()).is_some(),
            Matcher::Regex { re, .. } => re.is_match(s).map_err(regex_error)?,
        })
    }

    /// Python `re.split` match positions in `s` (relative), plus, for a
    /// pattern with capture groups, the spans of the groups that matched.
    fn matches(&self, s: &str, found: &mut Vec<(usize, usize)>, groups: &mut Vec<Vec<Range<usize>>>) -> Result<()> {
        match &self.matcher {
            Matcher::Empty => {}
            Matcher::Literal(f) => {
                let n = f.needle().len();
                found.extend(f.find_iter(s.as_bytes()).map(|at| (at, at + n)));
            }
            Matcher::Regex { re, groups: has_groups } => {
                // CPython's split loop: search from the end of the last match;
                // after an empty match the next one must not be empty at the
                // same place (an empty match right after a non-empty one is
                // allowed, unlike Rust's iterators).
                let mut pos = 0;
                let mut must_advance = false;
                while pos <= s.len() {
                    let mut at = pos;
                    let m = loop {
                        let caps = if *has_groups {
                            re.captures_from_pos(s, at).map_err(regex_error)?
                        } else {
                            None
                        };
                        let m = match &caps {
                            Some(c) => c.get(0).map(|m| (m.start(), m.end())),
                            None if *has_groups => None,
                            None => re.find_from_pos(s, at).map_err(regex_error)?.map(|m| (m.start(), m.end())),
                        };
                        match m {
                            Some((a, b)) if must_advance && a == pos && b == pos => {
                                if at >= s.len() {
                                    break None;
                                }
                                at += s[at..].chars().next().map_or(1, char::len_utf8);
                            }
                            Some(m) => {
                                if let Some(c) = caps {
                                    groups.push(
                                        (1..c.len()).filter_map(|i| c.get(i)).map(|g| g.start()..g.end()).collect(),
                                    );
                                }
                                break Some(m);
                            }
                            None => break None,
                        }
                    };
                    let Some((a, b)) = m else { break };
                    found.push((a, b));
                    must_advance = a == b;
                    pos = b;
                }
            }
        }
        Ok(())
    }

    fn has_groups(&self) -> bool {
        matches!(self.matcher, Matcher::Regex { groups: true, .. })
    }
}

fn regex_error(e: fancy_regex::Error) -> Error {
    Error::input(format!("separator regex failed on this text: {e}"))
}

/// `_split_text_with_regex(text[seg], separator, keep_separator)`: non-empty
/// splits as absolute byte ranges.
pub fn split_with_regex(text: &str, seg: Range<usize>, sep: &Sep, keep: Keep, out: &mut Vec<Range<usize>>) -> Result<()> {
    let s = &text[seg.clone()];
    let base = seg.start;
    if let Matcher::Empty = sep.matcher {
        out.extend(s.char_indices().map(|(i, c)| base + i..base + i + c.len_utf8()));
        return Ok(());
    }
    if keep != Keep::No && sep.has_groups() {
        return Err(Error::config(format!(
            "separator regex '{}' has capture groups: with keep_separator LangChain pairs the group texts \
             into its splits (or raises); use non-capturing groups (?:...)",
            sep.raw
        )));
    }
    let mut found = Vec::new();
    let mut groups = Vec::new();
    sep.matches(s, &mut found, &mut groups)?;
    let mut push = |r: Range<usize>| {
        if r.start < r.end {
            out.push(base + r.start..base + r.end);
        }
    };
    match keep {
        Keep::No => {
            let mut prev = 0;
            for (i, &(a, b)) in found.iter().enumerate() {
                push(prev..a);
                if let Some(g) = groups.get(i) {
                    for r in g {
                        push(r.clone());
                    }
                }
                prev = b;
            }
            push(prev..s.len());
        }
        Keep::Start => {
            let first = found.first().map_or(s.len(), |m| m.0);
            push(0..first);
            for (i, &(a, _)) in found.iter().enumerate() {
                let end = found.get(i + 1).map_or(s.len(), |m| m.0);
                push(a..end);
            }
        }
        Keep::End => {
            let mut prev = 0;
            for &(_, b) in &found {
                push(prev..b);
                prev = b;
            }
            push(prev..s.len());
        }
    }
    Ok(())
}

/// Settings `_merge_splits` needs.
struct Merge<'a> {
    text: &'a str,
    size: usize,
    overlap: usize,
    strip: bool,
}

impl Merge<'_> {
    /// `_merge_splits(splits, separator)` with `lens[i] = length_function(splits[i])`.
    fn merge(&self, splits: &[Range<usize>], lens: &[usize], sep: &str, sep_len: usize, out: &mut Vec<Raw>) {
        let (size, overlap) = (self.size as i64, self.overlap as i64);
        let sep_len = sep_len as i64;
        let mut lo = 0usize;
        let mut total: i64 = 0;
        for hi in 0..splits.len() {
            let len = lens[hi] as i64;
            let sep_if = |n: usize| if n > 0 { sep_len } else { 0 };
            if total + len + sep_if(hi - lo) > size {
                // (LangChain logs a warning here when total > chunk_size.)
                if hi > lo {
                    self.join(&splits[lo..hi], sep, out);
                    while lo < hi && (total > overlap || (total + len + sep_if(hi - lo) > size && total > 0)) {
                        total -= lens[lo] as i64 + if hi - lo > 1 { sep_len } else { 0 };
                        lo += 1;
                    }
                }
            }
            total += len + if hi + 1 - lo > 1 { sep_len } else { 0 };
        }
        self.join(&splits[lo..], sep, out);
    }

    /// `_join_docs`: `separator.join(docs)`, stripped, dropped when empty.
    fn join(&self, docs: &[Range<usize>], sep: &str, out: &mut Vec<Raw>) {
        let (Some(first), Some(last)) = (docs.first(), docs.last()) else { return };
        let text = self.text;
        let span = first.start..last.end;
        let verbatim = docs.windows(2).all(|w| bytes_eq(&text.as_bytes()[w[0].end..w[1].start], sep.as_bytes()));
        if verbatim {
            let r = if self.strip { py_strip_range(text, span) } else { span };
            if !r.is_empty() {
                out.push(Raw::slice(r));
            }
            return;
        }
        let mut joined = String::with_capacity(span.len() + docs.len() * sep.len());
        for (i, d) in docs.iter().enumerate() {
            if i > 0 {
                joined.push_str(sep);
            }
            joined.push_str(&text[d.clone()]);
        }
        let natural = if self.strip { py_strip_range(text, span) } else { span };
        if self.strip {
            let s = py_strip(&joined);
            if s.len() != joined.len() {
                joined = s.to_string();
            }
        }
        if !joined.is_empty() {
            out.push(Raw::owned(joined, natural));
        }
    }
}

fn measure(text: &str, splits: &[Range<usize>], len: &LenFn, lens: &mut Vec<usize>) {
    lens.clear();
    lens.extend(splits.iter().map(|r| len.len(&text[r.clone()])));
}

/// `CharacterTextSplitter.split_text`.
pub fn character(text: &str, cfg: &ChunkConfig, len: &LenFn) -> Result<Vec<Raw>> {
    let lc = &cfg.langchain;
    let keep = Keep::from_config(lc.keep_separator, false);
    let sep = Sep::new(&lc.separator, lc.is_separator_regex)?;
    let mut splits = Vec::new();
    split_with_regex(text, 0..text.len(), &sep, keep, &mut splits)?;
    let lookaround = lc.is_separator_regex
        && ["(?=", "(?<!", "(?<=", "(?!"].iter().any(|p| lc.separator.starts_with(p));
    let merge_sep = if keep != Keep::No || lookaround { "" } else { lc.separator.as_str() };
    let mut lens = Vec::new();
    measure(text, &splits, len, &mut lens);
    let m = Merge { text, size: cfg.size, overlap: cfg.overlap, strip: lc.strip_whitespace };
    let mut out = Vec::new();
    m.merge(&splits, &lens, merge_sep, len.len(merge_sep), &mut out);
    Ok(out)
}

/// LangChain's default separators for `RecursiveCharacterTextSplitter`.
pub const DEFAULT_SEPARATORS: [&str; 4] = ["\n\n", "\n", " ", ""];

/// `RecursiveCharacterTextSplitter.split_text`.
pub fn recursive(text: &str, cfg: &ChunkConfig, len: &LenFn) -> Result<Vec<Raw>> {
    let lc = &cfg.langchain;
    // `separators or [...]`: an empty list means the defaults too.
    let raws: Vec<&str> = match &lc.separators {
        Some(s) if !s.is_empty() => s.iter().map(String::as_str).collect(),
        _ => DEFAULT_SEPARATORS.to_vec(),
    };
    let seps = raws.iter().map(|s| Sep::new(s, lc.is_separator_regex)).collect::<Result<Vec<_>>>()?;
    let sep_lens: Vec<usize> = seps.iter().map(|s| len.len(&s.raw)).collect();
    let rec = Recursive {
        merge: Merge { text, size: cfg.size, overlap: cfg.overlap, strip: lc.strip_whitespace },
        seps: &seps,
        sep_lens: &sep_lens,
        keep: Keep::from_config(lc.keep_separator, true),
        len,
    };
    let mut out = Vec::new();
    rec.split(0..text.len(), 0, &mut out)?;
    Ok(out)
}

struct Recursive<'a> {
    merge: Merge<'a>,
    seps: &'a [Sep],
    sep_lens: &'a [usize],
    keep: Keep,
    len: &'a LenFn<'a>,
}

impl Recursive<'_> {
    /// `_split_text(text[seg], separators[from..])`.
    fn split(&self, seg: Range<usize>, from: usize, out: &mut Vec<Raw>) -> Result<()> {
        let text = self.merge.text;
        let s = &text[seg.clone()];
        // The first separator that occurs anywhere in the segment (or "").
        let mut chosen = self.seps.len() - 1;
        let mut next = None;
        for i in from..self.seps.len() {
            let sep = &self.seps[i];
            if sep.raw.is_empty() {
                chosen = i;
                break;
            }
            if sep.is_match(s)? {
                chosen = i;
                next = (i + 1 < self.seps.len()).then_some(i + 1);
                break;
            }
        }
        let sep = &self.seps[chosen];
        let mut splits = Vec::new();
        split_with_regex(text, seg, sep, self.keep, &mut splits)?;
        let mut lens = Vec::new();
        measure(text, &splits, self.len, &mut lens);
        let (merge_sep, merge_sep_len) =
            if self.keep != Keep::No { ("", 0) } else { (sep.raw.as_str(), self.sep_lens[chosen]) };
        let merge_sep_len = if merge_sep.is_empty() { self.len.len("") } else { merge_sep_len };
        let size = self.merge.size;
        let mut good = 0;
        for i in 0..splits.len() {
            if lens[i] < size {
                continue;
            }
            if good < i {
                self.merge.merge(&splits[good..i], &lens[good..i], merge_sep, merge_sep_len, out);
            }
            match next {
                // Appended as is: not stripped.
                None => out.push(Raw::slice(splits[i].clone())),
                Some(n) => self.split(splits[i].clone(), n, out)?,
            }
            good = i + 1;
        }
        if good < splits.len() {
            self.merge.merge(&splits[good..], &lens[good..], merge_sep, merge_sep_len, out);
        }
        Ok(())
    }
}
