//! Summary numbers over a set of chunks: what `chunktui stats`, the workbench's
//! stats panel and (later) sweeps compare.

use crate::chunk::Chunk;
use serde::Serialize;
use std::collections::BTreeMap;
use std::ops::Range;

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Stats {
    pub count: usize,
    pub min: usize,
    pub mean: f64,
    pub p50: usize,
    pub p95: usize,
    pub max: usize,
    /// Sum of the overlaps between neighbours, in bytes.
    pub overlap_bytes: usize,
    /// Sum of the overlaps between neighbours, in chars.
    pub overlap_chars: usize,
    /// Chunks larger than the limit they were asked to respect.
    pub over_limit: usize,
    /// Chars of non-whitespace text that no chunk covers.
    pub uncovered_chars: usize,
}

impl Stats {
    pub fn compute(chunks: &[Chunk], text: &str, limit: Option<usize>) -> Stats {
        let mut sizes = StatsBuilder::new(text, limit);
        let mut ordered = true;
        for (i, c) in chunks.iter().enumerate() {
            ordered &= i == 0 || chunks[i - 1].range.start <= c.range.start;
            sizes.add(c);
        }
        let mut stats = sizes.finish();
        if !ordered {
            // The builder counts uncovered text in one pass over ordered chunks.
            stats.uncovered_chars = uncovered_non_whitespace(chunks, text);
        }
        stats
    }

    /// Equal-width histogram of chunk sizes over [0, max].
    pub fn histogram(chunks: &[Chunk], buckets: usize) -> Vec<usize> {
        let max = chunks.iter().map(|c| c.size).max().unwrap_or(0).max(1);
        let mut out = vec![0; buckets.max(1)];
        for c in chunks {
            let b = (c.size * out.len() / (max + 1)).min(out.len() - 1);
            out[b] += 1;
        }
        out
    }
}

/// [`Stats`] of chunks seen one at a time in text order (start never
/// decreasing), as `stats` over a large file cut small sees them: it holds a
/// count per distinct size and the last range, never the chunks.
pub struct StatsBuilder<'t> {
    text: &'t str,
    limit: Option<usize>,
    /// How many chunks have each size.
    sizes: BTreeMap<usize, usize>,
    count: usize,
    total: u128,
    overlap_bytes: usize,
    overlap_chars: usize,
    over_limit: usize,
    previous: Option<Range<usize>>,
    coverage: Coverage<'t>,
}

impl<'t> StatsBuilder<'t> {
    pub fn new(text: &'t str, limit: Option<usize>) -> Self {
        StatsBuilder {
            text,
            limit,
            sizes: BTreeMap::new(),
            count: 0,
            total: 0,
            overlap_bytes: 0,
            overlap_chars: 0,
            over_limit: 0,
            previous: None,
            coverage: Coverage::new(text),
        }
    }

    pub fn add(&mut self, c: &Chunk) {
        let r = &c.range;
        *self.sizes.entry(c.size).or_default() += 1;
        self.count += 1;
        self.total += c.size as u128;
        self.over_limit += usize::from(self.limit.is_some_and(|l| c.size > l));
        if let Some(p) = self.previous.as_ref().filter(|p| p.end > r.start) {
            let shared = r.start..p.end.min(r.end);
            self.overlap_bytes += shared.len();
            self.overlap_chars += self.text.get(shared).map_or(0, |t| t.chars().count());
        }
        self.coverage.add(r);
        self.previous = Some(r.clone());
    }

    pub fn finish(self) -> Stats {
        if self.count == 0 {
            return Stats::default();
        }
        // The size at rank `q` of the sorted sizes, from the counts.
        let pick = |q: f64| {
            let rank = ((self.count - 1) as f64 * q).round() as usize;
            let mut seen = 0;
            for (&size, &n) in &self.sizes {
                seen += n;
                if seen > rank {
                    return size;
                }
            }
            0
        };
        Stats {
            count: self.count,
            min: self.sizes.keys().next().copied().unwrap_or(0),
            mean: self.total as f64 / self.count as f64,
            p50: pick(0.5),
            p95: pick(0.95),
            max: self.sizes.keys().next_back().copied().unwrap_or(0),
            overlap_bytes: self.overlap_bytes,
            overlap_chars: self.overlap_chars,
            over_limit: self.over_limit,
            uncovered_chars: self.coverage.finish(),
        }
    }
}

