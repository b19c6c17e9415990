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
//!
//! Where only the start is near (megabytes of short paragraphs after a
//! table, none of them over the size), the stretch from that start to a
//! later cut of the same level, cut alone, is the whole cut's chunks but
//! for its last: the packer decides each chunk once the piece after it
//! comes, and up to that cut the pieces are the same (see [`from`]).

use super::{Sep, Separators};
use crate::segment::trim_range;
use crate::size::{ceil_char_boundary, floor_char_boundary, SizeIndex};
use crate::strategy::pack::{well_past, FRESH_SEARCH as SEARCH, FRESH_SEARCH_BACK};
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
    let found = search(text, index, seps, size, &screen, SEARCH)?;
    Some(found.start..found.end?).filter(|r| r.start < r.end)
}

/// A stretch holding `screen` that starts where the cut starts afresh (as
/// for [`around`], searched further back) and ends at a later cut of the
/// level that start was found at, well past the screen: cut alone, its
/// chunks but the last are the whole cut's. The packer emits a chunk only
/// when a later piece comes (or at the end), and up to the stretch's end
/// the pieces are the whole cut's: only the open chunk the end closes may
/// differ. None where [`around`] finds nothing, or no such cut is near.
pub fn from(
    text: &str,
    index: &SizeIndex<'_>,
    seps: &Separators,
    size: usize,
    screen: Range<usize>,
) -> Option<Range<usize>> {
    let found = search(text, index, seps, size, &screen, FRESH_SEARCH_BACK)?;
    Some(found.start..found.past_screen.or(found.end)?)
}

/// Where the search around a screen found the cut to start afresh, at the
/// level it stopped at.
struct Found {
    /// Before the screen.
    start: usize,
    /// After the screen, if seen.
    end: Option<usize>,
    /// A cut of that level past the screen, by some way when there is one.
    past_screen: Option<usize>,
}

/// The search behind [`around`] and [`from`], `back` bytes before the
/// screen and [`SEARCH`] after it.
fn search(
    text: &str,
    index: &SizeIndex<'_>,
    seps: &Separators,
    size: usize,
    screen: &Range<usize>,
    back: usize,
) -> Option<Found> {
    let oversize = |p: &Range<usize>| index.size(trim_range(text, p.clone())) > size;
    // The window searched: first around the screen, then the known part of
    // the oversize piece holding it.
    let mut from = floor_char_boundary(text, screen.start.saturating_sub(back));
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
        // The first piece from the window's start: where that is no cut, a
        // piece's tail, over the size only when the piece is too, and it
        // ends at a cut all the same.
        let bounds: Vec<usize> = std::iter::once(from).chain(cuts.iter().copied()).collect();
        let pieces: Vec<Range<usize>> = bounds.windows(2).map(|w| w[0]..w[1]).collect();
        // The ends of the nearest oversize pieces before and after the screen.
        let before = pieces.partition_point(|p| p.end <= screen.start);
        let start = pieces[..before].iter().rev().find(|p| oversize(p)).map(|p| p.end).or((from == 0).then_some(0));
        let after = pieces.partition_point(|p| p.end < screen.end);
        let found_end = pieces[after..].iter().find(|p| oversize(p)).map(|p| p.end).or(end);
        let ahead = well_past(screen.end, size);
        let past_screen =
            cuts.iter().copied().find(|&c| c >= ahead).or(cuts.last().copied().filter(|&c| c >= screen.end));
        if let Some(start) = start.filter(|&s| s <= screen.start) {
            if found_end.is_some() || past_screen.is_some() {
                return Some(Found { start, end: found_end, past_screen });
            }
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
/// that ends inside it is seen whole; one that ends at the scan's start is
/// missed, but that cut is not inside the window. A scan that stops inside
/// a run of blank lines can see its end where the whole scan saw none, so
/// the last cut is left out when the window ends before the text does.
fn cuts_within(text: &str, sep: &Sep, window: Range<usize>) -> Vec<usize> {
    let line_before = memchr::memrchr(b'\n', &text.as_bytes()[..window.start]).unwrap_or(0);
    let mut cuts = Vec::new();
    sep.for_each_cut(text, line_before..window.end, &mut |c| {
        if c > window.start {
            cuts.push(c)
        }
    });
    if window.end < text.len() {
        cuts.pop();
    }
    cuts
}
