//! What `hierarchical` promises. Its output nests (every chunk of level i + 1
//! lies inside one of level i), so the flat rules of [`Checker::check`]
//! (ordered, non-nested) hold per level, not for the whole list:
//!
//! - ranges non-empty, in bounds, on char boundaries, source slices;
//! - the list ordered by (start, level);
//! - every chunk has a level below the number of levels, an id, unique in
//!   the output, and a parent id exactly when its level is above 0; that
//!   parent exists, one level up, and its range holds the child's;
//! - reported sizes are the size of the range; each level within its own
//!   size (bar single graphemes);
//! - each level covers every non-whitespace char of the text (for the bases
//!   that cover; LangChain's may drop separators);
//! - siblings in order, overlapping by at most their level's overlap (for
//!   bases that overlap in units);
//! - level 0 passes the base strategy's own checks at the top size, since it
//!   is that strategy's cut of the whole text (for bases that keep a size
//!   limit and are not LangChain ports).

use super::{is_langchain, show, Checker};
use chunktui::config::ChunkConfig;
use chunktui::stats::uncovered_non_whitespace;
use chunktui::strategy::hierarchical::{level_overlap, level_sizes};
use chunktui::Chunk;
use std::collections::HashMap;
use unicode_segmentation::UnicodeSegmentation;

impl Checker<'_> {
    pub(super) fn check_hierarchical(&self, cfg: &ChunkConfig, chunks: &[Chunk]) -> Result<(), String> {
        let text = self.text;
        let mut cfg = cfg.clone();
        cfg.normalize();
        let sizes = level_sizes(&cfg);
        let base = cfg.hierarchical.base;
        self.check_ranges(chunks)?;
        for w in chunks.windows(2) {
            let key = |c: &Chunk| (c.range.start, c.meta.level);
            if key(&w[1]) < key(&w[0]) {
                return Err(format!("not ordered by (start, level): {:?} then {:?}", key(&w[0]), key(&w[1])));
            }
        }
        let mut by_id: HashMap<&str, &Chunk> = HashMap::new();
        for (i, c) in chunks.iter().enumerate() {
            let (Some(id), Some(level)) = (c.meta.id.as_deref(), c.meta.level) else {
                return Err(format!("chunk {i}: no id or level: {:?}", c.meta));
            };
            if c.range.is_empty() || c.meta.text.is_some() {
                return Err(format!("chunk {i}: empty or rewritten: {}", show(text, &c.range)));
            }
            if usize::from(level) >= sizes.len() {
                return Err(format!("chunk {i}: level {level} but there are {} levels", sizes.len()));
            }
            if (level == 0) != c.meta.parent_id.is_none() {
                return Err(format!("chunk {i}: level {level} with parent {:?}", c.meta.parent_id));
            }
            if by_id.insert(id, c).is_some() {
                return Err(format!("chunk {i}: id {id} given twice"));
            }
            let expected = self.index.size(c.range.clone());
            if c.size != expected {
                return Err(format!("chunk {i}: reported size {} but the range measures {expected}", c.size));
            }
            let limit = sizes[usize::from(level)];
            if c.size > limit && text[c.range.clone()].graphemes(true).nth(1).is_some() {
                return Err(format!("chunk {i}: level {level} size {} over {limit}: {}", c.size, show(text, &c.range)));
            }
        }
        for (i, c) in chunks.iter().enumerate() {
            let Some(pid) = c.meta.parent_id.as_deref() else { continue };
            let Some(p) = by_id.get(pid) else { return Err(format!("chunk {i}: parent {pid} is not in the output")) };
            if p.meta.level.map(|l| l + 1) != c.meta.level {
                return Err(format!("chunk {i}: level {:?}, its parent's {:?}", c.meta.level, p.meta.level));
            }
            if c.range.start < p.range.start || c.range.end > p.range.end {
                return Err(format!("chunk {i} {:?} is not inside its parent {:?}", c.range, p.range));
            }
        }
        for (level, &size) in sizes.iter().enumerate() {
            let this: Vec<Chunk> = chunks.iter().filter(|c| c.meta.level == Some(level as u8)).cloned().collect();
            if !is_langchain(base) {
                let missing = uncovered_non_whitespace(&this, text);
                if missing > 0 {
                    return Err(format!("level {level}: {missing} non-whitespace chars in no chunk"));
                }
            }
            self.check_siblings(&cfg, level, size, &this)?;
            if level == 0 && base.promises_size_limit() && !is_langchain(base) {
                let base_cfg = ChunkConfig { strategy: base, size, overlap: cfg.overlap, ..cfg.clone() };
                self.check(&base_cfg, &this).map_err(|e| format!("level 0 as {base}: {e}"))?;
            }
        }
        Ok(())
    }

    /// Children of one parent: in order, none twice, overlapping by at most
    /// the level's overlap when the base overlaps in units.
    fn check_siblings(&self, cfg: &ChunkConfig, level: usize, size: usize, this: &[Chunk]) -> Result<(), String> {
        let mut groups: HashMap<Option<&str>, Vec<&Chunk>> = HashMap::new();
        for c in this {
            groups.entry(c.meta.parent_id.as_deref()).or_default().push(c);
        }
        let overlap = level_overlap(cfg, size);
        let units = cfg.hierarchical.base.spec().overlap == chunktui::strategy::OverlapRule::Units;
        for (parent, group) in groups {
            for w in group.windows(2) {
                let (a, b) = (&w[0].range, &w[1].range);
                if (b.start, b.end) <= (a.start, a.end) {
                    return Err(format!("level {level} under {parent:?}: siblings out of order: {a:?} then {b:?}"));
                }
                if units && !is_langchain(cfg.hierarchical.base) && a.end > b.start {
                    let shared = self.index.size(b.start..a.end.min(b.end));
                    if shared > overlap {
                        return Err(format!(
                            "level {level}: siblings {a:?} and {b:?} share {shared}, over the level's overlap {overlap}"
                        ));
                    }
                }
            }
        }
        Ok(())
    }
}
