//! The runtime side: worker threads that do the slow work and report back as
//! messages. Chunking and highlighting take the newest request and drop
//! stale ones; the watcher reads the file again when it changes.

use super::embedder::{self, EmbedReq};
use super::msg::{Cmd, ExportKind, Msg};
use super::semantic::SemanticAnalysis;
use crate::chunk::Chunk;
use crate::config::ChunkConfig;
use crate::document::Document;
use crate::embedding::Control;
use crate::error::{Error, Result};
use crate::extract::Structure;
use crate::size::Tokenizer;
use crate::stats::Stats;
use crate::Chunker;
use ratatui::style::Color;
use std::collections::{HashMap, VecDeque};
use std::path::Path;
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::Arc;
use std::time::Duration;

/// Documents larger than this are not syntax-highlighted (it would take minutes).
pub const MAX_HIGHLIGHT_BYTES: usize = 8 << 20;

struct ChunkReq {
    pane: usize,
    rev: u64,
    config: ChunkConfig,
    text: Arc<str>,
    structure: Option<Arc<Structure>>,
    /// Re-cut from this analysis (and re-size it first when true).
    analysis: Option<(Arc<SemanticAnalysis>, bool)>,
}

struct HlReq {
    doc_rev: u64,
    text: Arc<str>,
    syntax: Option<String>,
}

pub struct Runtime {
    tx: Sender<Msg>,
    pub rx: Receiver<Msg>,
    chunk_tx: Sender<ChunkReq>,
    embed_tx: Sender<EmbedReq>,
    retrieve_tx: Sender<super::retrieval::RetrieveReq>,
    lint_tx: Sender<super::lint::LintReq>,
    hl_tx: Option<Sender<HlReq>>,
    watcher: Option<notify_debouncer_mini::Debouncer<notify_debouncer_mini::notify::RecommendedWatcher>>,
}

impl Runtime {
    /// Start the chunker, and the highlighter when a syntect theme is given.
    pub fn new(syntect_theme: Option<String>) -> Runtime {
        let (tx, rx) = channel();
        let (chunk_tx, chunk_rx) = channel();
        let (count_tx, count_rx) = channel();
        let t = tx.clone();
        let c = count_tx.clone();
        std::thread::Builder::new()
            .name("chunker".into())
            .spawn(move || chunk_worker(chunk_rx, c, t))
            .expect("spawn chunker");
        let t = tx.clone();
        std::thread::Builder::new()
            .name("token-counter".into())
            .spawn(move || count_worker(count_rx, t))
            .expect("spawn counter");
        let counter = std::sync::Mutex::new(count_tx.clone());
        let embed_tx = embedder::spawn(
            tx.clone(),
            Box::new(move |pane, rev, chunks, text, tokenizer| {
                let job = CountJob::new(pane, rev, chunks.clone(), text.clone(), tokenizer.to_string());
                let _ = counter.lock().map(|c| c.send(job));
            }),
        );
        let hl_tx = syntect_theme.map(|theme| {
            let (hl_tx, hl_rx) = channel();
            let t = tx.clone();
            std::thread::Builder::new()
                .name("highlighter".into())
                .spawn(move || highlight_worker(hl_rx, t, &theme))
                .expect("spawn highlighter");
            hl_tx
        });
        let retrieve_tx = super::retrieval::spawn(tx.clone());
        let lint_tx = super::lint::spawn(tx.clone());
        Runtime { tx, rx, chunk_tx, embed_tx, retrieve_tx, lint_tx, hl_tx, watcher: None }
    }

    pub fn sender(&self) -> Sender<Msg> {
        self.tx.clone()
    }

    /// Watch the file's folder (editors save by writing a temp file and
    /// renaming it over) and re-read the file when an event names it.
    pub fn watch(&mut self, path: &Path, lossy: bool) -> Result<()> {
        use notify_debouncer_mini::{new_debouncer, notify::RecursiveMode, DebounceEventResult};
        let path = std::path::absolute(path).map_err(|e| Error::io(path, &e))?;
        let dir = path.parent().map(Path::to_path_buf).unwrap_or_else(|| ".".into());
        let name = path.file_name().map(|n| n.to_os_string());
        let tx = self.tx.clone();
        let file = path.clone();
        let mut debouncer = new_debouncer(Duration::from_millis(100), move |res: DebounceEventResult| {
            let Ok(events) = res else { return };
            if events.iter().any(|e| e.path.file_name().map(|n| n.to_os_string()) == name) {
                let doc = Document::load(&file, lossy).map_err(|e| e.to_string());
                let _ = tx.send(Msg::FileReloaded(doc));
            }
        })
        .map_err(|e| Error::Io(format!("cannot watch {}: {e}", dir.display())))?;
        debouncer
            .watcher()
            .watch(&dir, RecursiveMode::NonRecursive)
            .map_err(|e| Error::Io(format!("cannot watch {}: {e}", dir.display())))?;
        self.watcher = Some(debouncer);
        Ok(())
    }

