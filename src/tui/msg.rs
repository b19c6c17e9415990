//! Messages are facts that happened (past tense); commands are things the
//! runtime should do (verbs). `update` turns one into the other.

use crate::chunk::Chunk;
use crate::config::ChunkConfig;
use crate::document::Document;
use crate::stats::Stats;
use crossterm::event::{KeyEvent, MouseEvent};
use ratatui::style::Color;
use std::path::PathBuf;
use std::sync::Arc;

/// What an export writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExportKind {
    /// The active pane's config (TOML, or JSON for `.json`).
    Config,
    /// The active pane's chunks as JSONL records.
    Chunks,
}

#[derive(Debug)]
pub enum Msg {
    KeyPressed(KeyEvent),
    MouseUsed(MouseEvent),
    Resized(u16, u16),
    /// A chunk request finished (or failed) for one pane.
    Chunked { pane: usize, rev: u64, result: Result<(Arc<Vec<Chunk>>, Stats), String> },
    /// Standalone token counts of a pane's chunks under its tokenizer.
    TokensCounted { pane: usize, rev: u64, counts: Vec<usize> },
    /// Syntax colours for the text from byte `from` on; `done` when the document is finished.
    Highlighted { doc_rev: u64, runs: Vec<(u32, Color)>, done: bool },
    /// The watched file changed on disk and was read again (or could not be).
    FileReloaded(Result<Document, String>),
    /// An export was not written because the path exists.
    ExportConflicted { path: PathBuf, kind: ExportKind },
    Exported(Result<PathBuf, String>),
}

#[derive(Debug, Clone)]
pub enum Cmd {
    Rechunk { pane: usize, rev: u64, config: ChunkConfig, text: Arc<str> },
    Highlight { doc_rev: u64, text: Arc<str>, syntax: Option<String> },
    Export {
        path: PathBuf,
        kind: ExportKind,
        overwrite: bool,
        config: ChunkConfig,
        chunks: Arc<Vec<Chunk>>,
        text: Arc<str>,
    },
}
