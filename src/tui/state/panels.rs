//! The panels above the chunk list as the state sees them: each one's name
//! (its keymap action), the rows it takes and whether it is shown, in the
//! panel table's order. The table itself (`view::PANELS`: keys, draw, what
//! a feature does when one is shown) stands above the state; the model is
//! given its names and rows when it is made, so that the screen regions,
//! below the table, lay the shown panels out.

/// One panel of the table: its name, rows, and whether it is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PanelSlot {
    pub name: &'static str,
    pub rows: u16,
    pub shown: bool,
}

/// Every panel of the table, in its order (the first on top), all hidden
/// at first.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Panels(Vec<PanelSlot>);

impl Panels {
    /// The panels named with the rows each takes, in the table's order.
    pub fn new(table: impl IntoIterator<Item = (&'static str, u16)>) -> Panels {
        Panels(table.into_iter().map(|(name, rows)| PanelSlot { name, rows, shown: false }).collect())
    }

    pub fn is_shown(&self, name: &str) -> bool {
        self.0.iter().any(|p| p.name == name && p.shown)
    }

    /// Show the panel if hidden, hide it if shown; whether it is shown now
    /// (false for a name no panel has).
    pub fn toggle(&mut self, name: &str) -> bool {
        let Some(p) = self.0.iter_mut().find(|p| p.name == name) else { return false };
        p.shown = !p.shown;
        p.shown
    }

    pub fn iter(&self) -> impl Iterator<Item = &PanelSlot> {
        self.0.iter()
    }
}
