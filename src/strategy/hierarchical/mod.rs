//! Hierarchical chunks: several sizes at once, like LlamaIndex's
//! HierarchicalNodeParser, for parent-document retrieval and auto-merging.
//!
//! Level 0 cuts the whole text at `levels[0]`; each chunk of level i is cut
//! again at `levels[i + 1]` *within its own range*, so every child lies
//! inside its parent. Each level is filled by the `base` strategy (recursive
//! by default; any strategy that needs no model) built through the strategy
//! table with `size` = that level's size and `overlap` scaled with it: the
//! configured overlap is level 0's, level i gets `overlap × levels[i] /
//! levels[0]` (so it stays below every level's size, as it is below the top
//! one's). A child the base leaves over its level's size (a base without a
//! size limit, like `document`, or a token count that differs at a slice's
//! edge) is cut again by the recursive separators: every level keeps its
//! size.
//!
//! All levels come back in one list ordered by (start, level), each chunk
//! with `meta.level` (0 = the largest), `meta.id` and `meta.parent_id`
//! (absent at level 0). An id is a hash of the level, the range, the
//! parent's id and the chunk's text: the same config on the same text gives
//! the same ids in every run, on any number of threads. Chunks are always
//! ranges of the source: a LangChain base's rewritten text is dropped, since
//! a child must be a part of its parent's text.
//!
//! `levels` left empty derives the levels from `size`: `size`, `size / 4`,
//! `size / 16` (LlamaIndex's 2048, 512, 128), dropping levels below 1. Given
//! explicitly, `size` follows `levels[0]` ([`normalize`]).

mod walk;

use super::recursive::{self, Separators};
use super::{Configured, Context, OptionKnob, OverlapRule, SizeRule, Spec, Strategy, StrategyKind};
use crate::chunk::{Chunk, ChunkMeta};
use crate::config::{ChunkConfig, MAX_COUNT};
use crate::error::Result;
use std::ops::Range;
use std::sync::Arc;
use unicode_segmentation::UnicodeSegmentation;

pub const SPEC: Spec = Spec {
    name: "hierarchical",
    help: "chunks at several --levels sizes at once, each inside its parent (meta.id, parent_id, level); --base fills them",
    needs_model: false,
    needs_llm: false,
    size: SizeRule::Limit,
    overlap: OverlapRule::Units,
    has_threshold: false,
    forces_unit: None,
    options: &["--levels", "--base", "--preset", "--separators", "--regex"],
    option: Some(OptionKnob { show: |c| format!("base={}", c.hierarchical.base), next: next_base }),
    recut: None,
    formats: &[],
    build: |c| Ok(Box::new(Hierarchical::new(c)?)),
};

/// The bases the option key cycles (any non-model strategy works as a base;
/// these are the ones worth comparing).
const CYCLED_BASES: [StrategyKind; 4] =
    [StrategyKind::Recursive, StrategyKind::Sentence, StrategyKind::Markdown, StrategyKind::Fixed];

fn next_base(c: &mut ChunkConfig) -> String {
    let i = CYCLED_BASES.iter().position(|&k| k == c.hierarchical.base).map_or(0, |i| (i + 1) % CYCLED_BASES.len());
    c.hierarchical.base = CYCLED_BASES[i];
    format!("hierarchical levels filled by {}", c.hierarchical.base)
}

/// The size of each level, largest first.
pub fn level_sizes(c: &ChunkConfig) -> Vec<usize> {
    if !c.hierarchical.levels.is_empty() {
        return c.hierarchical.levels.clone();
    }
    let mut sizes = vec![c.size];
    for d in [4, 16] {
        let s = c.size / d;
        if s >= 1 && sizes.last().is_some_and(|&l| s < l) {
            sizes.push(s);
        }
    }
    sizes
}

/// The overlap of a level of `size` (see the module comment).
pub fn level_overlap(c: &ChunkConfig, size: usize) -> usize {
    let top = level_sizes(c)[0].max(1);
    (c.overlap as u128 * size as u128 / top as u128) as usize
}

/// Explicit levels set `size` (the top level's); a base that always counts
/// one unit makes every level count it.
pub fn normalize(c: &mut ChunkConfig) {
    if let Some(&top) = c.hierarchical.levels.first() {
        c.size = top;
    }
    if let Some(unit) = c.hierarchical.base.spec().forces_unit {
        c.unit = unit;
    }
}

