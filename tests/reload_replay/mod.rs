//! A workbench session driven without a terminal or threads: operations
//! (reloads, worker answers in any order, keys, clicks, resizes, draws) go
//! through `update()` and the draw functions, and after every message the
//! model is checked. Shared by the property test (tests/tui_reload.rs) and
//! the fuzz target (fuzz/fuzz_targets/reload_sequence.rs), so both hold the
//! model to the same rules.

use chunktui::config::{ChunkConfig, StrategyKind};
use chunktui::document::{DocKind, Document};
use chunktui::eval::queries::{Question, QuestionSet, Reference};
use chunktui::eval::retrieve::{Hit, RetrieverKind};
use chunktui::tui::model::Model;
use chunktui::tui::msg::{Cmd, Msg};
use chunktui::tui::params::non_model_strategies;
use chunktui::tui::probe::{self, Questions};
use chunktui::tui::reload::fits;
use chunktui::tui::retrieval::Retrieval;
use chunktui::tui::theme::Theme;
use chunktui::tui::update::{start, update};
use chunktui::tui::view;
use chunktui::tui::worker::chunk_now;
use crossterm::event::{KeyEvent, KeyModifiers, MouseButton, MouseEvent, MouseEventKind};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Color;
use std::sync::Arc;

#[derive(Debug, Clone)]
pub enum Op {
    /// The file changed on disk to this text.
    Reload(String, DocKind),
    /// The file could not be read.
    ReloadFailed,
    /// A worker answers one of the outstanding commands (index modulo their
    /// number: answers arrive late and out of order).
    Answer(usize),
    /// A worker drops a command (a newer request replaced it).
    Drop(usize),
    /// A chunk result that claims the pane's current revision but was cut
    /// from another text (a bug elsewhere must not become a panic here).
    Forged(usize, String),
    Key(KeyEvent),
    Click(u16, u16),
    Wheel(bool),
    Resize(u16, u16),
    /// Draw into a buffer of this size (not necessarily the model's screen).
    Draw(u16, u16, bool),
    /// A retrieval answer for a pane's newest probe job (or a made-up job
    /// id) ranking chunks that may not exist: chunk indices below `n`.
    ForgedHits(usize, usize),
}

/// A model of a `.md` file chunked by one of the non-model strategies.
pub fn initial(text: String, kind: DocKind, strategy: usize, size: usize, overlap: usize, compare: bool) -> Model {
    let strategies: Vec<_> = non_model_strategies().into_iter().filter(|k| k.spec().reads_any_text()).collect();
    let mut c = ChunkConfig::default();
    c.strategy = strategies[strategy % strategies.len()];
    c.size = size.max(1);
    c.overlap = overlap % c.size;
    c.normalize();
    let mut doc = Document::from_text(text, kind);
    doc.path = Some("/tmp/reload-replay.md".into());
    let mut m = Model::new(doc, c.clone(), c, Rect::new(0, 0, 100, 30));
    m.compare = compare;
    m
}

/// Give the model a question set: one question whose answer is the first
/// character of the text (none fits an empty text; reloads re-check it).
pub fn with_questions(m: &mut Model) {
    let set = QuestionSet {
        questions: vec![Question {
            question: "alpha 中文".into(),
            corpus_id: None,
            references: vec![Reference { start_index: 0, end_index: 1, content: None }],
            row: "test line 1".into(),
        }],
    };
    let mut q = Questions {
        set,
        corpus_id: "reload-replay".into(),
        resolved: Arc::new(Vec::new()),
        refs: Vec::new(),
        merged: Vec::new(),
        doc_rev: m.doc_rev,
        selected: Some(0),
        error: None,
    };
    q.error = q.resolve(&m.text, m.doc_rev).err().map(|e| e.to_string());
    m.questions = Some(q);
}

