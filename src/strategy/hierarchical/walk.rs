//! Hierarchical chunks handed over as they are cut, in the order of the
//! whole list: by start, then level (largest first), then end, then the
//! order they were made in.
//!
//! The top level is cut by the base as one pass over the text; its chunks
//! are gathered in batches, and each batch's children are cut level by
//! level, a batch of parents at a time, depth first. A chunk is handed over
//! once no chunk still to be cut can come before it: every chunk lies in
//! its parent, so nothing still to come starts before the least start of
//! the parents whose children are not cut yet, nor before the last top
//! chunk (the top level comes in text order). What is held meanwhile is
//! the chunks cut but not handed over and a batch of parents per level,
//! not the cut: at `--size 1` a 50 MB file is 50 million chunks.

use super::{chunk_id, hex, settle, settle_one, Entry, Hierarchical, PARENTS_PER_CALL};
use crate::chunk::{Chunk, ChunkMeta};
use crate::error::{Error, Result};
use crate::size::SizeIndex;
use crate::strategy::Context;
use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;
use std::ops::Range;
use std::sync::Arc;

/// Where an entry goes in the list: (start, level, end, how many of its
/// level were made before it).
type Key = (usize, u8, usize, u64);

#[derive(Clone)]
struct Keyed(Key, Entry);

impl PartialEq for Keyed {
    fn eq(&self, other: &Self) -> bool {
        self.0 == other.0
    }
}

impl Eq for Keyed {}

impl PartialOrd for Keyed {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Keyed {
    fn cmp(&self, other: &Self) -> Ordering {
        self.0.cmp(&other.0)
    }
}

/// A chunk whose children are cut next: its range and id.
type Parent = (Range<usize>, u64);

/// Top-level chunks held, uncut, while the screen's chunks are wanted
/// early (~25 MB with their entries); past this they are not.
const HELD_FOR_SCREEN: usize = 1 << 18;

/// A screen whose chunks are wanted early, and who wants them.
pub(super) type Early<'e> = (Range<usize>, &'e mut dyn FnMut(Vec<Chunk>));

/// Top-level chunks spanning this many bytes have their children cut
/// before more top-level chunks are gathered: the first chunks are handed
/// over soon after the cut starts (the workbench shows the screen's when
/// it has them), and the chunks held waiting for their place stay few. The
/// whole text's size index is built once for all batches.
const BATCH_BYTES: usize = 64 * 1024;

struct Walk<'w, 'c> {
    h: &'w Hierarchical,
    text: &'w str,
    index: &'w SizeIndex<'w>,
    cx: &'w Context<'c>,
    pending: BinaryHeap<Reverse<Keyed>>,
    /// Per level, the chunks made so far.
    made: Vec<u64>,
    /// Per level, the least start of its chunks whose children are not cut
    /// yet (`usize::MAX`: none).
    uncut: Vec<usize>,
    /// No top-level chunk still to come starts before this.
    top_from: usize,
    /// Top-level chunks whose children are not cut yet.
    batch: Vec<Parent>,
    /// The metadata of the chunk made last, shared with the next when equal
    /// (a section's chunks carry the same heading path).
    last_meta: Option<Arc<ChunkMeta>>,
    /// The screen whose chunks go out first, until they have: meanwhile
    /// the top level is gathered, not cut further.
    early: Option<Early<'w>>,
    /// The top-level entries gathered for the early screen have no id yet:
    /// an id hashes the chunk's text, megabytes before a screen deep in the
    /// document, so only the screen's are made before it is handed over.
    ids_deferred: bool,
    emit: &'w mut dyn FnMut(Entry),
}

impl Hierarchical {
    /// Hand every chunk to `emit`, in list order.
    /// `range` is the whole text, or a stretch the base cuts alone
    /// ([`Strategy::region_around`](crate::strategy::Strategy::region_around)).
    /// With `early`, the chunks around its screen go to it first.
    pub(super) fn walk(
        &self,
        text: &str,
        range: Range<usize>,
        cx: &Context<'_>,
        early: Option<Early<'_>>,
        emit: &mut dyn FnMut(Entry),
    ) -> Result<()> {
        // Each batch of parents looks the text up (a markdown base's outline).
        crate::size::doc_cache::pinned(text, || self.walk_pinned(text, range, cx, early, emit))
    }

