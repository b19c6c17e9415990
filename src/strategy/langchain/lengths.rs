//! Lengths of a document's splits kept from one cut to the next.
//!
//! The workbench cuts the same document again on every key press. Measured
//! in tokens, every split's count runs the tokenizer's pre-split regex over
//! it again, which costs far more than the cut itself; and a new size
//! splits the text mostly where the last one did. So the lengths of the
//! splits measured in words or tokens are kept per document (in
//! [`doc_cache`]) as a list sorted by range. A cut asks for its splits
//! nearly in text order, so each lookup gallops from where the last one
//! landed: a step or two in a list a hash table would scatter over memory.

use crate::size::doc_cache;
use std::cell::{Cell, RefCell};
use std::sync::{Arc, Mutex};

/// (start, end, length) of measured ranges, sorted by (start, end).
type Sorted = Vec<(usize, usize, usize)>;

/// Ranges remembered per document before the list starts over (24 MB).
const REMEMBERED: usize = 1 << 20;

/// One cut's view of a document's remembered lengths: taken from the cache
/// when the cut starts, put back with what it measured when it ends, so no
/// lock is taken per split. A cut of the same document on another thread
/// meanwhile finds the list empty and measures afresh.
pub struct Remembered {
    shared: Arc<Mutex<Sorted>>,
    known: Sorted,
    /// Where the last lookup landed in `known`.
    finger: Cell<usize>,
    /// Measured in this cut, not known before.
    fresh: RefCell<Sorted>,
}

impl Remembered {
    /// The lengths kept for `text` measured by `what` (the unit and
    /// tokenizer), None when the cache cannot hold them.
    pub fn of(what: &str, text: &str) -> Option<Remembered> {
        let shared =
            doc_cache::get_or_build(&format!("langchain lengths {what}"), text, || Ok(Mutex::new(Sorted::new())))
                .ok()?;
        let known = std::mem::take(&mut *shared.lock().unwrap_or_else(|e| e.into_inner()));
        Some(Remembered { shared, known, finger: Cell::new(0), fresh: RefCell::new(Vec::new()) })
    }

    /// The length of `start..end` measured before, or `measure()` it now.
    pub fn get_or(&self, start: usize, end: usize, measure: impl FnOnce() -> usize) -> usize {
        let at = gallop(&self.known, self.finger.get(), (start, end));
        self.finger.set(at);
        match self.known.get(at) {
            Some(&(s, e, n)) if (s, e) == (start, end) => n,
            _ => {
                let n = measure();
                self.fresh.borrow_mut().push((start, end, n));
                n
            }
        }
    }
}

impl Drop for Remembered {
    fn drop(&mut self) {
        let mut fresh = std::mem::take(self.fresh.get_mut());
        let known = std::mem::take(&mut self.known);
        let all = if fresh.is_empty() {
            known
        } else {
            fresh.sort_unstable();
            fresh.dedup_by_key(|e| (e.0, e.1));
            if known.len() + fresh.len() > REMEMBERED {
                fresh
            } else {
                merge(known, fresh)
            }
        };
        *self.shared.lock().unwrap_or_else(|e| e.into_inner()) = all;
    }
}

/// Two sorted lists with no range in both, as one.
fn merge(a: Sorted, b: Sorted) -> Sorted {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut a, mut b) = (a.into_iter().peekable(), b.into_iter().peekable());
    loop {
        let next = match (a.peek(), b.peek()) {
            (Some(x), Some(y)) if (x.0, x.1) <= (y.0, y.1) => a.next(),
            (Some(_), Some(_)) => b.next(),
            (Some(_), None) => a.next(),
            (None, Some(_)) => b.next(),
            (None, None) => break,
        };
        out.extend(next);
    }
    out
}

/// The index of the first entry of `v` not before `key`, searched outwards
/// from `from`: doubling steps, then a binary search between the last two.
fn gallop(v: &Sorted, from: usize, key: (usize, usize)) -> usize {
    let at = |j: usize| (v[j].0, v[j].1);
    let from = from.min(v.len());
    let (lo, hi) = if from < v.len() && at(from) < key {
        // The answer is past `from`.
        let (mut lo, mut step) = (from + 1, 1);
        loop {
            let probe = from + step;
            if probe >= v.len() {
                break (lo, v.len());
            }
            if at(probe) >= key {
                break (lo, probe);
            }
            lo = probe + 1;
            step *= 2;
        }
    } else {
        // The answer is at `from` or before it.
        let (mut hi, mut step) = (from, 1);
        loop {
            if step > from {
                break (0, hi);
            }
            let probe = from - step;
            if at(probe) < key {
                break (probe + 1, hi);
            }
            hi = probe;
            step *= 2;
        }
    };
    lo + v[lo..hi].partition_point(|e| (e.0, e.1) < key)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gallop_finds_the_first_entry_not_before_the_key_from_anywhere() {
        let v: Sorted =
            [(0, 3), (0, 5), (2, 4), (7, 9), (7, 12), (20, 21), (30, 40)].iter().map(|&(s, e)| (s, e, s + e)).collect();
        let keys = [(0, 0), (0, 3), (0, 4), (1, 1), (2, 4), (7, 10), (7, 12), (25, 0), (30, 40), (31, 0)];
        for key in keys {
            let want = v.partition_point(|e| (e.0, e.1) < key);
            for from in 0..=v.len() + 2 {
                assert_eq!(gallop(&v, from, key), want, "key {key:?} from {from}");
            }
        }
        assert_eq!(gallop(&Vec::new(), 3, (1, 2)), 0);
    }

    #[test]
    fn lengths_measured_once_are_found_by_the_next_cut() {
        let text = "a".repeat(100 * 1024); // large enough for the document cache
        let measured = Cell::new(0);
        let measure = |n: usize| {
            measured.set(measured.get() + 1);
            n
        };
        {
            let first = Remembered::of("test", &text).unwrap();
            for (s, e) in [(10, 20), (0, 5), (10, 15), (30, 31)] {
                assert_eq!(first.get_or(s, e, || measure(e - s)), e - s);
            }
            assert_eq!(first.get_or(0, 5, || measure(99)), 99, "a cut measures its own ranges afresh");
        }
        assert_eq!(measured.get(), 5);
        let second = Remembered::of("test", &text).unwrap();
        for (s, e) in [(0, 5), (10, 15), (10, 20), (30, 31)] {
            assert_eq!(second.get_or(s, e, || measure(0)), e - s, "{s}..{e}");
        }
        assert_eq!(measured.get(), 5, "nothing measured twice across cuts");
        assert_eq!(second.get_or(40, 50, || measure(10)), 10);
        drop(second);
        let third = Remembered::of("test", &text).unwrap();
        assert_eq!(third.get_or(40, 50, || measure(0)), 10);
        let other = Remembered::of("other unit", &text).unwrap();
        assert_eq!(other.get_or(40, 50, || measure(7)), 7, "kept per unit and tokenizer");
    }
}