/// What a worker would send back for a command. Chunks are really cut from
/// the command's text; model strategies are answered without a model.
pub fn answer(cmd: Cmd) -> Vec<Msg> {
    let cut = |config: &ChunkConfig, text: &str| chunk_now(config, text).map(|(c, s)| (Arc::new(c), s));
    let without_model = |config: &ChunkConfig| ChunkConfig { strategy: StrategyKind::Recursive, ..config.clone() };
    match cmd {
        Cmd::Rechunk { pane, rev, config, text, .. } => {
            // The chunker reports the chunks on screen of a long cut early: the
            // first half, or (every other request) a stretch from the middle.
            let result = cut(&config, &text);
            let from_start = rev % 2 == 0;
            let part = result.as_ref().ok().map(|(c, _)| {
                let (n, half) = (c.len(), c.len() / 2);
                Arc::new(if from_start { c[..half].to_vec() } else { c[n / 4..half].to_vec() })
            });
            let mut msgs: Vec<Msg> =
                part.map(|chunks| Msg::ChunkedPart { pane, rev, chunks, from_start }).into_iter().collect();
            msgs.push(Msg::Chunked { pane, rev, result });
            msgs
        }
        Cmd::Recut { pane, rev, config, text, .. } => {
            vec![Msg::Chunked { pane, rev, result: cut(&without_model(&config), &text) }]
        }
        Cmd::Embed { pane, id, key: Some(_), .. } => vec![
            Msg::EmbedProgress { pane, id, done: 0, total: 0 },
            Msg::Analyzed { pane, id, result: Err("no model in this test".into()) },
        ],
        Cmd::Embed { pane, id, rev, key: None, config, text, .. } => vec![
            Msg::EmbedProgress { pane, id, done: 1, total: 2 },
            Msg::ModelChunked {
                pane,
                id,
                rev,
                model_id: Some("test-model".into()),
                result: cut(&without_model(&config), &text),
            },
        ],
        Cmd::Highlight { doc_rev, text, .. } => {
            // A colour change at every line start, as the highlighter reports.
            let runs: Vec<(u32, Color)> = std::iter::once(0)
                .chain(text.match_indices('\n').map(|(i, _)| i + 1))
                .enumerate()
                .map(|(k, at)| (at as u32, if k % 2 == 0 { Color::Red } else { Color::Blue }))
                .collect();
            vec![Msg::Highlighted { doc_rev, runs, done: true }]
        }
        Cmd::Export { .. } => vec![], // never written from a test
        // No LLM here: the question job fails as it would without a server.
        Cmd::GenerateQuestions { doc_rev, corpus_id, .. } => {
            vec![Msg::QuestionsGenerated { doc_rev, corpus_id, result: Err("no LLM in this test".into()) }]
        }
        // Linted as the lint thread would (no model tokenizer: the config's counts).
        Cmd::Lint(req) => vec![chunktui::tui::lint::run(&req, &mut Default::default())],
        // Retrieval without a model: BM25 ranks what dense would.
        Cmd::Retrieve(mut req) => {
            req.kind = RetrieverKind::Bm25;
            chunktui::tui::retrieval::run_sync(&req)
        }
    }
}

/// What must hold after every message: nothing the model holds was
/// computed from another text than the one on screen.
pub fn check(m: &Model) -> Result<(), String> {
    for (i, p) in m.panes.iter().enumerate() {
        if !fits(&p.chunks, &m.text) {
            let last = p.chunks.last().map(|c| c.range.clone());
            return Err(format!("pane {i} holds chunks outside the text ({} bytes), last {last:?}", m.text.len()));
        }
        // The first chunks of a cut still running are drawn: they too belong to this text.
        if !fits(p.drawn_chunks(), &m.text) {
            return Err(format!("pane {i} draws chunks outside the text ({} bytes)", m.text.len()));
        }
        if p.chunks_doc != m.doc_rev {
            return Err(format!(
                "pane {i} holds chunks of text revision {}, the screen shows {}",
                p.chunks_doc, m.doc_rev
            ));
        }
        if p.tokens.as_ref().is_some_and(|t| t.len() != p.chunks.len()) {
            return Err(format!("pane {i} token counts belong to other chunks"));
        }
        if let Some(f) = p.lint.shown.iter().find(|f| f.chunk >= p.chunks.len() || f.at > m.text.len()) {
            return Err(format!("pane {i} marks a lint finding of other chunks: {f:?}"));
        }
        if p.lint.rev != 0 && p.lint.rev != p.shown_rev {
            return Err(format!("pane {i} shows the lint of revision {}, its chunks are {}", p.lint.rev, p.shown_rev));
        }
        if let Some((k, _, _)) = probe::lit(m, i).into_iter().find(|h| h.0 >= p.chunks.len()) {
            return Err(format!("pane {i} lights up chunk {k} of {}", p.chunks.len()));
        }
    }
    if let Some(q) = m.questions.as_ref().filter(|q| q.usable(m.doc_rev)) {
        if !q.refs.iter().flatten().all(|r| m.text.get(r.clone()).is_some()) {
            return Err("question references outside the text on screen".into());
        }
    }
    let n = m.pane().chunks.len();
    if m.selected.is_some_and(|s| s >= n) {
        return Err(format!("selected {:?} of {n} chunks", m.selected));
    }
    if m.layout.doc_rev != m.doc_rev
        || !m.layout.lines.iter().all(|&(s, e)| m.text.get(s as usize..e as usize).is_some())
    {
        return Err("the layout belongs to another text".into());
    }
    if m.top >= m.layout.len().max(1) {
        return Err(format!("top {} of {} lines", m.top, m.layout.len()));
    }
    Ok(())
}

