//! A byte-budget cut at memory speed: each chunk ends at the last delimiter
//! before `size` bytes from its start, else at the budget, and never inside
//! a UTF-8 character (a budget that falls inside one snaps back to the
//! character's start). No overlap, nothing trimmed: the chunks tile the text.
//!
//! The search runs backwards from each budget with memchr's `memrchr` family
//! (or a reverse substring finder for a `pattern`); nothing is allocated per
//! chunk. With ASCII delimiters and on text where no budget falls inside a
//! character, the offsets are those of chonkie's `chunk_offsets` with the same
//! settings; where its budget falls inside a character, ours is that
//! character's start, and the chunks after follow from there.

use super::{Context, OverlapRule, Spec, Strategy};
use crate::chunk::Chunk;
use crate::config::{ChunkConfig, FastOptions, Unit};
use crate::error::{Error, Result};
use memchr::memmem::FinderRev;
use std::ops::Range;

pub const SPEC: Spec = Spec {
    name: "fast",
    help: "byte budgets (--unit bytes) cut at the last delimiter before --size bytes, at memory speed",
    overlap: OverlapRule::None,
    forces_unit: Some(Unit::Bytes),
    options: &["--delimiters", "--pattern", "--prefix"],
    ..Spec::new(|c| Ok(Box::new(Fast { cutter: Cutter::new(&c.fast)?, size: c.size })))
};

/// Where a chunk may end.
pub struct Cutter {
    how: How,
    prefix: bool,
}

enum How {
    /// Delimiter characters: `needles` are the distinct last bytes of their
    /// UTF-8 forms, in groups of at most three (one `memrchr`, `memrchr2` or
    /// `memrchr3` each); `chars` the forms, to check a multi-byte match.
    Chars {
        needles: Vec<Vec<u8>>,
        chars: Vec<Vec<u8>>,
        ascii: bool,
    },
    Pattern {
        finder: FinderRev<'static>,
        len: usize,
    },
    /// No delimiter: every chunk ends at its budget.
    Nothing,
}

impl Cutter {
    pub fn new(o: &FastOptions) -> Result<Cutter> {
        let how = match &o.pattern {
            Some(p) if p.is_empty() => {
                return Err(Error::config("[fast] pattern is empty: give one or more characters, or drop it"))
            }
            Some(p) => How::Pattern { finder: FinderRev::new(p.as_bytes()).into_owned(), len: p.len() },
            None if o.delimiters.is_empty() => How::Nothing,
            None => {
                let mut chars: Vec<Vec<u8>> = Vec::new();
                for c in o.delimiters.chars() {
                    let mut buf = [0u8; 4];
                    let form = c.encode_utf8(&mut buf).as_bytes().to_vec();
                    if !chars.contains(&form) {
                        chars.push(form);
                    }
                }
                let mut last: Vec<u8> = chars.iter().map(|f| f[f.len() - 1]).collect();
                last.sort_unstable();
                last.dedup();
                let ascii = chars.iter().all(|f| f.len() == 1);
                How::Chars { needles: last.chunks(3).map(<[u8]>::to_vec).collect(), chars, ascii }
            }
        };
        Ok(Cutter { how, prefix: o.prefix })
    }

    /// Cut `text` (bytes `size` at most per chunk, but one character longer
    /// than the budget), each chunk's byte range handed to `put` in order.
    pub fn cut(&self, text: &str, size: usize, put: impl FnMut(usize, usize)) {
        self.cut_bytes(text.as_bytes(), size, put)
    }

    /// [`Cutter::cut`] of bytes taken to be UTF-8, unchecked: a chunk never
    /// ends before a continuation byte (`10xxxxxx`), so valid UTF-8 is never
    /// cut inside a character, and invalid bytes are cut all the same.
    pub fn cut_bytes(&self, bytes: &[u8], size: usize, mut put: impl FnMut(usize, usize)) {
        let n = bytes.len();
        let size = size.max(1);
        let mut start = 0;
        while start < n {
            if n - start <= size {
                put(start, n);
                break;
            }
            let limit = start + size;
            // In invalid UTF-8 a continuation byte may follow a delimiter:
            // not a place to end either.
            let at_delimiter = self.last_cut(bytes, start, limit).filter(|&e| e == n || !is_continuation(bytes[e]));
            let end = match at_delimiter {
                Some(end) => end,
                None => {
                    // The budget, snapped back to a character's start.
                    let mut end = limit;
                    while end > start && is_continuation(bytes[end]) {
                        end -= 1;
                    }
                    if end > start {
                        end
                    } else {
                        // A budget smaller than the character: take it whole.
                        let mut end = start + 1;
                        while end < n && is_continuation(bytes[end]) {
                            end += 1;
                        }
                        end
                    }
                }
            };
            put(start, end);
            start = end;
        }
    }

    /// [`Cutter::cut`] as byte ranges.
    pub fn ranges(&self, text: &str, size: usize) -> Vec<Range<usize>> {
        let mut out = Vec::new();
        self.cut(text, size, |s, e| out.push(s..e));
        out
    }

