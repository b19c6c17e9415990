//! The jobs the runtime runs for commands: chunking (with the token counts
//! it hands on) and highlighting here; a feature's own jobs (embedding,
//! retrieval, lint, questions, export) in its module under
//! [`crate::tui::features`]. [`runtime`] wires each command to its worker;
//! the worker threads themselves are [`crate::tui::threads`].

pub mod chunk;
pub mod highlight;
pub mod runtime;

// Where code outside the workbench (and older paths) find the thread parts.
pub use crate::tui::threads::{count, slot, Job, Reply, Slot, Worker};