pub fn draw(m: &Model, w: u16, h: u16, no_color: bool) {
    let theme = if no_color { Theme::no_color() } else { Theme::dark() };
    let area = Rect::new(0, 0, w, h);
    let mut buf = Buffer::empty(area);
    view::render(m, &theme, area, &mut buf);
}

/// Outstanding commands kept at most (workers keep only the newest, too).
const MAX_PENDING: usize = 48;

pub struct Session {
    pub m: Model,
    pending: Vec<Cmd>,
    /// Draw the whole screen after every operation (the property test). The
    /// fuzz target turns it off and draws only at its `Draw` operations:
    /// full-screen draws under coverage tracing cost most of an execution.
    pub draw_each_step: bool,
}

impl Session {
    pub fn start(mut m: Model) -> Result<Session, String> {
        let pending = start(&mut m);
        check(&m)?;
        Ok(Session { m, pending, draw_each_step: true })
    }

    fn send(&mut self, msg: Msg) -> Result<(), String> {
        self.pending.extend(update(&mut self.m, msg));
        check(&self.m)
    }

    pub fn apply(&mut self, op: Op) -> Result<(), String> {
        let msgs = match op {
            Op::Reload(text, kind) => vec![Msg::FileReloaded(Ok(Document::from_text(text, kind)))],
            Op::ReloadFailed => vec![Msg::FileReloaded(Err("gone".into()))],
            Op::Answer(i) if !self.pending.is_empty() => answer(self.pending.remove(i % self.pending.len())),
            Op::Drop(i) if !self.pending.is_empty() => {
                self.pending.remove(i % self.pending.len());
                vec![]
            }
            Op::Answer(_) | Op::Drop(_) => vec![],
            Op::Forged(pane, text) => {
                let p = &self.m.panes[pane % 2];
                let result = chunk_now(&p.config, &text).map(|(c, s)| (Arc::new(c), s));
                vec![Msg::Chunked { pane: pane % 2, rev: p.rev, result }]
            }
            Op::Key(k) => vec![Msg::KeyPressed(k)],
            Op::Click(column, row) => vec![Msg::MouseUsed(mouse(MouseEventKind::Down(MouseButton::Left), column, row))],
            Op::Wheel(down) => {
                let kind = if down { MouseEventKind::ScrollDown } else { MouseEventKind::ScrollUp };
                vec![Msg::MouseUsed(mouse(kind, 1, 1))]
            }
            Op::Resize(w, h) => vec![Msg::Resized(w, h)],
            Op::Draw(w, h, no_color) => {
                draw(&self.m, w, h, no_color);
                vec![]
            }
            Op::ForgedHits(pane, n) => {
                let pane = pane % 2;
                let id = self.m.panes[pane].probe.probe_job.unwrap_or(n as u64);
                let hits = (0..n.min(64)).rev().map(|chunk| Hit { chunk, score: chunk as f64 }).collect();
                let r = Retrieval { probe: Some(hits), eval: None, model_id: None };
                vec![Msg::Retrieved { pane, id, result: Ok(r) }]
            }
        };
        for msg in msgs {
            self.send(msg)?;
        }
        if self.pending.len() > MAX_PENDING {
            self.pending.drain(..self.pending.len() - MAX_PENDING);
        }
        if self.draw_each_step {
            draw(&self.m, self.m.screen.width, self.m.screen.height, false);
        }
        Ok(())
    }

    /// Answer everything left, newest first, as the workers would.
    pub fn settle(&mut self) -> Result<(), String> {
        while let Some(cmd) = self.pending.pop() {
            for msg in answer(cmd) {
                self.send(msg)?;
            }
        }
        draw(&self.m, self.m.screen.width, self.m.screen.height, false);
        Ok(())
    }
}

fn mouse(kind: MouseEventKind, column: u16, row: u16) -> MouseEvent {
    MouseEvent { kind, column, row, modifiers: KeyModifiers::NONE }
}
