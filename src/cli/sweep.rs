//! `chunktui sweep`: every combination of the settings given as lists, each
//! run through the same evaluation as `chunktui eval`, ranked by one metric,
//! with the Pareto front of quality against cost (chunks to embed) and the
//! winner written as a config. Combinations run on all cores; each result
//! is appended to a results file as it finishes (in the cache folder, named
//! by a hash of the corpus, questions and grid, unless `--results` names
//! one), so an interrupted sweep picks up where it stopped.
//!
//! Everything here is linear in the grid (set-up, resuming, ranking, the
//! Pareto front) but the sort: a grid of 100 000 combinations starts its
//! first one at once.

use super::args::ChunkFlags;
use super::args::SweepCmd;
use super::args::Values;
use super::eval::{check_k, json_value, questions, run_one, Corpus, METRICS};
use super::frontier::{Fronts, Means, Objective};
use super::output::emit;
use super::progress::progress_bar;
use crate::config::ChunkConfig;
use crate::error::{Error, Result};
use crate::eval::model_choice::ModelSource;
use crate::eval::retrieve::RetrieverKind;
use crate::input::Source;
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};
use std::hash::Hasher;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;

/// The axes of a grid, from comma lists on the command line or a `--grid` TOML file.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Grid {
    #[serde(default)]
    strategy: Vec<String>,
    #[serde(default)]
    size: Vec<usize>,
    #[serde(default)]
    overlap: Vec<usize>,
    #[serde(default)]
    unit: Vec<String>,
    #[serde(default)]
    preset: Vec<String>,
    #[serde(default)]
    threshold: Vec<f64>,
    #[serde(default)]
    retriever: Vec<String>,
    /// pre, post, query-aware.
    #[serde(default)]
    chunking: Vec<String>,
}

/// One combination: the settings and the retriever.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(super) struct Point {
    pub config: ChunkConfig,
    pub retriever: RetrieverKind,
    pub k: usize,
    /// Post-chunking (`None`: pre-chunking, as results files before it hold).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub post: Option<PostPoint>,
}

/// How a post-chunking point cuts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct PostPoint {
    /// The config's chunks, or windows placed for the question.
    pub query_aware: bool,
    pub documents: usize,
    pub doc_retriever: RetrieverKind,
}

impl PostPoint {
    /// The `--chunking` values: `None` for pre.
    fn parse(name: &str, flags: &super::args::ChunkingFlags) -> Result<Option<PostPoint>> {
        let doc_retriever = RetrieverKind::parse(&flags.doc_retriever)?;
        let post = |query_aware| Some(PostPoint { query_aware, documents: flags.documents, doc_retriever });
        match name {
            "pre" => Ok(None),
            "post" => Ok(post(false)),
            "query-aware" => Ok(post(true)),
            _ => Err(Error::config(format!("unknown --chunking '{name}': use pre, post or query-aware"))),
        }
    }
}

/// A finished combination, as stored in the results file and printed by `--json`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(super) struct Outcome {
    #[serde(flatten)]
    pub point: Point,
    pub chunks: usize,
    pub chunk_chars: usize,
    /// Each metric's `{mean, std}`, as `eval --json` prints them.
    metrics: serde_json::Map<String, serde_json::Value>,
}

impl Outcome {
    pub fn mean(&self, name: &str) -> f64 {
        self.metrics.get(name).and_then(|m| m["mean"].as_f64()).unwrap_or(0.0)
    }
}

impl Means for Outcome {
    fn mean(&self, name: &str) -> f64 {
        Outcome::mean(self, name)
    }
    fn embed_cost(&self) -> usize {
        self.chunk_chars
    }
}

impl super::args::Run for SweepCmd {
    fn run(self, _: &super::args::ChunkFlags) -> Result<()> {
        run(self)
    }
}

pub fn run(cmd: SweepCmd) -> Result<()> {
    let Ranked { outcomes, fronts, objective } = ranked(&cmd)?;
    let out = if cmd.json { json(&outcomes, &fronts, &objective) } else { table(&cmd, &outcomes, &fronts, &objective) };
    emit(out.as_bytes(), None)
}

/// A sweep's finished combinations, best first by the objective, and which
/// are on the Pareto fronts.
pub(super) struct Ranked {
    pub outcomes: Vec<Outcome>,
    pub fronts: Fronts,
    pub objective: Objective,
}

