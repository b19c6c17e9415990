//! The one Model: everything the screen shows, nothing the runtime owns
//! (threads, terminal). `update` changes it; `view` reads it.

use crate::chunk::Chunk;
use crate::config::ChunkConfig;
use crate::document::DocKind;
use crate::extract::Structure;
use crate::stats::Stats;
use crate::strategy::hierarchical::level_sizes;
use crate::tui::state::edits::PaneEdits;
use crate::tui::state::keymap::Keymap;
use crate::tui::state::layout::Layout;
use crate::tui::state::lint::PaneLint;
use crate::tui::state::panels::Panels;
use crate::tui::state::params::Held;
use crate::tui::state::probe::{ProbeState, Questions};
use crate::tui::state::semantic::{Cached, SemState};
use ratatui::layout::Rect;
use ratatui::style::Color;
use std::path::PathBuf;
use std::sync::Arc;

/// One configuration and the chunks it produced (pane A, or B when comparing).
#[derive(Debug, Clone)]
pub struct Pane {
    pub config: ChunkConfig,
    /// Revision of the newest chunk request; results for older ones are dropped.
    pub rev: u64,
    /// Revision of the chunks on screen (`rev` when up to date).
    pub shown_rev: u64,
    /// The document revision (`Model::doc_rev`) request `rev` was made for:
    /// a result is taken only while this is still the text on screen.
    pub rev_doc: u64,
    /// The document revision `chunks` were cut from; always the model's
    /// `doc_rev` (a reload empties the chunks in the same step as the swap).
    pub chunks_doc: u64,
    /// The chunks on screen: for a hierarchical cut, the level shown.
    pub chunks: Arc<Vec<Chunk>>,
    /// Every chunk of the result (all levels of a hierarchical cut; else
    /// the same list as `chunks`). What the chunks export writes.
    pub all_chunks: Arc<Vec<Chunk>>,
    /// The chunks on screen of the newest request while the rest is being
    /// cut ([`crate::tui::msg::Msg::ChunkedPart`]): the document pane
    /// draws them; counts and lists wait for the whole result.
    pub part: Option<Part>,
    /// The level of a hierarchical cut on screen (0 = the largest; see [`crate::tui::features::levels`]).
    pub level: u8,
    pub stats: Stats,
    /// Standalone token counts under `config.tokenizer` of the shown
    /// chunks, once computed.
    pub tokens: Option<Vec<usize>>,
    /// The same for every chunk of the result (`all_chunks`): a hierarchical
    /// cut's other levels are counted too, and shown when their level is.
    pub all_tokens: Option<Arc<Vec<usize>>>,
    pub error: Option<String>,
    /// Embedding jobs and the model behind the chunks (model strategies).
    pub sem: SemState,
    /// The query probe and the evaluation of these chunks.
    pub probe: ProbeState,
    /// Chunk lint of these chunks, once computed.
    pub lint: PaneLint,
    /// Settings a key changed on its own, kept so that they can come back.
    pub held: Held,
    /// Hand-made boundaries: where the config's edits landed, undo and redo.
    pub edits: PaneEdits,
    /// The config of request `rev`: what the chunks are cut under once
    /// `shown_rev` reaches it.
    pub requested: ChunkConfig,
}

/// The chunks on screen of request `rev`, before the whole result.
#[derive(Debug, Clone)]
pub struct Part {
    pub rev: u64,
    pub chunks: Arc<Vec<Chunk>>,
    /// The result's first chunks (their numbers are the result's); false
    /// for a stretch in the middle cut on its own.
    pub from_start: bool,
}

impl Pane {
    pub fn new(config: ChunkConfig) -> Pane {
        Pane {
            requested: config.clone(),
            config,
            rev: 0,
            shown_rev: 0,
            rev_doc: 0,
            chunks_doc: 0,
            chunks: Arc::new(Vec::new()),
            all_chunks: Arc::new(Vec::new()),
            part: None,
            level: 0,
            stats: Stats::default(),
            tokens: None,
            all_tokens: None,
            error: None,
            sem: SemState::default(),
            probe: ProbeState::default(),
            lint: Default::default(),
            held: Default::default(),
            edits: Default::default(),
        }
    }

    /// A chunk request is on its way.
    pub fn pending(&self) -> bool {
        self.shown_rev != self.rev && self.error.is_none()
    }

    /// The chunks the document pane draws: the chunks on screen of the
    /// newest request while it is being cut, else the chunks on screen.
    pub fn drawn_chunks(&self) -> &[Chunk] {
        self.drawn_part().map_or(&self.chunks, |p| &p.chunks)
    }

    /// The part of the newest request drawn while it is being cut.
    pub fn drawn_part(&self) -> Option<&Part> {
        self.part.as_ref().filter(|p| p.rev == self.rev && self.pending())
    }

