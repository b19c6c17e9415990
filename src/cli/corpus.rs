//! `chunktui chunk` over many inputs: files, directories (walked
//! recursively, honouring .gitignore and skipping hidden files) and globs.
//! Files are chunked in parallel (`--jobs`, all cores by default) and written
//! in path order, so the output is the same byte for byte on any number of
//! threads. Each file gets its own defaults by extension (language, and the
//! strategy for its kind unless a config or `--strategy` fixes it); binaries
//! and unreadable files are skipped with one warning line each.

use super::args::{ChunkCmd, ChunkFlags};
use super::files::{expand, strategy_for};
use super::output::emit;
use super::prepare::{protect_settings, settings_named_for};
use super::progress::progress_bar;
use crate::chunker::Chunker;
use crate::config::{ChunkConfig, StrategyKind};
use crate::document::Document;
use crate::error::{Error, Result};
use crate::export::records;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// The settings for one file of a corpus: the flags and config, that file's
/// language (the embedding model too, when nobody named one), and its
/// kind's strategy unless the strategy was chosen.
fn settings(flags: &ChunkFlags, file: &Path, doc: &Document) -> Result<ChunkConfig> {
    let (mut config, named) = settings_named_for(flags, file)?;
    if flags.strategy.is_none() && flags.config.is_none() {
        config.strategy = strategy_for(doc.kind);
        config.normalize();
        // A kind strategy that cannot use the flags given (none today) falls back.
        if config.validate().is_err() {
            config.strategy = StrategyKind::Recursive;
        }
    }
    super::model::choose(&mut config, named, &[&doc.text]);
    super::prepare::warn_if_overlap_unread(flags, &config);
    Ok(config)
}

/// What happened to one file.
enum Outcome {
    Chunked { bytes: usize, chunks: usize, jsonl: Vec<u8>, strategy: StrategyKind, applied: Vec<usize> },
    Skipped(String),
}

/// A file of a corpus with its settings and chunks, and the indices of the
/// config's edits that applied to it.
type Loaded = (ChunkConfig, Document, Vec<crate::chunk::Chunk>, Vec<usize>);

/// A file of a corpus, chunked with its settings; or why it was skipped
/// (not a document: binary, empty, not UTF-8, unreadable).
fn load_and_chunk(flags: &ChunkFlags, file: &Path) -> Result<std::result::Result<Loaded, String>> {
    let doc = match Document::load(file, flags.lossy) {
        Ok(doc) => doc,
        Err(e @ (Error::Input(_) | Error::Io(_))) => return Ok(Err(e.to_string())),
        Err(e) => return Err(e),
    };
    let config = settings(flags, file, &doc)?;
    let chunker = Chunker::new(&config)?;
    let chunks = chunker.chunk_document(&doc)?;
    let applied = match config.edits.is_empty() {
        true => Vec::new(),
        false => chunker.resolve_edits(&doc).applied.into_iter().map(|(i, _)| i).collect(),
    };
    Ok(Ok((config, doc, chunks, applied)))
}

