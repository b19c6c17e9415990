//! Hand-made boundaries (`[[edits]]` in a config): a reviewer's corrections
//! kept as constraints, not as a chunk list, so that they survive every
//! re-cut and edits of the document around them.
//!
//! - A `cut` says a chunk starts exactly here: the strategy cuts the
//!   stretches between cuts on its own (no overlap reaches across a cut).
//! - A `join` says no chunk starts here: a chunk the strategy starts at the
//!   spot is merged into the one before it, even when that leaves a chunk
//!   over the size (lint says so).
//!
//! An edit is anchored by text — the spot is where `before` ends and `after`
//! begins — so it follows its place when text is added or removed elsewhere.
//! One whose anchors are gone, or found more than once without a `near`
//! offset to choose, is stale: never applied, never moved silently, and
//! reported by `chunk`, `stats`, `lint` and the workbench.

use crate::chunk::Chunk;
use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};
use std::ops::Range;

/// Set while a run reads many files (a folder, a glob): an edit that names
/// no file applies to whichever file holds its text, so its absence from
/// one file is not staleness; the run reports the edits no file held.
static MANY_FILES: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Say that this run reads many files (see [`MANY_FILES`]).
pub fn set_many_files(many: bool) {
    MANY_FILES.store(many, std::sync::atomic::Ordering::Relaxed);
}

/// Whether edit `e`, stale for `why` in one text, is stale for the run:
/// in a run over many files an edit that names no file and is not in this
/// text may be in another.
pub fn stale_here(e: &Edit, why: &Stale) -> bool {
    !(MANY_FILES.load(std::sync::atomic::Ordering::Relaxed) && e.file.is_none() && *why == Stale::Gone)
}

/// Longest anchor, in characters.
pub const MAX_ANCHOR_CHARS: usize = 64;
/// Most edits one config may hold.
pub const MAX_EDITS: usize = 10_000;

/// What an edit does at its spot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum EditOp {
    /// A chunk starts exactly here.
    Cut,
    /// No chunk starts here.
    Join,
}

impl EditOp {
    pub fn name(self) -> &'static str {
        match self {
            EditOp::Cut => "cut",
            EditOp::Join => "join",
        }
    }
}

/// One hand-made boundary.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Edit {
    pub op: EditOp,
    /// The text just before the spot (up to 64 characters; may be empty at
    /// the start of the document, but not together with `after`).
    #[serde(default)]
    pub before: String,
    /// The text just after the spot (up to 64 characters).
    #[serde(default)]
    pub after: String,
    /// A byte offset near the spot: picks the closest of several matches.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub near: Option<usize>,
    /// Folders: the file the edit belongs to (its path as given, or its
    /// name); without one it applies to whichever file holds its anchors.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
}

impl Edit {
    /// An edit at byte `at` of `text`, anchored by up to
    /// [`MAX_ANCHOR_CHARS`] characters on each side (fewer where the text
    /// ends), with `near` set so that a repeated passage still resolves.
    pub fn at(op: EditOp, text: &str, at: usize) -> Edit {
        let at = crate::size::floor_char_boundary(text, at.min(text.len()));
        let before_start = text[..at].char_indices().rev().nth(MAX_ANCHOR_CHARS - 1).map_or(0, |(i, _)| i);
        let after_end = text[at..].char_indices().nth(MAX_ANCHOR_CHARS).map_or(text.len(), |(i, _)| at + i);
        Edit {
            op,
            before: text[before_start..at].to_string(),
            after: text[at..after_end].to_string(),
            near: Some(at),
            file: None,
        }
    }

    /// Whether this edit is for the file at `path` (an edit that names no
    /// file is for every file).
    pub fn is_for(&self, path: Option<&std::path::Path>) -> bool {
        match (&self.file, path) {
            (None, _) => true,
            (Some(_), None) => false,
            (Some(f), Some(p)) => {
                let named = std::path::Path::new(f);
                p == named
                    || p.ends_with(named)
                    || p.file_name() == named.file_name() && named.components().count() == 1
            }
        }
    }

    /// The edit as one line for messages: `cut "…before|after…"`.
    pub fn describe(&self) -> String {
        let tail: String = {
            let chars: Vec<char> = self.before.chars().collect();
            chars[chars.len().saturating_sub(24)..].iter().collect()
        };
        let head: String = self.after.chars().take(24).collect();
        let show = |s: &str| s.replace('\n', "⏎");
        format!("{} \"{}|{}\"", self.op.name(), show(&tail), show(&head))
    }
}

