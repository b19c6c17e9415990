//! `text.find(chunk, from)`, the way LangChain's placement asks it, fast.
//! Most chunks lie a short way after `from` (a window scan). But after a
//! search that failed (a token window that cut a character is nowhere in
//! the text), LangChain's next search starts near the text's start, and so
//! does every one after it: a scan of megabytes per chunk. There an anchor
//! gram index of the text, built once per text and kept across key
//! presses, finds the first occurrence with one lookup, without reading the
//! text between.

use crate::size::doc_cache;
use std::sync::Arc;

/// Searches spanning this many bytes or more ask the gram index.
const FAR: usize = 64 * 1024;

/// `text.find(needle, from_byte)` in bytes. `natural` is where the needle is
/// known to occur verbatim (a slice chunk): when it lies a short way after
/// `from_byte`, scan that window with memchr instead of building a full
/// substring searcher for every chunk. A search over a long stretch asks
/// the text's gram index (`grams`, built on first need).
pub(super) fn find_from(
    text: &str,
    needle: &str,
    from_byte: usize,
    natural: Option<usize>,
    grams: &mut Option<Arc<GramIndex>>,
) -> Option<usize> {
    let (hay, pat) = (text.as_bytes(), needle.as_bytes());
    let first = *pat.first()?;
    if let Some(nat) = natural.filter(|&n| n >= from_byte && n - from_byte <= 8192) {
        let mut at = from_byte;
        while let Some(i) = memchr::memchr(first, &hay[at..=nat]) {
            let p = at + i;
            if bytes_eq(&hay[p..(p + pat.len()).min(hay.len())], pat) {
                return Some(p);
            }
            at = p + 1;
        }
        unreachable!("the needle occurs at its natural position");
    }
    // Known to occur at `natural`: no need to look further than that.
    let end = natural.filter(|&n| n >= from_byte).map_or(hay.len(), |n| n + pat.len());
    if end - from_byte >= FAR && pat.len() >= GramIndex::MIN_NEEDLE && hay.len() <= u32::MAX as usize {
        let index = grams.get_or_insert_with(|| GramIndex::of(text));
        if let Some(found) = index.find(hay, pat, from_byte, end) {
            return found;
        }
    }
    find_long(&hay[from_byte..end], pat).map(|at| from_byte + at)
}

/// `memmem::find`, for needles that may be long (LangChain chunks are
/// kilobytes): building a two-way searcher costs time proportional to the
/// needle, once per chunk. Search for a short prefix and check the rest; a
/// prefix that keeps matching (repetitive text) hands over to the two-way
/// search, which stays linear.
fn find_long(hay: &[u8], pat: &[u8]) -> Option<usize> {
    const PREFIX: usize = 32;
    const TRIES: usize = 16;
    if pat.len() <= PREFIX {
        return memchr::memmem::find(hay, pat);
    }
    let finder = memchr::memmem::Finder::new(&pat[..PREFIX]);
    let last = hay.len().checked_sub(pat.len())?;
    let mut at = 0;
    for _ in 0..TRIES {
        if at > last {
            return None;
        }
        let p = at + finder.find(&hay[at..=last + PREFIX - 1])?;
        if hay[p + PREFIX..p + pat.len()] == pat[PREFIX..] {
            return Some(p);
        }
        at = p + 1;
    }
    memchr::memmem::find(&hay[at..], pat).map(|p| at + p)
}

/// Slice equality that settles short or early-differing slices without a
/// `memcmp` call (most candidates differ in their first bytes).
#[inline]
pub(crate) fn bytes_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    if a.len() < 8 {
        // A separator between two splits: no call for a byte or two.
        return a.iter().zip(b).all(|(x, y)| x == y);
    }
    let word = |s: &[u8]| u64::from_ne_bytes(s[..8].try_into().expect("8 bytes"));
    word(a) == word(b) && a[8..] == b[8..]
}

