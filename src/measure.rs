//! The statistics and lint of one document's cut (`chunktui stats` and
//! `chunktui lint`), holding as little of the cut as the strategy allows. A
//! large file cut small makes more chunks than it has bytes, and a held
//! chunk costs 32 bytes and more.
//!
//! - Chunks that come in text order ([`Chunker::streams`]) are counted and
//!   linted one by one as they are cut.
//! - Chunks cut without a list but perhaps out of order
//!   ([`Chunker::holds_no_list`]: LangChain's placement can put a chunk
//!   before the one before it) are counted as they come. If one does go back,
//!   the text-order reading (uncovered text, lint) is done over further cuts.
//!   Each of these cuts holds the next slice of the text order as 16-byte
//!   records (and the text of LangChain's rewritten chunks): the smallest
//!   keys above the last slice's, about 3 bytes per input byte.
//! - Any other strategy's list is held.
//!
//! Every path gives the numbers and findings of the whole list: lint reads
//! chunks in text order (start, then end, then place in the list) and
//! numbers them by their place in the list.

use crate::chunk::{Chunk, ChunkMeta, Meta};
use crate::chunker::Chunker;
use crate::document::Document;
use crate::error::Result;
use crate::lint::{LintOptions, LintStream, Linted, SharedTally};
use crate::stats::{Coverage, Stats, StatsBuilder};

/// How to lint the cut.
#[derive(Clone, Copy)]
pub struct Linting<'a> {
    pub opts: &'a LintOptions,
    /// The text's token tally (from [`crate::lint::with_tally`]), or None to
    /// count over-model-limit chunk by chunk.
    pub tally: Option<&'a SharedTally<'a>>,
    /// Keep only this many findings, the first in text order (all are
    /// counted): a large file cut small can have more findings than bytes.
    pub keep: Option<usize>,
}

/// What [`measure`] found.
pub struct Measured {
    pub stats: Stats,
    /// None when not linted.
    pub lint: Option<Linted>,
    /// The time of the cut (the first one, where there are several),
    /// counting included.
    pub seconds: f64,
}

/// The statistics of `doc`'s cut with `chunker` (over-limit counted against
/// `limit`), and its lint.
pub fn measure(
    chunker: &Chunker,
    doc: &Document,
    limit: Option<usize>,
    linting: Option<Linting<'_>>,
) -> Result<Measured> {
    measure_in_slices(chunker, doc, limit, linting, room(&doc.text))
}

/// [`measure`], chunks read in text order `room` bytes at a time where
/// they go back (tests use small slices).
pub fn measure_in_slices(
    chunker: &Chunker,
    doc: &Document,
    limit: Option<usize>,
    linting: Option<Linting<'_>>,
    room: usize,
) -> Result<Measured> {
    let text = doc.text.as_str();
    let started = std::time::Instant::now();
    if !chunker.holds_no_list() || text.len() > MAX_RECORDED_TEXT {
        let chunks = chunker.chunk_document(doc)?;
        let seconds = started.elapsed().as_secs_f64();
        let lint = linting.map(|l| Linted::of(crate::lint::lint_with(text, &chunks, l.opts, l.tally), l.keep));
        return Ok(Measured { stats: Stats::compute(&chunks, text, limit), lint, seconds });
    }
    let mut numbers = StatsBuilder::new(text, limit);
    let mut lint = linting.map(|l| LintStream::new(text, l.opts, l.tally).keep_first(l.keep));
    // Kept in case a chunk goes back (not needed when the strategy streams).
    let mut slice = (!chunker.streams()).then(|| Slice::above(None, room));
    let mut order = Order::default();
    let mut index = 0;
    chunker.chunk_document_each(doc, &mut |c| {
        numbers.add(&c);
        if let Some(s) = &mut slice {
            s.offer(index, &c);
        }
        index = index.saturating_add(1);
        let ordered = order.follows(&c);
        if let (true, Some(l)) = (ordered, &mut lint) {
            l.push(c);
        }
    })?;
    let seconds = started.elapsed().as_secs_f64();
    let mut stats = numbers.finish();
    let (Some(first), false) = (slice, order.ordered) else {
        return Ok(Measured { stats, lint: lint.map(LintStream::finish_counted), seconds });
    };
    // A chunk went back: read the cut again in text order.
    let mut coverage = Coverage::new(text);
    if let Some(l) = &mut lint {
        l.restart();
    }
    in_text_order(chunker, doc, first, &mut |c, number| {
        coverage.add(&c.range);
        if let Some(l) = &mut lint {
            l.push_numbered(c, number);
        }
    })?;
    stats.uncovered_chars = coverage.finish();
    Ok(Measured { stats, lint: lint.map(LintStream::finish_counted), seconds })
}