    pub fn exec(&self, cmd: Cmd) {
        match cmd {
            Cmd::Rechunk { pane, rev, config, text, structure } => {
                let _ = self.chunk_tx.send(ChunkReq { pane, rev, config, text, structure, analysis: None });
            }
            Cmd::Recut { pane, rev, config, text, analysis, resize } => {
                let analysis = Some((analysis, resize));
                let _ = self.chunk_tx.send(ChunkReq { pane, rev, config, text, structure: None, analysis });
            }
            Cmd::Embed { pane, id, rev, key, config, text, cancel, first } => {
                let _ = self.embed_tx.send(EmbedReq { pane, id, rev, key, config, text, cancel, first });
            }
            Cmd::Retrieve(req) => {
                let _ = self.retrieve_tx.send(req);
            }
            Cmd::Lint(req) => {
                let _ = self.lint_tx.send(req);
            }
            Cmd::Highlight { doc_rev, text, syntax } => {
                if let Some(hl) = &self.hl_tx {
                    let _ = hl.send(HlReq { doc_rev, text, syntax });
                }
            }
            Cmd::Export { path, kind, overwrite, config, chunks, text } => {
                let tx = self.tx.clone();
                std::thread::spawn(move || {
                    if !overwrite && path.exists() {
                        let _ = tx.send(Msg::ExportConflicted { path, kind });
                        return;
                    }
                    let r = write_export(&path, kind, &config, &chunks, &text);
                    let _ = tx.send(Msg::Exported(r.map(|_| path).map_err(|e| e.to_string())));
                });
            }
        }
    }
}

pub fn write_export(path: &Path, kind: ExportKind, config: &ChunkConfig, chunks: &[Chunk], text: &str) -> Result<()> {
    match kind {
        ExportKind::Config => config.save(path),
        ExportKind::Chunks => {
            let mut out = Vec::with_capacity(text.len() * 2);
            for r in crate::export::records(chunks, text) {
                serde_json::to_writer(&mut out, &r).expect("records serialise");
                out.push(b'\n');
            }
            crate::export::write_atomic(path, &out)
        }
    }
}

/// Chunk one request: what the chunker thread does (the bench calls it too).
pub fn chunk_now(config: &ChunkConfig, text: &str) -> std::result::Result<(Vec<Chunk>, Stats), String> {
    chunk_structured_now(config, text, None)
}

/// [`chunk_now`] of extracted text (HTML, PDF) with its structure.
pub fn chunk_structured_now(
    config: &ChunkConfig,
    text: &str,
    structure: Option<&Structure>,
) -> std::result::Result<(Vec<Chunk>, Stats), String> {
    let chunker = Chunker::new(config).map_err(|e| e.to_string())?;
    let chunks = chunker.chunk_structured(text, structure, Control::none()).map_err(|e| e.to_string())?;
    let limit = config.strategy.promises_size_limit().then_some(config.size);
    let stats = Stats::compute(&chunks, text, limit);
    Ok((chunks, stats))
}

struct CountJob {
    pane: usize,
    rev: u64,
    chunks: Arc<Vec<Chunk>>,
    text: Arc<str>,
    tokenizer: String,
    counts: Vec<usize>,
}

impl CountJob {
    fn new(pane: usize, rev: u64, chunks: Arc<Vec<Chunk>>, text: Arc<str>, tokenizer: String) -> CountJob {
        CountJob { pane, rev, chunks, text, tokenizer, counts: Vec::new() }
    }
}

