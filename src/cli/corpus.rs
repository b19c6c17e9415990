//! `chunktui chunk` over many inputs: files, directories (walked
//! recursively, honouring .gitignore and skipping hidden files) and globs.
//! Files are chunked in parallel (`--jobs`, all cores by default) and written
//! in path order, so the output is the same byte for byte on any number of
//! threads. Each file gets its own defaults by extension (language, and the
//! strategy for its kind unless a config or `--strategy` fixes it); binaries
//! and unreadable files are skipped with one warning line each.

use super::args::{ChunkCmd, ChunkFlags};
use crate::config::{ChunkConfig, StrategyKind};
use crate::document::{DocKind, Document};
use crate::error::{Error, Result};
use crate::export::records;
use crate::Chunker;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// The files named by the inputs, sorted and without repeats.
pub fn expand(inputs: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for input in inputs {
        let shown = input.display().to_string();
        if input.is_dir() {
            let walk = ignore::WalkBuilder::new(input).require_git(false).sort_by_file_path(|a, b| a.cmp(b)).build();
            let before = files.len();
            for entry in walk {
                let entry = entry.map_err(|e| Error::input(format!("{shown}: {e}")))?;
                if entry.file_type().is_some_and(|t| t.is_file()) {
                    files.push(entry.into_path());
                }
            }
            if files.len() == before {
                return Err(Error::input(format!(
                    "{shown} is a directory that holds no files to chunk (hidden and .gitignored files are \
                     skipped): give a file, or a folder of documents"
                )));
            }
        } else if !input.exists() && shown.contains(['*', '?', '[']) {
            let paths = glob::glob(&shown).map_err(|e| Error::input(format!("bad glob '{shown}': {e}")))?;
            let before = files.len();
            files.extend(paths.filter_map(|p| p.ok()).filter(|p| p.is_file()));
            if files.len() == before {
                return Err(Error::input(format!("'{shown}' matches no file")));
            }
        } else if input.exists() {
            files.push(input.clone());
        } else {
            return Err(Error::input(format!("{shown}: no such file or directory")));
        }
    }
    files.sort();
    files.dedup();
    if files.is_empty() {
        return Err(Error::input("the inputs hold no files to chunk"));
    }
    Ok(files)
}

/// Whether `chunk` should take the many-files path for these inputs.
pub fn is_many(inputs: &[PathBuf]) -> bool {
    inputs.len() > 1 || inputs.first().is_some_and(|p| p.is_dir() || (!p.exists() && p.to_string_lossy().contains('*')))
}

/// The strategy a file gets when neither `--strategy` nor a config names one.
pub fn strategy_for(kind: DocKind) -> StrategyKind {
    match kind {
        DocKind::Markdown => StrategyKind::Markdown,
        DocKind::Html => StrategyKind::Html,
        DocKind::Code => StrategyKind::Code,
        _ => StrategyKind::Recursive,
    }
}

/// The settings for one file of a corpus: the flags and config, that file's
/// language, and its kind's strategy unless the strategy was chosen.
fn settings(flags: &ChunkFlags, file: &Path, kind: DocKind) -> Result<ChunkConfig> {
    let mut config = super::commands::settings_for(flags, file)?;
    if flags.strategy.is_none() && flags.config.is_none() {
        config.strategy = strategy_for(kind);
        config.normalize();
        // A kind strategy that cannot use the flags given (none today) falls back.
        if config.validate().is_err() {
            config.strategy = StrategyKind::Recursive;
        }
    }
    Ok(config)
}

/// What happened to one file.
enum Outcome {
    Chunked { bytes: usize, chunks: usize, jsonl: Vec<u8>, strategy: StrategyKind },
    Skipped(String),
}

fn chunk_one(flags: &ChunkFlags, file: &Path) -> Result<Outcome> {
    let doc = match Document::load(file, flags.lossy) {
        Ok(doc) => doc,
        // Not a document (binary, empty, not UTF-8, unreadable): skip it and say why.
        Err(e @ (Error::Input(_) | Error::Io(_))) => return Ok(Outcome::Skipped(e.to_string())),
        Err(e) => return Err(e),
    };
    let config = settings(flags, file, doc.kind)?;
    let chunker = Chunker::new(&config)?;
    let chunks = chunker.chunk_document(&doc)?;
    let path = file.display().to_string();
    let mut jsonl = Vec::with_capacity(doc.text.len() * 2);
    for mut record in records(&chunks, &doc.text) {
        record.path = Some(&path);
        serde_json::to_writer(&mut jsonl, &record).expect("records serialise");
        jsonl.push(b'\n');
    }
    Ok(Outcome::Chunked { bytes: doc.text.len(), chunks: chunks.len(), jsonl, strategy: config.strategy })
}