/// Run the sweep `cmd` describes (writing `--best`), ranked.
pub(super) fn ranked(cmd: &SweepCmd) -> Result<Ranked> {
    let objective = Objective::parse(&cmd.metric)?;
    check_k(cmd.k)?;
    let grid = grid(cmd)?;
    // No retriever named: the documents' language decides, once they are read.
    let auto = grid.retriever.is_empty();
    let (mut points, skipped) = points(&grid, &cmd.flags, &cmd.chunking, cmd.k)?;
    for s in &skipped {
        eprintln!("chunktui: skipping {s}");
    }
    if points.is_empty() {
        return Err(Error::config("no combination of the given settings is valid: see the skipped ones above"));
    }
    // Refuse `--best doc.md` or `--results questions.jsonl` before the work, not after it.
    protect_inputs(cmd, &points);
    if let Some(best) = &cmd.best {
        crate::export::check_output(best)?;
    }
    if let Some(results) = &cmd.results {
        crate::export::check_output(results)?;
        if cmd.best.as_deref().is_some_and(|b| same_file(b, results)) {
            return Err(Error::input(format!(
                "--best and --results are both {}: the best config would replace the results, give two paths",
                results.display()
            )));
        }
    }
    let questions = questions(&cmd.queries, cmd.corpus_id.as_deref())?;
    // Post-chunking ranks every document in the folder: pre-chunking is then scored over all of them too.
    let corpus = if points.iter().any(|p| p.post.is_some()) {
        if !cmd.path.is_dir() {
            return Err(Error::input(format!(
                "--chunking post ranks whole documents before cutting them: give a folder of documents, not {}",
                cmd.path.display()
            )));
        }
        super::post_eval::load_every(&cmd.path, &cmd.flags)?
    } else {
        Corpus::load(&cmd.path, &questions, &cmd.flags)?
    };
    let resolved = questions.resolve(&corpus.named())?;
    // No model named: the documents' language picks it, for every combination.
    let model = {
        let named = super::model::named_by(&cmd.flags)?;
        let mut first = [(points[0].config.clone(), named)];
        let model = corpus.choose_model(&mut first);
        points.iter_mut().for_each(|p| model.apply(&mut p.config));
        model
    };
    if model.source == ModelSource::Language && model.text.is_some_and(|t| !t.is_english()) {
        eprintln!("chunktui: model {}", model.reason);
    }
    if auto {
        let choice = corpus.choose_retriever(None, &points[0].config);
        eprintln!("chunktui: retriever {}", choice.reason);
        points.iter_mut().for_each(|p| p.retriever = choice.kind);
    }
    let results_path = match &cmd.results {
        Some(p) => p.clone(),
        None => {
            let p = cached_results(&corpus, &cmd.queries, &points)?;
            eprintln!("chunktui: results in {} (a rerun resumes from it; --results FILE to choose)", p.display());
            p
        }
    };

    let set = PointSet::new(&points);
    let mut done = previous(&results_path, &set)?;
    let finished: HashSet<usize> = done.iter().filter_map(|o| set.find(&o.point)).collect();
    let todo: Vec<&Point> = points.iter().enumerate().filter(|(i, _)| !finished.contains(i)).map(|(_, p)| p).collect();
    if !done.is_empty() {
        eprintln!(
            "chunktui: {} of {} combinations already in {} (delete it to start over)",
            finished.len(),
            points.len(),
            results_path.display()
        );
    }
    let bar = progress_bar(todo.len(), "sweep {bar:30} {pos}/{len} · {elapsed} · {eta} left");
    let next = AtomicUsize::new(0);
    let (tx, rx) = mpsc::channel();
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get()).min(todo.len().max(1));
    std::thread::scope(|scope| -> Result<()> {
        for _ in 0..workers {
            let tx = tx.clone();
            let (next, todo, corpus, resolved) = (&next, &todo, &corpus, &resolved);
            scope.spawn(move || loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(p) = todo.get(i) else { break };
                let result = score(corpus, resolved, p);
                if tx.send((*p, result)).is_err() {
                    break;
                }
            });
        }
        drop(tx);
        let mut results = open_results(&results_path)?;
        for (p, result) in rx {
            let run = result.map_err(|e| Error::input(format!("{}: {e}", describe(p))))?;
            let metrics =
                METRICS.iter().chain(&["retrieved"]).map(|m| (m.to_string(), run.metrics[*m].clone())).collect();
            let outcome = Outcome { point: p.clone(), chunks: run.chunks, chunk_chars: run.chunk_chars, metrics };
            let line = serde_json::to_string(&outcome).expect("an outcome serialises") + "\n";
            results.write_all(line.as_bytes()).map_err(|e| Error::io_write(&results_path, &e))?;
            let line = format!(
                "{:<44} {} {:.3} · {} chunks",
                describe(p),
                objective.label(),
                objective.value(&outcome),
                outcome.chunks
            );
            // Results as they finish: above the bar at a terminal, else on stderr.
            if bar.is_hidden() {
                eprintln!("{line}");
            } else {
                bar.println(line);
            }
            bar.inc(1);
            done.push(outcome);
        }
        Ok(())
    })?;
    bar.finish_and_clear();

    // The points of this grid only, once each, best first (ties: fewer characters to embed).
    let mut seen = HashSet::new();
    done.retain(|o| set.find(&o.point).is_some_and(|i| seen.insert(i)));
    objective.rank(&mut done);
    let fronts = Fronts::of(&done, &objective);
    if let Some(best) = &cmd.best {
        done[0].point.config.save(best)?;
    }
    Ok(Ranked { outcomes: done, fronts, objective })
}

