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
/// end. A level with no cut within the search window around the screen is
/// passed over when the window alone is over the size: the piece of that
/// level around the screen holds the whole window, so it is cut on its own
/// at the levels below, and so on down (War and Peace with one paragraph per
/// line and no blank line, in a file whose first level is lines that start a
/// definition). Only the ends of oversize pieces are taken, never a piece's
/// start: the packer may move headings before an oversize piece to it. None
/// when that level is not paragraphs, lines or line starts (sentence and
/// regex matches depend on the text before them), or no such place is near
/// the screen.
pub fn around(
    text: &str,
    index: &SizeIndex<'_>,
    seps: &Separators,
    size: usize,
    screen: Range<usize>,
) -> Option<Range<usize>> {
    let from = floor_char_boundary(text, screen.start.saturating_sub(SEARCH));
    let to = ceil_char_boundary(text, screen.end.saturating_add(SEARCH));
    // From the line break before the window: a blank line that ends inside
    // the window is then seen whole, so no cut of the whole scan is missed.
    let line_before = memchr::memrchr(b'\n', &text.as_bytes()[..from]).unwrap_or(0);
    let window_oversize = index.size(from..to) > size;
    let oversize = |p: &Range<usize>| index.size(trim_range(text, p.clone())) > size;
    for sep in &seps.0 {
        if !matches!(sep, Sep::Paragraph | Sep::Line | Sep::LineStarts(_)) {
            return None;
        }
        let mut cuts = Vec::new();
        sep.for_each_cut(text, line_before..to, &mut |c| {
            if c > from {
                cuts.push(c)
            }
        });
        if cuts.is_empty() {
            // No cut of this level near the screen: with the window over the
            // size, so is the piece around it, cut at the next level.
            if !window_oversize {
                return None;
            }
            continue;
        }
        if from > 0 {
            // A scan that starts inside a run of blank lines can find its end
            // where the whole scan found none; from the first break on they agree.
            cuts.remove(0);
        } else {
            cuts.insert(0, 0);
        }
        let pieces: Vec<Range<usize>> = cuts.windows(2).map(|w| w[0]..w[1]).collect();
        return fresh_around(&pieces, &screen, &oversize, (from == 0).then_some(0), (to == text.len()).then_some(to));
    }
    None
}
