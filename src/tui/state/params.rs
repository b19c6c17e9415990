//! Settings a parameter key changed on its own, kept per pane so that they
//! come back. The keys are [`crate::tui::features::params`].

use crate::config::{ChunkConfig, Unit};
use crate::tui::state::keymap::Action;

/// Settings a key changed without being asked to, kept so that they come
/// back: the unit before a strategy that counts in its own unit
/// (`langchain-token`), and the overlap before a smaller size cut it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Held {
    unit: Option<Unit>,
    overlap: Option<usize>,
}

impl Held {
    /// After [`apply`] took `c` from `before` for `action`: hold what it
    /// forced, give back what may come back now; a note for the status
    /// line when either happened.
    pub fn follow(&mut self, before: &ChunkConfig, c: &mut ChunkConfig, action: Action) -> Option<String> {
        match action {
            Action::CycleStrategy | Action::CycleStrategyAll => {
                if c.strategy.spec().forces_unit.is_some() {
                    if c.unit != before.unit && self.unit.is_none() {
                        self.unit = Some(before.unit);
                        return Some(format!("it counts in {} (the unit comes back after it)", c.unit));
                    }
                } else if let Some(unit) = self.unit.take() {
                    c.unit = unit;
                    return Some(format!("unit {unit} again"));
                } else if c.unit == Unit::Bytes {
                    // Only `fast` counts bytes.
                    c.unit = Unit::Chars;
                    return Some("unit chars (only fast counts bytes)".to_string());
                }
            }
            Action::CycleUnit => self.unit = None,
            Action::SizeDown | Action::SizeDownBig if c.overlap < before.overlap => {
                let wanted = *self.overlap.get_or_insert(before.overlap);
                return Some(format!("overlap {} to fit (back to {wanted} as the size allows)", c.overlap));
            }
            Action::SizeUp | Action::SizeUpBig => {
                let wanted = self.overlap?;
                c.overlap = wanted.min(c.size.saturating_sub(1)).max(c.overlap);
                if c.overlap == wanted {
                    self.overlap = None;
                }
                return Some(format!("overlap {} {}", c.overlap, c.unit));
            }
            Action::OverlapUp | Action::OverlapUpBig | Action::OverlapDown | Action::OverlapDownBig => {
                self.overlap = None
            }
            _ => {}
        }
        None
    }
}