/// Whether chunks come as the one-pass readers need them: starts never
/// decreasing (uncovered text), and within each level (start, end) never
/// decreasing (lint, which reads each level apart).
struct Order {
    ordered: bool,
    start: usize,
    /// The last (start, end) of each level.
    levels: Vec<(Option<u8>, (usize, usize))>,
}

impl Default for Order {
    fn default() -> Self {
        Order { ordered: true, start: 0, levels: Vec::new() }
    }
}

impl Order {
    /// Take `c` as the next chunk; whether all so far came in order.
    fn follows(&mut self, c: &Chunk) -> bool {
        let here = (c.range.start, c.range.end);
        let level = c.meta.level;
        self.ordered &= self.start <= here.0;
        self.start = here.0;
        match self.levels.iter_mut().find(|(l, _)| *l == level) {
            Some((_, last)) => {
                self.ordered &= *last <= here;
                *last = here;
            }
            None => self.levels.push((level, here)),
        }
        self.ordered
    }
}

/// Records hold offsets and places in the list as u32 (a cut has about as
/// many chunks as bytes at most); a larger text (over the input cap anyway)
/// holds the list.
const MAX_RECORDED_TEXT: usize = (u32::MAX / 2) as usize;

/// Bytes one slice holds: 3.2 per input byte (4 with the slack), and at
/// least 16 MB.
fn room(text: &str) -> usize {
    (text.len() / 5 * 16).max(16 << 20)
}

/// A chunk as a slice holds it, in 16 bytes. Its metadata, when it has any
/// (a rewritten text), is held beside it.
#[derive(Clone, Copy)]
struct Record {
    start: u32,
    end: u32,
    index: u32,
    size: u32,
}

/// Text order: start, end, then place in the list.
type Key = (u32, u32, u32);

impl Record {
    fn key(&self) -> Key {
        (self.start, self.end, self.index)
    }
}

/// A held chunk's metadata: LangChain's rewritten chunks carry only their
/// text, which is held as it is (a boxed `ChunkMeta` is ~240 bytes more).
enum Held {
    Text(Box<str>),
    Meta(Meta),
}

impl Held {
    fn of(meta: &Meta) -> Held {
        match &meta.text {
            Some(t) if ChunkMeta { text: Some(t.clone()), ..ChunkMeta::EMPTY } == **meta => {
                Held::Text(t.as_str().into())
            }
            _ => Held::Meta(meta.clone()),
        }
    }

    /// About what holding it costs, its key included.
    fn bytes(&self) -> usize {
        let strings = |v: &[String]| v.iter().map(|s| s.len() + 24).sum::<usize>();
        48 + match self {
            Held::Text(t) => t.len(),
            Held::Meta(m) => {
                std::mem::size_of::<ChunkMeta>()
                    + m.text.as_ref().map_or(0, String::len)
                    + strings(&m.headings)
                    + strings(&m.symbols)
                    + m.fields.iter().map(|(k, v)| k.len() + v.len() + 48).sum::<usize>()
            }
        }
    }

