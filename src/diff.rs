//! Comparing two chunkings of one text: which chunks are the same, and which
//! boundaries were added, removed or moved. What `chunktui diff` reports and
//! the workbench's compare mode marks.
//!
//! A boundary is a position where some chunk starts or ends. Boundaries in
//! both chunkings are anchors; between two anchors, the boundaries only one
//! side has are paired in order: a pair is a boundary that *moved*, the rest
//! were *added* (only in B) or *removed* (only in A). So re-tuning a size
//! that shifts every cut a little reads as "12 moved", not "12 added, 12
//! removed".

use serde::Serialize;
use std::ops::Range;

/// How chunkings A and B of one text differ. Positions are whatever unit
/// the ranges were given in (`chunktui diff` uses code points).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Diff {
    /// Chunks in A and in B.
    pub a_chunks: usize,
    pub b_chunks: usize,
    /// Chunks with the same range in both.
    pub identical: usize,
    /// Boundaries only B has.
    pub added: Vec<usize>,
    /// Boundaries only A has.
    pub removed: Vec<usize>,
    /// Boundaries of A that B has elsewhere: (in A, in B).
    pub moved: Vec<(usize, usize)>,
}

impl Diff {
    /// Whether the chunkings differ at all.
    pub fn changed(&self) -> bool {
        self.identical != self.a_chunks || self.identical != self.b_chunks
    }

    /// One line: "12 vs 14 chunks, 9 identical; boundaries: 3 added, 1 removed, 2 moved".
    pub fn summary(&self) -> String {
        if !self.changed() {
            return format!("{} chunks, all identical", self.a_chunks);
        }
        format!(
            "{} vs {} chunks, {} identical; boundaries: {} added, {} removed, {} moved",
            self.a_chunks,
            self.b_chunks,
            self.identical,
            self.added.len(),
            self.removed.len(),
            self.moved.len()
        )
    }

    /// Every boundary that differs, as it stands in B (added and moved) or
    /// stood in A (removed), sorted: what the workbench marks.
    pub fn changed_positions(&self) -> Vec<usize> {
        let mut all: Vec<usize> = self.added.iter().chain(&self.removed).copied().collect();
        all.extend(self.moved.iter().flat_map(|&(a, b)| [a, b]));
        all.sort_unstable();
        all.dedup();
        all
    }
}

/// Compare chunkings `a` and `b` (ranges in any order, overlapping or not).
pub fn diff(a: &[Range<usize>], b: &[Range<usize>]) -> Diff {
    let mut a_sorted: Vec<&Range<usize>> = a.iter().collect();
    let mut b_sorted: Vec<&Range<usize>> = b.iter().collect();
    let by_position = |r: &&Range<usize>| (r.start, r.end);
    a_sorted.sort_by_key(by_position);
    b_sorted.sort_by_key(by_position);
    let identical = count_common(&a_sorted, &b_sorted);

    let (a_cuts, b_cuts) = (boundaries(a), boundaries(b));
    let mut out = Diff { a_chunks: a.len(), b_chunks: b.len(), identical, ..Diff::default() };
    let (mut i, mut j) = (0, 0);
    // Boundaries of each side since the last anchor.
    let (mut only_a, mut only_b) = (Vec::new(), Vec::new());
    while i < a_cuts.len() || j < b_cuts.len() {
        match (a_cuts.get(i), b_cuts.get(j)) {
            (Some(&x), Some(&y)) if x == y => {
                settle(&mut out, &mut only_a, &mut only_b);
                i += 1;
                j += 1;
            }
            (Some(&x), Some(&y)) if x < y => {
                only_a.push(x);
                i += 1;
            }
            (Some(&x), None) => {
                only_a.push(x);
                i += 1;
            }
            (_, Some(&y)) => {
                only_b.push(y);
                j += 1;
            }
            (None, None) => unreachable!("the loop runs while one side has boundaries"),
        }
    }
    settle(&mut out, &mut only_a, &mut only_b);
    out
}

/// Sorted, distinct chunk starts and ends.
fn boundaries(ranges: &[Range<usize>]) -> Vec<usize> {
    let mut cuts: Vec<usize> = ranges.iter().flat_map(|r| [r.start, r.end]).collect();
    cuts.sort_unstable();
    cuts.dedup();
    cuts
}

/// Ranges present in both sorted lists (each matched once).
fn count_common(a: &[&Range<usize>], b: &[&Range<usize>]) -> usize {
    let (mut i, mut j, mut n) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        match (a[i].start, a[i].end).cmp(&(b[j].start, b[j].end)) {
            std::cmp::Ordering::Equal => {
                n += 1;
                i += 1;
                j += 1;
            }
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
        }
    }
    n
}

/// Pair the one-sided boundaries between two anchors in order (moved); the
/// rest were removed (A's) or added (B's).
fn settle(out: &mut Diff, only_a: &mut Vec<usize>, only_b: &mut Vec<usize>) {
    let pairs = only_a.len().min(only_b.len());
    out.moved.extend(only_a.iter().copied().zip(only_b.iter().copied()));
    out.removed.extend(&only_a[pairs..]);
    out.added.extend(&only_b[pairs..]);
    only_a.clear();
    only_b.clear();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_chunks_are_identical_in_any_order() {
        let a = [0..10, 10..20, 20..25];
        let b = [20..25, 0..10, 10..20];
        let d = diff(&a, &b);
        assert!(!d.changed());
        assert_eq!(d.summary(), "3 chunks, all identical");
        assert_eq!(d.changed_positions(), Vec::<usize>::new());
    }

    #[test]
    fn a_shifted_cut_is_moved_and_an_extra_cut_is_added() {
        // A: [0,10) [10,30)   B: [0,12) [12,20) [20,30)
        let d = diff(&[0..10, 10..30], &[0..12, 12..20, 20..30]);
        assert_eq!(d.identical, 0);
        assert_eq!(d.moved, vec![(10, 12)]);
        assert_eq!(d.added, vec![20]);
        assert!(d.removed.is_empty());
        assert_eq!(d.summary(), "2 vs 3 chunks, 0 identical; boundaries: 1 added, 0 removed, 1 moved");
        assert_eq!(d.changed_positions(), vec![10, 12, 20]);
    }

    #[test]
    fn anchors_keep_pairs_local_and_overlaps_count_their_ends() {
        // A cut removed before the anchor at 50 is not paired with one added after it.
        let d = diff(&[0..20, 20..50, 50..100], &[0..50, 50..70, 70..100]);
        assert_eq!(d.removed, vec![20]);
        assert_eq!(d.added, vec![70]);
        assert!(d.moved.is_empty());
        assert_eq!(d.identical, 0);
        // Overlapping chunks: starts and ends are both boundaries.
        let d = diff(&[0..12, 8..20], &[0..12, 10..20]);
        assert_eq!(d.identical, 1);
        assert_eq!(d.moved, vec![(8, 10)]);
    }

    #[test]
    fn an_empty_side_removes_or_adds_everything() {
        let d = diff(&[0..5, 5..9], &[]);
        assert_eq!(d.removed, vec![0, 5, 9]);
        assert!(d.changed());
        assert!(!diff(&[], &[]).changed());
    }
}