/// Explicit levels follow a new `size` (the workbench's size keys): each
/// scaled by the same factor, dropping those that would reach 1 or repeat.
pub fn follow_size(c: &mut ChunkConfig) {
    let Some(&top) = c.hierarchical.levels.first() else { return };
    let new = c.size.max(1);
    let mut levels: Vec<usize> = vec![new];
    for &l in &c.hierarchical.levels[1..] {
        let scaled = (l as u128 * new as u128 / top.max(1) as u128) as usize;
        if scaled >= 1 && levels.last().is_some_and(|&last| scaled < last) {
            levels.push(scaled);
        }
    }
    c.hierarchical.levels = levels;
}

/// Most levels a config may ask for (`meta.level` is a small number, and
/// each level cuts the whole text once more).
pub const MAX_LEVELS: usize = 16;

/// What is wrong with the `[hierarchical]` settings, one line each.
pub fn problems(c: &ChunkConfig, problems: &mut Vec<String>) {
    let h = &c.hierarchical;
    if h.levels.len() > MAX_LEVELS {
        problems.push(format!(
            "hierarchical.levels (--levels) lists {} levels; at most {MAX_LEVELS} are allowed, like 2048,512,128",
            h.levels.len()
        ));
    }
    if h.levels.contains(&0) {
        problems.push("hierarchical.levels (--levels) must all be at least 1, like 2048,512,128".to_string());
    } else if h.levels.windows(2).any(|w| w[1] >= w[0]) {
        problems.push(format!(
            "hierarchical.levels (--levels) must go from the largest chunk to the smallest, each smaller than the \
             one before, like 2048,512,128, not {}",
            h.levels.iter().map(usize::to_string).collect::<Vec<_>>().join(",")
        ));
    }
    if let Some(&big) = h.levels.iter().find(|&&l| l > MAX_COUNT) {
        problems.push(format!("hierarchical.levels (--levels) {big} is too large: use at most {MAX_COUNT}"));
    }
    if h.base == StrategyKind::Hierarchical || !h.base.is_plain() {
        let usable: Vec<&str> = StrategyKind::all()
            .into_iter()
            .filter(|k| k.is_plain() && *k != StrategyKind::Hierarchical)
            .map(|k| k.name())
            .collect();
        problems.push(format!("hierarchical.base (--base) cannot be '{}': use one of {}", h.base, usable.join(", ")));
    }
}

/// The levels, each with the base strategy built at its size.
struct Hierarchical {
    levels: Vec<(usize, Configured)>,
    /// What cuts a child the base left over its level's size.
    fallback: Separators,
}

impl Hierarchical {
    fn new(c: &ChunkConfig) -> Result<Self> {
        let mut levels = Vec::new();
        for size in level_sizes(c) {
            let mut base = c.clone();
            base.strategy = c.hierarchical.base;
            base.size = size;
            base.overlap = level_overlap(c, size);
            levels.push((size, Configured::new(&base)?));
        }
        Ok(Hierarchical { levels, fallback: Separators::from_options(&c.recursive, StrategyKind::Recursive)? })
    }
}

/// Parents cut by one call of the base, and top-level chunks gathered
/// before their children are cut: bounds what is held at a time (a 50 MB
/// file makes a million children at 50 chars), while a base that reads the
/// whole text per call (markdown's outline, a token index) is called a few
/// dozen times per level, not once per parent.
const PARENTS_PER_CALL: usize = 1 << 14;

/// A chunk of some level, compact: the chunk with its metadata is made only
/// when it is handed over (the chunks held waiting for their place cost
/// ~70 bytes each).
#[derive(Clone)]
struct Entry {
    range: Range<usize>,
    size: usize,
    level: u8,
    id: u64,
    parent: Option<u64>,
    /// What the base gave the chunk (heading path, symbols, ...), shared
    /// with the entries before it when equal (a section's chunks).
    meta: Option<Arc<ChunkMeta>>,
}

impl Strategy for Hierarchical {
    fn chunk(&self, text: &str, cx: &Context<'_>) -> Result<Vec<Chunk>> {
        super::collect_each(self, text, cx)
    }

