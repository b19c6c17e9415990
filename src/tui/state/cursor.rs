//! The moves every part of the workbench makes on the screen's state: the
//! status line, scrolling, wrapping and the selected chunk. Below the
//! features, so that any of them (search, lint, the probe) can move the
//! selection without reaching for the app's `update`.

use crate::tui::state::layout::Layout;
use crate::tui::state::model::{Model, Status};
use crate::tui::state::regions::regions_of;
use std::sync::Arc;

pub fn set_status(m: &mut Model, text: String) {
    m.status = Status { text, error: false };
}

pub fn set_error(m: &mut Model, text: String) {
    m.status = Status { text: text.lines().next().unwrap_or("").to_string(), error: true };
}

/// Re-wrap the text if the pane width or the document changed, keeping the
/// first visible byte on screen.
pub fn relayout(m: &mut Model) {
    let anchor = m.layout.start_of(m.top);
    relayout_at(m, anchor);
}

pub fn relayout_at(m: &mut Model, anchor: usize) {
    let w = regions_of(m).text_width();
    if m.layout.width != w || m.layout.doc_rev != m.doc_rev || m.layout.is_empty() {
        m.layout = Arc::new(Layout::new(&m.text, w, m.doc_rev));
        m.top = m.layout.line_of(anchor);
    }
    clamp_top(m);
}

pub fn page(m: &Model) -> usize {
    regions_of(m).text_height()
}

pub fn clamp_top(m: &mut Model) {
    m.top = m.top.min(m.layout.len().saturating_sub(page(m)));
}

pub fn scroll_by(m: &mut Model, delta: isize) {
    m.top = m.top.saturating_add_signed(delta);
    clamp_top(m);
}

/// Keep the selection an index into the active pane's chunks (None when it has none).
pub fn clamp_selection(m: &mut Model) {
    let n = m.pane().chunks.len();
    m.selected = m.selected.filter(|_| n > 0).map(|s| s.min(n - 1));
}

pub fn select(m: &mut Model, k: usize) {
    let Some(c) = m.pane().chunks.get(k) else { return };
    let chars = c.checked_text(&m.text).map_or(0, |t| t.chars().count());
    let (start, size) = (c.range.start, c.size);
    let line = m.layout.line_of(start);
    m.selected = Some(k);
    if line < m.top || line >= m.top + page(m) {
        m.top = line.saturating_sub(2);
        clamp_top(m);
    }
    let unit = m.pane().config.unit;
    let chars = if unit == crate::config::Unit::Chars { String::new() } else { format!(" · {chars} chars") };
    set_status(
        m,
        format!("chunk {k}: {size} {unit}{chars} · bytes {start}..{}", start + m.pane().chunks[k].range.len()),
    );
}
