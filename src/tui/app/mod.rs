//! The app: the pure [`update::update`] that composes the features (each
//! message and key to the feature that owns it), the model of a document
//! just opened (with the panel table's panels and keys) and the signals
//! that end the loop. Nothing else of the workbench imports it.

pub mod open;
pub mod signals;
pub mod update;

// The paths tests and the CLI have used for the model, the messages and
// the key bindings; they live below the features now (`state`, `msg`).
pub use crate::tui::msg;
pub use crate::tui::state::{keymap, model};
