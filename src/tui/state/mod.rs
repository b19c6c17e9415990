//! The workbench's state: the one [`model::Model`] and everything it holds
//! (each feature's part of a pane in a module of its own here), the key
//! bindings, the wrapped text, where things go on screen ([`regions`]) and
//! the moves on it every feature makes ([`cursor`]). Plain data and small
//! pure functions: it imports nothing else of the workbench, so features,
//! jobs, views and the app all stand on it and none of it reaches up.

pub mod cursor;
pub mod edits;
pub mod keymap;
pub mod layout;
pub mod lint;
pub mod model;
pub mod panels;
pub mod params;
pub mod probe;
pub mod regions;
pub mod retrieval;
pub mod semantic;
