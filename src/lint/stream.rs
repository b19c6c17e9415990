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

use super::{sort, Finding, LintOptions, Reading, SharedTally};
use crate::chunk::Chunk;

/// Chunks held before a window is linted.
const WINDOW: usize = 1 << 16;

pub struct LintStream<'a> {
    reading: Reading<'a>,
    window: Vec<Chunk>,
    cap: usize,
    /// The number (in the whole cut) of `window[0]`.
    base: usize,
    /// Chunks numbered below this are judged already.
    judged: usize,
    findings: Vec<Finding>,
}

impl<'a> LintStream<'a> {
    /// `tally` from [`super::with_tally`], or None to count chunk by chunk.
    pub fn new(text: &'a str, opts: &'a LintOptions, tally: Option<&'a SharedTally<'a>>) -> Self {
        Self::with_window(text, opts, tally, WINDOW)
    }

    /// A stream that lints every `cap` chunks (tests use small windows).
    pub fn with_window(text: &'a str, opts: &'a LintOptions, tally: Option<&'a SharedTally<'a>>, cap: usize) -> Self {
        let reading = Reading::new(text, opts, tally);
        LintStream { reading, window: Vec::new(), cap: cap.max(2), base: 0, judged: 0, findings: Vec::new() }
    }

    pub fn push(&mut self, chunk: Chunk) {
        self.window.push(chunk);
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
        self.base += context;
        self.judged = self.judged.max(self.base + last - context);
    }

    /// Lint the window, keeping findings of chunks from `judged` to `until`.
    fn lint_window(&mut self, until: usize) {
        let mut found = Vec::new();
        self.reading.lint_into(&self.window, self.base, &mut found);
        let judged = self.judged;
        self.findings.extend(found.into_iter().filter(|f| (judged..until).contains(&f.chunk)));
    }

    /// The findings, in text order (then rule order), as [`super::lint`] gives.
    pub fn finish(mut self) -> Vec<Finding> {
        self.lint_window(usize::MAX);
        let mut findings = self.findings;
        sort(&mut findings);
        findings
    }
}
