//! What a pane keeps of its hand-made boundaries: where they landed, and
//! the undo and redo stacks. The keys are [`crate::tui::features::edits`].

use crate::edits::{Edit, Resolved};
use std::sync::Arc;

/// A pane's hand-made boundaries: where they landed, and the edit lists
/// undo and redo go back and forth between.
#[derive(Debug, Clone, Default)]
pub struct PaneEdits {
    /// Where the config's edits of chunk request `.0` landed in the text.
    pub resolved: Option<(u64, Arc<Resolved>)>,
    /// Edit lists before each change, the newest last.
    pub undo: Vec<Vec<Edit>>,
    /// Edit lists undo went back from, the newest last.
    pub redo: Vec<Vec<Edit>>,
}

impl PaneEdits {
    /// The landing spots for chunk request `rev`, once known.
    pub fn for_rev(&self, rev: u64) -> Option<&Resolved> {
        self.resolved.as_ref().filter(|(r, _)| *r == rev).map(|(_, r)| r.as_ref())
    }
}