/// Run one combination: pre-chunking as `eval`, post-chunking as `eval --post-chunking`.
fn score(
    corpus: &Corpus,
    resolved: &[crate::eval::queries::Resolved],
    p: &Point,
) -> Result<super::post_eval::SweepScore> {
    match p.post {
        None => {
            let configs = vec![p.config.clone(); corpus.texts.len()];
            let quiet = |_: usize, _: usize| {};
            let run = run_one(corpus, resolved, &configs, p.retriever, p.k, Some(&quiet), false)?;
            let metrics = json_value(&run, p.retriever, p.k);
            Ok(super::post_eval::SweepScore { metrics, chunks: run.chunks, chunk_chars: run.chunk_chars })
        }
        Some(post) => super::post_eval::sweep_point(
            corpus,
            resolved,
            &p.config,
            (p.retriever, p.k),
            (post.documents, post.doc_retriever),
            post.query_aware,
        ),
    }
}

/// Mark every file the sweep reads — the document or the folder's files,
/// the questions, the grid, the config, tokenizers and model files — so
/// that `--best` and `--results` may not write over one.
fn protect_inputs(cmd: &SweepCmd, points: &[Point]) {
    use crate::protect::protect_path;
    // Each input is named by its role in the message that refuses an output over it.
    let protect_dir = |dir: &Path, role: &'static str| {
        if let Ok(entries) = std::fs::read_dir(dir) {
            for e in entries.flatten() {
                if e.file_type().is_ok_and(|t| !t.is_dir()) {
                    protect_path(&e.path(), role);
                }
            }
        }
    };
    if cmd.path.is_dir() {
        protect_dir(&cmd.path, "document");
    } else {
        crate::export::protect_input(Source::from_arg(&cmd.path));
    }
    match Source::from_arg(&cmd.queries) {
        Source::Path(p) => protect_path(p, "question file"),
        stdin => crate::export::protect_input(stdin),
    }
    if let Some(grid) = &cmd.grid {
        protect_path(grid, "grid file");
    }
    if let Some(config) = &cmd.flags.config {
        protect_path(config, "config file");
    }
    let mut tokenizers: HashSet<&str> = HashSet::new();
    let mut models: HashSet<Option<&str>> = HashSet::new();
    for p in points {
        tokenizers.insert(&p.config.tokenizer);
        models.insert(p.config.semantic.model.as_deref());
    }
    if let Some(t) = &cmd.flags.tokenizer {
        tokenizers.insert(t.as_str());
    }
    for t in tokenizers.iter().filter_map(|t| t.strip_prefix("hf:")) {
        protect_path(Path::new(t), "tokenizer file");
    }
    for m in models {
        #[cfg(feature = "embed")]
        let dir = crate::embed::model_dir_for(m);
        #[cfg(not(feature = "embed"))]
        let dir = m.map(PathBuf::from);
        if let Some(dir) = dir.filter(|d| d.is_dir()) {
            protect_dir(&dir, "model file");
        }
    }
}