/// Where a text's anchor grams occur. An anchor is the 8-byte gram of least
/// key in a window of `WINDOW` consecutive grams (the last one on ties),
/// chosen by content alone (winnowing): every window of the text names its
/// anchor, so wherever a needle of at least [`GramIndex::MIN_NEEDLE`] bytes
/// occurs, the anchor of its first window sits at the same offset into it,
/// and one lookup of that gram's positions names every place it can start.
/// Anchors come about once every 8 bytes; in a run of one repeated gram
/// every position is one, and past a quarter of the text's bytes the index
/// gives up (searches then scan).
pub(super) struct GramIndex {
    /// (key, position) of every anchor, sorted.
    entries: Vec<(u32, u32)>,
    /// Where the keys with each value of their top `bits` bits start in
    /// `entries` (and, last, `entries.len()`): a lookup reads one small
    /// bucket instead of binary-searching megabytes.
    buckets: Vec<u32>,
    bits: u32,
    /// Too many anchors (repetitive text): every search scans.
    gave_up: bool,
}

const WINDOW: usize = 16;
const GRAM: usize = 8;

fn key_of(gram: &[u8]) -> u32 {
    let g = u64::from_le_bytes(gram[..GRAM].try_into().expect("a gram is 8 bytes"));
    (g.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32) as u32
}

impl GramIndex {
    /// Needles shorter than this hold no whole window: they are scanned for.
    pub const MIN_NEEDLE: usize = WINDOW - 1 + GRAM;

    /// Candidates checked per search before scanning is cheaper: a few
    /// thousand, plus one per 64 bytes of the stretch searched.
    const BUDGET: usize = 4096;

    fn new(hay: &[u8]) -> Self {
        let grams = hay.len().saturating_sub(GRAM - 1);
        let most = hay.len() / 4;
        let mut entries: Vec<(u32, u32)> = Vec::with_capacity(grams / 6);
        // The window's candidates for its least key, keys increasing from
        // the front: a gram with a key no greater than the back's outlives it.
        let mut least: std::collections::VecDeque<(u32, u32)> = std::collections::VecDeque::with_capacity(WINDOW);
        let mut gave_up = false;
        for i in 0..grams {
            let key = key_of(&hay[i..i + GRAM]);
            while least.back().is_some_and(|&(k, _)| k >= key) {
                least.pop_back();
            }
            least.push_back((key, i as u32));
            if i + 1 < WINDOW {
                continue;
            }
            while least.front().is_some_and(|&(_, p)| (p as usize) + WINDOW <= i) {
                least.pop_front();
            }
            let anchor = *least.front().expect("the window's last gram is in it");
            if entries.last().is_none_or(|&(_, p)| p != anchor.1) {
                if entries.len() == most {
                    gave_up = true;
                    entries = Vec::new();
                    break;
                }
                entries.push(anchor);
            }
        }
        entries.sort_unstable();
        // About four entries per bucket.
        let bits = (usize::BITS - (entries.len() / 4).max(1).leading_zeros()).min(24);
        let mut buckets = Vec::with_capacity((1 << bits) + 1);
        let mut at = 0;
        for b in 0..1u64 << bits {
            while at < entries.len() && u64::from(entries[at].0 >> (32 - bits)) < b {
                at += 1;
            }
            buckets.push(at as u32);
        }
        buckets.push(entries.len() as u32);
        GramIndex { entries, buckets, bits, gave_up }
    }

    /// The index of `text`, from the document cache (a key press re-places
    /// the same document's chunks).
    fn of(text: &str) -> Arc<GramIndex> {
        doc_cache::get_or_build("langchain gram index", text, || Ok(GramIndex::new(text.as_bytes())))
            .unwrap_or_else(|_| Arc::new(GramIndex::new(text.as_bytes())))
    }

