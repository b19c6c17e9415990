//! Hot reload, and the rule that keeps it safe: the text and everything
//! computed from it change in one step. Chunks, stats, token counts,
//! analyses, the search position and the selection all hold byte offsets
//! into one text; held against another they point past its end or into the
//! middle of a char. So the swap empties them, and a worker result is taken
//! only when it answers the newest request of its pane made for the text on
//! screen (`Pane::rev` and `Pane::rev_doc`), with its ranges checked against
//! that text all the same.

use crate::document::Document;
use crate::tui::features::chunks::start;
use crate::tui::msg::Cmd;
use crate::tui::state::model::Model;
// The rule is applied where results are taken; its old paths stay here.
pub use crate::tui::features::chunks::{checked_against, fits, is_current};
use crate::tui::state::cursor::{relayout_at, set_status};
use std::sync::Arc;

/// The watched file was read again.
pub fn file_reloaded(m: &mut Model, doc: Document) -> Vec<Cmd> {
    // (An HTML edit may keep the text and move its elements: then the map changes.)
    // Only the reading's own error gives way: one from a search or an
    // export stays until the user has read it.
    let was_unreadable = std::mem::take(&mut m.file_unreadable);
    if *doc.text == *m.text && doc.structure == m.structure {
        if was_unreadable {
            set_status(m, format!("{} is back", m.path.display()));
        }
        return vec![];
    }
    let anchor = m.layout.start_of(m.top);
    swap_text(m, doc);
    let anchor = crate::size::floor_char_boundary(&m.text, anchor.min(m.text.len()));
    relayout_at(m, anchor);
    set_status(m, format!("reloaded {} ({} bytes)", m.path.display(), m.text.len()));
    start(m)
}

/// Put the new text in and drop what belonged to the old one.
fn swap_text(m: &mut Model, doc: Document) {
    m.text = Arc::from(doc.text);
    m.structure = doc.structure;
    m.kind = doc.kind;
    m.doc_rev += 1;
    let doc_rev = m.doc_rev;
    for p in &mut m.panes {
        p.forget_chunks(doc_rev);
    }
    // Analyses are keyed by document revision: the old ones can never match again.
    m.analyses.retain(|c| c.key.doc_rev == doc_rev);
    m.selected = None;
    m.last_found = None;
    crate::tui::features::probe::text_swapped(m);
}