    /// The end of the chunk that starts at `start`, at the last delimiter
    /// lying wholly in `start + 1..limit`.
    fn last_cut(&self, bytes: &[u8], start: usize, limit: usize) -> Option<usize> {
        match &self.how {
            How::Nothing => None,
            How::Pattern { finder, len } => {
                // A pattern at the chunk's start does not end it (as in
                // chonkie); no other lies before.
                let at = start + finder.rfind(&bytes[start..limit])?;
                (at > start).then_some(if self.prefix { at } else { at + len })
            }
            How::Chars { needles, chars, ascii } => {
                // The last match of every group; the best so far bounds the next search.
                let mut best: Option<usize> = None;
                for group in needles {
                    let mut hi = limit;
                    let lo = best.map_or(start, |b| b.max(start));
                    while hi > lo {
                        let window = &bytes[lo..hi];
                        let Some(i) = (match group.len() {
                            1 => memchr::memrchr(group[0], window),
                            2 => memchr::memrchr2(group[0], group[1], window),
                            _ => memchr::memrchr3(group[0], group[1], group[2], window),
                        }) else {
                            break;
                        };
                        let p = lo + i; // the last byte of a delimiter, if one ends here
                        let len = if *ascii { 1 } else { matched(bytes, start, p, chars) };
                        if len > 0 {
                            // A delimiter at the chunk's start does not end it (as in chonkie).
                            let from = p + 1 - len;
                            let cut = if self.prefix { from } else { p + 1 };
                            if from > start && best.is_none_or(|b| cut > b) {
                                best = Some(cut);
                            }
                            break;
                        }
                        hi = p;
                    }
                }
                best
            }
        }
    }
}

fn is_continuation(b: u8) -> bool {
    b & 0xC0 == 0x80
}

/// The length of the delimiter whose form ends at byte `p` and starts at or
/// after `start`, else 0.
fn matched(bytes: &[u8], start: usize, p: usize, chars: &[Vec<u8>]) -> usize {
    for form in chars {
        let len = form.len();
        if p + 1 >= start + len && &bytes[p + 1 - len..=p] == form.as_slice() {
            return len;
        }
    }
    0
}

struct Fast {
    cutter: Cutter,
    size: usize,
}

impl Strategy for Fast {
    fn chunk(&self, text: &str, _cx: &Context<'_>) -> Result<Vec<Chunk>> {
        let mut out = Vec::new();
        self.cutter.cut(text, self.size, |s, e| out.push(Chunk::new(s..e, e - s)));
        Ok(out)
    }

    fn streams(&self) -> bool {
        true
    }

    fn chunk_each(&self, text: &str, _cx: &Context<'_>, emit: &mut dyn FnMut(Chunk)) -> Result<()> {
        self.cutter.cut(text, self.size, |s, e| emit(Chunk::new(s..e, e - s)));
        Ok(())
    }

    fn offsets_into(&self, text: &str, _cx: &Context<'_>, out: &mut Vec<u64>) -> Result<()> {
        self.cutter.cut(text, self.size, |s, e| {
            out.push(s as u64);
            out.push(e as u64);
        });
        Ok(())
    }
}

/// The settings `fast` reads, checked.
pub fn problems(c: &ChunkConfig) -> Vec<String> {
    let mut problems = Vec::new();
    if c.fast.pattern.as_deref() == Some("") {
        problems.push("[fast] pattern is empty: give one or more characters, or drop it".to_string());
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cut(text: &str, size: usize, delimiters: &str, pattern: Option<&str>, prefix: bool) -> Vec<(usize, usize)> {
        let o = FastOptions { delimiters: delimiters.into(), pattern: pattern.map(Into::into), prefix };
        Cutter::new(&o).unwrap().ranges(text, size).into_iter().map(|r| (r.start, r.end)).collect()
    }

    #[test]
    fn ends_at_the_last_delimiter_before_the_budget() {
        let t = "Hello. World. Test.";
        assert_eq!(cut(t, 10, ".", None, false), [(0, 6), (6, 13), (13, 19)]);
        assert_eq!(cut(t, 5, ".", None, false), [(0, 5), (5, 10), (10, 13), (13, 18), (18, 19)]);
        assert_eq!(cut(t, 10, ".", None, true), [(0, 5), (5, 12), (12, 19)]);
        assert_eq!(cut(".abc.def", 4, ".", None, true), [(0, 4), (4, 8)]);
        assert_eq!(cut(".bcdef", 3, ".", None, false), [(0, 3), (3, 6)]);
        assert_eq!(cut("..cdefg", 4, ".", None, false), [(0, 2), (2, 6), (6, 7)]);
        assert_eq!(cut("", 4, ".", None, false), []);
    }

    #[test]
    fn a_pattern_must_lie_wholly_before_the_budget() {
        assert_eq!(cut("aXYbcXYdefXY", 5, "", Some("XY"), false), [(0, 3), (3, 7), (7, 12)]);
        assert_eq!(cut("aXYbcXYdefXY", 3, "", Some("XY"), true), [(0, 1), (1, 4), (4, 5), (5, 8), (8, 11), (11, 12)]);
        assert_eq!(cut("abcXYdefgh", 4, "", Some("XY"), false), [(0, 4), (4, 8), (8, 10)]);
        assert_eq!(cut("XYcdefg", 4, "", Some("XY"), false), [(0, 4), (4, 7)]);
    }

    #[test]
    fn cjk_sentence_ends_and_never_inside_a_character() {
        let t = "中文。句子！好"; // 3 bytes a character
        let d = FastOptions::default().delimiters;
        assert_eq!(cut(t, 10, &d, None, false), [(0, 9), (9, 18), (18, 21)]);
        // No delimiter: the budget (4) snaps back to a character's start.
        assert_eq!(cut("中文字符", 4, "", None, false), [(0, 3), (3, 6), (6, 9), (9, 12)]);
        // A budget smaller than a character takes the character whole.
        assert_eq!(cut("中文", 2, "", None, false), [(0, 3), (3, 6)]);
        // A continuation byte equal to a delimiter's last byte is no delimiter.
        let t = "亂亂亂亂"; // 亂 = e4 ba 82, 。 = e3 80 82
        assert_eq!(cut(t, 7, "。", None, false), [(0, 6), (6, 12)]);
    }
}
