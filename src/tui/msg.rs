//! Messages are facts that happened (past tense); commands are things the
//! runtime should do (verbs). `update` turns one into the other. Their
//! payloads are the state types of [`crate::tui::state`]; this module stands
//! right above them, so every feature, job and view can name a message or
//! return a command without importing the app.

use crate::chunk::Chunk;
use crate::config::{ChunkConfig, Unit};
use crate::document::Document;
use crate::stats::Stats;
use crate::tui::state::lint::{LintReq, Linted};
use crate::tui::state::retrieval::{Retrieval, RetrieveReq};
use crate::tui::state::semantic::{AnalysisKey, CancelFlag, SemanticAnalysis};
use crossterm::event::{KeyEvent, MouseEvent};
use ratatui::style::Color;
use std::path::PathBuf;
use std::sync::Arc;

// Part of the export prompt's state too, so it lives with the model.
pub use crate::tui::state::model::ExportKind;

#[derive(Debug)]
pub enum Msg {
    KeyPressed(KeyEvent),
    MouseUsed(MouseEvent),
    Resized(u16, u16),
    /// A chunk request finished (or failed) for one pane.
    Chunked {
        pane: usize,
        rev: u64,
        result: Result<(Arc<Vec<Chunk>>, Stats), String>,
    },
    /// The first chunks of a request, in text order, through the part of
    /// the text on screen: drawn while the rest is still being cut. Exactly
    /// the result's first chunks (the same pass, delivered early).
    ChunkedPart {
        pane: usize,
        rev: u64,
        chunks: Arc<Vec<Chunk>>,
        /// The result's first chunks; false for the chunks of a stretch in
        /// the middle that the strategy cuts on its own (how many come
        /// before them is not known yet).
        from_start: bool,
    },
    /// Standalone token counts of a pane's chunks under its tokenizer.
    TokensCounted {
        pane: usize,
        rev: u64,
        counts: Vec<usize>,
    },
    /// Syntax colours for the text from byte `from` on; `done` when the document is finished.
    Highlighted {
        doc_rev: u64,
        runs: Vec<(u32, Color)>,
        done: bool,
    },
    /// The watched file changed on disk and was read again (or could not be).
    FileReloaded(Result<Document, String>),
    /// An export was not written because the path exists.
    ExportConflicted {
        path: PathBuf,
        kind: ExportKind,
    },
    Exported(Result<PathBuf, String>),
    /// `W`'s questions (or why there are none), for the text of `doc_rev`.
    QuestionsGenerated {
        doc_rev: u64,
        corpus_id: String,
        result: Result<crate::eval::queries::QuestionSet, String>,
    },
    /// An LLM strategy's chunk job got this far (requests answered of all).
    LlmProgress {
        pane: usize,
        rev: u64,
        done: usize,
        total: usize,
    },
    /// An embedding job got this far (texts embedded of all); 0 of 0 while the model loads.
    EmbedProgress {
        pane: usize,
        id: u64,
        done: usize,
        total: usize,
    },
    /// An embedding job for a re-cut strategy finished: the sentence
    /// distances (or the error, e.g. no ONNX Runtime) and the model's id.
    Analyzed {
        pane: usize,
        id: u64,
        result: Result<Analyzed, String>,
    },
    /// The part of an analysis job's document that was on screen, embedded
    /// first: cut and shown, not cached; the whole analysis follows.
    AnalyzedPart {
        pane: usize,
        id: u64,
        result: Analyzed,
    },
    /// A whole langchain-semantic / late run finished on the embedding thread.
    ModelChunked {
        pane: usize,
        id: u64,
        rev: u64,
        model_id: Option<String>,
        result: Result<(Arc<Vec<Chunk>>, Stats), String>,
    },
    /// A retrieval job embedded this many chunks of all (0 of 0 while the model loads).
    RetrieveProgress {
        pane: usize,
        id: u64,
        done: usize,
        total: usize,
    },
    /// A retrieval job finished: the probe's ranking and / or the evaluation.
    Retrieved {
        pane: usize,
        id: u64,
        result: Result<Retrieval, String>,
    },
    /// A lint job finished for a pane's chunks of revision `rev`.
    Linted {
        pane: usize,
        rev: u64,
        result: Result<Linted, String>,
    },
    /// Where the edits of a pane's chunk request `rev` landed in its text
    /// (sent by the chunk job before the chunks, when the config has edits).
    EditsResolved {
        pane: usize,
        rev: u64,
        resolved: Arc<crate::edits::Resolved>,
    },
    /// SIGTERM, SIGINT or SIGHUP arrived (this signal number): quit as `q` does.
    Signalled(i32),
}

/// A finished analysis, as the embedding thread reports it.
#[derive(Debug, Clone)]
pub struct Analyzed {
    pub key: AnalysisKey,
    pub analysis: Arc<SemanticAnalysis>,
    pub model_id: String,
    pub sized_for: (Unit, String),
}

#[derive(Debug, Clone)]
pub enum Cmd {
    Rechunk {
        pane: usize,
        rev: u64,
        config: ChunkConfig,
        text: Arc<str>,
        /// HTML and PDF: the structure of `text`, for the html strategy and chunk metadata.
        structure: Option<Arc<crate::extract::Structure>>,
        /// The bytes on screen: a strategy that cuts in text order reports
        /// the chunks through them first ([`Msg::ChunkedPart`]).
        first: Option<std::ops::Range<usize>>,
        /// The document's file: edits that name a file apply to theirs.
        path: Option<PathBuf>,
    },
    /// Embed for a model strategy (on the embedding thread). `key` is set
    /// for re-cut strategies (the result is an analysis), None for a whole
    /// langchain-semantic / late run (the result is chunks for `rev`).
    Embed {
        pane: usize,
        id: u64,
        rev: u64,
        key: Option<AnalysisKey>,
        config: ChunkConfig,
        text: Arc<str>,
        cancel: CancelFlag,
        /// Embed the sentences of this byte range (what is on screen) first
        /// and report them as a [`Msg::AnalyzedPart`]: a long document shows
        /// cuts where the user looks long before the rest is embedded.
        first: Option<std::ops::Range<usize>>,
    },
    /// Cut again from a cached analysis (on the chunker thread; no embedding).
    /// `resize`: the analysis was sized in another unit or tokenizer.
    Recut {
        pane: usize,
        rev: u64,
        config: ChunkConfig,
        text: Arc<str>,
        analysis: Arc<SemanticAnalysis>,
        resize: bool,
    },
    /// Rank the probe question / score the question set (retrieval thread).
    Retrieve(RetrieveReq),
    /// Lint a pane's new chunks (lint thread).
    Lint(LintReq),
    Highlight {
        doc_rev: u64,
        text: Arc<str>,
        syntax: Option<String>,
    },
    Export {
        path: PathBuf,
        kind: ExportKind,
        overwrite: bool,
        config: ChunkConfig,
        chunks: Arc<Vec<Chunk>>,
        text: Arc<str>,
    },
    /// `W`: the LLM writes questions about the text (a thread of its own).
    GenerateQuestions {
        config: ChunkConfig,
        text: Arc<str>,
        corpus_id: String,
        doc_rev: u64,
    },
}