    /// The first occurrence of `pat` (at least [`GramIndex::MIN_NEEDLE`]
    /// bytes) starting at or after `from` and ending by `end`; None when
    /// its anchor is too common to be worth it (scan instead).
    fn find(&self, hay: &[u8], pat: &[u8], from: usize, end: usize) -> Option<Option<usize>> {
        debug_assert!(pat.len() >= Self::MIN_NEEDLE);
        if self.gave_up {
            return None;
        }
        let Some(last) = end.checked_sub(pat.len()).filter(|&l| l >= from) else { return Some(None) };
        // The anchor of the needle's first window: the last of its least keys.
        let (key, m) =
            (0..WINDOW).map(|j| (key_of(&pat[j..]), j)).fold(
                (u32::MAX, 0),
                |best, (k, j)| {
                    if k <= best.0 {
                        (k, j)
                    } else {
                        best
                    }
                },
            );
        let mut budget = Self::BUDGET + (last - from) / 64;
        let b = (key >> (32 - self.bits)) as usize;
        let (lo, up) = (self.buckets[b] as usize, self.buckets[b + 1] as usize);
        let start = lo + self.entries[lo..up].partition_point(|&(k, p)| (k, p as usize) < (key, from + m));
        for &(k, p) in &self.entries[start..] {
            if k != key || p as usize > last + m {
                break;
            }
            budget = budget.checked_sub(1)?;
            let q = p as usize - m;
            if bytes_eq(&hay[q..q + pat.len()], pat) {
                return Some(Some(q));
            }
        }
        Some(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn find_long_finds_the_first_occurrence_like_memmem() {
        let hay = format!("{}{}", "ab".repeat(40), "abc".repeat(30)).into_bytes();
        for len in [1, 31, 32, 33, 40, 64, 90] {
            for start in (0..hay.len() - len).step_by(7) {
                let pat = &hay[start..start + len];
                for from in [0, 1, 5, start / 2] {
                    assert_eq!(
                        find_long(&hay[from..], pat),
                        memchr::memmem::find(&hay[from..], pat),
                        "{len} {start} {from}"
                    );
                }
            }
        }
        assert_eq!(find_long(b"short", &[b'x'; 40]), None);
        let hay = format!("{}b", "a".repeat(500));
        assert_eq!(find_long(hay.as_bytes(), format!("{}b", "a".repeat(40)).as_bytes()), Some(460));
    }

    /// Texts of few letters repeat every gram: many candidates per search.
    fn repetitive() -> impl Strategy<Value = Vec<u8>> {
        proptest::collection::vec(proptest::sample::select(b"ab \n\xe4".to_vec()), 0..3000)
    }

    /// Text of many letters: anchors are sparse and every search is answered.
    fn varied() -> impl Strategy<Value = Vec<u8>> {
        proptest::collection::vec(proptest::sample::select(b"abcdefghij \n\xe4\xb8".to_vec()), 0..3000)
    }

    proptest! {
        #[test]
        fn the_index_answers_every_search_in_varied_text(hay in varied(), at in 0usize..3000, len in 23usize..200, from in 0usize..3000) {
            let index = GramIndex::new(&hay);
            prop_assert!(!index.gave_up);
            prop_assert!(index.entries.len() <= hay.len() / 4 + 1);
            let at = at.min(hay.len().saturating_sub(len));
            prop_assume!(at + len <= hay.len());
            let pat = &hay[at..at + len];
            let from = from.min(hay.len());
            let want = memchr::memmem::find(&hay[from..], pat).map(|q| from + q);
            prop_assert_eq!(index.find(&hay, pat, from, hay.len()), Some(want));
        }

        #[test]
        fn the_gram_index_finds_what_memmem_finds(hay in repetitive(), at in 0usize..3000, len in 23usize..200, from in 0usize..3000, cut in 0usize..3000) {
            let index = GramIndex::new(&hay);
            let at = at.min(hay.len().saturating_sub(len));
            prop_assume!(at + len <= hay.len());
            let pat = &hay[at..at + len];
            let from = from.min(hay.len());
            let end = (from + cut).min(hay.len());
            let want = memchr::memmem::find(&hay[from..end], pat).map(|q| from + q);
            if let Some(found) = index.find(&hay, pat, from, end) {
                prop_assert_eq!(found, want);
            }
        }
    }

    #[test]
    fn a_far_search_finds_the_first_copy_not_the_natural_one() {
        // Two copies of a text: a chunk of the second copy is first found in the first.
        let page: String = (0..4000).map(|i| format!("line {i} of the page 第{i}行\n")).collect();
        let text = format!("{page}{page}");
        let first = page.find("line 3000 ").expect("a line of the page");
        let at = page.len() + first;
        let needle = &text[at..at + 500];
        let mut grams = None;
        assert_eq!(find_from(&text, needle, 10, Some(at), &mut grams), Some(first));
        assert!(grams.is_some(), "a search over {} bytes asks the index", at);
        let mut grams = None;
        assert_eq!(find_from(&text, needle, first + 1, Some(at), &mut grams), Some(at));
        let across = "line 3999 of the page 第3999行\nline 0 ";
        assert_eq!(find_from(&text, across, 0, None, &mut grams), text.find(across));
    }
}