/// Why an edit was not applied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stale {
    /// Its anchors are not in the text.
    Gone,
    /// Its anchors are found this many times and it has no `near`.
    Ambiguous(usize),
}

/// Edits resolved against one text.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Resolved {
    /// Byte offsets where a chunk must start, sorted, distinct.
    pub cuts: Vec<usize>,
    /// Byte offsets where no chunk may start, sorted, distinct.
    pub joins: Vec<usize>,
    /// Each applied edit's index in the list and its spot.
    pub applied: Vec<(usize, usize)>,
    /// Each stale edit's index in the list and why.
    pub stale: Vec<(usize, Stale)>,
}

impl Resolved {
    pub fn is_empty(&self) -> bool {
        self.cuts.is_empty() && self.joins.is_empty()
    }

    /// Whether a chunk starting at `at` starts there by hand (a cut).
    pub fn is_cut(&self, at: usize) -> bool {
        self.cuts.binary_search(&at).is_ok()
    }
}

/// Problems with a list of edits, one line each: what `validate` refuses.
pub fn problems(edits: &[Edit]) -> Vec<String> {
    let mut out = Vec::new();
    if edits.len() > MAX_EDITS {
        out.push(format!(
            "{} edits in [[edits]]; at most {MAX_EDITS} are allowed: a config is not a chunk list, keep the \
             corrections that matter",
            edits.len()
        ));
        return out;
    }
    for (i, e) in edits.iter().enumerate() {
        let n = i + 1;
        if e.before.is_empty() && e.after.is_empty() {
            out.push(format!(
                "edit {n} ({}): before and after are both empty: give the text around the spot",
                e.op.name()
            ));
        }
        for (side, anchor) in [("before", &e.before), ("after", &e.after)] {
            let chars = anchor.chars().count();
            if chars > MAX_ANCHOR_CHARS {
                out.push(format!(
                    "edit {n} ({}): {side} holds {chars} characters; at most {MAX_ANCHOR_CHARS}: keep the text \
                     nearest the spot",
                    e.op.name()
                ));
            }
        }
    }
    // A cut and a join on the same anchors contradict each other.
    type Spot<'e> = (&'e str, &'e str, Option<usize>, Option<&'e str>);
    let mut seen: std::collections::HashMap<Spot<'_>, (usize, EditOp)> = std::collections::HashMap::new();
    for (i, e) in edits.iter().enumerate() {
        let key = (e.before.as_str(), e.after.as_str(), e.near, e.file.as_deref());
        if let Some(&(j, op)) = seen.get(&key) {
            if op != e.op {
                out.push(format!(
                    "edits {} and {} put a {} and a {} on the same spot ({}): keep one",
                    j + 1,
                    i + 1,
                    op.name(),
                    e.op.name(),
                    e.describe()
                ));
            }
        } else {
            seen.insert(key, (i, e.op));
        }
    }
    out
}

/// Find every edit's spot in `text`: all anchors are searched in one pass
/// (Aho-Corasick over `before + after`), so a thousand edits cost about
/// one scan of the text.
pub fn resolve(text: &str, edits: &[Edit]) -> Resolved {
    let mut out = Resolved::default();
    if edits.is_empty() {
        return out;
    }
    let needles: Vec<String> = edits.iter().map(|e| format!("{}{}", e.before, e.after)).collect();
    let mut matches: Vec<Vec<usize>> = vec![Vec::new(); edits.len()];
    let searchable: Vec<usize> = (0..edits.len()).filter(|&i| !needles[i].is_empty()).collect();
    // A DFA: built once per edit list, it scans megabytes several times
    // faster than the default NFA in an overlapping search.
    let built = aho_corasick::AhoCorasick::builder()
        .kind(Some(aho_corasick::AhoCorasickKind::DFA))
        .build(searchable.iter().map(|&i| needles[i].as_bytes()))
        .or_else(|_| aho_corasick::AhoCorasick::new(searchable.iter().map(|&i| needles[i].as_bytes())));
    if let Ok(ac) = built {
        for m in ac.find_overlapping_iter(text) {
            let i = searchable[m.pattern().as_usize()];
            let spot = m.start() + edits[i].before.len();
            matches[i].push(spot);
        }
    }
    for (i, (e, spots)) in edits.iter().zip(matches).enumerate() {
        let spot = match (spots.len(), e.near) {
            (0, _) => {
                out.stale.push((i, Stale::Gone));
                continue;
            }
            (1, _) => spots[0],
            (_, Some(near)) => *spots.iter().min_by_key(|&&s| s.abs_diff(near)).expect("two or more spots"),
            (n, None) => {
                out.stale.push((i, Stale::Ambiguous(n)));
                continue;
            }
        };
        out.applied.push((i, spot));
        match e.op {
            EditOp::Cut => out.cuts.push(spot),
            EditOp::Join => out.joins.push(spot),
        }
    }
    for list in [&mut out.cuts, &mut out.joins] {
        list.sort_unstable();
        list.dedup();
    }
    // A cut at the text's very start or end changes nothing.
    out.cuts.retain(|&c| c > 0 && c < text.len());
    out
}

