//! Lint of a cut fed one chunk at a time, each level in text order: what
//! `stats` does over a large file cut small, where the chunk list would be
//! many times the file. It holds a window of chunks per level (a flat cut
//! has one; a hierarchical cut one per `meta.level`), never the whole cut,
//! and finds exactly what [`super::lint`] finds on the whole list.
//!
//! Every rule judges a chunk by itself and, for mid-sentence, by the
//! nearest chunk of its level on each side that holds more than whitespace.
//! So a level's window is linted once it ends with such a chunk: everything
//! before that chunk has both its neighbours in the window. The chunk itself
//! is judged with the next window, which starts with the last judged
//! non-blank chunk as its left neighbour (linted again, its findings not
//! kept).

use super::{Finding, LintOptions, Linted, Reading, SharedTally};
use crate::chunk::Chunk;

/// Chunks of a level held before its window is linted: few, so that lint
/// (and the token tally's parts it counts from) keeps pace with the cut
/// instead of all waiting for its end, and a hierarchical cut's chunks (they
/// carry ids, ~330 bytes each) take little room.
const WINDOW: usize = 1 << 10;

pub struct LintStream<'a> {
    reading: Reading<'a>,
    /// One window per level, by `meta.level`.
    levels: Vec<(Option<u8>, Window)>,
    cap: usize,
    /// Chunks pushed so far (the number [`LintStream::push`] gives).
    pushed: usize,
    found: Linted,
    /// Keep only this many findings, the first in text order.
    keep: Option<usize>,
}

/// One level's chunks not yet judged, and their context.
#[derive(Default)]
struct Window {
    chunks: Vec<Chunk>,
    /// The number each chunk's findings carry (its place in the list
    /// `chunk` returns, which differs from its place in this stream when
    /// chunks were sorted into text order first, or levels interleave).
    numbers: Vec<usize>,
    /// The place in this level of `chunks[0]`.
    base: usize,
    /// Chunks of this level placed below this are judged already.
    judged: usize,
}

impl<'a> LintStream<'a> {
    /// `tally` from [`super::with_tally`], or None to count chunk by chunk.
    pub fn new(text: &'a str, opts: &'a LintOptions, tally: Option<&'a SharedTally<'a>>) -> Self {
        Self::with_window(text, opts, tally, WINDOW)
    }

    /// A stream that lints every `cap` chunks (tests use small windows).
    pub fn with_window(text: &'a str, opts: &'a LintOptions, tally: Option<&'a SharedTally<'a>>, cap: usize) -> Self {
        let reading = Reading::new(text, opts, tally);
        LintStream { reading, levels: Vec::new(), cap: cap.max(2), pushed: 0, found: Linted::default(), keep: None }
    }

    /// Keep only the first `n` findings in text order; all are counted. A
    /// large file cut small can have more findings than bytes.
    pub fn keep_first(mut self, n: Option<usize>) -> Self {
        self.keep = n;
        self
    }

    /// Start again from the first chunk, keeping what was read of the text.
    pub fn restart(&mut self) {
        self.levels.clear();
        self.pushed = 0;
        self.found = Linted::default();
    }

    /// The next chunk (in text order within its level), numbered by its
    /// place in the stream.
    pub fn push(&mut self, chunk: Chunk) {
        self.push_numbered(chunk, self.pushed);
    }

    /// The next chunk (in text order within its level), its findings
    /// numbered `number`.
    pub fn push_numbered(&mut self, chunk: Chunk, number: usize) {
        self.pushed += 1;
        let level = chunk.meta.level;
        let i = match self.levels.iter().position(|(l, _)| *l == level) {
            Some(i) => i,
            None => {
                self.levels.push((level, Window::default()));
                self.levels.len() - 1
            }
        };
        let w = &mut self.levels[i].1;
        w.chunks.push(chunk);
        w.numbers.push(number);
        if w.chunks.len() >= self.cap {
            self.flush(i);
        }
    }

    fn blank(&self, c: &Chunk) -> bool {
        self.reading.text.get(c.range.clone()).is_none_or(|t| t.trim().is_empty())
    }

    /// Lint level `i`'s window up to its last non-blank chunk, keep the
    /// findings of chunks not judged before, and keep from the non-blank
    /// chunk before it.
    fn flush(&mut self, i: usize) {
        let w = &self.levels[i].1;
        let Some(last) = w.chunks.iter().rposition(|c| !self.blank(c)) else { return };
        let Some(context) = w.chunks[..last].iter().rposition(|c| !self.blank(c)) else { return };
        let until = w.base + last;
        self.lint_window(i, until);
        let w = &mut self.levels[i].1;
        w.chunks.drain(..context);
        w.numbers.drain(..context);
        w.base += context;
        w.judged = w.judged.max(until);
    }

    /// Lint level `i`'s window, keeping findings of its chunks placed from
    /// `judged` to `until`.
    fn lint_window(&mut self, i: usize, until: usize) {
        let w = &self.levels[i].1;
        let mut found = Vec::new();
        self.reading.lint_into(&w.chunks, w.base, &mut found);
        for mut f in found.into_iter().filter(|f| (w.judged..until).contains(&f.chunk)) {
            f.chunk = w.numbers[f.chunk - w.base];
            self.found.add(f, self.keep);
        }
    }

    /// The findings, in text order (then rule order), as [`super::lint`] gives.
    pub fn finish(self) -> Vec<Finding> {
        self.finish_counted().findings
    }

    /// The findings (the first ones, with [`LintStream::keep_first`]) and
    /// the count of each rule's.
    pub fn finish_counted(mut self) -> Linted {
        for i in 0..self.levels.len() {
            self.lint_window(i, usize::MAX);
        }
        let mut found = self.found;
        found.settle(self.keep);
        found
    }
}