/// Whether two paths name one file (by its canonical path).
fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

/// The results file of this corpus, these questions and this grid in the
/// cache folder (`sweeps/<hash>.jsonl`), its folder created: a rerun of the
/// same sweep finds it, a different one starts afresh.
fn cached_results(corpus: &Corpus, queries: &Path, points: &[Point]) -> Result<PathBuf> {
    let dir = crate::io::cache_dir()
        .ok_or_else(|| Error::input("no cache folder (set $CHUNKTUI_CACHE_DIR, or give --results FILE)"))?
        .join("sweeps");
    std::fs::create_dir_all(&dir).map_err(|e| Error::io_write(&dir, &e))?;
    let mut h = Fnv::default();
    h.field(env!("CARGO_PKG_VERSION").as_bytes());
    for (id, text) in corpus.ids.iter().zip(&corpus.texts) {
        h.field(id.as_bytes());
        h.field(text.as_bytes());
    }
    // The questions decide the scores: their file's bytes are part of the key.
    h.field(&std::fs::read(queries).unwrap_or_default());
    for p in points {
        serde_json::to_writer(&mut h, p).expect("a point serialises");
        h.field(b"");
    }
    Ok(dir.join(format!("{:016x}{:016x}.jsonl", h.a, h.b)))
}

/// Two 64-bit FNV-1a hashes (different offsets), stable across runs and
/// versions of Rust, for naming cache files.
struct Fnv {
    a: u64,
    b: u64,
}

impl Default for Fnv {
    fn default() -> Self {
        Fnv { a: 0xcbf2_9ce4_8422_2325, b: 0x6c62_272e_07bb_0142 }
    }
}

impl Fnv {
    fn bytes(&mut self, bytes: &[u8]) {
        const PRIME: u64 = 0x0000_0100_0000_01b3;
        for &x in bytes {
            self.a = (self.a ^ u64::from(x)).wrapping_mul(PRIME);
            self.b = (self.b ^ u64::from(x).rotate_left(5)).wrapping_mul(PRIME);
        }
    }
    /// A length-prefixed field, so that ("ab", "c") and ("a", "bc") differ.
    fn field(&mut self, bytes: &[u8]) {
        self.bytes(&(bytes.len() as u64).to_le_bytes());
        self.bytes(bytes);
    }
}