/// [`resolve`], remembered for the last few (text, edit list) pairs: the
/// workbench re-cuts the same text with the same edits on every key press,
/// and finding a thousand edits in megabytes costs more than a cut.
pub fn resolve_cached(text: &str, edits: &[Edit]) -> Resolved {
    use std::hash::{Hash, Hasher};
    type Entry = (u64, u64, usize, std::sync::Arc<Resolved>);
    static CACHE: std::sync::Mutex<Vec<Entry>> = std::sync::Mutex::new(Vec::new());
    const KEPT: usize = 4;
    if edits.is_empty() {
        return Resolved::default();
    }
    let text_key = xxhash_rust::xxh3::xxh3_64(text.as_bytes());
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    edits.hash(&mut hasher);
    let edits_key = hasher.finish();
    let found = {
        let cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
        cache.iter().find(|e| e.0 == text_key && e.1 == edits_key && e.2 == text.len()).map(|e| e.3.clone())
    };
    if let Some(hit) = found {
        return (*hit).clone();
    }
    let resolved = resolve(text, edits);
    let mut cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
    if cache.len() == KEPT {
        cache.remove(0);
    }
    cache.push((text_key, edits_key, text.len(), std::sync::Arc::new(resolved.clone())));
    resolved
}

/// The edits of `edits` for the file at `path` (those that name no file,
/// and those that name it; None: those that name no file) resolved against
/// `text`, remembered ([`resolve_cached`]); the indices in the result are
/// into `edits`.
pub fn resolve_for(edits: &[Edit], text: &str, path: Option<&std::path::Path>) -> Resolved {
    if edits.is_empty() {
        return Resolved::default();
    }
    let place: Vec<usize> = (0..edits.len()).filter(|&i| edits[i].is_for(path)).collect();
    let mine: Vec<Edit> = place.iter().map(|&i| edits[i].clone()).collect();
    let mut resolved = resolve_cached(text, &mine);
    resolved.stale.iter_mut().for_each(|(i, _)| *i = place[*i]);
    resolved.applied.iter_mut().for_each(|(i, _)| *i = place[*i]);
    resolved
}

/// The stretches `cuts` divide `0..len` into.
pub fn stretches(cuts: &[usize], len: usize) -> Vec<Range<usize>> {
    let mut bounds = vec![0];
    bounds.extend(cuts.iter().copied().filter(|&c| c > 0 && c < len));
    bounds.push(len);
    bounds.windows(2).map(|w| w[0]..w[1]).filter(|r| !r.is_empty()).collect()
}

/// Merge every chunk that starts at a join into the one before it (same
/// level only: hierarchical children follow their parents), and start the
/// first chunk of each stretch exactly at its cut. `size` measures a merged
/// range.
pub fn apply(chunks: Vec<Chunk>, resolved: &Resolved, size: &dyn Fn(Range<usize>) -> usize) -> Vec<Chunk> {
    let mut out: Vec<Chunk> = Vec::with_capacity(chunks.len());
    for mut c in chunks {
        let level = c.meta.level;
        if resolved.joins.binary_search(&c.range.start).is_ok() {
            if let Some(prev) = out.iter_mut().rev().find(|p| p.meta.level == level) {
                if prev.meta.text.is_none() && c.meta.text.is_none() && prev.range.end <= c.range.end {
                    prev.range = prev.range.start..c.range.end;
                    prev.size = size(prev.range.clone());
                    continue;
                }
            }
        }
        // The first chunk after a cut starts at the cut, whitespace and all.
        let i = resolved.cuts.partition_point(|&cut| cut <= c.range.start);
        if let Some(&cut) = i.checked_sub(1).and_then(|i| resolved.cuts.get(i)) {
            let starts_stretch = out.last().is_none_or(|p| p.range.end <= cut);
            if starts_stretch && cut < c.range.start && c.meta.text.is_none() {
                c.range = cut..c.range.end;
                c.size = size(c.range.clone());
            }
        }
        out.push(c);
    }
    out
}

