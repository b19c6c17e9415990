//! Hand-made boundaries in the workbench (`[[edits]]` of the pane's config,
//! see [`crate::edits`]): move the selected chunk's start by a sentence or a
//! word, split it, join it with the next, undo and redo. Every change is a
//! new edit list in the pane's config (the previous one on the undo stack)
//! and a re-cut; `e` exports it with the rest of the config, and a hot
//! reload keeps it (the edits are anchored by text, so they follow their
//! place).
//!
//! Where the edits land in the text is found on the chunker thread, with
//! the chunks ([`resolved_msg`]): one Aho-Corasick pass, never on the UI
//! thread. The keys read the landing spots of the chunks on screen.

use crate::chunk::Chunk;
use crate::config::ChunkConfig;
use crate::edits::{Edit, EditOp, Resolved, Stale};
use crate::segment::is_cjk;
use crate::tui::features::chunks::rechunk;
use crate::tui::msg::{Cmd, Msg};
use crate::tui::state::cursor::{set_error, set_status};
pub use crate::tui::state::edits::PaneEdits;
use crate::tui::state::keymap::Action;
use crate::tui::state::model::{Model, Pane};
use std::ops::Range;
use std::sync::Arc;

/// Undo steps kept per pane.
const UNDO_DEPTH: usize = 200;

/// The landing spots of the edits of the chunks the document pane draws
/// (None: the config has no edits, or they are still being found).
pub fn drawn(p: &Pane) -> Option<&Resolved> {
    if p.config.edits.is_empty() && p.requested.edits.is_empty() {
        return None;
    }
    let rev = if p.drawn_part().is_some() { p.rev } else { p.shown_rev };
    p.edits.for_rev(rev)
}

/// The landing spots of the pane's edits as they are now (its newest
/// request), for the edits panel and the stats: None while being found.
pub fn current(p: &Pane) -> Option<&Resolved> {
    p.edits.for_rev(p.rev)
}

/// The config's edits for the text of the file at `path` resolved against
/// it (the chunker thread's part; tests call it as that thread would), as
/// [`crate::strategy::Configured::resolve_edits`] gives them: indices into
/// `config.edits`; an edit that names another file is neither applied nor
/// stale.
pub fn resolve(config: &ChunkConfig, text: &str, path: Option<&std::path::Path>) -> Resolved {
    // Remembered: the chunker resolved the same edits for this text just before.
    crate::edits::resolve_for(&config.edits, text, path)
}

/// The message the chunk job sends before the chunks of a config with edits.
pub fn resolved_msg(
    pane: usize,
    rev: u64,
    config: &ChunkConfig,
    text: &str,
    path: Option<&std::path::Path>,
) -> Option<Msg> {
    if config.edits.is_empty() {
        return None;
    }
    Some(Msg::EditsResolved { pane, rev, resolved: Arc::new(resolve(config, text, path)) })
}

/// Take the landing spots of a pane's newest request; say newly stale edits.
pub fn resolved(m: &mut Model, pane: usize, rev: u64, r: Arc<Resolved>) -> Vec<Cmd> {
    if !crate::tui::features::chunks::is_current(m, pane, rev) {
        return vec![];
    }
    let p = &mut m.panes[pane];
    let was = p.edits.resolved.as_ref().map_or(0, |(_, r)| r.stale.len());
    let stale = r.stale.len();
    p.edits.resolved = Some((rev, r));
    if stale > 0 && stale != was && pane == m.active {
        let note = format!("⚠ {stale} stale edit{} (not applied): B lists them", plural(stale));
        let text = if m.status.text.is_empty() { note } else { format!("{} · {note}", m.status.text) };
        set_status(m, text);
    }
    vec![]
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// What one edit of the list is now, for the panel: applied at a byte, or
/// stale and why, or for another file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum State {
    Applied(usize),
    Stale(Stale),
    /// It names a file, and the chunker applies it to that file only.
    OtherFile,
    /// Still being found.
    Pending,
}

/// Each edit of the pane's config and its state, in the config's order.
pub fn states(p: &Pane) -> Vec<(usize, &Edit, State)> {
    let r = current(p);
    p.config
        .edits
        .iter()
        .enumerate()
        .map(|(i, e)| {
            let state = match r {
                None => State::Pending,
                Some(r) => {
                    if let Some(&(_, at)) = r.applied.iter().find(|(j, _)| *j == i) {
                        State::Applied(at)
                    } else if let Some((_, why)) = r.stale.iter().find(|(j, _)| *j == i) {
                        State::Stale(why.clone())
                    } else {
                        State::OtherFile
                    }
                }
            };
            (i, e, state)
        })
        .collect()
}

