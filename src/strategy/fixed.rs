//! Fixed-size windows: chunk k starts at unit k·(size − overlap) and holds
//! exactly `size` units (the last one may hold fewer).
//!
//! Characters are cut exactly. Words and tokens are cut at unit starts: a
//! chunk runs from the start of its first unit to the start of the unit after
//! its last (so punctuation between words is kept), minus trailing whitespace.
//! For tokens the chunk is that exact source range: nothing is decoded.

use crate::config::Unit;
use crate::segment::trim_range;
use crate::size::SizeIndex;
use std::ops::Range;

pub fn chunk(text: &str, index: &SizeIndex, unit: Unit, size: usize, overlap: usize) -> Vec<Range<usize>> {
    let stride = size - overlap; // validated: overlap < size
    match (unit, index.spans()) {
        (Unit::Chars, _) | (_, None) => by_chars(text, size, stride),
        (_, Some(spans)) => by_spans(text, spans, size, stride),
    }
}

fn by_chars(text: &str, size: usize, stride: usize) -> Vec<Range<usize>> {
    let total = text.chars().count();
    let mut starts = Vec::with_capacity(total / stride + 1);
    let mut ends = Vec::with_capacity(total / stride + 1);
    let (mut next_start, mut next_end) = (0usize, size);
    for (i, (byte, _)) in text.char_indices().enumerate() {
        if i == next_start && next_start < total {
            starts.push(byte);
            next_start += stride;
        }
        if i == next_end {
            ends.push(byte);
            next_end += stride;
        }
    }
    // A window whose end char is at or past the last one ends at the text end.
    // Windows that start inside the last full window add nothing new: stop at
    // the first window that reaches the end.
    let mut out = Vec::with_capacity(starts.len());
    for (k, &start) in starts.iter().enumerate() {
        let end = ends.get(k).copied().unwrap_or(text.len());
        out.push(start..end);
        if end == text.len() {
            break;
        }
    }
    out
}

fn by_spans(text: &str, spans: &[(u32, u32)], size: usize, stride: usize) -> Vec<Range<usize>> {
    let n = spans.len();
    let mut out = Vec::with_capacity(n / stride + 1);
    let mut first = 0;
    while first < n {
        let last = (first + size).min(n); // one past the last unit
        let start = if first == 0 { 0 } else { spans[first].0 as usize };
        let end = if last == n { text.len() } else { spans[last].0 as usize };
        let r = trim_range(text, start..end);
        if !r.is_empty() {
            out.push(r);
        }
        if last == n {
            break;
        }
        first += stride;
    }
    if out.is_empty() {
        // No units at all (e.g. only punctuation): one chunk of everything.
        let r = trim_range(text, 0..text.len());
        if !r.is_empty() {
            out.push(r);
        }
    }
    out
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
    fn words_keep_punctuation_and_overlap() {
        let text = "One, two three. Four five six!";
        let idx = Sizer::words().index(text).unwrap();
        let got: Vec<_> = chunk(text, &idx, Unit::Words, 3, 1).into_iter().map(|r| &text[r]).collect();
        assert_eq!(got, ["One, two three.", "three. Four five", "five six!"]);
    }
}
