//! What the workbench does, one module each: a pane's chunks (asking and
//! taking), parameter keys, hierarchical levels, search, hot reload,
//! export, lint, hand-made boundaries (edits), the model strategies
//! (semantic, with its embedding jobs), the query probe and its retrieval
//! jobs, and LLM questions. A feature reads and changes the state
//! ([`crate::tui::state`]) and asks for slow work by returning commands
//! ([`crate::tui::msg::Cmd`]); its own job, when it has one, runs on a
//! worker ([`crate::tui::threads`]). It never imports the app, the runtime
//! or the drawing: those stand above and call in.

pub mod chunks;
pub mod edits;
pub mod embed_update;
pub mod embedder;
pub mod export;
pub mod levels;
pub mod lint;
pub mod params;
pub mod probe;
pub mod questions;
pub mod reload;
pub mod retrieval;
pub mod search;
pub mod semantic;