/// Why a stale edit is not applied, in a few words.
pub fn why(s: &Stale) -> String {
    match s {
        Stale::Gone => "its text is gone".into(),
        Stale::Ambiguous(n) => format!("its text is found {n} times"),
    }
}

/// What a move key moves by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum By {
    Sentence,
    Word,
}

impl By {
    fn name(self) -> &'static str {
        match self {
            By::Sentence => "sentence",
            By::Word => "word",
        }
    }
}

/// Split every chunk that holds a cut (past its start) at the cut; `size`
/// measures a piece. For cuts made from a cached analysis (model
/// strategies re-cut by a threshold key), before [`crate::edits::apply`].
pub fn split_at_cuts(chunks: Vec<Chunk>, cuts: &[usize], size: &dyn Fn(Range<usize>) -> usize) -> Vec<Chunk> {
    let mut out = Vec::with_capacity(chunks.len() + cuts.len());
    for c in chunks {
        let i = cuts.partition_point(|&cut| cut <= c.range.start);
        let inside: Vec<usize> = cuts[i..].iter().copied().take_while(|&cut| cut < c.range.end).collect();
        if inside.is_empty() || c.meta.text.is_some() {
            out.push(c);
            continue;
        }
        let mut from = c.range.start;
        for at in inside.into_iter().chain(std::iter::once(c.range.end)) {
            let mut piece = c.clone();
            piece.range = from..at;
            piece.size = size(from..at);
            out.push(piece);
            from = at;
        }
    }
    out
}

/// The edits panel (`B`) was shown or hidden: say so, with the pane's edit count.
pub fn panel_toggled(m: &mut Model, shown: bool) -> Vec<Cmd> {
    let n = m.pane().config.edits.len();
    let msg = if shown {
        format!("edits panel shown: {n} edit{} in this pane's config", plural(n))
    } else {
        "edits panel hidden".into()
    };
    set_status(m, msg);
    vec![]
}

/// The edit keys.
pub fn action(m: &mut Model, action: Action) -> Vec<Cmd> {
    match action {
        Action::UndoEdit => undo(m, true),
        Action::RedoEdit => undo(m, false),
        Action::StartBackSentence => move_start(m, true, By::Sentence),
        Action::StartForwardSentence => move_start(m, false, By::Sentence),
        Action::StartBackWord => move_start(m, true, By::Word),
        Action::StartForwardWord => move_start(m, false, By::Word),
        Action::SplitChunk => split(m),
        Action::JoinNext => join(m),
        _ => vec![],
    }
}

/// The selected chunk, its neighbours and the landing spots of the edits,
/// when a key can act on them; else the reason, said in the status line.
fn ready(m: &Model) -> Result<(usize, Arc<Vec<Chunk>>, Resolved), String> {
    let p = m.pane();
    if p.pending() || p.shown_rev == 0 {
        return Err("the chunks are being cut: try again when they are in".into());
    }
    if let Some(e) = &p.error {
        return Err(format!("no chunks to edit: {}", e.lines().next().unwrap_or("")));
    }
    let Some(k) = m.selected.filter(|&k| k < p.chunks.len()) else {
        return Err("select a chunk first: n / N, or click one".into());
    };
    let resolved = if p.config.edits.is_empty() {
        Resolved::default()
    } else {
        match p.edits.for_rev(p.shown_rev) {
            Some(r) => r.clone(),
            None => return Err("the edits are being placed: try again in a moment".into()),
        }
    };
    Ok((k, p.chunks.clone(), resolved))
}

/// Put `edits` in the active pane's config (the old list onto the undo
/// stack, redo cleared), say `msg`, and re-cut.
fn commit(m: &mut Model, edits: Vec<Edit>, msg: String) -> Vec<Cmd> {
    if let Some(problem) = crate::edits::problems(&edits).into_iter().next() {
        set_error(m, format!("not changed: {problem}"));
        return vec![];
    }
    let active = m.active;
    let old = std::mem::replace(&mut m.panes[active].config.edits, edits);
    let e = &mut m.panes[active].edits;
    e.undo.push(old);
    if e.undo.len() > UNDO_DEPTH {
        e.undo.remove(0);
    }
    e.redo.clear();
    let msg = if m.compare { format!("{}: {msg}", ["A", "B"][active]) } else { msg };
    set_status(m, format!("{msg} · z undoes"));
    rechunk(m, active).into_iter().collect()
}

