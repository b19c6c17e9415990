//! Compare mode: the boundaries where panes A and B cut differently, marked
//! `≠` in each document's margin, and the one-line summary of
//! [`crate::diff`] under the panes' stats. Computed while drawing: a sort
//! of both chunk lists, well under a millisecond for thousands of chunks.

use crate::diff::{diff, Diff};
use crate::tui::state::model::Model;
use crate::tui::view::theme::Theme;
use ratatui::buffer::Buffer;
use ratatui::style::Modifier;
use ratatui::text::Line;

pub const MARK: &str = "≠";

/// How B's chunks differ from A's (byte offsets into the text), when
/// comparing and both panes' chunks are of the current text.
pub fn differences(m: &Model) -> Option<Diff> {
    let current = |p: usize| m.panes[p].chunks_doc == m.doc_rev;
    if !m.compare || !current(0) || !current(1) {
        return None;
    }
    let ranges = |p: usize| m.panes[p].chunks.iter().map(|c| c.range.clone()).collect::<Vec<_>>();
    Some(diff(&ranges(0), &ranges(1)))
}

/// Mark the margin cell of a line (bytes `s..next`) holding a boundary
/// that differs; `changed` is [`Diff::changed_positions`].
pub fn mark(changed: &[usize], theme: &Theme, (s, next): (usize, usize), (x, y): (u16, u16), buf: &mut Buffer) {
    let i = changed.partition_point(|&b| b < s);
    let here = changed.get(i).is_some_and(|&b| b < next);
    if here && buf[(x, y)].symbol() == " " {
        buf.set_stringn(x, y, MARK, 1, theme.warn.add_modifier(Modifier::BOLD));
    }
}

/// "≠ vs A: 9 identical · boundaries +3 −5 ~2 moved" for pane B's stats
/// box (half a screen wide: `chunktui diff` says the same at length).
pub fn summary_line(m: &Model, theme: &Theme) -> Option<Line<'static>> {
    let d = differences(m)?;
    if !d.changed() {
        return Some(Line::styled("= vs A: all chunks identical", theme.dim));
    }
    let (added, removed, moved) = (d.added.len(), d.removed.len(), d.moved.len());
    let text = format!("{MARK} vs A: {} identical · boundaries +{added} −{removed} ~{moved} moved", d.identical);
    Some(Line::styled(text, theme.warn))
}