/// Non-whitespace chars of a text outside ranges seen in text order (start
/// never decreasing), counted in one pass.
pub struct Coverage<'t> {
    text: &'t str,
    covered_to: usize,
    uncovered: usize,
}

impl<'t> Coverage<'t> {
    pub fn new(text: &'t str) -> Self {
        Coverage { text, covered_to: 0, uncovered: 0 }
    }

    pub fn add(&mut self, r: &Range<usize>) {
        if r.start > self.covered_to {
            self.uncovered += non_whitespace(self.text, self.covered_to..r.start);
        }
        self.covered_to = self.covered_to.max(r.end);
    }

    /// The count, the text after the last range included.
    pub fn finish(self) -> usize {
        let end = self.text.len();
        self.uncovered + non_whitespace(self.text, self.covered_to.min(end)..end)
    }
}

fn non_whitespace(text: &str, r: Range<usize>) -> usize {
    text.get(r).map_or(0, count_non_whitespace)
}

/// `s.chars().filter(|c| !c.is_whitespace()).count()`, a block of bytes at a
/// time: a statistics pass over text no chunk covers (LangChain's placement
/// can leave megabytes uncovered) must not cost more than the cut. Every
/// whitespace char outside ASCII starts with one of four lead bytes, so only
/// those are decoded.
pub fn count_non_whitespace(s: &str) -> usize {
    let bytes = s.as_bytes();
    let is_ascii_space = |b: u8| matches!(b, b'\t'..=b'\r' | b' ');
    let mut blocks = bytes.chunks_exact(32);
    let mut spaces = 0;
    for block in &mut blocks {
        spaces += usize::from(block.iter().map(|&b| u8::from(is_ascii_space(b))).sum::<u8>());
    }
    spaces += blocks.remainder().iter().filter(|&&b| is_ascii_space(b)).count();
    // U+0085 and U+00A0 (0xC2), U+1680 (0xE1), U+2000..U+205F (0xE2), U+3000 (0xE3).
    let wide_space = |at: usize| s[at..].chars().next().is_some_and(char::is_whitespace);
    let wide = memchr::memchr3_iter(0xC2, 0xE1, 0xE2, bytes).filter(|&at| wide_space(at)).count()
        + memchr::memchr_iter(0xE3, bytes).filter(|&at| wide_space(at)).count();
    crate::size::count_chars(bytes) - spaces - wide
}

/// Non-whitespace chars of `text` outside every chunk range. Chunks that carry
/// rewritten text are treated by their range.
pub fn uncovered_non_whitespace(chunks: &[Chunk], text: &str) -> usize {
    let mut ranges: Vec<_> = chunks.iter().map(|c| c.range.clone()).collect();
    ranges.sort_by_key(|r| r.start);
    let mut coverage = Coverage::new(text);
    ranges.iter().for_each(|r| coverage.add(r));
    coverage.finish()
}

#[cfg(test)]
mod tests {
    use super::count_non_whitespace;
    use proptest::prelude::*;

    fn naive(s: &str) -> usize {
        s.chars().filter(|c| !c.is_whitespace()).count()
    }

    #[test]
    fn every_unicode_space_is_not_counted() {
        let spaces: String = (0..=0x10FFFFu32).filter_map(char::from_u32).filter(|c| c.is_whitespace()).collect();
        assert_eq!(count_non_whitespace(&spaces), 0);
        let text = format!("中文，{spaces}text。\u{3001}\u{2026}\u{1681}");
        assert_eq!(count_non_whitespace(&text), naive(&text));
    }

    proptest! {
        #[test]
        fn counts_what_chars_filter_counts(s in "[a \t\n\u{85}\u{a0}\u{1680}\u{2000}-\u{2030}\u{205f}\u{3000}-\u{3003}中é]{0,200}") {
            prop_assert_eq!(count_non_whitespace(&s), naive(&s));
        }
    }
}