fn undo(m: &mut Model, back: bool) -> Vec<Cmd> {
    let active = m.active;
    let p = &mut m.panes[active];
    let (from, to) = if back { (&mut p.edits.undo, &mut p.edits.redo) } else { (&mut p.edits.redo, &mut p.edits.undo) };
    let Some(list) = from.pop() else {
        set_status(m, if back { "nothing to undo" } else { "nothing to redo" }.into());
        return vec![];
    };
    let old = std::mem::replace(&mut p.config.edits, list);
    to.push(old.clone());
    let now = p.config.edits.len();
    let what = difference(&old, &p.config.edits);
    let msg = format!("{}: {what} ({now} edit{} now)", if back { "undid" } else { "redid" }, plural(now));
    set_status(m, msg);
    rechunk(m, active).into_iter().collect()
}

/// What changed between two edit lists, in a few words.
fn difference(old: &[Edit], new: &[Edit]) -> String {
    let added: Vec<&Edit> = new.iter().filter(|e| !old.contains(e)).collect();
    let removed: Vec<&Edit> = old.iter().filter(|e| !new.contains(e)).collect();
    let mut parts = Vec::new();
    if let Some(e) = added.first() {
        parts.push(format!("added {}", e.describe()));
    }
    if let Some(e) = removed.first() {
        parts.push(format!("removed {}", e.describe()));
    }
    let more = (added.len() + removed.len()).saturating_sub(parts.len());
    if more > 0 {
        parts.push(format!("{more} more"));
    }
    if parts.is_empty() {
        "no change".into()
    } else {
        parts.join(", ")
    }
}

/// The edit list without the hand-made cuts that landed at `at`, and how
/// many there were.
fn without_cuts_at(edits: &[Edit], r: &Resolved, at: usize) -> (Vec<Edit>, usize) {
    without(edits, r, at, EditOp::Cut)
}

fn without(edits: &[Edit], r: &Resolved, at: usize, op: EditOp) -> (Vec<Edit>, usize) {
    let drop: Vec<usize> = r
        .applied
        .iter()
        .filter(|&&(i, spot)| spot == at && edits.get(i).is_some_and(|e| e.op == op))
        .map(|x| x.0)
        .collect();
    let kept = edits.iter().enumerate().filter(|(i, _)| !drop.contains(i)).map(|(_, e)| e.clone()).collect();
    (kept, drop.len())
}

fn push_new(edits: &mut Vec<Edit>, e: Edit) {
    if !edits.contains(&e) {
        edits.push(e);
    }
}

/// The line number (1-based) of byte `at`, for messages.
fn line_of(text: &str, at: usize) -> usize {
    text.as_bytes()[..at.min(text.len())].iter().filter(|&&b| b == b'\n').count() + 1
}

/// A few chars of the text at `at`, for messages.
fn peek(text: &str, at: usize) -> String {
    let s: String = text[at..].chars().take(20).collect();
    format!("\"{}…\"", s.replace('\n', "⏎"))
}

