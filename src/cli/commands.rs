//! What each subcommand does. Output is built in memory and written once, so
//! an error never leaves a partial output file behind.

use super::args::{ChunkCmd, ChunkFlags, Cli, ConfigCmd, ExportCmd, Run, StatsCmd};
use super::files::is_many;
use super::output::{dash_is_stdout, emit, emit_with};
use super::prepare::{load_input, prepare, protect_config_files, protect_settings};
use super::records::RecordWriter;
use crate::config::ChunkConfig;
use crate::document::Document;
use crate::error::{Error, Result};
use crate::input::Source;
use crate::measure::{measure, Linting, Measured};
use crate::stats::Stats;
use std::fmt::Write as _;
use std::path::Path;

/// Run the parsed command line: a subcommand (its `Run`), else the workbench.
pub fn run(mut cli: Cli) -> Result<()> {
    match cli.command.take() {
        Some(command) => command.run(&cli.flags),
        None => open(cli),
    }
}

impl Run for ChunkCmd {
    fn run(self, _: &ChunkFlags) -> Result<()> {
        chunk(self)
    }
}

impl Run for StatsCmd {
    fn run(self, _: &ChunkFlags) -> Result<()> {
        stats(self)
    }
}

impl Run for ExportCmd {
    fn run(self, _: &ChunkFlags) -> Result<()> {
        export(self)
    }
}

impl Run for ConfigCmd {
    fn run(self, _: &ChunkFlags) -> Result<()> {
        match self {
            ConfigCmd::Check { file } => {
                let config = ChunkConfig::load(&file)?;
                // "ok" means every command accepts it: the same checks they run.
                let config =
                    check_usable(config, true).map_err(|e| Error::config(format!("{}: {e}", file.display())))?;
                let line = format!(
                    "{}: ok (version {}, strategy {}, size {} {}, overlap {})\n",
                    file.display(),
                    config.version,
                    config.strategy,
                    config.size,
                    config.unit,
                    config.overlap
                );
                emit(line.as_bytes(), None)
            }
            ConfigCmd::Init { flags, json } => {
                let config = flags.resolve()?;
                // The defaults come with a comment on every key; that file reads
                // back as exactly the defaults (tests/assets.rs proves it).
                if !json && config == ChunkConfig::default() {
                    return emit(include_str!("../../assets/default-config.toml").as_bytes(), None);
                }
                emit(if json { config.to_json() } else { config.to_toml() }.as_bytes(), None)
            }
            ConfigCmd::Schema => emit(crate::config::json_schema().as_bytes(), None),
        }
    }
}

#[cfg(feature = "tui")]
impl Run for crate::tui::bench::BenchArgs {
    fn run(self, global: &ChunkFlags) -> Result<()> {
        crate::tui::bench::run(&self, global.resolve()?)
    }
}

#[cfg(feature = "tui")]
fn open(cli: Cli) -> Result<()> {
    let Some(file) = cli.file else {
        return Err(Error::input(
            "no file given: try `chunktui samples/guide.md`, or `chunktui --help` for the headless commands",
        ));
    };
    let (config, named) = super::prepare::settings_named_for(&cli.flags, &file)?;
    // The workbench's exports (e, E) must never replace the document.
    crate::export::protect_input(Source::from_arg(&file));
    crate::tui::run(&file, config, named, &(&cli.open).into(), cli.flags.lossy)
}

#[cfg(not(feature = "tui"))]
fn open(_cli: Cli) -> Result<()> {
    Err(Error::input("this build has no workbench (feature 'tui'): use `chunktui chunk` or `chunktui stats`"))
}

/// The chunks of one input, and the time the chunker alone took (reading the
/// file and loading the tokenizer excluded, as peers are timed).
struct Chunked {
    config: ChunkConfig,
    doc: Document,
    chunks: Vec<crate::chunk::Chunk>,
}

