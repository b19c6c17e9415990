//! A panel above the chunk list, as its own file declares it (`lint.rs`:
//! `pub const PANEL: Panel`) and [`super::PANELS`] lists it: its key
//! action, help line, rows, pure draw, and what its feature does when it
//! is shown or hidden.

use crate::tui::msg::Cmd;
use crate::tui::state::keymap::{Action, Binding};
use crate::tui::state::model::Model;
use crate::tui::view::theme::Theme;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

pub struct Panel {
    /// Its action name, as a `--keymap` file binds it: `"ctrl-l" = "lint_panel"`.
    pub name: &'static str,
    /// The keys that show and hide it by default.
    pub keys: &'static [&'static str],
    /// The help screen's line for its keys.
    pub description: &'static str,
    /// Rows it takes from the top of the chunk list when shown (none when
    /// the list cannot spare them, nor in compare mode).
    pub rows: u16,
    /// Draw it into its area (pure, as all drawing).
    pub draw: fn(&Model, &Theme, Rect, &mut Buffer),
    /// Its feature's answer to it being shown (true) or hidden: a status
    /// line, work to start. None: nothing beyond showing it.
    pub toggled: Option<fn(&mut Model, bool) -> Vec<Cmd>>,
}

impl Panel {
    /// Its default key binding, for the keymap and the help screen.
    pub fn binding(&self) -> Binding {
        Binding {
            action: Action::TogglePanel(self.name),
            keys: self.keys.iter().map(|k| k.to_string()).collect(),
            description: self.description.to_string(),
        }
    }
}