fn move_start(m: &mut Model, back: bool, by: By) -> Vec<Cmd> {
    let (k, chunks, r) = match ready(m) {
        Ok(x) => x,
        Err(e) => {
            set_status(m, e);
            return vec![];
        }
    };
    if k == 0 {
        set_status(m, "chunk 0 starts the document: select a later chunk to move its start (| splits one)".into());
        return vec![];
    }
    let text = m.text.clone();
    let start = chunks[k].range.start;
    let found = match by {
        By::Sentence => sentence_start(&text, start, back),
        By::Word => word_start(&text, start, back),
    };
    let (dir, name) = (if back { "back" } else { "forward" }, by.name());
    let Some(to) = found.filter(|&t| t > 0 && t < text.len()) else {
        set_status(m, format!("no {name} {} chunk {k}'s start", if back { "before" } else { "after" }));
        return vec![];
    };
    // The start stays between the starts of its neighbours.
    if back && to <= chunks[k - 1].range.start {
        set_status(m, format!("chunk {k}'s start would pass chunk {}'s: J joins them", k - 1));
        return vec![];
    }
    if !back && to >= chunks[k].range.end {
        set_status(m, format!("chunk {k} ends before the next {name}: J joins it with the next"));
        return vec![];
    }
    // The old start: replace its cut when it was hand-made, else keep the
    // strategy from starting a chunk there.
    let (mut edits, replaced) = without_cuts_at(&m.pane().config.edits, &r, start);
    if replaced == 0 {
        push_new(&mut edits, Edit::at(EditOp::Join, &text, start));
    }
    let (mut edits, _) = without(&edits, &r, to, EditOp::Join);
    push_new(&mut edits, Edit::at(EditOp::Cut, &text, to));
    let msg = format!("✂ moved chunk {k}'s start {dir} a {name} to line {} {}", line_of(&text, to), peek(&text, to));
    commit(m, edits, msg)
}

fn split(m: &mut Model) -> Vec<Cmd> {
    let (k, chunks, r) = match ready(m) {
        Ok(x) => x,
        Err(e) => {
            set_status(m, e);
            return vec![];
        }
    };
    let text = m.text.clone();
    let range = chunks[k].range.clone();
    let top = m.layout.start_of(m.top);
    let top = skip_space(&text, top);
    let (at, how) = if range.start < top && top < range.end {
        (top, "at the top line of the screen")
    } else {
        match split_point(&text, range.clone()) {
            Some((at, by)) => (
                at,
                if by == By::Sentence {
                    "at the sentence nearest its middle"
                } else {
                    "at the word nearest its middle"
                },
            ),
            None => {
                set_status(m, format!("chunk {k} has no sentence or word start inside it to split at"));
                return vec![];
            }
        }
    };
    let (mut edits, _) = without(&m.pane().config.edits, &r, at, EditOp::Join);
    push_new(&mut edits, Edit::at(EditOp::Cut, &text, at));
    let msg = format!("✂ split chunk {k} {how}: line {} {}", line_of(&text, at), peek(&text, at));
    commit(m, edits, msg)
}

fn join(m: &mut Model) -> Vec<Cmd> {
    let (k, chunks, r) = match ready(m) {
        Ok(x) => x,
        Err(e) => {
            set_status(m, e);
            return vec![];
        }
    };
    let Some(next) = chunks.get(k + 1) else {
        set_status(m, format!("chunk {k} is the last: nothing to join it with"));
        return vec![];
    };
    let text = m.text.clone();
    let at = next.range.start;
    // A hand-made cut there goes; else a join keeps the strategy from starting a chunk there.
    let (mut edits, removed) = without_cuts_at(&m.pane().config.edits, &r, at);
    let msg = if removed > 0 {
        format!("joined chunks {k} and {}: removed the hand-made cut at line {}", k + 1, line_of(&text, at))
    } else {
        push_new(&mut edits, Edit::at(EditOp::Join, &text, at));
        format!("joined chunks {k} and {}: no chunk starts at line {} {}", k + 1, line_of(&text, at), peek(&text, at))
    };
    commit(m, edits, msg)
}

/// The first non-whitespace byte at or after `at`.
fn skip_space(text: &str, at: usize) -> usize {
    let at = crate::size::floor_char_boundary(text, at.min(text.len()));
    text[at..].char_indices().find(|(_, c)| !c.is_whitespace()).map_or(text.len(), |(i, _)| at + i)
}

/// Sentence starts in `range` of `text` (the first one only when it is the
/// text's start: a window's first sentence may start mid-sentence).
fn sentence_starts(text: &str, range: Range<usize>) -> Vec<usize> {
    let lo = range.start;
    crate::segment::sentences_in(text, range).into_iter().map(|s| s.start).filter(|&s| s > lo || lo == 0).collect()
}

/// A window of `text` around `at`, `w` bytes each way, on char boundaries.
fn window(text: &str, at: usize, w: usize) -> Range<usize> {
    let lo = crate::size::floor_char_boundary(text, at.saturating_sub(w));
    // Back to a line start, so the window's first sentence is a whole one.
    let lo = if lo == 0 { 0 } else { text[..lo].rfind('\n').map_or(0, |i| i + 1) };
    let hi = crate::size::ceil_char_boundary(text, (at + w).min(text.len()));
    lo..hi
}