fn chunk_worker(rx: Receiver<ChunkReq>, counter: Sender<CountJob>, tx: Sender<Msg>) {
    let mut latest: [Option<ChunkReq>; 2] = [None, None];
    loop {
        let mut incoming: Vec<ChunkReq> = Vec::new();
        if latest.iter().all(Option::is_none) {
            match rx.recv() {
                Ok(r) => incoming.push(r),
                Err(_) => return,
            }
        }
        incoming.extend(rx.try_iter());
        for r in incoming {
            let pane = r.pane.min(1);
            latest[pane] = Some(r); // the newest request per pane wins
        }
        let Some(req) = latest[0].take().or_else(|| latest[1].take()) else { continue };
        let result = match &req.analysis {
            Some((a, resize)) => embedder::recut_now(&req.config, &req.text, a, *resize),
            None => chunk_structured_now(&req.config, &req.text, req.structure.as_deref()),
        };
        let result = result.map(|(chunks, stats)| (Arc::new(chunks), stats));
        if let Ok((chunks, _)) = &result {
            let job = CountJob::new(req.pane, req.rev, chunks.clone(), req.text.clone(), req.config.tokenizer.clone());
            let _ = counter.send(job);
        }
        if tx.send(Msg::Chunked { pane: req.pane, rev: req.rev, result }).is_err() {
            return;
        }
    }
}

/// Standalone token counts on their own thread, so counting a huge chunk
/// never delays the next chunking request. A newer job for a pane replaces
/// the older one.
fn count_worker(rx: Receiver<CountJob>, tx: Sender<Msg>) {
    let mut jobs: VecDeque<CountJob> = VecDeque::new();
    let mut tokenizers: HashMap<String, Option<Tokenizer>> = HashMap::new();
    loop {
        if jobs.is_empty() {
            match rx.recv() {
                Ok(j) => jobs.push_back(j),
                Err(_) => return,
            }
        }
        for j in rx.try_iter() {
            jobs.retain(|old| old.pane != j.pane);
            jobs.push_back(j);
        }
        let Some(job) = jobs.front_mut() else { continue };
        let tok = tokenizers.entry(job.tokenizer.clone()).or_insert_with(|| Tokenizer::load(&job.tokenizer).ok());
        let Some(tok) = tok else {
            jobs.pop_front();
            continue;
        };
        let from = job.counts.len();
        for c in job.chunks.iter().skip(from).take(16) {
            job.counts.push(c.checked_text(&job.text).map_or(0, |t| tok.count(t)));
        }
        if job.counts.len() == job.chunks.len() {
            let job = jobs.pop_front().expect("front exists");
            if tx.send(Msg::TokensCounted { pane: job.pane, rev: job.rev, counts: job.counts }).is_err() {
                return;
            }
        }
    }
}

fn highlight_worker(rx: Receiver<HlReq>, tx: Sender<Msg>, theme_name: &str) {
    use syntect::easy::HighlightLines;
    use syntect::highlighting::ThemeSet;
    use syntect::parsing::SyntaxSet;
    use syntect::util::LinesWithEndings;
    let mut next: Option<HlReq> = None;
    let mut sets: Option<(SyntaxSet, ThemeSet)> = None;
    'requests: loop {
        let mut req = match next.take() {
            Some(r) => r,
            None => match rx.recv() {
                Ok(r) => r,
                Err(_) => return,
            },
        };
        if let Some(newer) = rx.try_iter().last() {
            req = newer;
        }
        let (ss, ts) = sets.get_or_insert_with(|| (SyntaxSet::load_defaults_newlines(), ThemeSet::load_defaults()));
        let syntax = req.syntax.as_deref().and_then(|s| ss.find_syntax_by_extension(s));
        let theme = ts.themes.get(theme_name).or_else(|| ts.themes.values().next());
        let (Some(syntax), Some(theme)) = (syntax, theme) else { continue };
        if req.text.len() > MAX_HIGHLIGHT_BYTES {
            continue;
        }
        let mut h = HighlightLines::new(syntax, theme);
        let mut runs: Vec<(u32, Color)> = Vec::new();
        let mut pos = 0usize;
        for (n, line) in LinesWithEndings::from(&req.text).enumerate() {
            let Ok(pieces) = h.highlight_line(line, ss) else { break };
            for (style, piece) in pieces {
                let c = Color::Rgb(style.foreground.r, style.foreground.g, style.foreground.b);
                if runs.last().map(|r| r.1) != Some(c) {
                    runs.push((pos as u32, c));
                }
                pos += piece.len();
            }
            if n % 400 == 399 {
                let batch = std::mem::take(&mut runs);
                if tx.send(Msg::Highlighted { doc_rev: req.doc_rev, runs: batch, done: false }).is_err() {
                    return;
                }
                if let Some(newer) = rx.try_iter().last() {
                    next = Some(newer);
                    continue 'requests;
                }
            }
        }
        let _ = tx.send(Msg::Highlighted { doc_rev: req.doc_rev, runs, done: true });
    }
}