/// The stale edits as lines for stderr: `1 stale edit: cut "…|…" (its text is gone)`.
pub fn stale_report(edits: &[Edit], resolved: &Resolved) -> Option<String> {
    let stale: Vec<_> = resolved.stale.iter().filter(|(i, why)| stale_here(&edits[*i], why)).collect();
    if stale.is_empty() {
        return None;
    }
    let n = stale.len();
    let mut out = format!("{n} stale edit{} (not applied):", if n == 1 { "" } else { "s" });
    for (i, why) in stale {
        let why = match why {
            Stale::Gone => "its text is gone".to_string(),
            Stale::Ambiguous(k) => format!("its text is found {k} times: add near = BYTE to pick one"),
        };
        out.push_str(&format!("\n  edit {}: {} ({why})", i + 1, edits[*i].describe()));
    }
    Some(out)
}

/// Refuse a config whose edits cannot be read (see [`problems`]).
pub fn check(edits: &[Edit]) -> Result<()> {
    let p = problems(edits);
    if p.is_empty() {
        Ok(())
    } else {
        Err(Error::config(p.join("\n")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edit(op: EditOp, before: &str, after: &str) -> Edit {
        Edit { op, before: before.into(), after: after.into(), near: None, file: None }
    }

    #[test]
    fn spots_are_where_before_ends_and_after_begins() {
        let text = "One. Two. 三。四。Two. End.";
        let r = resolve(text, &[edit(EditOp::Cut, "One. ", "Two."), edit(EditOp::Join, "三。", "四")]);
        assert_eq!(r.cuts, [5]);
        assert_eq!(r.joins, [text.find("四").unwrap()]);
        assert!(r.stale.is_empty());
    }

    #[test]
    fn gone_and_ambiguous_edits_are_stale_and_near_picks_one() {
        let text = "a. Two. b. Two. c.";
        let r = resolve(text, &[edit(EditOp::Cut, "", "Two."), edit(EditOp::Cut, "x", "y")]);
        assert_eq!(r.stale, [(0, Stale::Ambiguous(2)), (1, Stale::Gone)]);
        let near = Edit { near: Some(12), ..edit(EditOp::Cut, "", "Two.") };
        assert_eq!(resolve(text, &[near]).cuts, [11]);
    }

    #[test]
    fn an_edit_made_at_a_spot_resolves_back_to_it() {
        let text = "前言。".repeat(50) + "Here it is. " + &"tail ".repeat(40);
        let at = text.find("Here").unwrap();
        let e = Edit::at(EditOp::Cut, &text, at);
        assert_eq!(e.before.chars().count(), MAX_ANCHOR_CHARS);
        assert_eq!(resolve(&text, &[e]).cuts, [at]);
    }

    #[test]
    fn bad_lists_are_refused_with_a_line_each() {
        let long = "x".repeat(65);
        let p = problems(&[
            edit(EditOp::Cut, "", ""),
            edit(EditOp::Cut, &long, "y"),
            edit(EditOp::Cut, "a", "b"),
            edit(EditOp::Join, "a", "b"),
        ]);
        assert_eq!(p.len(), 3, "{p:?}");
        assert!(p[0].contains("both empty") && p[1].contains("65 characters") && p[2].contains("same spot"), "{p:?}");
        let many = vec![edit(EditOp::Cut, "a", "b"); MAX_EDITS + 1];
        assert!(problems(&many)[0].contains("at most 10000"));
    }

    #[test]
    fn joins_merge_and_cuts_start_their_stretch() {
        let chunks = vec![Chunk::new(0..4, 4), Chunk::new(5..9, 4), Chunk::new(10..14, 4)];
        let r = Resolved { joins: vec![5], ..Resolved::default() };
        let merged = apply(chunks.clone(), &r, &|r: Range<usize>| r.len());
        assert_eq!(merged.iter().map(|c| c.range.clone()).collect::<Vec<_>>(), [0..9, 10..14]);
        let r = Resolved { cuts: vec![9], ..Resolved::default() };
        let cut = apply(chunks, &r, &|r: Range<usize>| r.len());
        assert_eq!(cut[2].range, 9..14);
        assert_eq!(stretches(&[5, 9], 14), [0..5, 5..9, 9..14]);
    }
}