fn chunk(mut cmd: ChunkCmd) -> Result<()> {
    dash_is_stdout(&mut cmd.output);
    if is_many(&cmd.files) || cmd.output_dir.is_some() {
        return super::corpus::run(&cmd);
    }
    let file = cmd.files[0].clone();
    for out in cmd.output.iter().chain(&cmd.write_config) {
        // Refuse `-o doc.md` (or the config, or the tokenizer) before the work, not after it.
        crate::export::protect_input(Source::from_arg(&file));
        protect_settings(&cmd.flags)?;
        crate::export::check_output(out)?;
    }
    if cmd.extracted {
        if let Some(mb) = cmd.flags.max_input_mb {
            crate::input::set_document_limit_mb(mb)?;
        }
        let doc = load_input(&file, cmd.flags.lossy)?;
        return emit(doc.text.as_bytes(), cmd.output.as_deref());
    }
    if cmd.embeddings {
        let (Chunked { config, doc, chunks }, vectors) = late_chunks_with_vectors(&cmd.flags, &file)?;
        return emit_with(cmd.output.as_deref(), &mut |out| {
            let mut records = RecordWriter::new(cmd.format, config.unit, &doc.text);
            for (c, v) in chunks.iter().zip(&vectors) {
                records.write(out, c, Some(v))?;
            }
            records.finish(out)
        });
    }
    // Each record is written as its chunk is handed over: the output of a
    // large file cut small (hierarchical levels, JSON escapes) is many times
    // its size, and strategies that can hold no chunk list do not. With -o a
    // chunking error leaves no file (the temp file is dropped). On standard
    // output a LangChain splitter's late error (a separator past its
    // backtracking budget) can follow records already written; the exit
    // status is 2 all the same.
    let (config, doc, chunker) = prepare(&cmd.flags, &file)?;
    let chunker = super::embed_progress::with_bar(chunker)?;
    let mut chunk_error = None;
    let written = emit_with(cmd.output.as_deref(), &mut |out| {
        let mut records = RecordWriter::new(cmd.format, config.unit, &doc.text);
        let mut write_error = None;
        // The cut runs on a second thread and each record is written here
        // as its chunk arrives: the JSON of a book's chunks costs about what
        // cutting them does, and the second core is idle after tokenizing.
        let (send, chunks) = std::sync::mpsc::sync_channel(1024);
        let cut = || {
            let send = send;
            // A closed channel is a failed write: the writer says why.
            chunker.chunk_document_each(&doc, &mut |c| drop(send.send(c)))
        };
        let write = || {
            for c in chunks {
                if write_error.is_none() {
                    write_error = records.write(out, &c, None).err();
                }
            }
        };
        let (cut, ()) = crate::parallel::join(cut, write);
        if let Err(e) = cut {
            chunk_error = Some(e);
            return Err(std::io::Error::other("chunking failed"));
        }
        write_error.map_or(Ok(()), Err)?;
        records.finish(out)
    });
    if let Some(e) = chunk_error {
        return Err(e);
    }
    written?;
    if let Some(path) = &cmd.write_config {
        write_config(path, &config)?;
    }
    Ok(())
}

/// `--write-config`: the settings of this run, with the agent's plan when
/// the agentic strategy made one.
fn write_config(path: &Path, config: &ChunkConfig) -> Result<()> {
    let mut config = config.clone();
    if config.strategy == crate::config::StrategyKind::Agentic && config.agentic.plan.is_empty() {
        config.agentic.plan = crate::strategy::llm::agentic::last_plan();
    }
    let text = if crate::config::file::is_json(path) { config.to_json() } else { config.to_toml() };
    crate::io::write_atomic(path, text.as_bytes())?;
    eprintln!("chunktui: wrote the settings to {}", crate::error::shown_path(path));
    Ok(())
}

/// Late chunking's chunks and their pooled vectors, computed together.
fn late_chunks_with_vectors(flags: &super::args::ChunkFlags, file: &Path) -> Result<(Chunked, Vec<Vec<f32>>)> {
    let (config, doc, chunker) = prepare(flags, file)?;
    if config.strategy != crate::config::StrategyKind::Late {
        return Err(Error::config(format!(
            "--embeddings gives late chunking's vectors: use --strategy late (not {})",
            config.strategy
        )));
    }
    let model = chunker.model()?;
    let pairs = crate::strategy::late::chunks_with_vectors(
        &chunker.config,
        &doc.text,
        model.as_ref(),
        crate::embedding::Control::none(),
    )?;
    let (chunks, vectors) = pairs.into_iter().unzip();
    Ok((Chunked { config, doc, chunks }, vectors))
}