impl Write for Fnv {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.bytes(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A point's hash, from its JSON form (a config holds floats, so no `Hash`).
fn point_hash(p: &Point) -> u64 {
    struct H(std::collections::hash_map::DefaultHasher);
    impl Write for H {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.write(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut h = H(Default::default());
    serde_json::to_writer(&mut h, p).expect("a point serialises");
    h.0.finish()
}

/// The points of a grid, found by value in constant time.
struct PointSet<'a> {
    points: &'a [Point],
    by_hash: HashMap<u64, Vec<usize>>,
}

impl<'a> PointSet<'a> {
    fn new(points: &'a [Point]) -> Self {
        let mut by_hash: HashMap<u64, Vec<usize>> = HashMap::with_capacity(points.len());
        for (i, p) in points.iter().enumerate() {
            by_hash.entry(point_hash(p)).or_default().push(i);
        }
        PointSet { points, by_hash }
    }
    /// The index of `p` among the points.
    fn find(&self, p: &Point) -> Option<usize> {
        self.by_hash.get(&point_hash(p))?.iter().copied().find(|&i| self.points[i] == *p)
    }
}

fn grid(cmd: &SweepCmd) -> Result<Grid> {
    let mut g = match &cmd.grid {
        Some(path) => {
            let cap = crate::input::Cap::settings("grid file")?;
            let text = crate::input::read_text_capped(path, &cap)?;
            toml::from_str(&text).map_err(|e| Error::config(format!("{}: {}", path.display(), e.message())))?
        }
        None => Grid::default(),
    };
    // Lists on the command line add to (and usually replace) the file's.
    let list = |s: &Option<String>| -> Vec<String> {
        s.as_deref().map_or_else(Vec::new, |s| s.split(',').map(|x| x.trim().to_string()).collect())
    };
    let set = |axis: &mut Vec<String>, v: Vec<String>| {
        if !v.is_empty() {
            *axis = v;
        }
    };
    let f = &cmd.flags;
    set(&mut g.strategy, list(&f.strategy));
    set(&mut g.unit, list(&f.unit));
    set(&mut g.preset, list(&f.preset));
    set(&mut g.retriever, list(&cmd.retriever));
    set(&mut g.chunking, list(&cmd.chunking.chunking));
    if let Some(v) = &f.size {
        g.size = v.0.clone();
    }
    if let Some(v) = &f.overlap {
        g.overlap = v.0.clone();
    }
    if let Some(v) = &f.threshold {
        g.threshold = v.0.clone();
    }
    Ok(g)
}

/// Every combination as a validated config; invalid ones (overlap ≥ size...)
/// are described instead.
fn points(
    g: &Grid,
    base: &ChunkFlags,
    chunking: &super::args::ChunkingFlags,
    k: usize,
) -> Result<(Vec<Point>, Vec<String>)> {
    fn axis<T: Clone>(v: &[T]) -> Vec<Option<T>> {
        if v.is_empty() {
            vec![None]
        } else {
            v.iter().cloned().map(Some).collect()
        }
    }
    let mut retrievers = g.retriever.iter().map(|r| RetrieverKind::parse(r)).collect::<Result<Vec<_>>>()?;
    if retrievers.is_empty() {
        // Replaced by the documents' choice (crate::eval::language) once they are read.
        retrievers.push(RetrieverKind::Dense);
    }
    let mut cuts = g.chunking.iter().map(|c| PostPoint::parse(c, chunking)).collect::<Result<Vec<_>>>()?;
    if cuts.is_empty() {
        cuts.push(None);
    }
    let (mut out, mut skipped) = (Vec::new(), Vec::new());
    // The points so far by hash: a grid of 100 000 is checked in linear time.
    let mut seen: HashMap<u64, Vec<usize>> = HashMap::new();
    for strategy in axis(&g.strategy) {
        for unit in axis(&g.unit) {
            for preset in axis(&g.preset) {
                for size in axis(&g.size) {
                    for overlap in axis(&g.overlap) {
                        for threshold in axis(&g.threshold) {
                            let flags = ChunkFlags {
                                strategy: strategy.clone(),
                                unit: unit.clone(),
                                preset: preset.clone(),
                                size: size.map(Values::one),
                                overlap: overlap.map(Values::one),
                                threshold: threshold.map(Values::one),
                                ..base.clone()
                            };
                            let config = match flags.resolve() {
                                // Overlap in units means nothing to some strategies: one row, not one per value.
                                Ok(c) if !c.uses_overlap() => ChunkConfig { overlap: 0, ..c },
                                Ok(c) => c,
                                Err(e) => {
                                    let what = [
                                        strategy.clone().map(|s| format!("strategy {s}")),
                                        size.map(|s| format!("size {s}")),
                                        overlap.map(|o| format!("overlap {o}")),
                                    ];
                                    let what: Vec<String> = what.into_iter().flatten().collect();
                                    skipped.push(format!("{}: {e}", what.join(", ")));
                                    continue;
                                }
                            };
                            for (&retriever, &post) in retrievers.iter().flat_map(|r| cuts.iter().map(move |c| (r, c)))
                            {
                                let p = Point { config: config.clone(), retriever, k, post };
                                let same = seen.entry(point_hash(&p)).or_default();
                                if !same.iter().any(|&i| out[i] == p) {
                                    same.push(out.len());
                                    out.push(p);
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    Ok((out, skipped))
}

/// A combination in a few words: `recursive 400/50 chars · bm25`.
pub(super) fn describe(p: &Point) -> String {
    let c = &p.config;
    let mut s = format!("{} {}/{} {}", c.strategy, c.size, c.overlap, c.unit);
    if c.strategy.spec().uses_preset() && c.recursive.preset != "english" {
        s.push_str(&format!(" {}", c.recursive.preset));
    }
    if c.strategy.spec().has_threshold {
        if let Some(t) = c.semantic.threshold {
            s.push_str(&format!(" thr {t}"));
        }
    }
    match p.post {
        None => format!("{s} · {}", p.retriever),
        Some(post) => {
            let cut = if post.query_aware { "query-aware" } else { "post" };
            let by = if post.doc_retriever == RetrieverKind::Bm25 {
                String::new()
            } else {
                format!(" by {}", post.doc_retriever)
            };
            format!("{s} · {} · {cut} {} docs{by}", p.retriever, post.documents)
        }
    }
}

/// The `eval` flags that score a point as the sweep did (beyond its config),
/// and for post-chunking which column of the report holds its row.
pub(super) fn eval_flags(p: &Point) -> String {
    let mut flags = format!(" --retriever {} --k {}", p.retriever, p.k);
    if let Some(post) = p.post {
        let column = if post.query_aware { "query-aware" } else { "post" };
        flags.push_str(&format!(
            " --post-chunking --documents {} --doc-retriever {} (its {column} column)",
            post.documents, post.doc_retriever
        ));
    }
    flags
}

/// Results of earlier runs of these combinations, from the results file.
fn previous(path: &Path, points: &PointSet<'_>) -> Result<Vec<Outcome>> {
    if std::fs::symlink_metadata(path).is_err() {
        return Ok(Vec::new()); // a first run
    }
    // A regular file only: a device such as /dev/zero would never end.
    let cap = crate::input::Cap { what: "results file", streams: false, ..crate::input::Cap::document() };
    let text = crate::input::read_text_capped(path, &cap)?;
    // A line cut short by an interruption is simply redone.
    Ok(text
        .lines()
        .filter_map(|l| serde_json::from_str::<Outcome>(l).ok())
        .filter(|o| points.find(&o.point).is_some())
        .collect())
}

fn open_results(path: &Path) -> Result<std::fs::File> {
    std::fs::OpenOptions::new().create(true).append(true).open(path).map_err(|e| Error::io_write(path, &e))
}

fn json(ranked: &[Outcome], fronts: &Fronts, objective: &Objective) -> String {
    let list: Vec<serde_json::Value> = ranked
        .iter()
        .enumerate()
        .map(|(i, o)| {
            let mut v = serde_json::to_value(o).expect("an outcome serialises");
            if let Some(obj) = v.as_object_mut() {
                let metrics = obj.remove("metrics");
                if let Some(serde_json::Value::Object(m)) = metrics {
                    obj.extend(m);
                }
                obj.insert("rank".into(), (i + 1).into());
                obj.insert("objective".into(), objective.value(o).into());
                obj.insert("pareto".into(), fronts.cost[i].into());
                obj.insert("pareto_recall_iou".into(), fronts.recall_iou[i].into());
                obj.insert("pareto_recall_retrieved".into(), fronts.recall_context[i].into());
            }
            v
        })
        .collect();
    serde_json::to_string(&list).expect("JSON") + "\n"
}

fn table(cmd: &SweepCmd, ranked: &[Outcome], fronts: &Fronts, objective: &Objective) -> String {
    let label = objective.label();
    let mut out = format!(
        "\nranked by {label} (means over the questions). Pareto fronts: * {label} against characters embedded, \
         I recall against IoU, C recall against characters retrieved per question\n\n"
    );
    let width = ranked.iter().map(|o| describe(&o.point).chars().count()).max().unwrap_or(0).max(44);
    out.push_str(&format!(
        "{:>4} {:<3} {:<width$} {:>7} {:>7} {:>7} {:>7} {:>7} {:>7} {:>9} {:>7}\n",
        "rank", "", "settings", "recall", "prec", "iou", "prec_ω", "hit", "mrr", "retrieved", "chunks"
    ));
    for (i, o) in ranked.iter().enumerate() {
        out.push_str(&format!("{:>4} {:<3} {:<width$}", i + 1, fronts.marks(i), describe(&o.point)));
        for m in METRICS {
            out.push_str(&format!(" {:>7.3}", o.mean(m)));
        }
        out.push_str(&format!(" {:>9.0} {:>7}\n", o.mean("retrieved"), o.chunks));
    }
    if let Some(best) = &cmd.best {
        out.push_str(&format!(
            "\nbest written to {} — reproduce its row: chunktui eval {} --queries {} --config {}{}\n",
            best.display(),
            cmd.path.display(),
            cmd.queries.display(),
            best.display(),
            eval_flags(&ranked[0].point),
        ));
    }
    out
}
