//! Fixed-size windows: chunk k starts at unit k·(size − overlap) and holds
//! exactly `size` units (the last one may hold fewer).
//!
//! Characters are cut exactly. Words and tokens are cut at unit starts: a
//! chunk runs from the start of its first unit to the start of the unit after
//! its last (so punctuation between words is kept), minus trailing whitespace.
//! For tokens the chunk is that exact source range: nothing is decoded.

use super::{ranges_to_chunks, sized, Context, Spec, Strategy};
use crate::chunk::Chunk;
use crate::config::Unit;
use crate::error::Result;
use crate::segment::{push_trimmed, trim_range, EachRange, RangeSink};
use crate::size::SizeIndex;
use std::ops::Range;

pub fn chunk(text: &str, index: &SizeIndex<'_>, unit: Unit, size: usize, overlap: usize) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    chunk_into(text, index, unit, size, overlap, &mut out);
    out
}

/// [`chunk`], each window put in `out` as it closes: nothing is held but
/// the windows still open (at most size / stride of them).
pub fn chunk_into(text: &str, index: &SizeIndex<'_>, unit: Unit, size: usize, overlap: usize, out: &mut dyn RangeSink) {
    let stride = size - overlap; // validated: overlap < size
    match (unit, index.spans()) {
        (Unit::Chars, _) | (_, None) => by_chars(text, size, stride, out),
        (_, Some(spans)) => by_spans(text, spans, size, stride, out),
    }
}

fn by_chars(text: &str, size: usize, stride: usize, out: &mut dyn RangeSink) {
    // Window k holds chars k·stride .. k·stride + size. Starts wait in `open`
    // until their window's end char comes by.
    let mut open = std::collections::VecDeque::new();
    let (mut next_start, mut next_end) = (0usize, size);
    for (i, (byte, _)) in text.char_indices().enumerate() {
        if i == next_start {
            open.push_back(byte);
            next_start += stride;
        }
        if i == next_end {
            let start = open.pop_front().expect("a window's start comes before its end");
            out.put(start..byte);
            next_end += stride;
        }
    }
    // The first window still open reaches the text end; windows that start
    // inside it add nothing new.
    if let Some(start) = open.pop_front() {
        out.put(start..text.len());
    }
}

fn by_spans(text: &str, spans: &[(u32, u32)], size: usize, stride: usize, out: &mut dyn RangeSink) {
    // Byte-level BPE can split one char over several tokens; their spans were
    // snapped outwards to the char, so they overlap. Such a run is one group:
    // a window takes whole groups, so no char is cut and no window goes over
    // `size` (unless one group alone is bigger, e.g. a rare emoji). Groups are
    // found as the windows move (by the token that starts them), not listed:
    // nearly every token is a group of its own.
    let groups = Groups(spans);
    let n = spans.len();
    let mut last: Option<Range<usize>> = None; // the window put last
    let mut g = 0; // first token of the window's first group
    while g < n {
        let last_group = groups.extend(g, size);
        let after = groups.end(last_group); // first token after the window
        let start = if g == 0 { 0 } else { spans[g].0 as usize };
        let end = if after == n { text.len() } else { spans[after].0 as usize };
        let r = trim_range(text, start..end);
        // A window that only adds whitespace trims to what the last one holds.
        if !r.is_empty() && !last.as_ref().is_some_and(|last| last.start <= r.start && r.end <= last.end) {
            out.put(r.clone());
            last = Some(r);
        }
        if after == n {
            break;
        }
        // Next window: the first group at or after token g+stride, but never
        // past the end of this window, and always adding something new.
        let target = g + stride;
        let mut next = groups.end(g);
        while next <= last_group && next < target {
            next = groups.end(next);
        }
        if groups.extend(next, size) <= last_group {
            next = after;
        }
        g = next;
    }
    if last.is_none() {
        // No units at all (e.g. only punctuation): one chunk of everything.
        push_trimmed(text, 0..text.len(), out);
    }
}

