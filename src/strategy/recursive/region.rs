//! Where the recursive cut starts afresh, so that the stretch around the
//! workbench's screen can be cut without the text before it.
//!
//! At the first level (paragraphs or lines), a piece that alone is over the
//! size closes the open chunk, is cut on its own at finer separators, and
//! leaves the packer empty (see [`super::super::pack::Packer::push`]): no
//! overlap and no heading is carried past it. So the chunks after such a
//! piece depend only on the text after it, and the chunks between two such
//! pieces are those of cutting that stretch alone. Paragraph and line
//! breaks, and lines that start with a keyword (the code preset's first
//! level), are found the same from anywhere past the first line break, so
//! the pieces near the screen are found without scanning from the top.

use super::{Sep, Separators};
use crate::segment::trim_range;
use crate::size::{ceil_char_boundary, floor_char_boundary, SizeIndex};
use crate::strategy::pack::{fresh_around, FRESH_SEARCH as SEARCH};
use std::ops::Range;

/// The stretch holding `screen` that starts and ends where the cut of
/// `text` (by `seps`, at `size`) starts afresh: after an oversize piece of
/// the first level that has cuts near the screen, or at the text's start or
/// end. When a level gives no such stretch but the screen lies inside one
/// piece of it over the size (a piece that may reach past the search window
/// on either side), that piece is cut on its own at the levels below, and
/// the search goes on there, inside it; its end, when seen, is where the
/// cut starts afresh (War and Peace with one paragraph per line and no blank
/// line, in a file whose first level is lines that start a definition; a
/// FAQ between a novel and a book with code). Only the ends of oversize
/// pieces are taken, never a piece's start: the packer may move headings
/// before an oversize piece to it. None when that level is not paragraphs,
/// lines or line starts (sentence and regex matches depend on the text
/// before them), or no such place is near the screen.
pub fn around(
    text: &str,
    index: &SizeIndex<'_>,
    seps: &Separators,
    size: usize,
    screen: Range<usize>,
) -> Option<Range<usize>> {
    let oversize = |p: &Range<usize>| index.size(trim_range(text, p.clone())) > size;
    // The window searched: first around the screen, then the known part of
    // the oversize piece holding it.
    let mut from = floor_char_boundary(text, screen.start.saturating_sub(SEARCH));
    let mut to = ceil_char_boundary(text, screen.end.saturating_add(SEARCH));
    // Where the cut is known to start afresh after the screen, if seen.
    let mut end = (to == text.len()).then_some(to);
    for sep in &seps.0 {
        if !matches!(sep, Sep::Paragraph | Sep::Line | Sep::LineStarts(_)) {
            return None;
        }
        let cuts = cuts_within(text, sep, from..to);
        if cuts.is_empty() {
            // No cut of this level in the window: with the window over the
            // size, so is the piece around it, cut at the next level.
            if !oversize(&(from..to)) {
                return None;
            }
            continue;
        }
        let mut bounds = cuts.clone();
        if from == 0 {
            bounds.insert(0, 0);
        }
        let pieces: Vec<Range<usize>> = bounds.windows(2).map(|w| w[0]..w[1]).collect();
        if let Some(found) = fresh_around(&pieces, &screen, &oversize, (from == 0).then_some(0), end) {
            return Some(found);
        }
        // The piece holding the whole screen, as far as the window shows it.
        if cuts.iter().any(|&c| c > screen.start && c < screen.end) {
            return None;
        }
        let start = bounds.iter().rev().find(|&&c| c <= screen.start).copied().unwrap_or(from);
        let stop = cuts.iter().find(|&&c| c >= screen.end).copied();
        if !oversize(&(start..stop.unwrap_or(to))) {
            return None;
        }
        // An oversize piece's end is where the cut starts afresh.
        if let Some(stop) = stop {
            (to, end) = (stop, Some(stop));
        }
        from = start;
    }
    None
}

/// The cuts of `sep` inside `window` that the cut of the whole text makes
/// too. The scan starts at the line break before the window, so a blank line
/// that ends inside it is seen whole; even so, a scan that starts (or stops)
/// inside a run of blank lines can see its end where the whole scan saw
/// none, so a cut next to a window end that is not the text's is left out.
fn cuts_within(text: &str, sep: &Sep, window: Range<usize>) -> Vec<usize> {
    let line_before = memchr::memrchr(b'\n', &text.as_bytes()[..window.start]).unwrap_or(0);
    let mut cuts = Vec::new();
    sep.for_each_cut(text, line_before..window.end, &mut |c| {
        if c > window.start {
            cuts.push(c)
        }
    });
    if window.start > 0 && !cuts.is_empty() {
        cuts.remove(0);
    }
    if window.end < text.len() {
        cuts.pop();
    }
    cuts
}
