//! The token tally of a whole text for over-model-limit, made on the core
//! that cutting and the other rules leave free (see [`with_tally`]).
//!
//! The text is split into parts at whitespace (where no piece runs across)
//! and the parts are taken in order by a second thread. A chunk is counted
//! from the parts it lies in, as soon as they are made: lint, which follows
//! the cut, waits only for the parts it has reached. A reader that reaches a
//! part no one took makes it itself, so a tally that is late never leaves a
//! core idle.

use super::LintOptions;
use crate::size::Tokenizer;
use crate::word_counts::Tally;
use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock};

/// Less text than this is not tallied: counting its chunks one by one
/// costs less than a thread.
const TALLY_BYTES: usize = 1 << 16;
/// Parts are about this long (a few milliseconds of counting each).
const PART_BYTES: usize = 1 << 19;

/// A tally being made: parts left to take, parts done, and the whole.
pub struct SharedTally<'a> {
    text: &'a str,
    tokenizer: &'a Tokenizer,
    parts: Vec<Range<usize>>,
    next: AtomicUsize,
    /// Each part's tally once made; `Some(None)` when it failed.
    done: Vec<OnceLock<Option<Tally>>>,
    /// Held to wait for a part (`made` is signalled after each).
    waiting: Mutex<()>,
    made: Condvar,
    whole: OnceLock<Option<Arc<Tally>>>,
    /// Keep the whole in `doc_cache` for the next lint of the same text.
    keep: bool,
}

impl<'a> SharedTally<'a> {
    fn new(text: &'a str, tokenizer: &'a Tokenizer, keep: bool) -> Self {
        let parts = parts(text, PART_BYTES);
        let done = (0..parts.len()).map(|_| OnceLock::new()).collect();
        let (next, waiting, made, whole) = (AtomicUsize::new(0), Mutex::new(()), Condvar::new(), OnceLock::new());
        SharedTally { text, tokenizer, parts, next, done, waiting, made, whole, keep }
    }

    /// A tally already made: nothing is left to take.
    fn made(text: &'a str, tokenizer: &'a Tokenizer, tally: Arc<Tally>) -> Self {
        let shared = SharedTally::new(text, tokenizer, false);
        shared.next.store(shared.parts.len(), Ordering::Relaxed);
        let _ = shared.whole.set(Some(tally));
        shared
    }

    /// Take and make parts until none is left.
    fn work(&self) {
        while self.take_one() {}
    }

    /// Take the next part and make it; false when none was left.
    fn take_one(&self) -> bool {
        let i = self.next.fetch_add(1, Ordering::Relaxed);
        let Some(range) = self.parts.get(i) else { return false };
        let text = &self.text[range.clone()];
        // Stored whatever happens: readers wait for every part they need.
        let made = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.tokenizer.tally(text)));
        let _ = self.done[i].set(made.ok().flatten());
        let _lock = self.waiting.lock().unwrap_or_else(|e| e.into_inner());
        self.made.notify_all();
        true
    }

    /// Part `i`'s tally (None when it could not be made): made here when
    /// no one took it yet; while another thread makes it, the parts after
    /// it are taken, then it is waited for.
    fn part(&self, i: usize) -> Option<&Tally> {
        while self.done[i].get().is_none() && self.take_one() {}
        let mut lock = self.waiting.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            if let Some(part) = self.done[i].get() {
                return part.as_ref();
            }
            lock = self.made.wait(lock).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// The tally of the whole text (None when a part could not be made):
    /// takes the parts left, then waits for those being made.
    pub fn get(&self) -> Option<&Tally> {
        self.whole
            .get_or_init(|| {
                let parts: Option<Vec<&Tally>> = (0..self.parts.len()).map(|i| self.part(i)).collect();
                let whole = Arc::new(Tally::join(parts?)?);
                if self.keep {
                    crate::size::doc_cache::put(&cache_key(self.tokenizer), self.text, whole.clone());
                }
                Some(whole)
            })
            .as_deref()
    }

    /// The tokens of `text[range]` (specials not included), from the parts
    /// that hold it: a stream of chunks in text order waits only for the
    /// parts it has reached, not for the whole. None when one of them
    /// could not be made.
    pub fn count(&self, range: Range<usize>) -> Option<usize> {
        if self.keep || self.whole.get().is_some() {
            return Some(self.tokenizer.count_in(self.get()?, self.text, range));
        }
        let first = self.parts.partition_point(|p| p.end <= range.start);
        let mut total = 0;
        for (i, part) in self.parts.iter().enumerate().skip(first) {
            if part.start >= range.end {
                break;
            }
            let within = range.start.max(part.start) - part.start..range.end.min(part.end) - part.start;
            total += self.tokenizer.count_in(self.part(i)?, &self.text[part.clone()], within);
        }
        Some(total)
    }
}

/// `text` cut into ranges of about `size` bytes, each ending after a
/// whitespace byte (or at the text's end).
fn parts(text: &str, size: usize) -> Vec<Range<usize>> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut start = 0;
    while start < bytes.len() {
        let from = (start + size).min(bytes.len());
        let end = bytes[from..]
            .iter()
            .position(|b| matches!(b, b' ' | b'\n' | b'\t' | b'\r'))
            .map_or(bytes.len(), |i| from + i + 1);
        out.push(start..end);
        start = end;
    }
    out
}

/// Run `f` with a tally that a second thread makes of `text` while `f`
/// parses the text (and, in `stats`, cuts it), when over-model-limit counts
/// with a tokenizer whose counts add up word by word; else with None.
/// Over-model-limit then counts each chunk from the tally: the text is
/// counted once, not once per chunk that holds it.
pub fn with_tally<R>(text: &str, opts: &LintOptions, f: impl FnOnce(Option<&SharedTally<'_>>) -> R) -> R {
    tallied(text, opts, false, f)
}

/// [`with_tally`] for a text linted again and again (the workbench lints
/// after every key press): the tally is kept per text and tokenizer in
/// `doc_cache`, and made only when the text or the tokenizer changes.
pub fn with_kept_tally<R>(text: &str, opts: &LintOptions, f: impl FnOnce(Option<&SharedTally<'_>>) -> R) -> R {
    tallied(text, opts, true, f)
}

fn cache_key(tokenizer: &Tokenizer) -> String {
    format!("token tally {}", tokenizer.name())
}

fn tallied<R>(text: &str, opts: &LintOptions, keep: bool, f: impl FnOnce(Option<&SharedTally<'_>>) -> R) -> R {
    let tokens = opts.tokens.as_ref().filter(|t| t.tokenizer.adds_up() && text.len() >= TALLY_BYTES);
    let Some(tokens) = tokens else { return f(None) };
    if keep {
        if let Some(tally) = crate::size::doc_cache::get::<Tally>(&cache_key(&tokens.tokenizer), text) {
            return f(Some(&SharedTally::made(text, &tokens.tokenizer, tally)));
        }
    }
    let shared = SharedTally::new(text, &tokens.tokenizer, keep);
    std::thread::scope(|scope| {
        scope.spawn(|| shared.work());
        f(Some(&shared))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_cover_the_text_and_end_after_whitespace() {
        let text = "ab cd\nef gh ij";
        let parts = parts(text, 2);
        assert_eq!(parts.first().map(|p| p.start), Some(0));
        assert_eq!(parts.last().map(|p| p.end), Some(text.len()));
        for w in parts.windows(2) {
            assert_eq!(w[0].end, w[1].start);
            assert!(text.as_bytes()[w[0].end - 1].is_ascii_whitespace());
        }
        assert_eq!(parts, [0..3, 3..6, 6..9, 9..12, 12..14]);
    }
}
