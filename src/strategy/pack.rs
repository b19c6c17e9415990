//! The shared packer: pieces (paragraphs, lines, sentences, blocks) in text
//! order become chunks of at most `size`, with up to `overlap` of trailing
//! pieces carried into the next chunk, and headings kept with the text they
//! name. recursive, markdown and html cut their pieces their own way and
//! pack them here; sentence, code and hierarchical reach it through
//! recursive's splitter for what they cannot cut themselves.

use crate::segment::{push_trimmed, trim_range, RangeSink};
use crate::size::SizeIndex;
use std::ops::Range;

/// A queue that hands out its contents as one slice: the open chunk of a
/// packer, the window of LangChain's merge.
pub(crate) struct Window<T> {
    items: Vec<T>,
    head: usize,
}

impl<T> Window<T> {
    pub fn new() -> Self {
        Window { items: Vec::new(), head: 0 }
    }
    pub fn len(&self) -> usize {
        self.items.len() - self.head
    }
    pub fn as_slice(&self) -> &[T] {
        &self.items[self.head..]
    }
    pub fn push(&mut self, item: T) {
        self.items.push(item);
    }
    /// Forget the first `n` items (at most all of them).
    pub fn drop_front(&mut self, n: usize) {
        self.head = (self.head + n).min(self.items.len());
        // Free what was dropped once it is most of the vector.
        if self.head >= 64 && self.head * 2 >= self.items.len() {
            self.items.drain(..self.head);
            self.head = 0;
        }
    }
    pub fn clear(&mut self) {
        self.items.clear();
        self.head = 0;
    }
}

/// What `pack` does with a piece that alone is over the size: cut it and
/// push the resulting ranges.
pub type OversizeHandler<'a> = dyn FnMut(Range<usize>, &mut dyn RangeSink) + 'a;

/// Pack pieces greedily into chunks of at most `size`, carrying up to
/// `overlap` worth of trailing pieces into the next chunk. A piece over `size`
/// closes the open chunk and is handed to `oversize`.
pub fn pack(
    text: &str,
    index: &SizeIndex<'_>,
    pieces: &[Range<usize>],
    size: usize,
    overlap: usize,
    out: &mut dyn RangeSink,
    oversize: &mut OversizeHandler<'_>,
) {
    let mut packer = Packer::new(text, index, size, overlap);
    for piece in pieces {
        packer.push(piece.clone(), out, oversize);
    }
    packer.finish(out);
}

/// [`pack`], fed one piece at a time: it holds only the pieces of the open
/// chunk.
pub struct Packer<'a, 't> {
    text: &'a str,
    index: &'a SizeIndex<'t>,
    size: usize,
    overlap: usize,
    /// The pieces of the open chunk, in order.
    open: Window<Range<usize>>,
    /// How many pieces at the front of `open` the last chunk emitted
    /// already (its overlap): never a chunk of their own.
    carried: usize,
}

impl<'a, 't> Packer<'a, 't> {
    pub fn new(text: &'a str, index: &'a SizeIndex<'t>, size: usize, overlap: usize) -> Self {
        Packer { text, index, size, overlap, open: Window::new(), carried: 0 }
    }

    /// Does `text[start..end]`, without surrounding whitespace (chunks are
    /// emitted that way), measure at most `limit`? Most checks are settled by
    /// a bound that needs no counting (a range of n bytes holds at most n
    /// chars): the hot loop of the recursive splitter.
    fn within(&self, start: usize, end: usize, limit: usize) -> bool {
        self.index.at_most(start..end) <= limit || self.index.size(trim_range(self.text, start..end)) <= limit
    }

    pub fn push(&mut self, piece: Range<usize>, out: &mut dyn RangeSink, oversize: &mut OversizeHandler<'_>) {
        if !self.within(piece.start, piece.end, self.size) {
            // Headings at the end of the open chunk go with the text they name.
            let keep = self.without_trailing_headings();
            // The open chunk may be nothing but headings (a version line and
            // its `### Added`): they go with the piece all the same.
            let piece = match self.open.as_slice().get(keep) {
                Some(h) => {
                    let start = h.start;
                    if keep > 0 {
                        self.emit_front(keep, out);
                    }
                    self.open.clear(); // the headings go with the piece
                    self.carried = 0;
                    start..piece.end
                }
                None => piece,
            };
            self.close(out);
            oversize(piece, out);
            return;
        }
        let Some(first) = self.open.as_slice().first() else {
            self.open.push(piece);
            return;
        };
        if self.within(first.start, piece.end, self.size) {
            self.open.push(piece);
            return;
        }
        // A heading that ends the chunk starts the next one instead, with its
        // text, when the two fit together.
        let keep = self.without_trailing_headings();
        let open = self.open.as_slice();
        if keep < open.len() {
            let headings = open[keep].start;
            if self.within(headings, piece.end, self.size) {
                self.emit_front(keep, out);
                self.open.push(piece);
                return;
            }
            // Headings and their text are over the size together (a version
            // line, its `### Added` and a long list): they are cut together at
            // finer separators, so the headings open a chunk of their text
            // instead of ending this one.
            if headings < piece.start && self.open.as_slice().len() - keep <= 3 {
                self.emit_front(keep, out);
                self.open.clear();
                self.carried = 0;
                oversize(headings..piece.end, out);
                return;
            }
        }
        let open = self.open.as_slice();
        let first = &open[0];
        let last_end = open[open.len() - 1].end;
        push_trimmed(self.text, first.start..last_end, out);
        // Keep trailing pieces of the chunk just emitted as overlap: those
        // from the first (past the chunk's first) that are within the overlap
        // and fit with the new piece. Sizes only shrink as that first piece
        // moves on (every unit counts what a range holds), so a binary search
        // finds it in a few counts where the walk took one per piece.
        let fits = |g: usize| {
            self.within(open[g].start, last_end, self.overlap) && self.within(open[g].start, piece.end, self.size)
        };
        let (mut g, mut past) = (1, open.len());
        while g < past {
            let mid = g + (past - g) / 2;
            if fits(mid) {
                past = mid;
            } else {
                g = mid + 1;
            }
        }
        self.open.drop_front(g);
        self.carried = self.open.as_slice().len();
        self.open.push(piece);
    }