/// The start of the sentence before (`back`) or after `at`; the window
/// grows until one is found or it holds the whole text.
fn sentence_start(text: &str, at: usize, back: bool) -> Option<usize> {
    let mut w = 2048;
    loop {
        let r = window(text, at, w);
        let whole = r.start == 0 && r.end == text.len();
        let starts = sentence_starts(text, r.clone());
        let found = if back {
            starts.iter().copied().filter(|&s| s < at).max()
        } else {
            // A start near the window's end may be cut short by it: only whole ones.
            starts.iter().copied().filter(|&s| s > at && (r.end == text.len() || s + 256 < r.end)).min()
        };
        if found.is_some() || whole {
            return found;
        }
        w *= 8;
    }
}

/// Chars that open a quote or bracket: a word starts before them.
fn opens(c: char) -> bool {
    matches!(c, '"' | '\'' | '(' | '[' | '{' | '“' | '‘' | '（' | '「' | '『' | '【' | '《' | '〈' | '«')
}

/// Whether a word starts at byte `i` of `text` (a char boundary): after
/// whitespace, or at a CJK ideograph (each is a word of its own).
fn word_starts_at(text: &str, i: usize) -> bool {
    let (Some(p), Some(c)) = (text[..i].chars().next_back(), text[i..].chars().next()) else { return false };
    if c.is_whitespace() || opens(p) {
        return false;
    }
    p.is_whitespace() || (is_cjk(c) && c.is_alphanumeric()) || (is_cjk(p) && (c.is_alphanumeric() || opens(c)))
}

/// The word start before (`back`) or after `at`.
fn word_start(text: &str, at: usize, back: bool) -> Option<usize> {
    if back {
        text[..at].char_indices().rev().map(|(i, _)| i).find(|&i| i > 0 && word_starts_at(text, i))
    } else {
        text[at..].char_indices().skip(1).map(|(i, _)| at + i).find(|&i| word_starts_at(text, i))
    }
}

/// Where `|` splits a chunk with no top line inside it: the sentence start
/// nearest its middle, else the word start nearest it.
fn split_point(text: &str, range: Range<usize>) -> Option<(usize, By)> {
    let mid = crate::size::floor_char_boundary(text, range.start + range.len() / 2);
    let inside = |s: &usize| range.start < *s && *s < range.end;
    let w = window(text, mid, 8192);
    let r = w.start.max(range.start)..w.end.min(range.end);
    let near = sentence_starts(text, r).into_iter().filter(inside).min_by_key(|s| s.abs_diff(mid));
    if let Some(s) = near {
        return Some((s, By::Sentence));
    }
    let words = [word_start(text, mid, true), word_start(text, mid, false), word_starts_at(text, mid).then_some(mid)];
    words.into_iter().flatten().filter(inside).min_by_key(|s| s.abs_diff(mid)).map(|s| (s, By::Word))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sentence_and_word_starts_english_and_chinese() {
        let text = "One two. Three four. 中文句子。下一句！End here.";
        let three = text.find("Three").unwrap();
        assert_eq!(sentence_start(text, three, false), text.find("中文"));
        assert_eq!(sentence_start(text, three, true), Some(0));
        assert_eq!(sentence_start(text, text.find("four").unwrap(), true), Some(three));
        assert_eq!(sentence_start(text, text.find("中文").unwrap(), false), text.find("下一句"));
        assert_eq!(word_start(text, three, false), text.find("four"));
        assert_eq!(word_start(text, three, true), text.find("two"));
        let zh = text.find("中文").unwrap();
        assert_eq!(word_start(text, zh, false), Some(zh + '中'.len_utf8()));
        assert_eq!(word_start(text, text.find("下").unwrap(), true), text.find("子"));
    }

    #[test]
    fn a_split_lands_on_the_sentence_nearest_the_middle() {
        let text = "Aaa aaa. Bbb bbb. Ccc ccc. Ddd ddd.";
        let (at, by) = split_point(text, 0..text.len()).unwrap();
        assert_eq!((at, by), (text.find("Ccc").unwrap(), By::Sentence));
        let (at, by) = split_point(text, 0..8).unwrap();
        assert_eq!((at, by), (4, By::Word));
        assert_eq!(split_point("abcdef", 0..6), None);
    }
}