    fn walk_pinned(
        &self,
        text: &str,
        range: Range<usize>,
        cx: &Context<'_>,
        early: Option<Early<'_>>,
        emit: &mut dyn FnMut(Entry),
    ) -> Result<()> {
        let index = cx.size_index(text)?;
        let levels = self.levels.len();
        let mut w = Walk {
            h: self,
            text,
            index: &index,
            cx,
            pending: BinaryHeap::new(),
            made: vec![0; levels],
            uncut: vec![usize::MAX; levels],
            top_from: 0,
            batch: Vec::new(),
            last_meta: None,
            early: early.map(|(screen, early)| (screen, early as &mut dyn FnMut(Vec<Chunk>))),
            ids_deferred: false,
            emit,
        };
        let (size, base) = &self.levels[0];
        let (size, overlap, whole) = (*size, base.config.overlap, range);
        if !base.strategy_streams() || whole != (0..text.len()) {
            // The base holds its list anyway, or gives the stretch's chunks of its whole cut.
            let group = if whole == (0..text.len()) {
                base.chunk_within_indexed(text, std::slice::from_ref(&whole), Some(&index), cx.model, cx.control)?
            } else {
                vec![base.chunk_region(text, whole.clone(), cx.control)?]
            };
            for c in settle(
                text,
                &index,
                &self.fallback,
                group.into_iter().flatten().collect(),
                0..text.len(),
                size,
                overlap,
            ) {
                w.top(c)?;
            }
            return w.finish();
        }
        // The base's chunks come in text order; the pieces settle makes of
        // one lie in it, so those starting before the next one's start are
        // in their final order (sorted, equal ranges once) when it comes.
        let mut held: Vec<Chunk> = Vec::new();
        let mut failed: Option<Error> = None;
        let ready = |held: &mut Vec<Chunk>, before: usize, w: &mut Walk<'_, '_>| -> Result<()> {
            held.sort_by_key(|c| (c.range.start, c.range.end));
            let n = held.partition_point(|c| c.range.start < before);
            let mut last: Option<Range<usize>> = None;
            for c in held.drain(..n) {
                if last.as_ref() != Some(&c.range) {
                    last = Some(c.range.clone());
                    w.top(c)?;
                }
            }
            Ok(())
        };
        base.chunk_whole_each(text, cx.model, cx.control, &mut |c| {
            if failed.is_some() {
                return;
            }
            let from = c.range.start;
            if let Err(e) = ready(&mut held, from, &mut w) {
                failed = Some(e);
                return;
            }
            settle_one(text, &index, &self.fallback, c, whole.clone(), size, overlap, &mut held);
        })?;
        if let Some(e) = failed {
            return Err(e);
        }
        ready(&mut held, usize::MAX, &mut w)?;
        w.finish()
    }
}

/// The id of a top-level chunk (it has no parent).
fn top_id(text: &str, range: &Range<usize>) -> u64 {
    chunk_id(0, range, None, &text[range.clone()])
}

impl Walk<'_, '_> {
    /// The next top-level chunk, in text order.
    fn top(&mut self, c: Chunk) -> Result<()> {
        if self.early.as_ref().is_some_and(|(screen, _)| c.range.start >= screen.end) {
            self.hand_early(c.range.start)?;
        }
        if self.early.is_some() && self.batch.len() >= HELD_FOR_SCREEN {
            // A tiny size deep in a huge text: the screen's chunks come with
            // the stream instead, as they did before.
            self.early = None;
            self.fill_ids();
        }
        self.top_from = c.range.start;
        let parent = self.add(0, c, None);
        self.batch.push(parent);
        let spans = self.batch.last().map_or(0, |l| l.0.end) - self.batch.first().map_or(0, |f| f.0.start);
        if self.early.is_none() && (self.batch.len() >= PARENTS_PER_CALL || spans >= BATCH_BYTES) {
            self.cut_batch()?;
        }
        Ok(())
    }

    /// Hand the early screen its chunks, once no top-level chunk still to
    /// come starts before `next`: every chunk of the whole list that starts
    /// from the least start of the top chunks meeting the screen (or the
    /// screen's start) up to `next`. Those are consecutive in the list, and
    /// each lies in a gathered top chunk that reaches into that stretch, so
    /// cutting those alone makes them all. Their ids and order are those
    /// of the whole cut: a chunk's id is made of its ancestors', and chunks
    /// of one level are made in their parents' order either way.
    fn hand_early(&mut self, next: usize) -> Result<()> {
        let Some((screen, early)) = self.early.take() else { return Ok(()) };
        let meets = |p: &&Parent| p.0.end > screen.start && p.0.start < screen.end;
        let from = self.batch.iter().filter(meets).map(|p| p.0.start).fold(screen.start, usize::min);
        let within = |start: usize| start >= from && start < next;
        let deferred = self.ids_deferred;
        let text = self.text;
        let named = |range: &Range<usize>, id: u64| if deferred { top_id(text, range) } else { id };
        let parents: Vec<Parent> = self
            .batch
            .iter()
            .filter(|p| p.0.end > from && p.0.start < next)
            .map(|p| (p.0.clone(), named(&p.0, p.1)))
            .collect();
        // Every top chunk is still held: none is handed over before the screen's.
        let mut found: Vec<Keyed> = self
            .pending
            .iter()
            .filter(|k| k.0 .0 .1 == 0 && within(k.0 .0 .0))
            .map(|k| {
                let mut k = k.0.clone();
                k.1.id = named(&k.1.range, k.1.id);
                k
            })
            .collect();
        let mut ignore = |_: Entry| {};
        let mut below = Walk {
            h: self.h,
            text: self.text,
            index: self.index,
            cx: self.cx,
            pending: BinaryHeap::new(),
            made: vec![0; self.made.len()],
            uncut: vec![usize::MAX; self.uncut.len()],
            top_from: 0, // nothing is handed to `ignore`: all stays in `pending`
            batch: Vec::new(),
            last_meta: None,
            early: None,
            ids_deferred: false,
            emit: &mut ignore,
        };
        below.descend(1, &parents)?;
        found.extend(below.pending.into_iter().map(|k| k.0).filter(|k| within(k.0 .0)));
        found.sort_by_key(|k| k.0);
        early(found.into_iter().map(|k| k.1.into_chunk()).collect());
        self.fill_ids();
        Ok(())
    }

