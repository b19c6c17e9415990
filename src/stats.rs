//! Summary numbers over a set of chunks: what `chunktui stats`, the workbench's
//! stats panel and (later) sweeps compare.

use crate::chunk::Chunk;
use serde::Serialize;

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
        if chunks.is_empty() {
            return Stats::default();
        }
        let mut sizes: Vec<usize> = chunks.iter().map(|c| c.size).collect();
        sizes.sort_unstable();
        let pick = |q: f64| sizes[((sizes.len() - 1) as f64 * q).round() as usize];
        let (mut overlap_bytes, mut overlap_chars) = (0, 0);
        for r in crate::chunk::overlaps(chunks) {
            overlap_bytes += r.len();
            overlap_chars += text[r].chars().count();
        }
        Stats {
            count: chunks.len(),
            min: sizes[0],
            mean: sizes.iter().sum::<usize>() as f64 / sizes.len() as f64,
            p50: pick(0.5),
            p95: pick(0.95),
            max: *sizes.last().unwrap(),
            overlap_bytes,
            overlap_chars,
            over_limit: limit.map_or(0, |l| sizes.iter().filter(|&&s| s > l).count()),
            uncovered_chars: uncovered_non_whitespace(chunks, text),
        }
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

/// Non-whitespace chars of `text` outside every chunk range. Chunks that carry
/// rewritten text are treated by their range.
pub fn uncovered_non_whitespace(chunks: &[Chunk], text: &str) -> usize {
    let mut ranges: Vec<_> = chunks.iter().map(|c| c.range.clone()).collect();
    ranges.sort_by_key(|r| r.start);
    let mut covered_to = 0;
    let mut missing = 0;
    let gap = |from: usize, to: usize| text[from..to].chars().filter(|c| !c.is_whitespace()).count();
    for r in ranges {
        if r.start > covered_to {
            missing += gap(covered_to, r.start);
        }
        covered_to = covered_to.max(r.end);
    }
    missing + gap(covered_to.min(text.len()), text.len())
}
