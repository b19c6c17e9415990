//! The runtime side of the loop: a worker per kind of work, each command
//! submitted to its lane, and the file watcher. Lanes: the pane for work
//! where a pane only wants its newest request (chunks, token counts, lint);
//! the document for highlighting; the job itself for embedding and
//! retrieval, which `update` supersedes by cancelling them (a job may
//! outlive a newer request of its pane: the other pane may want its
//! analysis, or it scores the question set while a newer one answers the
//! probe).

use super::chunk::{self, ChunkReq};
use super::highlight::{self, HlReq};
use crate::document::Document;
use crate::error::{Error, Result};
use crate::tui::features::embedder::{self, EmbedReq};
use crate::tui::features::lint::{self, LintReq, ModelTokens};
use crate::tui::features::retrieval::{self, Indexes, RetrieveReq};
use crate::tui::msg::{Cmd, Msg};
use crate::tui::threads::count::{self, CountReq};
use crate::tui::threads::Worker;
use std::path::Path;
use std::sync::mpsc::{channel, Receiver, Sender};
use std::time::Duration;

pub struct Runtime {
    tx: Sender<Msg>,
    pub rx: Receiver<Msg>,
    chunker: Worker<ChunkReq>,
    counter: Worker<CountReq>,
    embedder: Worker<EmbedReq>,
    retriever: Worker<RetrieveReq>,
    linter: Worker<LintReq>,
    highlighter: Option<Worker<HlReq>>,
    watcher: Option<notify_debouncer_mini::Debouncer<notify_debouncer_mini::notify::RecommendedWatcher>>,
}

impl Runtime {
    /// Start the workers; the highlighter only when a syntect theme is given.
    pub fn new(syntect_theme: Option<String>) -> Runtime {
        let (tx, rx) = channel();
        let mut tokenizers = count::Tokenizers::new();
        let counter = Worker::spawn_background("token-counter", tx.clone(), move |req, reply| {
            count::run(req, reply, &mut tokenizers)
        });
        let counts = counter.clone();
        let chunker = Worker::spawn("chunker", tx.clone(), move |req, reply| chunk::run(req, reply, &counts));
        let counts = counter.clone();
        let embedder =
            Worker::spawn("embedder", tx.clone(), move |req, reply| embedder::run(&req, reply, Some(&counts)));
        let mut indexes = Indexes::default();
        let retriever =
            Worker::spawn("retriever", tx.clone(), move |req, reply| retrieval::run(&req, reply, &mut indexes));
        let mut models = ModelTokens::default();
        let linter = Worker::spawn_background("lint", tx.clone(), move |req, reply| {
            reply.send(lint::run(&req, &mut models));
        });
        let highlighter = syntect_theme.map(|theme| {
            let mut sets = None;
            Worker::spawn_background("highlighter", tx.clone(), move |req, reply| {
                highlight::run(req, reply, &mut sets, &theme)
            })
        });
        Runtime { tx, rx, chunker, counter, embedder, retriever, linter, highlighter, watcher: None }
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
        // The watcher reports opening the file too, so reading it would set
        // it off again, ten times a second for good: the file is read again
        // only when its stamp says it was written or replaced (or is gone).
        let mut read_at: Option<Stamp> = None;
        let mut debouncer = new_debouncer(Duration::from_millis(100), move |res: DebounceEventResult| {
            let Ok(events) = res else { return };
            if events.iter().any(|e| e.path.file_name().map(|n| n.to_os_string()) == name) {
                let now = Stamp::of(&file);
                if now.is_some() && now == read_at {
                    return;
                }
                read_at = now;
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
            Cmd::Rechunk { pane, rev, config, text, structure, first, path } => {
                // Counting or linting the old chunks would only slow the new cut down.
                self.counter.cancel(pane as u64);
                self.linter.cancel(pane as u64);
                let req = ChunkReq { pane, rev, config, text, structure, analysis: None, first, path };
                self.chunker.submit(pane as u64, req);
            }
            Cmd::Recut { pane, rev, config, text, analysis, resize } => {
                let analysis = Some((analysis, resize));
                let req = ChunkReq { pane, rev, config, text, structure: None, analysis, first: None, path: None };
                self.chunker.submit(pane as u64, req);
            }
            Cmd::Embed { pane, id, rev, key, config, text, cancel, first } => {
                let req = EmbedReq { pane, id, rev, key, config, text, cancel: cancel.clone(), first };
                self.embedder.submit_with(id, req, cancel);
            }
            Cmd::Retrieve(req) => {
                let (id, cancel) = (req.id, req.cancel.clone());
                self.retriever.submit_with(id, req, cancel);
            }
            Cmd::Lint(req) => {
                self.linter.submit(req.pane as u64, req);
            }
            Cmd::Highlight { doc_rev, text, syntax } => {
                if let Some(h) = &self.highlighter {
                    h.submit(0, HlReq { doc_rev, text, syntax });
                }
            }
            Cmd::GenerateQuestions { config, text, corpus_id, doc_rev } => {
                crate::tui::features::questions::spawn(config, text, corpus_id, doc_rev, self.tx.clone());
            }
            Cmd::Export { path, kind, overwrite, config, chunks, text } => {
                // Never superseded: every export asked for is written.
                let tx = self.tx.clone();
                std::thread::spawn(move || {
                    // An input of this run is refused before any question
                    // about overwriting it: no answer could make it right.
                    if let Err(e) = crate::protect::check_output(&path) {
                        let _ = tx.send(Msg::Exported(Err(e.to_string())));
                        return;
                    }
                    if !overwrite && path.exists() {
                        let _ = tx.send(Msg::ExportConflicted { path, kind });
                        return;
                    }
                    let r = crate::tui::features::export::write(&path, kind, &config, &chunks, &text);
                    let _ = tx.send(Msg::Exported(r.map(|_| path).map_err(|e| e.to_string())));
                });
            }
        }
    }
}

impl Drop for Runtime {
    /// The workers end once their current job is done.
    fn drop(&mut self) {
        self.chunker.close();
        self.counter.close();
        self.embedder.close();
        self.retriever.close();
        self.linter.close();
        if let Some(h) = &self.highlighter {
            h.close();
        }
    }
}

/// What writing or replacing a file changes and reading it does not: its
/// size, modification and change times, and (on Unix) its inode.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Stamp {
    len: u64,
    modified: Option<std::time::SystemTime>,
    #[cfg(unix)]
    inode: (u64, u64, i64, i64),
}

impl Stamp {
    fn of(path: &Path) -> Option<Stamp> {
        let meta = std::fs::metadata(path).ok()?;
        #[cfg(unix)]
        let inode = {
            use std::os::unix::fs::MetadataExt;
            (meta.dev(), meta.ino(), meta.ctime(), meta.ctime_nsec())
        };
        Some(Stamp {
            len: meta.len(),
            modified: meta.modified().ok(),
            #[cfg(unix)]
            inode,
        })
    }
}