/// `chunktui export`: the config as another library's splitter, or the table.
fn export(mut cmd: ExportCmd) -> Result<()> {
    use super::export_splitter::{snippet, table};
    dash_is_stdout(&mut cmd.output);
    let mut flags = cmd.flags;
    if let Some(cfg) = cmd.cfg {
        if flags.config.is_some() {
            return Err(Error::config("give the config once: as CFG or with --config, not both"));
        }
        flags.config = Some(cfg);
    }
    // Read the settings first (which marks their files as inputs), then
    // refuse an output that is one of them: `export CFG -o CFG`.
    let config = cmd.to.map(|_| flags.resolve()).transpose()?;
    if let Some(out) = &cmd.output {
        if let Some(cfg) = &flags.config {
            crate::protect::protect_path(cfg, "config file");
        }
        config.iter().for_each(protect_config_files);
        crate::export::check_output(out)?;
    }
    let (Some(lib), Some(config)) = (cmd.to, config) else {
        return emit(table().as_bytes(), cmd.output.as_deref());
    };
    // The snippet names the model; the model need not be on this machine.
    let config = check_usable(config, false)?;
    emit(snippet(&config, lib).as_bytes(), cmd.output.as_deref())
}

/// Everything `chunktui chunk` would refuse in a config, found without
/// loading anything heavy: the tokenizer (loaded: it is small), separator
/// regexes (they compile on the first text), and a model strategy's model
/// directory when `model_files` is set (its files are looked for, the
/// model is not run).
fn check_usable(config: ChunkConfig, model_files: bool) -> Result<ChunkConfig> {
    let configured = crate::strategy::Configured::new(&config)?;
    if config.strategy.needs_model() {
        #[cfg(feature = "embed")]
        if model_files && !config.embed.is_set() {
            crate::embed::check_model_files(&config.semantic)?;
        }
        #[cfg(not(feature = "embed"))]
        let _ = model_files;
    } else {
        configured.chunk("a. b", None, crate::embedding::Control::none())?;
    }
    Ok(configured.config)
}

