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
/// `text` (by `seps`, at `size`) starts afresh: after an oversize
/// first-level piece, or at the text's start or end. None when the first
/// level is not paragraphs, lines or line starts (sentence and regex
/// matches depend on the text before them), or no such place is near the
/// screen.
pub fn around(
    text: &str,
    index: &SizeIndex<'_>,
    seps: &Separators,
    size: usize,
    screen: Range<usize>,
) -> Option<Range<usize>> {
    let first = seps.0.first()?;
    if !matches!(first, Sep::Paragraph | Sep::Line | Sep::LineStarts(_)) {
        return None;
    }
    let from = floor_char_boundary(text, screen.start.saturating_sub(SEARCH));
    let to = ceil_char_boundary(text, screen.end.saturating_add(SEARCH));
    let mut cuts = Vec::new();
    first.for_each_cut(text, from..to, &mut |c| cuts.push(c));
    // The text's first cut at this level must exist: with none, the whole
    // cut starts at a finer level than the pieces measured here.
    if cuts.is_empty() {
        return None;
    }
    if from > 0 {
        // A scan that starts inside a run of blank lines can find its end
        // where the whole scan found none; from the first break on they agree.
        cuts.remove(0);
    } else {
        cuts.insert(0, 0);
    }
    let pieces: Vec<Range<usize>> = cuts.windows(2).map(|w| w[0]..w[1]).collect();
    let oversize = |p: &Range<usize>| index.size(trim_range(text, p.clone())) > size;
    fresh_around(&pieces, &screen, &oversize, (from == 0).then_some(0), (to == text.len()).then_some(to))
}