    /// Whether the drawn chunks are numbered as the result will be: not
    /// for a part from the middle, whose chunks before are not cut yet.
    pub fn drawn_numbered(&self) -> bool {
        self.drawn_part().is_none_or(|p| p.from_start)
    }

    /// Forget everything computed from the previous text (the new chunks
    /// are requested right after).
    pub fn forget_chunks(&mut self, doc_rev: u64) {
        self.chunks = Arc::new(Vec::new());
        self.all_chunks = Arc::new(Vec::new());
        self.part = None;
        self.chunks_doc = doc_rev;
        self.stats = Stats::default();
        self.tokens = None;
        self.all_tokens = None;
        self.lint = Default::default();
        self.edits.resolved = None;
        self.sem.warnings.clear();
        self.probe.forget();
    }

    /// The size limit chunks are held to, if the strategy promises one.
    pub fn limit(&self) -> Option<usize> {
        self.config.strategy.promises_size_limit().then(|| self.size_of_shown())
    }

    /// The size chunks of the shown level are held to (a hierarchical cut's
    /// levels have sizes of their own; see [`crate::tui::features::levels`]).
    pub fn size_of_shown(&self) -> usize {
        level_sizes(&self.config).get(self.level as usize).copied().unwrap_or(self.config.size)
    }
}

/// What an export writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExportKind {
    /// The active pane's config (TOML, or JSON for `.json`).
    Config,
    /// The active pane's chunks as JSONL records.
    Chunks,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Mode {
    Normal,
    Help,
    Search(String),
    /// The question box of the query probe (`a`).
    Ask(String),
    ExportPath {
        input: String,
        kind: ExportKind,
    },
    ConfirmOverwrite {
        path: PathBuf,
        kind: ExportKind,
    },
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Status {
    pub text: String,
    pub error: bool,
}

/// Syntax foreground colours: runs of (start byte, colour), sorted.
#[derive(Debug, Clone, Default)]
pub struct Highlight {
    pub doc_rev: u64,
    pub runs: Vec<(u32, Color)>,
    pub done: bool,
}

#[derive(Debug, Clone)]
pub struct Model {
    pub text: Arc<str>,
    /// HTML and PDF: where `text` (the extracted text) came from.
    pub structure: Option<Arc<Structure>>,
    pub kind: DocKind,
    pub path: PathBuf,
    /// Bumped when the file is reloaded with new content.
    pub doc_rev: u64,
    pub panes: [Pane; 2],
    pub compare: bool,
    /// The pane the parameter keys edit.
    pub active: usize,
    /// First visual line on screen.
    pub top: usize,
    pub selected: Option<usize>,
    pub layout: Arc<Layout>,
    pub screen: Rect,
    pub highlight: Highlight,
    pub mode: Mode,
    pub status: Status,
    pub last_search: Option<String>,
    /// The last reading of the watched file failed (the last good text is shown).
    pub file_unreadable: bool,
    /// Where the last search matched: `/` Enter continues after it.
    pub last_found: Option<usize>,
    /// First help row shown when the help does not fit the screen.
    pub help_scroll: usize,
    /// Tokenizers `t` cycles through.
    pub tokenizers: Vec<String>,
    /// The embedding model's input limit in tokens: chunks over it are flagged.
    pub max_tokens: Option<usize>,
    pub keymap: Keymap,
    /// Sentence analyses by (document, model, buffer), newest first: a
    /// threshold change re-cuts from here without embedding again.
    pub analyses: Vec<Cached>,
    /// Id of the newest embedding or retrieval job.
    pub next_job: u64,
    /// The question set of `--queries`, when given.
    pub questions: Option<Questions>,
    /// What LLM work cost so far (requests, tokens, cache hits, repairs).
    pub llm_usage: crate::llm::Usage,
    /// What the embeddings endpoint was asked so far (the footer shows it).
    pub embed_usage: crate::embed_usage::Usage,
    /// The panels above the chunk list (lint `L`, edits `B`...) and which are shown.
    pub panels: Panels,
    pub quit: bool,
}

impl Model {
    pub fn pane(&self) -> &Pane {
        &self.panes[self.active]
    }

    /// Panes on screen: A, or A and B.
    pub fn visible_panes(&self) -> usize {
        if self.compare {
            2
        } else {
            1
        }
    }

    /// The syntax name for the highlighter (by extension, then by kind).
    pub fn syntax(&self) -> Option<String> {
        let ext = self.path.extension().and_then(|e| e.to_str()).map(|e| e.to_ascii_lowercase());
        match self.kind {
            DocKind::Markdown => Some("md".into()),
            DocKind::Code => ext,
            DocKind::Json | DocKind::Jsonl => Some("json".into()),
            // HTML, PDF and Word are shown as their extracted text.
            DocKind::Html | DocKind::Pdf | DocKind::Docx | DocKind::Text | DocKind::Csv | DocKind::Tsv => None,
        }
    }
}