fn chunk_one(flags: &ChunkFlags, file: &Path) -> Result<Outcome> {
    let (config, doc, chunks, applied) = match load_and_chunk(flags, file)? {
        Ok(done) => done,
        Err(why) => return Ok(Outcome::Skipped(why)),
    };
    let path = file.display().to_string();
    let mut jsonl = Vec::with_capacity(doc.text.len() * 2);
    for mut record in records(&chunks, &doc.text) {
        record.path = Some(&path);
        serde_json::to_writer(&mut jsonl, &record).expect("records serialise");
        jsonl.push(b'\n');
    }
    Ok(Outcome::Chunked { bytes: doc.text.len(), chunks: chunks.len(), jsonl, strategy: config.strategy, applied })
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
    // Every output is checked against every input before any work:
    // `chunk a a.jsonl --output-dir .` would write a's chunks over a.jsonl.
    if cmd.output.is_some() || cmd.output_dir.is_some() {
        for f in &files {
            crate::export::protect_input(crate::input::Source::Path(f));
        }
        protect_settings(&cmd.flags)?;
    }
    if let Some(out) = &cmd.output {
        crate::export::check_output(out)?;
    }
    if let Some(dir) = &cmd.output_dir {
        for f in &files {
            crate::export::check_output(&beside(dir, f))?;
        }
    }
    let started = std::time::Instant::now();
    let results = map_files(&files, jobs(&cmd.flags, cmd.jobs), |f| chunk_one(&cmd.flags, f))?;

    let (mut bytes, mut chunks, mut skipped) = (0, 0, 0);
    let mut strategies: BTreeMap<&str, usize> = BTreeMap::new();
    let mut all = Vec::new();
    let mut applied = std::collections::HashSet::new();
    for (file, outcome) in files.iter().zip(&results) {
        match outcome {
            Outcome::Chunked { bytes: b, chunks: c, jsonl, strategy, applied: here } => {
                applied.extend(here.iter().copied());
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
                eprintln!(
                    "chunktui: warning: skipped {}",
                    crate::error::printable(&format!("{}: {why}", file.display()))
                );
            }
        }
    }
    if cmd.output_dir.is_none() {
        emit(&all, cmd.output.as_deref())?;
    }
    report_unapplied(&cmd.flags, &applied)?;
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

/// The config's edits that applied to none of the files, on stderr: an edit
/// applies to each file that holds its text (or to the file it names).
fn report_unapplied(flags: &ChunkFlags, applied: &std::collections::HashSet<usize>) -> Result<()> {
    let edits = flags.resolve()?.edits;
    let stale: Vec<usize> = (0..edits.len()).filter(|i| !applied.contains(i)).collect();
    if !stale.is_empty() {
        let n = stale.len();
        eprintln!("chunktui: {n} stale edit{} (in none of the files, not applied):", if n == 1 { "" } else { "s" });
        for i in stale {
            eprintln!("  edit {}: {}", i + 1, edits[i].describe());
        }
    }
    Ok(())
}

fn jobs(flags: &ChunkFlags, asked: Option<usize>) -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    match asked {
        Some(n) => n.max(1),
        // A model strategy runs ONNX Runtime on every core already.
        None if flags
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

/// `work` on every file, on `jobs` threads, with a progress bar; results in
/// `files` order (so output never depends on the thread count). An error
/// names its file.
fn map_files<T: Send>(files: &[PathBuf], jobs: usize, work: impl Fn(&Path) -> Result<T> + Sync) -> Result<Vec<T>> {
    let bar = progress_bar(files.len(), "{bar:30} {pos}/{len} files {elapsed} (eta {eta}) {msg}");
    let next = AtomicUsize::new(0);
    let slots: Vec<Mutex<Option<Result<T>>>> = files.iter().map(|_| Mutex::new(None)).collect();
    std::thread::scope(|scope| {
        for _ in 0..jobs.min(files.len()) {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(file) = files.get(i) else { break };
                let outcome = work(file).map_err(|e| Error::input(format!("{}: {e}", file.display())));
                *slots[i].lock().unwrap_or_else(|p| p.into_inner()) = Some(outcome);
                bar.inc(1);
            });
        }
    });
    bar.finish_and_clear();
    slots.into_iter().map(|s| s.into_inner().unwrap_or_else(|p| p.into_inner()).expect("every file ran")).collect()
}

/// `--output-dir`: one JSONL per input, at its path under `dir` plus `.jsonl`.
/// Where `--output-dir DIR` puts a file's chunks: its path under DIR, plus `.jsonl`.
fn beside(dir: &Path, file: &Path) -> PathBuf {
    let relative: PathBuf = file.components().filter(|c| matches!(c, std::path::Component::Normal(_))).collect();
    let mut target = dir.join(relative).into_os_string();
    target.push(".jsonl");
    PathBuf::from(target)
}

fn write_beside(dir: &Path, file: &Path, jsonl: &[u8]) -> Result<()> {
    let target = beside(dir, file);
    if let Some(parent) = target.parent() {
        std::fs::create_dir_all(parent).map_err(|e| Error::io_write(parent, &e))?;
    }
    crate::export::write_atomic(&target, jsonl)
}

/// One file's figures in `stats` over many files.
#[derive(serde::Serialize)]
struct FileStats {
    file: String,
    bytes: usize,
    chars: usize,
    strategy: &'static str,
    #[serde(flatten)]
    stats: crate::stats::Stats,
    /// Findings per enabled lint rule.
    lint: BTreeMap<&'static str, usize>,
    #[serde(skip)]
    sizes: Vec<usize>,
    /// Its records (or itself) against the size and the model's input
    /// (None with `--no-lint`: the numbers only).
    #[serde(skip)]
    fit: Option<(crate::fit::Units, crate::fit::FitCounts, crate::fit::Limits)>,
    /// The config's edits that applied to this file.
    #[serde(skip)]
    applied: Vec<usize>,
}

fn stats_one(flags: &ChunkFlags, file: &Path, no_lint: bool) -> Result<std::result::Result<FileStats, String>> {
    let (config, doc, chunks, applied) = match load_and_chunk(flags, file)? {
        Ok(done) => done,
        Err(why) => return Ok(Err(why)),
    };
    let limit = config.strategy.promises_size_limit().then_some(config.size);
    let linting = !no_lint && config.lint.enabled;
    let report = if linting { super::lint::Report::new(&config, &doc, &chunks)? } else { super::lint::Report::off() };
    let fit = match no_lint {
        true => None,
        false => Some(crate::fit::count(&doc, &super::lint::Report::options(&config, &doc)?)?),
    };
    Ok(Ok(FileStats {
        file: file.display().to_string(),
        bytes: doc.text.len(),
        chars: doc.text.chars().count(),
        strategy: config.strategy.name(),
        stats: crate::stats::Stats::compute(&chunks, &doc.text, limit),
        lint: report.counts.iter().map(|(rule, n)| (rule.name(), *n)).collect(),
        sizes: chunks.iter().map(|c| c.size).collect(),
        fit,
        applied,
    }))
}

