//! The token windows a document longer than the model's input is embedded
//! in (late chunking's whole-document token vectors): overlapping runs, each
//! token's vector taken from the run where it sits furthest from an edge.

use std::ops::Range;

/// One model run over document tokens `range`; its vectors are used for `keep`.
#[derive(Debug, Clone, PartialEq)]
pub struct Window {
    pub range: Range<usize>,
    pub keep: Range<usize>,
}

/// Windows of at most `room` tokens over `n` tokens, overlapping by `overlap`.
/// The `keep` ranges partition `0..n`.
pub fn windows(n: usize, room: usize, overlap: usize) -> Vec<Window> {
    let room = room.max(1);
    let overlap = overlap.min(room - 1);
    if n == 0 {
        return Vec::new();
    }
    let step = room - overlap;
    let mut ranges = Vec::new();
    let mut s = 0;
    loop {
        let e = (s + room).min(n);
        ranges.push(s..e);
        if e == n {
            break;
        }
        s += step;
    }
    let mut out = Vec::with_capacity(ranges.len());
    for (k, r) in ranges.iter().enumerate() {
        let keep_start = if k == 0 { 0 } else { (ranges[k - 1].end + r.start).div_ceil(2) };
        let keep_end = if k + 1 == ranges.len() { n } else { (r.end + ranges[k + 1].start).div_ceil(2) };
        out.push(Window { range: r.clone(), keep: keep_start..keep_end });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_partition_tokens() {
        for (n, room, ov) in [(10, 4, 1), (100, 30, 7), (5, 10, 2), (31, 10, 0), (1, 1, 0)] {
            let w = windows(n, room, ov);
            assert_eq!(w.first().unwrap().keep.start, 0);
            assert_eq!(w.last().unwrap().keep.end, n);
            for pair in w.windows(2) {
                assert_eq!(pair[0].keep.end, pair[1].keep.start);
            }
            for x in &w {
                assert!(x.range.len() <= room);
                assert!(x.range.start <= x.keep.start && x.keep.end <= x.range.end, "{x:?}");
            }
        }
        assert!(windows(0, 10, 2).is_empty());
    }
}
