//! Byte-pair merging of one pre-token that is not a token itself:
//! tiktoken's own rule (merge the pair of lowest rank, the leftmost of
//! equals, until no pair is a token), so the same tokens.

use super::table::Table;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Pieces up to this long merge in a small array, scanning it for the
/// lowest rank after every merge (quadratic, and fastest for the words
/// and clauses of prose); longer ones (runs of CJK letters, punctuation,
/// base64) through a heap, in n log n.
const SMALL: usize = 128;
/// Up to this long (most words and CJK chars) the array is a fifth as large
/// to clear.
const SHORT: usize = 24;

/// Calls `each` with the byte length of every token of `piece`, in order.
pub fn merge(table: &Table, piece: &[u8], each: &mut impl FnMut(usize)) {
    if piece.len() < 2 {
        if !piece.is_empty() {
            each(piece.len());
        }
    } else if piece.len() <= SHORT {
        small::<{ SHORT + 1 }>(table, piece, each);
    } else if piece.len() <= SMALL {
        small::<{ SMALL + 1 }>(table, piece, each);
    } else {
        large(table, piece, each);
    }
}

/// `N` is at least one more than `piece.len()`.
fn small<const N: usize>(table: &Table, piece: &[u8], each: &mut impl FnMut(usize)) {
    let rank = |a: u32, b: u32| table.rank(&piece[a as usize..b as usize]).unwrap_or(u32::MAX);
    let n = piece.len();
    // (start of a part, rank of it merged with the next part)
    let mut parts = [(0u32, u32::MAX); N];
    for (i, part) in parts.iter_mut().enumerate().take(n - 1) {
        *part = (i as u32, rank(i as u32, i as u32 + 2));
    }
    parts[n - 1] = (n as u32 - 1, u32::MAX);
    parts[n] = (n as u32, u32::MAX);
    let mut len = n + 1;
    loop {
        let mut min = (u32::MAX, 0);
        for (i, &(_, r)) in parts[..len - 1].iter().enumerate() {
            if r < min.0 {
                min = (r, i);
            }
        }
        if min.0 == u32::MAX {
            break;
        }
        let i = min.1;
        // Parts i and i + 1 become one: the pairs starting at i - 1 and at i
        // now end a part later.
        let after =
            |parts: &[(u32, u32)], i: usize| if i + 3 < len { rank(parts[i].0, parts[i + 3].0) } else { u32::MAX };
        if i > 0 {
            parts[i - 1].1 = after(&parts, i - 1);
        }
        parts[i].1 = after(&parts, i);
        parts.copy_within(i + 2..len, i + 1);
        len -= 1;
    }
    for w in parts[..len].windows(2) {
        each((w[1].0 - w[0].0) as usize);
    }
}

fn large(table: &Table, piece: &[u8], each: &mut impl FnMut(usize)) {
    let n = piece.len();
    // Part k starts at byte k while it lives; next[k] is where the next
    // part starts (n: none), prev[k] the part before.
    let mut next: Vec<u32> = (1..=n as u32).collect();
    let mut prev: Vec<u32> = (0..n as u32).map(|k| k.wrapping_sub(1)).collect();
    let mut alive = vec![true; n];
    let mut pair = vec![u32::MAX; n];
    let rank = |a: usize, b: usize| table.rank(&piece[a..b]).unwrap_or(u32::MAX);
    let mut heap = BinaryHeap::with_capacity(n);
    for (k, pair) in pair.iter_mut().enumerate().take(n - 1) {
        *pair = rank(k, k + 2);
        if *pair != u32::MAX {
            heap.push(Reverse((*pair, k as u32)));
        }
    }
    // The rank of part k merged with the part after it.
    let pair_rank = |next: &[u32], k: usize| {
        let after = next[k] as usize;
        if after >= n {
            return u32::MAX;
        }
        rank(k, next[after] as usize)
    };
    // Lowest rank first, the leftmost of equals: (rank, start) in order.
    while let Some(Reverse((r, k))) = heap.pop() {
        let k = k as usize;
        if !alive[k] || pair[k] != r {
            continue; // merged away, or its pair changed since
        }
        let gone = next[k] as usize;
        alive[gone] = false;
        next[k] = next[gone];
        if (next[k] as usize) < n {
            prev[next[k] as usize] = k as u32;
        }
        pair[k] = pair_rank(&next, k);
        if pair[k] != u32::MAX {
            heap.push(Reverse((pair[k], k as u32)));
        }
        let before = prev[k];
        if before != u32::MAX {
            let before = before as usize;
            pair[before] = pair_rank(&next, before);
            if pair[before] != u32::MAX {
                heap.push(Reverse((pair[before], before as u32)));
            }
        }
    }
    let mut k = 0;
    while k < n {
        each(next[k] as usize - k);
        k = next[k] as usize;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bpe::table::CL100K;

    fn lens(piece: &[u8], f: fn(&Table, &[u8], &mut dyn FnMut(usize))) -> Vec<usize> {
        let mut out = Vec::new();
        f(&CL100K, piece, &mut |n| out.push(n));
        out
    }

    #[test]
    fn the_heap_merges_as_the_scan_does() {
        let texts =
            ["unbelievably", " Antidisestablishmentarianism", "中文没有空格的句子很长", "zzzzzzzzzzzzzzzz", "!?!?..,,"];
        for text in texts {
            let small = lens(text.as_bytes(), |t, p, e| small::<{ SMALL + 1 }>(t, p, &mut |n| e(n)));
            let large = lens(text.as_bytes(), |t, p, e| large(t, p, &mut |n| e(n)));
            assert_eq!(small, large, "{text}");
            assert_eq!(small.iter().sum::<usize>(), text.len());
        }
    }
}