    /// How many pieces of the open chunk come before its trailing headings.
    fn without_trailing_headings(&self) -> usize {
        let open = self.open.as_slice();
        let mut keep = open.len();
        while keep > 0 && is_heading(self.text, &open[keep - 1]) {
            keep -= 1;
        }
        keep
    }

    /// Emit the first `n` open pieces as a chunk and drop them (no overlap).
    /// Pieces the last chunk carried as overlap only are dropped, not emitted again.
    fn emit_front(&mut self, n: usize, out: &mut dyn RangeSink) {
        let open = self.open.as_slice();
        if n > self.carried {
            push_trimmed(self.text, open[0].start..open[n - 1].end, out);
        }
        self.open.drop_front(n);
        self.carried = self.carried.saturating_sub(n);
    }

    /// Emit the open chunk, if any.
    fn close(&mut self, out: &mut dyn RangeSink) {
        let open = self.open.as_slice();
        if let (Some(first), Some(last)) = (open.first(), open.last()) {
            push_trimmed(self.text, first.start..last.end, out);
        }
        self.open.clear();
        self.carried = 0;
    }

    pub fn finish(mut self, out: &mut dyn RangeSink) {
        self.close(out);
    }
}

/// Bytes searched on each side of the screen for a piece over the size (see
/// [`fresh_around`]). Past this the stretch would cost about as much as the
/// cut from the top.
pub const FRESH_SEARCH: usize = 256 * 1024;

/// Bytes searched before the screen for where the packing starts afresh,
/// for a stretch that needs no such place after the screen
/// ([`crate::strategy::Strategy::region_from`]): it costs only what lies
/// between that place and the screen, cut once.
pub const FRESH_SEARCH_BACK: usize = 1024 * 1024;

/// Where a stretch that may end before the packing does should end at the
/// earliest, past `screen_end`: far enough that the one chunk its end may
/// close early (the open one) starts past the screen (the caller checks).
pub fn well_past(screen_end: usize, size: usize) -> usize {
    screen_end.saturating_add(size.saturating_mul(8).clamp(16 * 1024, FRESH_SEARCH / 2))
}

/// The stretch holding `screen` that a packing of `pieces` (complete,
/// consecutive pieces near the screen, in order) starts and ends afresh:
/// the ends of the nearest pieces around the screen that are over the size
/// alone (`oversize`). [`Packer::push`] closes the open chunk before such a
/// piece, cuts it on its own and carries nothing past it, so the chunks of
/// that stretch are the same cut alone or with the text around it. `start`
/// and `end`: where the packing also starts or ends, when no such piece is
/// among `pieces` (the text's or the section's ends, if near).
pub fn fresh_around(
    pieces: &[Range<usize>],
    screen: &Range<usize>,
    oversize: &dyn Fn(&Range<usize>) -> bool,
    start: Option<usize>,
    end: Option<usize>,
) -> Option<Range<usize>> {
    let before = pieces.partition_point(|p| p.end <= screen.start);
    let start = pieces[..before].iter().rev().find(|p| oversize(p)).map(|p| p.end).or(start)?;
    let after = pieces.partition_point(|p| p.end < screen.end);
    let end = pieces[after..].iter().find(|p| oversize(p)).map(|p| p.end).or(end)?;
    (start <= screen.start && end >= screen.end && start < end).then_some(start..end)
}

/// Whether a piece is a Markdown heading: one ATX line (`## Title`), or text
/// underlined with `===` / `---` (setext). A heading that ends a chunk names
/// text in the next one, so the packer moves it there.
fn is_heading(text: &str, piece: &Range<usize>) -> bool {
    let t = text[trim_range(text, piece.clone())].trim_end();
    if t.len() > 300 {
        return false;
    }
    let mut lines = t.lines().map(str::trim).filter(|l| !l.is_empty());
    let Some(first) = lines.next() else { return false };
    let rest: Vec<&str> = lines.collect();
    if rest.is_empty() {
        let hashes = first.bytes().take_while(|&b| b == b'#').count();
        return (1..=6).contains(&hashes) && first[hashes..].starts_with(' ');
    }
    let under = rest[rest.len() - 1];
    rest.len() == 1 && under.len() >= 2 && (under.bytes().all(|b| b == b'=') || under.bytes().all(|b| b == b'-'))
}