    /// Chunks come by start, then level: starts never decrease, and each
    /// level comes in (start, end) order.
    fn streams(&self) -> bool {
        true
    }

    /// Each chunk is handed over once nothing still to be cut can come
    /// before it (see `walk`), so an error at a lower level can come after
    /// some chunks.
    fn chunk_each(&self, text: &str, cx: &Context<'_>, emit: &mut dyn FnMut(Chunk)) -> Result<()> {
        self.walk(text, 0..text.len(), cx, None, &mut |e| emit(e.into_chunk()))
    }

    /// The levels below the top are cut only once the top level has passed
    /// the screen: the parents around it first, then all the rest. So the
    /// screen waits for the base's cut up to it, not for every level's.
    fn chunk_each_around(
        &self,
        text: &str,
        cx: &Context<'_>,
        screen: Range<usize>,
        early: &mut dyn FnMut(Vec<Chunk>),
        emit: &mut dyn FnMut(Chunk),
    ) -> Result<()> {
        self.walk(text, 0..text.len(), cx, Some((screen, early)), &mut |e| emit(e.into_chunk()))
    }

    fn hands_screen_early(&self) -> bool {
        true
    }

    /// The top level's stretch: a child lies in its parent, and a chunk's id
    /// is made of its level, range, text and parent's id, so the chunks of
    /// the top level's stretch are cut and named alike alone.
    /// The base's stretch must start afresh too: a top-level chunk that
    /// began before it and reached into it would have children there.
    /// Fixed windows with overlap do.
    fn region_around(&self, text: &str, cx: &Context<'_>, screen: Range<usize>) -> Option<Range<usize>> {
        let base = &self.levels[0].1;
        if base.config.strategy == StrategyKind::Fixed && base.config.overlap > 0 {
            return None;
        }
        base.region_around(text, cx.structure, screen)
    }

    /// Each range's top level cut by the base within it, then the levels
    /// below: a parent's children as the whole cut has them.
    fn chunk_within(&self, text: &str, ranges: &[Range<usize>], cx: &Context<'_>) -> Result<Vec<Vec<Chunk>>> {
        let cut = |r: &Range<usize>| {
            let mut chunks = Vec::new();
            self.walk(text, r.clone(), cx, None, &mut |e| chunks.push(e.into_chunk()))?;
            Ok(chunks)
        };
        ranges.iter().map(cut).collect()
    }
}

impl Entry {
    fn into_chunk(self) -> Chunk {
        let mut meta = self.meta.map(Arc::unwrap_or_clone).unwrap_or_default();
        meta.level = Some(self.level);
        meta.id = Some(hex(self.id));
        meta.parent_id = self.parent.map(hex);
        Chunk { range: self.range, size: self.size, meta: meta.into() }
    }
}

/// A parent's children as ranges of the source within the parent, measured
/// with the whole text's index, each within `size`, in order, none twice.
fn settle(
    text: &str,
    index: &crate::size::SizeIndex<'_>,
    fallback: &Separators,
    group: Vec<Chunk>,
    parent: Range<usize>,
    size: usize,
    overlap: usize,
) -> Vec<Chunk> {
    let mut out = Vec::with_capacity(group.len());
    for c in group {
        settle_one(text, index, fallback, c, parent.clone(), size, overlap, &mut out);
    }
    out.sort_by_key(|c| (c.range.start, c.range.end));
    out.dedup_by(|a, b| a.range == b.range);
    out
}

/// What [`settle`] makes of one chunk the base gave, before the sort: the
/// chunk clipped to its parent and measured, or pieces of it, in order,
/// each starting in it.
#[allow(clippy::too_many_arguments)]
fn settle_one(
    text: &str,
    index: &crate::size::SizeIndex<'_>,
    fallback: &Separators,
    mut c: Chunk,
    parent: Range<usize>,
    size: usize,
    overlap: usize,
    out: &mut Vec<Chunk>,
) {
    let r = c.range.start.max(parent.start)..c.range.end.min(parent.end);
    if r.is_empty() {
        return;
    }
    if c.meta.text.is_some() {
        c.meta.text = None; // a child is a part of its parent's source text
    }
    c.size = index.size(r.clone());
    c.range = r;
    if c.size <= size || text[c.range.clone()].graphemes(true).nth(1).is_none() {
        out.push(c);
        return;
    }
    for piece in recursive::chunk(text, index, fallback, size, overlap, c.range.clone()) {
        let mut p = c.clone();
        p.size = index.size(piece.clone());
        p.range = piece;
        out.push(p);
    }
}

