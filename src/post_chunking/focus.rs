//! The query-aware cut. The config's chunks sit where the strategy put
//! them, before any question; once the question is known, the best passage
//! can be cut around it instead. Every sentence of a retrieved document
//! starts a candidate window of whole sentences, as long as the config's
//! size allows ([`candidates`]); the retriever scores them all for the
//! question, and the best are taken, best first, each sharing at most half
//! of itself with those taken before ([`pick`]). So each window is placed for this
//! question, at sentence granularity, and is never larger than a chunk.

use std::ops::Range;

/// One retrieved document's candidate windows.
pub struct Windows {
    /// The document's index in the collection.
    pub doc: usize,
    /// Byte ranges: one per sentence, starting there.
    pub ranges: Vec<Range<usize>>,
    /// Which sentences each window holds: `first..last + 1`.
    pub sentences: Vec<Range<usize>>,
}

/// The windows of `text`: from each sentence on, as many whole sentences
/// as `fits`; a sentence too large on its own is cut to the size.
pub fn candidates(doc: usize, text: &str, sentences: &[Range<usize>], fits: &dyn Fn(Range<usize>) -> bool) -> Windows {
    let mut ranges = Vec::with_capacity(sentences.len());
    let mut held = Vec::with_capacity(sentences.len());
    let mut end = 0;
    for (i, s) in sentences.iter().enumerate() {
        if !fits(s.clone()) {
            ranges.push(fit_prefix(text, s.clone(), fits));
            held.push(i..i + 1);
            continue;
        }
        end = end.max(i + 1);
        while end < sentences.len() && fits(s.start..sentences[end].end) {
            end += 1;
        }
        ranges.push(s.start..sentences[end - 1].end);
        held.push(i..end);
    }
    Windows { doc, ranges, sentences: held }
}

/// A chosen window: which document, which bytes, its score.
#[derive(Debug, Clone, PartialEq)]
pub struct Window {
    pub doc: usize,
    pub range: Range<usize>,
    pub score: f64,
}

/// How much of a window may lie under windows taken before it (1/2). Like
/// a chunk overlap, it lets the next window finish a passage the first cut
/// off; without it the best passage's neighbours are lost. Chosen on the
/// tuning questions (tests/fixtures/questions/corpus.jsonl over the corpus
/// cut into documents): recall 0.60 with none, 0.72 with a third, 0.75 with
/// a half, 0.70 with 70 %.
const SHARED_AT_MOST: (usize, usize) = (1, 2);

/// The best `k` windows, best first, each sharing at most half of itself
/// with those taken before. `ranked` is
/// the retriever's order over every window of `all` (as one list, in order).
pub fn pick(all: &[&Windows], ranked: &[(usize, f64)], k: usize) -> Vec<Window> {
    let owner: Vec<(usize, usize)> =
        all.iter().enumerate().flat_map(|(d, w)| (0..w.ranges.len()).map(move |i| (d, i))).collect();
    let mut out: Vec<Window> = Vec::new();
    for &(unit, score) in ranked {
        if out.len() == k {
            break;
        }
        let (d, i) = owner[unit];
        let (doc, range) = (all[d].doc, all[d].ranges[i].clone());
        let shared: usize = out
            .iter()
            .filter(|w| w.doc == doc)
            .map(|w| w.range.end.min(range.end).saturating_sub(w.range.start.max(range.start)))
            .sum();
        let clashes = shared * SHARED_AT_MOST.1 > range.len() * SHARED_AT_MOST.0;
        if !clashes {
            out.push(Window { doc, range, score });
        }
    }
    out
}

/// The longest start of `range` that fits (at least one character).
fn fit_prefix(text: &str, range: Range<usize>, fits: &dyn Fn(Range<usize>) -> bool) -> Range<usize> {
    let first_char = text[range.clone()].chars().next().map_or(0, char::len_utf8);
    let (mut good, mut bad) = (range.start + first_char, range.end);
    while bad - good > 1 {
        let mid = crate::size::floor_char_boundary(text, good + (bad - good) / 2);
        if mid <= good {
            break;
        }
        if fits(range.start..mid) {
            good = mid;
        } else {
            bad = mid;
        }
    }
    range.start..good
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_sentence_starts_a_window_of_whole_sentences_within_the_size() {
        let text = "Aa aa. Bb bb. Cc cc. Dd dd.";
        let s = crate::segment::sentences(text);
        let w = candidates(3, text, &s, &|r| r.len() <= 13);
        assert_eq!(w.doc, 3);
        let texts: Vec<&str> = w.ranges.iter().map(|r| &text[r.clone()]).collect();
        assert_eq!(texts, ["Aa aa. Bb bb.", "Bb bb. Cc cc.", "Cc cc. Dd dd.", "Dd dd."]);
        assert_eq!(w.sentences, vec![0..2, 1..3, 2..4, 3..4]);
    }

    #[test]
    fn the_best_windows_are_taken_and_overlapping_ones_skipped() {
        let text = "Aa aa. Bb bb. Cc cc. Dd dd.";
        let s = crate::segment::sentences(text);
        let w = candidates(0, text, &s, &|r| r.len() <= 13);
        // Window 1 best; 2 shares "Cc cc." with it (6 of 13 bytes: taken);
        // 3 lies wholly under 2 (skipped); 0 shares "Bb bb." with 1 (taken).
        let picked = pick(&[&w], &[(1, 4.0), (2, 3.0), (3, 2.5), (0, 2.0)], 4);
        let texts: Vec<&str> = picked.iter().map(|w| &text[w.range.clone()]).collect();
        assert_eq!(texts, ["Bb bb. Cc cc.", "Cc cc. Dd dd.", "Aa aa. Bb bb."]);
    }

    #[test]
    fn a_sentence_too_large_alone_is_cut_on_a_char_boundary() {
        let text = "这是一个非常长的句子没有任何标点符号一直写下去。短句。";
        let s = crate::segment::sentences(text);
        let w = candidates(0, text, &s, &|r: Range<usize>| r.len() <= 10);
        let first = &w.ranges[0];
        assert!(first.len() <= 10 && first.len() >= 7, "{first:?}");
        assert!(text.is_char_boundary(first.end));
        assert_eq!(&text[w.ranges[1].clone()], "短句。");
    }
}
