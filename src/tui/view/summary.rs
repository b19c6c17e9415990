//! A pane in a few words, for the header, the side panels and the compare
//! view: how many chunks (or that they are still being cut), and its
//! settings on one line.

use crate::tui::features::semantic;
use crate::tui::state::model::Model;

/// "N chunks" for a pane, or what it is doing while a new set is being
/// computed: the old count is never shown as if it were the new one.
pub fn chunk_count(m: &Model, p: usize) -> String {
    let pane = &m.panes[p];
    if counting(m, p) {
        return if pane.sem.job.is_some() { "embedding…" } else { "counting…" }.to_string();
    }
    let n = pane.chunks.len();
    format!("{n} chunk{}", if n == 1 { "" } else { "s" })
}

/// A pane's numbers are not those of its settings yet: its chunks are being
/// cut (the document pane may already draw the first of them).
pub fn counting(m: &Model, p: usize) -> bool {
    let pane = &m.panes[p];
    (pane.shown_rev == 0 || pane.pending()) && pane.error.is_none()
}

pub fn settings_summary(m: &Model, p: usize) -> String {
    let c = &m.panes[p].config;
    // A size the strategy never reads would look like a setting in force.
    let size = if c.strategy.spec().reads_size() { c.size.to_string() } else { "no size limit,".into() };
    if c.strategy.needs_model() {
        let model = m.panes[p]
            .sem
            .model_id
            .as_deref()
            .map_or_else(|| semantic::model_label(c), |id| semantic::short_model(id).to_string());
        let t = if c.strategy.spec().has_threshold {
            format!(" {}", semantic::threshold_summary(c))
        } else {
            String::new()
        };
        return format!("{} {size} {}{t} · {model}", c.strategy, c.unit);
    }
    if !c.strategy.spec().reads_size() {
        return format!("{} {size} {}", c.strategy, c.unit);
    }
    if c.uses_overlap() {
        format!("{} {}/{} {}", c.strategy, c.size, c.overlap, c.unit)
    } else {
        format!("{} {} {}, overlap {}", c.strategy, c.size, c.unit, c.overlap_label())
    }
}
