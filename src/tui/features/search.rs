//! `/` search: jump to the next occurrence (from the selected chunk, or
//! after the last match when the same text is searched again), wrapping to
//! the top; the match's chunk is selected.

use crate::tui::state::cursor::{clamp_top, page, select, set_error, set_status};
use crate::tui::state::model::Model;

/// Search for `q` (empty: the last search again).
pub fn run(m: &mut Model, q: String) {
    let q = if q.is_empty() { m.last_search.clone().unwrap_or_default() } else { q };
    if q.is_empty() {
        return;
    }
    // The same search again continues after its last match; a new one starts
    // at the selected chunk (or the top of the screen).
    let again = m.last_search.as_deref() == Some(q.as_str());
    m.last_search = Some(q.clone());
    let from = match m.last_found.filter(|_| again) {
        Some(b) => b + 1,
        None => m.selected.and_then(|s| m.pane().chunks.get(s)).map_or(m.layout.start_of(m.top), |c| c.range.start),
    };
    let from = crate::size::ceil_char_boundary(&m.text, from.min(m.text.len()));
    let after = m.text.get(from..).unwrap_or("");
    let found = after.find(&q).map(|i| i + from).or_else(|| m.text.find(&q));
    m.last_found = found;
    match found {
        Some(b) => {
            let chunks = &m.pane().chunks;
            let k = chunks.partition_point(|c| c.range.end <= b);
            if k < chunks.len() {
                select(m, k);
            }
            let line = m.layout.line_of(b);
            if line < m.top || line >= m.top + page(m) {
                m.top = line.saturating_sub(2);
                clamp_top(m);
            }
            let wrapped = if b < from { " (from the top)" } else { "" };
            set_status(m, format!("found '{q}' at byte {b}{wrapped}"));
        }
        None => set_error(m, format!("'{q}' not found")),
    }
}
