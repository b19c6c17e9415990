//! The levels of a hierarchical cut in the workbench. A pane keeps every
//! chunk of the result (`Pane::all_chunks`) and shows one level at a time as
//! its `chunks`, so the document view, the chunk list, the stats and the
//! selection work on one flat, ordered level as for any other strategy. The
//! level key cycles the level; the selected chunk's parent (one level up)
//! is drawn as a band in the document view's margin.

use crate::chunk::Chunk;
use crate::stats::Stats;
use crate::strategy::hierarchical::level_sizes;
use crate::tui::state::model::{Model, Pane};
use std::ops::Range;
use std::sync::Arc;

/// How many levels the pane's chunks have (0: not a hierarchical cut).
pub fn count(p: &Pane) -> usize {
    p.all_chunks.iter().filter_map(|c| c.meta.level).max().map_or(0, |l| l as usize + 1)
}

/// The size chunks of the shown level are held to.
pub fn size_of_shown(p: &Pane) -> usize {
    p.size_of_shown()
}

/// Take a new result: all of it, and the level shown (the same level as
/// before where it still exists).
pub fn take(p: &mut Pane, all: Arc<Vec<Chunk>>, stats: Stats, text: &str) {
    p.all_chunks = all.clone();
    if count(p) == 0 {
        p.level = 0;
        p.chunks = all;
        p.stats = stats;
        p.tokens = shown_tokens(p);
        return;
    }
    p.level = p.level.min(count(p).saturating_sub(1) as u8);
    show(p, text);
}

/// Make `chunks` and `stats` the shown level's.
fn show(p: &mut Pane, text: &str) {
    let level = Some(p.level);
    let shown: Vec<Chunk> = p.all_chunks.iter().filter(|c| c.meta.level == level).cloned().collect();
    let limit = p.config.strategy.promises_size_limit().then(|| size_of_shown(p));
    p.stats = Stats::compute(&shown, text, limit);
    p.chunks = Arc::new(shown);
    p.tokens = shown_tokens(p);
    crate::tui::features::lint::reshow(p);
}

/// The shown chunks' token counts, from the counts of every chunk (None
/// until they are counted).
pub fn shown_tokens(p: &Pane) -> Option<Vec<usize>> {
    let all = p.all_tokens.as_ref()?;
    if count(p) == 0 {
        return Some(all.to_vec());
    }
    let level = Some(p.level);
    Some(p.all_chunks.iter().zip(all.iter()).filter(|(c, _)| c.meta.level == level).map(|(_, &n)| n).collect())
}

/// The level key: show the next level (after the deepest, the top again).
/// The selection moves to the chunk of the new level where the selected one
/// starts. Says what it did.
pub fn cycle(m: &mut Model) -> String {
    let text = m.text.clone();
    let from = m.selected.and_then(|k| m.pane().chunks.get(k)).map(|c| c.range.start);
    let p = &mut m.panes[m.active];
    let n = count(p);
    if n == 0 {
        return format!("strategy {} has one level: the level key is for hierarchical", p.config.strategy);
    }
    p.level = ((p.level as usize + 1) % n) as u8;
    show(p, &text);
    if let Some(b) = from {
        let k = p.chunks.partition_point(|c| c.range.start <= b).saturating_sub(1);
        m.selected = Some(k).filter(|_| !m.pane().chunks.is_empty());
    }
    let p = m.pane();
    format!("level {} of {n}: {} chunks of at most {} {}", p.level, p.chunks.len(), size_of_shown(p), p.config.unit)
}

/// The range of the parent of chunk `k` of pane `pane`, if it has one.
pub fn parent_range(m: &Model, pane: usize, k: usize) -> Option<Range<usize>> {
    let p = &m.panes[pane];
    let parent = p.chunks.get(k)?.meta.parent_id.as_deref()?;
    p.all_chunks.iter().find(|c| c.meta.id.as_deref() == Some(parent)).map(|c| c.range.clone())
}

/// The parameter panel's size value: every level's size, the shown one in
/// brackets (`2048/[512]/128`).
pub fn sizes_label(p: &Pane) -> String {
    let shown = p.level as usize;
    let sizes: Vec<String> = level_sizes(&p.config)
        .iter()
        .enumerate()
        .map(|(i, s)| if i == shown { format!("[{s}]") } else { s.to_string() })
        .collect();
    sizes.join("/")
}
