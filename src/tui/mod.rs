//! The workbench (`chunktui FILE`): an Elm-style loop. One [`model::Model`],
//! messages from input and worker threads, a pure [`update::update`] that
//! returns commands, and a pure [`view::draw`]. Chunking, token counts,
//! highlighting, embedding, retrieval and lint run on worker threads
//! ([`jobs`]), with one rule for stale work: the newest request wins.

pub mod app;
pub mod bench;
pub mod features;
pub mod jobs;
pub mod msg;
pub mod state;
pub mod threads;
pub mod view;

// The paths code outside src/tui uses (the CLI, tests, the fuzz target).
pub use app::update;
pub use features::{embedder, lint, params, probe, reload, retrieval};
pub use state::{keymap, model};
pub use view::theme;

/// The chunker's functions where tests outside the workbench find them.
pub mod worker {
    pub use super::jobs::chunk::{chunk_now, chunk_structured_now};
}

use crate::config::ChunkConfig;
use crate::document::Document;
use crate::error::{Error, Result};
use crate::eval::model_choice::{choose_for, ModelSource};
use app::signals;
use crossterm::event::{self, EnableMouseCapture, Event};
use jobs::runtime::Runtime;
use model::Model;
use msg::Msg;
use ratatui::layout::Rect;
use state::cursor::relayout;
use std::path::Path;
use theme::Theme;

/// How the workbench is opened besides the document and its settings: what
/// `chunktui FILE`'s flags say (the CLI fills it from its own `OpenArgs`).
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Colour theme: dark, light, high-contrast, or a path to a theme TOML file.
    pub theme: Option<String>,
    /// Key bindings file (TOML: "key" = "action").
    pub keymap: Option<std::path::PathBuf>,
    /// Second configuration for pane B.
    pub compare: Option<std::path::PathBuf>,
    /// The embedding model's input limit in tokens.
    pub max_tokens: Option<usize>,
    /// Questions with known answers, scored after every change.
    pub queries: Option<std::path::PathBuf>,
    /// Retriever of the probe and the queries panel: dense, bm25 or hybrid.
    pub retriever: Option<String>,
}

/// Everything the workbench needs before the terminal is touched; errors here
/// are printed by `main` as one line (exit 2) on a normal screen.
pub struct Setup {
    pub model: Model,
    pub theme: Theme,
}

/// [`prepare_named`] for a config that names its embedding model if it
/// holds one (`semantic.model`), else gets the one for the document's language.
pub fn prepare(file: &Path, config: ChunkConfig, open: &Options, lossy: bool, screen: Rect) -> Result<Setup> {
    let named = config.semantic.model.is_some().then_some(ModelSource::Config);
    prepare_named(file, config, named, open, lossy, screen)
}

/// The workbench on `file` with `config`, whose embedding model `named` says
/// who named (`None`: nobody, so the document's language picks it, written
/// into the config so that an export names it).
pub fn prepare_named(
    file: &Path,
    mut config: ChunkConfig,
    named: Option<ModelSource>,
    open: &Options,
    lossy: bool,
    screen: Rect,
) -> Result<Setup> {
    let doc = Document::load(file, lossy)?;
    let theme = Theme::resolve(open.theme.as_deref(), Theme::no_color_env())?;
    let keymap = app::open::keymap().with_file(open.keymap.as_deref())?;
    let model_choice = choose_for(&mut config, named, &[&doc.text]);
    let b = match &open.compare {
        Some(p) => {
            // The file's language is a fact about the file: pane B reads it too.
            let mut b = ChunkConfig::load(p)?;
            if b.code.language.is_none() {
                b.code.language.clone_from(&config.code.language);
            }
            let named = b.semantic.model.is_some().then_some(ModelSource::Config);
            choose_for(&mut b, named, &[&doc.text]);
            b
        }
        None => config.clone(),
    };
    let replaced = doc.replaced_invalid_bytes;
    let mut model = Model::new(doc, config, b, screen);
    model.keymap = keymap;
    model.max_tokens = open.max_tokens;
    model.compare = open.compare.is_some();
    if let Some(path) = &open.queries {
        let stem = file.file_stem().map_or_else(String::new, |s| s.to_string_lossy().into_owned());
        model.questions = Some(probe::Questions::load(path, &stem, &model.text)?);
    }
    // --retriever, else the document's language against the model's (as eval).
    let asked = open.retriever.as_deref().map(crate::eval::retrieve::RetrieverKind::parse).transpose()?;
    let retriever_why = probe::choose_retrievers(&mut model, asked);
    relayout(&mut model);
    if let Some(q) = &model.questions {
        let n = q.set.questions.len();
        model.status.text = format!(
            "{n} question{} about {}: scored after every change · Q shows one · a asks your own",
            if n == 1 { "" } else { "s" },
            q.corpus_id
        );
    }
    // The model, when the document's language picked the multilingual one.
    let model_why = model_choice.is_multilingual().then(|| format!("model {}", model_choice.reason));
    let why: Vec<String> = model_why.into_iter().chain(retriever_why).collect();
    if !why.is_empty() {
        let why = why.join(" · ");
        model.status.text = match model.questions {
            Some(_) => format!("{} · {why}", model.status.text),
            None => why,
        };
    }
    if replaced > 0 {
        model.status.text = format!("replaced {replaced} invalid UTF-8 sequence(s) with U+FFFD");
    }
    Ok(Setup { model, theme })
}