/// Runs of tokens whose spans overlap, named by their first token.
struct Groups<'a>(&'a [(u32, u32)]);

impl Groups<'_> {
    /// The token after the group that starts at token `g`.
    fn end(&self, g: usize) -> usize {
        let spans = self.0;
        let mut e = g + 1;
        while e < spans.len() && spans[e].0 < spans[e - 1].1 {
            e += 1;
        }
        e
    }

    /// The first token of the last group of a window starting with the group
    /// at token `g`: whole groups while the window holds at most `size`
    /// tokens (at least one group).
    fn extend(&self, g: usize, size: usize) -> usize {
        let mut h = g;
        loop {
            let next = self.end(h);
            if next >= self.0.len() || self.end(next) - g > size {
                return h;
            }
            h = next;
        }
    }
}

pub const SPEC: Spec = Spec {
    name: "fixed",
    help: "windows of exactly --size units (chars, words or tokens), neighbours sharing --overlap units",
    ..Spec::new(|_| Ok(Box::new(Fixed)))
};

struct Fixed;

impl Strategy for Fixed {
    fn chunk(&self, text: &str, cx: &Context<'_>) -> Result<Vec<Chunk>> {
        let (c, index) = (cx.config, cx.sizer.index(text)?);
        Ok(ranges_to_chunks(chunk(text, &index, c.unit, c.size, c.overlap), &index))
    }

    fn streams(&self) -> bool {
        true
    }

    fn chunk_each(&self, text: &str, cx: &Context<'_>, emit: &mut dyn FnMut(Chunk)) -> Result<()> {
        let (c, index) = (cx.config, cx.sizer.index(text)?);
        chunk_into(text, &index, c.unit, c.size, c.overlap, &mut EachRange(|r| emit(sized(r, &index))));
        Ok(())
    }

    /// Character windows are arithmetic: from the first window that
    /// reaches the screen to the start of the first one past it.
    fn region_around(&self, text: &str, cx: &Context<'_>, screen: Range<usize>) -> Option<Range<usize>> {
        let SizeIndex::Chars(chars) = cx.size_index(text).ok()? else { return None };
        let (size, stride) = (cx.config.size, cx.config.size.checked_sub(cx.config.overlap)?.max(1));
        let (first, last) = (chars.chars_before(screen.start), chars.chars_before(screen.end));
        let from = if first < size { 0 } else { ((first - size) / stride + 1) * stride };
        let to = last.div_ceil(stride).max(1).saturating_mul(stride);
        Some(chars.byte_of_char(from)..chars.byte_of_char(to))
    }

    /// Each range's windows of the whole text's units (words and tokens as
    /// the whole text has them, clipped to the range, not those of the range
    /// read alone): a hierarchical parent's children share at most the
    /// overlap, measured as the whole text measures them.
    fn chunk_within(&self, text: &str, ranges: &[Range<usize>], cx: &Context<'_>) -> Result<Vec<Vec<Chunk>>> {
        let (c, index) = (cx.config, cx.size_index(text)?);
        let stride = c.size - c.overlap; // validated: overlap < size
        let cut = |r: &Range<usize>| {
            let slice = &text[r.clone()];
            let mut out: Vec<Range<usize>> = Vec::new();
            match (c.unit, index.spans()) {
                (Unit::Chars, _) | (_, None) => by_chars(slice, c.size, stride, &mut out),
                (_, Some(spans)) => {
                    let first = spans.partition_point(|s| (s.1 as usize) <= r.start);
                    let local: Vec<(u32, u32)> = spans[first..]
                        .iter()
                        .take_while(|s| (s.0 as usize) < r.end)
                        .map(|s| {
                            let clip = |at: u32| (at as usize).clamp(r.start, r.end) - r.start;
                            (clip(s.0) as u32, clip(s.1) as u32)
                        })
                        .filter(|s| s.0 < s.1)
                        .collect();
                    by_spans(slice, &local, c.size, stride, &mut out)
                }
            }
            out.into_iter().map(|w| sized(w.start + r.start..w.end + r.start, &index)).collect()
        };
        Ok(ranges.iter().map(cut).collect())
    }