    /// Give the top-level entries gathered for the early screen their ids.
    fn fill_ids(&mut self) {
        if !std::mem::replace(&mut self.ids_deferred, false) {
            return;
        }
        let text = self.text;
        for parent in &mut self.batch {
            parent.1 = top_id(text, &parent.0);
        }
        let mut pending = std::mem::take(&mut self.pending).into_vec();
        for Reverse(Keyed(_, entry)) in &mut pending {
            if entry.level == 0 {
                entry.id = top_id(text, &entry.range);
            }
        }
        self.pending = BinaryHeap::from(pending);
    }

    /// Cut the batch's children, all levels down, and hand over what is ready.
    fn cut_batch(&mut self) -> Result<()> {
        let batch = std::mem::take(&mut self.batch);
        self.descend(1, &batch)?;
        self.release();
        Ok(())
    }

    /// Cut the children (at `level`) of `parents` (at `level - 1`), a batch
    /// at a time, each batch's children cut further before the next batch.
    fn descend(&mut self, level: usize, parents: &[Parent]) -> Result<()> {
        let h = self.h;
        let Some((size, base)) = h.levels.get(level) else { return Ok(()) };
        // The least start of the parents from each place on.
        let mut least = vec![usize::MAX; parents.len() + 1];
        for i in (0..parents.len()).rev() {
            least[i] = least[i + 1].min(parents[i].0.start);
        }
        let overlap = base.config.overlap;
        for (b, batch) in parents.chunks(PARENTS_PER_CALL).enumerate() {
            self.uncut[level - 1] = least[b * PARENTS_PER_CALL];
            let ranges: Vec<Range<usize>> = batch.iter().map(|p| p.0.clone()).collect();
            let groups =
                base.chunk_within_indexed(self.text, &ranges, Some(self.index), self.cx.model, self.cx.control)?;
            let mut next = Vec::new();
            for ((range, id), group) in batch.iter().zip(groups) {
                for c in settle(self.text, self.index, &h.fallback, group, range.clone(), *size, overlap) {
                    next.push(self.add(level, c, Some(*id)));
                }
            }
            self.uncut[level - 1] = least[((b + 1) * PARENTS_PER_CALL).min(parents.len())];
            self.descend(level + 1, &next)?;
            self.release();
        }
        self.uncut[level - 1] = usize::MAX;
        Ok(())
    }

    /// Make the entry of chunk `c` at `level`, held until it is ready.
    fn add(&mut self, level: usize, c: Chunk, parent: Option<u64>) -> Parent {
        let id = if level == 0 && self.early.is_some() {
            self.ids_deferred = true;
            0 // made by `fill_ids`, or for the screen's chunks by `hand_early`
        } else {
            chunk_id(level, &c.range, parent.map(hex).as_deref(), &self.text[c.range.clone()])
        };
        let meta = (!c.meta.is_empty()).then(|| c.meta.into_inner());
        let meta = match (meta, self.last_meta.as_ref()) {
            (Some(m), Some(last)) if **last == m => Some(last.clone()),
            (m, _) => m.map(Arc::new),
        };
        self.last_meta = meta.clone();
        let made = self.made[level];
        self.made[level] += 1;
        let range = c.range;
        let key = (range.start, level as u8, range.end, made);
        let entry = Entry { range: range.clone(), size: c.size, level: level as u8, id, parent, meta };
        self.pending.push(Reverse(Keyed(key, entry)));
        (range, id)
    }

    /// Hand over every entry that nothing still to be cut can come before.
    fn release(&mut self) {
        let bound = self.uncut.iter().copied().fold(self.top_from, usize::min);
        while self.pending.peek().is_some_and(|Reverse(k)| k.0 .0 < bound) {
            let Some(Reverse(Keyed(_, entry))) = self.pending.pop() else { break };
            (self.emit)(entry);
        }
    }

    /// The last batch, and everything still held.
    fn finish(mut self) -> Result<()> {
        self.hand_early(usize::MAX)?;
        self.cut_batch()?;
        self.top_from = usize::MAX;
        self.release();
        Ok(())
    }
}