pub fn run(file: &Path, config: ChunkConfig, named: Option<ModelSource>, open: &Options, lossy: bool) -> Result<()> {
    let (w, h) = crossterm::terminal::size().unwrap_or((80, 24));
    let Setup { mut model, theme } = prepare_named(file, config, named, open, lossy, Rect::new(0, 0, w, h))?;
    let mut rt = Runtime::new(theme.syntect.clone());
    if let Err(e) = rt.watch(file, lossy) {
        model.status = model::Status { text: format!("{e}: edits will not reload"), error: true };
    }
    // After `prepare`, so a bad file or flag is reported first.
    let no_tty = |why: String| {
        Error::Io(format!(
            "the workbench needs a terminal ({why}): for pipelines use `chunktui chunk FILE` or `chunktui stats FILE`"
        ))
    };
    if !std::io::IsTerminal::is_terminal(&std::io::stdout()) {
        return Err(no_tty("standard output is not one".into()));
    }
    // Hooked before the terminal changes, so a signal always finds it restorable.
    let watch = signals::Watch::start(rt.sender());
    let mut terminal = ratatui::try_init().map_err(|e| no_tty(format!("cannot open it: {e}")))?;
    // Restore as on any exit (mouse off and cursor shown too), then ratatui's
    // hook prints the panic on the normal screen. A panic on a worker thread
    // ends the process too: the loop would go on drawing into a terminal
    // that is no longer in raw mode, waiting for answers that never come.
    let prev = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        signals::restore_terminal();
        prev(info);
        if std::thread::current().name() != Some("main") {
            std::process::exit(101);
        }
    }));
    let _ = crossterm::execute!(std::io::stdout(), EnableMouseCapture);
    let input = rt.sender();
    std::thread::Builder::new()
        .name("input".into())
        .spawn(move || loop {
            let msg = match event::read() {
                Ok(Event::Key(k)) => Msg::KeyPressed(k),
                Ok(Event::Mouse(m)) => Msg::MouseUsed(m),
                Ok(Event::Resize(w, h)) => Msg::Resized(w, h),
                Ok(_) => continue,
                Err(_) => return,
            };
            if input.send(msg).is_err() {
                return;
            }
        })
        .map_err(|e| Error::Io(format!("cannot start the input thread: {e}")))?;
    let result = event_loop(&mut terminal, &mut model, &theme, &rt);
    signals::restore_terminal();
    drop(terminal);
    if let Some(w) = watch {
        w.finish(); // dies of the signal that ended the loop, if one did
    }
    result
}

fn event_loop(terminal: &mut ratatui::DefaultTerminal, model: &mut Model, theme: &Theme, rt: &Runtime) -> Result<()> {
    for cmd in update::start(model) {
        rt.exec(cmd);
    }
    loop {
        terminal.draw(|f| view::draw(model, theme, f)).map_err(|e| Error::Io(format!("cannot draw: {e}")))?;
        let Ok(first) = rt.rx.recv() else { return Ok(()) };
        // Drain everything queued, then draw once.
        for msg in std::iter::once(first).chain(rt.rx.try_iter()) {
            for cmd in update::update(model, msg) {
                rt.exec(cmd);
            }
        }
        if model.quit {
            return Ok(());
        }
    }
}