    /// The whole cut's windows that start in `region`: window k holds chars
    /// k·stride .. k·stride + size, the first one that reaches the text's
    /// end is the last (see [`by_chars`]).
    fn chunk_region(&self, text: &str, region: Range<usize>, cx: &Context<'_>) -> Result<Vec<Chunk>> {
        let index = cx.size_index(text)?;
        let SizeIndex::Chars(chars) = &index else {
            return Ok(self.chunk_within(text, &[region], cx)?.pop().unwrap_or_default());
        };
        let (size, stride) = (cx.config.size, cx.config.size - cx.config.overlap);
        let total = chars.chars_before(text.len());
        // The first window that reaches the end is the last one.
        let last = total.saturating_sub(size).div_ceil(stride) * stride;
        let mut start = chars.chars_before(region.start).div_ceil(stride) * stride;
        let mut out = Vec::new();
        while start < total && start <= last && chars.byte_of_char(start) < region.end {
            let end = start.saturating_add(size);
            let bytes = chars.byte_of_char(start)..if end < total { chars.byte_of_char(end) } else { text.len() };
            out.push(sized(bytes, &index));
            if end >= total {
                break;
            }
            start += stride;
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::size::Sizer;

    #[test]
    fn chars_start_at_multiples_of_the_stride() {
        let text = "abcdefghij";
        let idx = Sizer::chars().index(text).unwrap();
        let got: Vec<_> = chunk(text, &idx, Unit::Chars, 4, 1).into_iter().map(|r| &text[r]).collect();
        assert_eq!(got, ["abcd", "defg", "ghij"]);
    }

    #[test]
    fn chars_count_code_points_not_bytes() {
        let text = "中文字符🦀好";
        let idx = Sizer::chars().index(text).unwrap();
        let got: Vec<_> = chunk(text, &idx, Unit::Chars, 2, 0).into_iter().map(|r| &text[r]).collect();
        assert_eq!(got, ["中文", "字符", "🦀好"]);
    }

    #[test]
    fn tokens_never_cut_a_char_that_bpe_splits_and_never_repeat() {
        let tok = crate::size::Tokenizer::load("cl100k_base").unwrap();
        for text in ["é强大", "植于", "🦀é", "\t. ", "丏亍", "中文字符的切分🦀测试"] {
            for (size, overlap) in [(2, 0), (2, 1), (3, 1)] {
                let idx = Sizer::tokens(tok.clone()).index(text).unwrap();
                let got = chunk(text, &idx, Unit::Tokens, size, overlap);
                for w in got.windows(2) {
                    assert!(w[0] != w[1] && w[1].end > w[0].end, "{text:?} {size}/{overlap}: {got:?}");
                }
                for r in &got {
                    let graphemes = text[r.clone()].chars().count();
                    assert!(idx.size(r.clone()) <= size || graphemes == 1, "{text:?} {size}/{overlap}: {r:?}");
                }
                let covered: usize = crate::stats::uncovered_non_whitespace(
                    &got.iter().map(|r| crate::chunk::Chunk::new(r.clone(), 0)).collect::<Vec<_>>(),
                    text,
                );
                assert_eq!(covered, 0, "{text:?} {size}/{overlap}: {got:?}");
            }
        }
    }

    #[test]
    fn words_keep_punctuation_and_overlap() {
        let text = "One, two three. Four five six!";
        let idx = Sizer::words().index(text).unwrap();
        let got: Vec<_> = chunk(text, &idx, Unit::Words, 3, 1).into_iter().map(|r| &text[r]).collect();
        assert_eq!(got, ["One, two three.", "three. Four five", "five six!"]);
    }
}