    fn into_meta(self) -> Meta {
        match self {
            Held::Text(t) => {
                let mut meta = Meta::default();
                meta.text = Some(t.into());
                meta
            }
            Held::Meta(m) => m,
        }
    }
}

/// The chunks of one cut whose keys come after `floor`: as many of the
/// smallest as fit in `room` bytes (at least one).
struct Slice {
    floor: Option<Key>,
    room: usize,
    held: Vec<Record>,
    /// The metadata of held records that have some, by the record's key.
    metas: Vec<(Key, Held)>,
    /// What `held` and `metas` cost, in bytes.
    bytes: usize,
    /// Keys above this were left out.
    ceiling: Option<Key>,
    /// Whether a chunk above the floor was left out: another slice follows.
    more: bool,
}

impl Slice {
    fn above(floor: Option<Key>, room: usize) -> Slice {
        Slice { floor, room, held: Vec::new(), metas: Vec::new(), bytes: 0, ceiling: None, more: false }
    }

    fn offer(&mut self, index: u32, c: &Chunk) {
        let narrow = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        let r = Record { start: narrow(c.range.start), end: narrow(c.range.end), index, size: narrow(c.size) };
        let key = r.key();
        if self.floor.is_some_and(|f| key <= f) {
            return;
        }
        if self.ceiling.is_some_and(|top| key > top) {
            self.more = true;
            return;
        }
        self.bytes += std::mem::size_of::<Record>();
        if !c.meta.is_empty() {
            let held = Held::of(&c.meta);
            self.bytes += held.bytes();
            self.metas.push((key, held));
        }
        self.held.push(r);
        // Trimmed with a quarter's slack: each chunk costs a sort's share.
        if self.bytes >= self.room + self.room / 4 {
            self.trim();
        }
    }

    /// Sort what is held by key.
    fn sort(&mut self) {
        self.held.sort_unstable_by_key(Record::key);
        self.metas.sort_unstable_by_key(|(k, _)| *k);
    }

    /// Keep the smallest keys that fit in the room (at least one).
    fn trim(&mut self) {
        self.sort();
        let (mut bytes, mut keep, mut metas) = (0, 0, self.metas.iter().peekable());
        for r in &self.held {
            let mut cost = std::mem::size_of::<Record>();
            if let Some((_, held)) = metas.next_if(|(k, _)| *k == r.key()) {
                cost += held.bytes();
            }
            if keep > 0 && bytes + cost > self.room {
                break;
            }
            (bytes, keep) = (bytes + cost, keep + 1);
        }
        if keep == self.held.len() {
            return;
        }
        self.held.truncate(keep);
        let top = self.held[keep - 1].key();
        self.metas.truncate(self.metas.partition_point(|(k, _)| *k <= top));
        self.bytes = bytes;
        self.ceiling = Some(top);
        self.more = true;
    }
}

/// Hand every chunk of the cut to `each` in text order with its place in
/// the list, one slice at a time: `first` is the slice the first cut held,
/// and each further slice is cut again.
fn in_text_order(chunker: &Chunker, doc: &Document, first: Slice, each: &mut dyn FnMut(Chunk, usize)) -> Result<()> {
    let mut slice = first;
    loop {
        slice.sort();
        let Slice { held, metas, more, room, .. } = slice;
        let floor = held.last().map(Record::key);
        let mut metas = metas.into_iter().peekable();
        for r in held {
            let meta = metas.next_if(|(k, _)| *k == r.key()).map_or_else(Meta::default, |(_, m)| m.into_meta());
            let chunk = Chunk { range: r.start as usize..r.end as usize, size: r.size as usize, meta };
            each(chunk, r.index as usize);
        }
        if !more {
            return Ok(());
        }
        slice = Slice::above(floor, room);
        let mut index = 0;
        chunker.chunk_document_each(doc, &mut |c| {
            slice.offer(index, &c);
            index = index.saturating_add(1);
        })?;
    }
}