/// A chunk's id: 64-bit FNV-1a (a fixed, documented function, unlike std's
/// hasher, whose output may change between Rust releases) of its level,
/// range, parent's id and text (shown as 16 hex digits, [`hex`]).
fn chunk_id(level: usize, range: &Range<usize>, parent: Option<&str>, text: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |bytes: &[u8]| {
        for &b in bytes {
            h ^= b as u64;
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    };
    eat(&(level as u64).to_le_bytes());
    eat(&(range.start as u64).to_le_bytes());
    eat(&(range.end as u64).to_le_bytes());
    eat(parent.unwrap_or("").as_bytes());
    eat(&[0]);
    eat(text.as_bytes());
    h
}

/// An id as it is shown and hashed into its children's ids.
fn hex(id: u64) -> String {
    format!("{id:016x}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(size: usize, levels: &[usize]) -> ChunkConfig {
        let mut c = ChunkConfig { strategy: StrategyKind::Hierarchical, size, overlap: 0, ..Default::default() };
        c.hierarchical.levels = levels.to_vec();
        c
    }

    #[test]
    fn levels_from_size_or_given() {
        assert_eq!(level_sizes(&cfg(2048, &[])), [2048, 512, 128]);
        assert_eq!(level_sizes(&cfg(10, &[])), [10, 2]);
        assert_eq!(level_sizes(&cfg(3, &[])), [3]);
        assert_eq!(level_sizes(&cfg(1, &[300, 50])), [300, 50]);
        let mut c = cfg(1, &[300, 50]);
        c.overlap = 30;
        assert_eq!(level_overlap(&c, 50), 5);
        normalize(&mut c);
        assert_eq!(c.size, 300);
    }

    #[test]
    fn explicit_levels_follow_the_size() {
        let mut c = cfg(800, &[2048, 512, 128]);
        follow_size(&mut c);
        assert_eq!(c.hierarchical.levels, [800, 200, 50]);
        c.size = 3;
        follow_size(&mut c);
        assert_eq!(c.hierarchical.levels, [3]);
    }

    #[test]
    fn bad_levels_and_bases_are_explained() {
        let said = |c: &ChunkConfig| {
            let mut p = Vec::new();
            problems(c, &mut p);
            p.join("\n")
        };
        assert!(
            said(&cfg(1, &[512, 512])).contains("each smaller than the one before"),
            "{}",
            said(&cfg(1, &[512, 512]))
        );
        assert!(said(&cfg(1, &[128, 512])).contains("not 128,512"));
        assert!(said(&cfg(1, &[512, 0])).contains("at least 1"));
        assert_eq!(said(&cfg(1, &[512, 128])), "");
        let many: Vec<usize> = (1..=40).rev().collect();
        assert!(said(&cfg(1, &many)).contains("lists 40 levels; at most 16"), "{}", said(&cfg(1, &many)));
        let mut c = cfg(1, &[]);
        c.hierarchical.base = StrategyKind::Semantic;
        assert!(said(&c).contains("cannot be 'semantic'") && said(&c).contains("recursive"), "{}", said(&c));
        c.hierarchical.base = StrategyKind::Hierarchical;
        assert!(said(&c).contains("cannot be 'hierarchical'"));
    }

    #[test]
    fn ids_depend_on_place_parent_and_text() {
        let a = chunk_id(1, &(0..5), Some("p"), "hello");
        assert_eq!(a, chunk_id(1, &(0..5), Some("p"), "hello"));
        assert_eq!(hex(a).len(), 16);
        for other in [
            chunk_id(2, &(0..5), Some("p"), "hello"),
            chunk_id(1, &(1..5), Some("p"), "hello"),
            chunk_id(1, &(0..5), Some("q"), "hello"),
            chunk_id(1, &(0..5), Some("p"), "hellO"),
        ] {
            assert_ne!(a, other);
        }
    }
}