/// Chunk every file of `cmd.files` (see the module docs).
pub fn run(cmd: &ChunkCmd) -> Result<()> {
    if cmd.embeddings || cmd.extracted {
        return Err(Error::input("--embeddings and --extracted take one file at a time"));
    }
    if cmd.format != super::args::Format::Jsonl {
        return Err(Error::input("many files are written as JSONL (each record has its `path`): drop --format"));
    }
    if let Some(mb) = cmd.flags.max_input_mb {
        crate::input::set_document_limit_mb(mb)?;
    }
    let files = expand(&cmd.files)?;
    if let Some(out) = &cmd.output {
        for f in &files {
            crate::export::protect_input(crate::input::Source::Path(f));
        }
        crate::export::check_output(out)?;
    }
    let started = std::time::Instant::now();
    let results = chunk_all(&cmd.flags, &files, jobs(cmd))?;

    let (mut bytes, mut chunks, mut skipped) = (0, 0, 0);
    let mut strategies: BTreeMap<&str, usize> = BTreeMap::new();
    let mut all = Vec::new();
    for (file, outcome) in files.iter().zip(&results) {
        match outcome {
            Outcome::Chunked { bytes: b, chunks: c, jsonl, strategy } => {
                bytes += b;
                chunks += c;
                *strategies.entry(strategy.name()).or_default() += 1;
                match &cmd.output_dir {
                    Some(dir) => write_beside(dir, file, jsonl)?,
                    None => all.extend_from_slice(jsonl),
                }
            }
            Outcome::Skipped(why) => {
                skipped += 1;
                eprintln!("chunktui: warning: skipped {}: {why}", file.display());
            }
        }
    }
    if cmd.output_dir.is_none() {
        super::commands::emit(&all, cmd.output.as_deref())?;
    }
    let used: Vec<String> = strategies.iter().map(|(k, n)| format!("{k} {n}")).collect();
    eprintln!(
        "chunktui: {} file(s), {} in {chunks} chunks, {:.2} s ({}); skipped {skipped}",
        files.len() - skipped,
        crate::input::human(bytes as u64),
        started.elapsed().as_secs_f64(),
        used.join(", ")
    );
    Ok(())
}

fn jobs(cmd: &ChunkCmd) -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    match cmd.jobs {
        Some(n) => n.max(1),
        // A model strategy runs ONNX Runtime on every core already.
        None if cmd
            .flags
            .strategy
            .as_deref()
            .and_then(|s| StrategyKind::parse(s).ok())
            .is_some_and(|k| k.needs_model()) =>
        {
            1
        }
        None => cores,
    }
}

/// Every file's outcome, in `files` order, computed on `jobs` threads.
fn chunk_all(flags: &ChunkFlags, files: &[PathBuf], jobs: usize) -> Result<Vec<Outcome>> {
    let bar = super::eval::progress_bar(files.len(), "{bar:30} {pos}/{len} files {elapsed} (eta {eta}) {msg}");
    let next = AtomicUsize::new(0);
    let slots: Vec<Mutex<Option<Result<Outcome>>>> = files.iter().map(|_| Mutex::new(None)).collect();
    std::thread::scope(|scope| {
        for _ in 0..jobs.min(files.len()) {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(file) = files.get(i) else { break };
                let outcome = chunk_one(flags, file).map_err(|e| Error::input(format!("{}: {e}", file.display())));
                *slots[i].lock().unwrap_or_else(|p| p.into_inner()) = Some(outcome);
                bar.inc(1);
            });
        }
    });
    bar.finish_and_clear();
    slots.into_iter().map(|s| s.into_inner().unwrap_or_else(|p| p.into_inner()).expect("every file ran")).collect()
}

/// `--output-dir`: one JSONL per input, at its path under `dir` plus `.jsonl`.
fn write_beside(dir: &Path, file: &Path, jsonl: &[u8]) -> Result<()> {
    let relative: PathBuf = file.components().filter(|c| matches!(c, std::path::Component::Normal(_))).collect();
    let mut target = dir.join(relative).into_os_string();
    target.push(".jsonl");
    let target = PathBuf::from(target);
    if let Some(parent) = target.parent() {
        std::fs::create_dir_all(parent).map_err(|e| Error::io_write(parent, &e))?;
    }
    crate::export::write_atomic(&target, jsonl)
}
