//! What the workbench does besides showing chunks, one module each, in
//! `update` terms (their slow parts run as [`super::jobs`]): parameter keys,
//! hierarchical levels, search, hot reload, export, lint, hand-made boundaries (edits), the model
//! strategies (semantic, with its embedding jobs), the query probe and its
//! retrieval jobs, and `chunktui bench`.

pub mod bench;
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