/// `chunktui stats` over many inputs: a row per file and the totals (sizes
/// over all chunks, lint findings per rule); `--json` gives both.
pub fn stats(cmd: &super::args::StatsCmd) -> Result<()> {
    if let Some(mb) = cmd.flags.max_input_mb {
        crate::input::set_document_limit_mb(mb)?;
    }
    let files = expand(&cmd.files)?;
    let results = map_files(&files, jobs(&cmd.flags, None), |f| stats_one(&cmd.flags, f, cmd.no_lint))?;
    let mut done = Vec::new();
    for (file, result) in files.iter().zip(results) {
        match result {
            Ok(figures) => done.push(figures),
            Err(why) => eprintln!(
                "chunktui: warning: skipped {}",
                crate::error::printable(&format!("{}: {why}", file.display()))
            ),
        }
    }
    let skipped = files.len() - done.len();
    report_unapplied(&cmd.flags, &done.iter().flat_map(|f| f.applied.iter().copied()).collect())?;
    let mut sizes: Vec<usize> = done.iter().flat_map(|f| f.sizes.iter().copied()).collect();
    sizes.sort_unstable();
    let pick = |q: f64| if sizes.is_empty() { 0 } else { sizes[((sizes.len() - 1) as f64 * q).round() as usize] };
    let mut lint: BTreeMap<&str, usize> = BTreeMap::new();
    for f in &done {
        for (rule, n) in &f.lint {
            *lint.entry(rule).or_default() += n;
        }
    }
    let fit = done.iter().filter_map(|f| f.fit).reduce(|(units, mut counts, limits), (u, c, _)| {
        counts.merge(&c);
        (units.and(u), counts, limits)
    });
    let fit = fit.map(|(units, counts, limits)| crate::fit::Fit::new(units, counts, &limits));
    let total = serde_json::json!({
        "files": done.len(),
        "skipped": skipped,
        "bytes": done.iter().map(|f| f.bytes).sum::<usize>(),
        "chars": done.iter().map(|f| f.chars).sum::<usize>(),
        "count": sizes.len(),
        "min": sizes.first().copied().unwrap_or(0),
        "mean": if sizes.is_empty() { 0.0 } else { sizes.iter().sum::<usize>() as f64 / sizes.len() as f64 },
        "p50": pick(0.5),
        "p95": pick(0.95),
        "max": sizes.last().copied().unwrap_or(0),
        "over_limit": done.iter().map(|f| f.stats.over_limit).sum::<usize>(),
        "overlap_chars": done.iter().map(|f| f.stats.overlap_chars).sum::<usize>(),
        "lint": lint,
        "fit": fit,
    });
    let text = if cmd.json {
        let out = serde_json::json!({ "files": done, "total": total });
        serde_json::to_string_pretty(&out).expect("stats serialise") + "\n"
    } else {
        use std::fmt::Write;
        let mut t = String::new();
        let width = done.iter().map(|f| f.file.chars().count()).max().unwrap_or(4).clamp(4, 60);
        let _ = writeln!(
            t,
            "{:<width$}  {:<14} {:>7} {:>6} {:>6} {:>6} {:>5} {:>5}",
            "file", "strategy", "chunks", "p50", "p95", "max", "over", "lint"
        );
        for f in &done {
            let found: usize = f.lint.values().sum();
            let s = &f.stats;
            let _ = writeln!(
                t,
                "{:<width$}  {:<14} {:>7} {:>6} {:>6} {:>6} {:>5} {:>5}",
                f.file, f.strategy, s.count, s.p50, s.p95, s.max, s.over_limit, found
            );
        }
        let found: usize = lint.values().sum();
        let _ = writeln!(
            t,
            "{:<width$}  {:<14} {:>7} {:>6} {:>6} {:>6} {:>5} {:>5}",
            format!("total ({} files)", done.len()),
            "",
            sizes.len(),
            pick(0.5),
            pick(0.95),
            sizes.last().copied().unwrap_or(0),
            done.iter().map(|f| f.stats.over_limit).sum::<usize>(),
            found
        );
        let rules: Vec<String> = lint.iter().map(|(r, n)| format!("{n} {r}")).collect();
        let _ = writeln!(t, "lint: {}; skipped {skipped}", rules.join(" · "));
        if let Some(fit) = &fit {
            let _ = writeln!(t, "chunking? {}", fit.advice);
        }
        t
    };
    emit(text.as_bytes(), None)
}
