//! Lint of a flat cut fed one chunk at a time, in text order: what `stats`
//! does over a large file cut small, where the chunk list would be many
//! times the file. It holds a window of chunks, never the whole cut, and
//! finds exactly what [`super::lint`] finds on the whole list.
//!
//! Every rule judges a chunk by itself and, for mid-sentence, by the
//! nearest chunk on each side that holds more than whitespace. So a window
//! is linted once it ends with such a chunk: everything before that chunk
//! has both its neighbours in the window. The chunk itself is judged with
//! the next window, which starts with the last judged non-blank chunk as
//! its left neighbour (linted again, its findings not kept).

use super::{Finding, LintOptions, Linted, Reading, SharedTally};
use crate::chunk::Chunk;

/// Chunks held before a window is linted.
const WINDOW: usize = 1 << 16;

pub struct LintStream<'a> {
    reading: Reading<'a>,
    window: Vec<Chunk>,
    /// The number each window chunk's findings carry (its place in the
    /// list `chunk` returns, which differs from its place in this stream
    /// when chunks were sorted into text order first).
    numbers: Vec<usize>,
    cap: usize,
    /// The number (in the whole cut) of `window[0]`.
    base: usize,
    /// Chunks numbered below this are judged already.
    judged: usize,
    found: Linted,
    /// Keep only this many findings, the first in text order.
    keep: Option<usize>,
}

impl<'a> LintStream<'a> {
    /// `tally` from [`super::with_tally`], or None to count chunk by chunk.
    pub fn new(text: &'a str, opts: &'a LintOptions, tally: Option<&'a SharedTally<'a>>) -> Self {
        Self::with_window(text, opts, tally, WINDOW)
    }

    /// A stream that lints every `cap` chunks (tests use small windows).
    pub fn with_window(text: &'a str, opts: &'a LintOptions, tally: Option<&'a SharedTally<'a>>, cap: usize) -> Self {
        let reading = Reading::new(text, opts, tally);
        LintStream {
            reading,
            window: Vec::new(),
            numbers: Vec::new(),
            cap: cap.max(2),
            base: 0,
            judged: 0,
            found: Linted::default(),
            keep: None,
        }
    }

    /// Keep only the first `n` findings in text order; all are counted. A
    /// large file cut small can have more findings than bytes.
    pub fn keep_first(mut self, n: Option<usize>) -> Self {
        self.keep = n;
        self
    }

    /// Start again from the first chunk, keeping what was read of the text.
    pub fn restart(&mut self) {
        self.window.clear();
        self.numbers.clear();
        (self.base, self.judged) = (0, 0);
        self.found = Linted::default();
    }

    /// The next chunk in text order, numbered by its place in the stream.
    pub fn push(&mut self, chunk: Chunk) {
        let number = self.base + self.window.len();
        self.push_numbered(chunk, number);
    }

    /// The next chunk in text order, its findings numbered `number`.
    pub fn push_numbered(&mut self, chunk: Chunk, number: usize) {
        self.window.push(chunk);
        self.numbers.push(number);
        if self.window.len() >= self.cap {
            self.flush();
        }
    }

    fn blank(&self, c: &Chunk) -> bool {
        self.reading.text.get(c.range.clone()).is_none_or(|t| t.trim().is_empty())
    }

    /// Lint the window up to its last non-blank chunk, keep the findings of
    /// chunks not judged before, and keep from the non-blank chunk before it.
    fn flush(&mut self) {
        let Some(last) = self.window.iter().rposition(|c| !self.blank(c)) else { return };
        let Some(context) = self.window[..last].iter().rposition(|c| !self.blank(c)) else { return };
        self.lint_window(self.base + last);
        self.window.drain(..context);
        self.numbers.drain(..context);
        self.base += context;
        self.judged = self.judged.max(self.base + last - context);
    }

    /// Lint the window, keeping findings of chunks from `judged` to `until`.
    fn lint_window(&mut self, until: usize) {
        let mut found = Vec::new();
        self.reading.lint_into(&self.window, self.base, &mut found);
        let (judged, base, numbers) = (self.judged, self.base, &self.numbers);
        for mut f in found.into_iter().filter(|f| (judged..until).contains(&f.chunk)) {
            f.chunk = numbers[f.chunk - base];
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
        self.lint_window(usize::MAX);
        let mut found = self.found;
        found.settle(self.keep);
        found
    }
}