fn stats(cmd: StatsCmd) -> Result<()> {
    if is_many(&cmd.files) {
        return super::corpus::stats(&cmd);
    }
    let file = cmd.files[0].clone();
    let (config, doc, chunker) = prepare(&cmd.flags, &file)?;
    let limit = config.strategy.promises_size_limit().then_some(config.size);
    let linting = !cmd.no_lint && config.lint.enabled;
    // The table shows the first findings; --json lists them all.
    let keep = (!cmd.json).then_some(super::lint::SHOWN);
    let (opts, Measured { stats: s, lint, seconds }) = match linting {
        true => {
            let (opts, measured) = super::lint::linted(&config, &doc, |opts, tally| {
                measure(&chunker, &doc, limit, Some(Linting { opts, tally, keep }))
            })?;
            (Some(opts), measured)
        }
        false => (None, measure(&chunker, &doc, limit, None)?),
    };
    // Advice, like lint: `--no-lint` gives the numbers only.
    let fit = if cmd.no_lint { None } else { fit_of(&config, &doc, opts.as_ref())? };
    let lint = match (lint, &opts) {
        (Some(l), Some(o)) => super::lint::Report::of(&doc, l, o),
        _ => super::lint::Report::off(),
    };
    let text = if cmd.json {
        #[derive(serde::Serialize)]
        struct Out<'a> {
            file: String,
            bytes: usize,
            chars: usize,
            strategy: String,
            unit: String,
            size: usize,
            overlap: usize,
            seconds: f64,
            #[serde(flatten)]
            stats: &'a Stats,
            #[serde(flatten)]
            lint: super::lint::Json<'a>,
            /// The model's input limit, pooling, prefix and their sources.
            #[serde(skip_serializing_if = "Option::is_none")]
            model_settings: Option<serde_json::Value>,
            /// LLM requests, tokens, cache hits, repairs and fallbacks.
            #[serde(skip_serializing_if = "Option::is_none")]
            llm: Option<serde_json::Value>,
            /// Embeddings API requests, inputs, tokens, cache hits, retries and time.
            #[serde(skip_serializing_if = "Option::is_none")]
            embeddings: Option<serde_json::Value>,
            /// Does it need chunking: how many records (or the document) fit as they are.
            #[serde(skip_serializing_if = "Option::is_none")]
            fit: Option<&'a crate::fit::Fit>,
        }
        let out = Out {
            file: file.display().to_string(),
            bytes: doc.text.len(),
            chars: doc.text.chars().count(),
            strategy: config.strategy.to_string(),
            unit: config.unit.to_string(),
            size: config.size,
            overlap: config.overlap,
            seconds,
            stats: &s,
            lint: lint.json(),
            model_settings: super::eval::configured_model_settings(&config)?,
            llm: llm_usage(),
            embeddings: embed_usage(),
            fit: fit.as_ref(),
        };
        // Written as it is serialised: `lint_findings` can list millions.
        return emit_with(None, &mut |w| {
            serde_json::to_writer_pretty(&mut *w, &out)?;
            writeln!(w)
        });
    } else {
        let unit = config.unit.name();
        let mut t = String::new();
        let _ =
            writeln!(t, "file      {}  ({} bytes, {} chars)", file.display(), doc.text.len(), doc.text.chars().count());
        let _ = writeln!(
            t,
            "settings  {} · size {} {unit} · overlap {}",
            config.strategy,
            config.size,
            config.overlap_label()
        );
        let _ = writeln!(t, "chunks: {}", s.count);
        let _ = writeln!(
            t,
            "size ({unit})  min {}  mean {:.1}  p50 {}  p95 {}  max {}",
            s.min, s.mean, s.p50, s.p95, s.max
        );
        let _ = writeln!(t, "overlap       {} chars in total ({} bytes)", s.overlap_chars, s.overlap_bytes);
        match limit {
            Some(l) => {
                let _ = writeln!(t, "over limit    {} chunk(s) over {l} {unit}", s.over_limit);
            }
            None => {
                let _ = writeln!(t, "over limit    n/a ({} does not promise a size limit)", config.strategy);
            }
        }
        let mb_s = doc.text.len() as f64 / 1e6 / seconds.max(1e-9);
        let _ = writeln!(t, "time          chunked in {seconds:.6} s ({mb_s:.1} MB/s)");
        if s.uncovered_chars > 0 {
            let _ = writeln!(t, "uncovered     {} non-whitespace chars are in no chunk", s.uncovered_chars);
        }
        if let Some(fit) = &fit {
            let _ = writeln!(t, "chunking?     {}", fit.advice);
        }
        lint.table(&mut t);
        t
    };
    emit(text.as_bytes(), None)
}

/// "Does it need chunking?" for one input: said for record data (how many
/// records fit as they are), and for a document only when it fits whole.
pub(crate) fn fit_of(
    config: &ChunkConfig,
    doc: &Document,
    opts: Option<&crate::lint::LintOptions>,
) -> Result<Option<crate::fit::Fit>> {
    let own;
    let opts = match opts {
        Some(o) => o,
        None => {
            own = super::lint::Report::options(config, doc)?;
            &own
        }
    };
    let (units, counts, limits) = crate::fit::count(doc, opts)?;
    Ok(crate::fit::Fit::said(units, counts, &limits))
}

/// The embeddings API work of this run for `--json` output, when there was some.
pub(crate) fn embed_usage() -> Option<serde_json::Value> {
    let usage = crate::embed_usage::usage();
    (!usage.is_empty()).then(|| {
        let mut v = serde_json::to_value(usage).expect("counters serialise");
        v["notes"] = crate::embed_usage::notes().into();
        v
    })
}

/// The LLM work of this run for `--json` output, when there was some.
pub(crate) fn llm_usage() -> Option<serde_json::Value> {
    #[cfg(feature = "llm")]
    {
        let usage = crate::llm::usage();
        (!usage.is_empty()).then(|| serde_json::to_value(usage).expect("counters serialise"))
    }
    #[cfg(not(feature = "llm"))]
    None
}
