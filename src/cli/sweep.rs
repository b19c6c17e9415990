//! `chunktui sweep`: every combination of the settings given as lists, each
//! run through the same evaluation as `chunktui eval`, ranked by one metric,
//! with the Pareto front of quality against cost (chunks to embed) and the
//! winner written as a config. Combinations run on all cores; each result
//! is appended to a results file as it finishes, so an interrupted sweep
//! picks up where it stopped.

use super::args::SweepCmd;
use super::args::Values;
use super::commands::emit;
use super::eval::{check_k, json_value, progress_bar, questions, run_one, Corpus, METRICS};
use super::ChunkFlags;
use crate::config::ChunkConfig;
use crate::error::{Error, Result};
use crate::eval::retrieve::RetrieverKind;
use serde::{Deserialize, Serialize};
use std::io::Write;
use std::path::Path;
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
}

/// One combination: the settings and the retriever.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Point {
    config: ChunkConfig,
    retriever: RetrieverKind,
    k: usize,
}

/// A finished combination, as stored in the results file and printed by `--json`.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Outcome {
    #[serde(flatten)]
    point: Point,
    chunks: usize,
    chunk_chars: usize,
    /// Each metric's `{mean, std}`, as `eval --json` prints them.
    metrics: serde_json::Map<String, serde_json::Value>,
}

impl Outcome {
    fn mean(&self, name: &str) -> f64 {
        self.metrics.get(name).and_then(|m| m["mean"].as_f64()).unwrap_or(0.0)
    }
}

pub fn run(cmd: SweepCmd) -> Result<()> {
    if !METRICS.contains(&cmd.metric.as_str()) {
        return Err(Error::config(format!("--metric {}: use one of {}", cmd.metric, METRICS.join(", "))));
    }
    check_k(cmd.k)?;
    let grid = grid(&cmd)?;
    let (points, skipped) = points(&grid, &cmd.flags, cmd.k)?;
    for s in &skipped {
        eprintln!("chunktui: skipping {s}");
    }
    if points.is_empty() {
        return Err(Error::config("no combination of the given settings is valid: see the skipped ones above"));
    }
    let questions = questions(&cmd.queries, cmd.corpus_id.as_deref())?;
    let corpus = Corpus::load(&cmd.path, &questions, &cmd.flags)?;
    let resolved = questions.resolve(&corpus.named())?;

    let mut done = previous(&cmd.results, &points)?;
    let todo: Vec<&Point> = points.iter().filter(|p| !done.iter().any(|o| o.point == **p)).collect();
    if !done.is_empty() {
        eprintln!(
            "chunktui: {} of {} combinations already in {} (delete it to start over)",
            done.len(),
            points.len(),
            cmd.results.display()
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
                let configs = vec![p.config.clone(); corpus.texts.len()];
                let quiet = |_: usize, _: usize| {};
                let result = run_one(corpus, resolved, &configs, p.retriever, p.k, Some(&quiet));
                if tx.send((*p, result)).is_err() {
                    break;
                }
            });
        }
        drop(tx);
        let mut results = open_results(&cmd.results)?;
        for (p, result) in rx {
            let run = result.map_err(|e| Error::input(format!("{}: {e}", describe(p))))?;
            let value = json_value(&run, p.retriever, p.k);
            let metrics = METRICS.iter().map(|m| (m.to_string(), value[*m].clone())).collect();
            let outcome = Outcome { point: p.clone(), chunks: run.chunks, chunk_chars: run.chunk_chars, metrics };
            let line = serde_json::to_string(&outcome).expect("an outcome serialises") + "\n";
            results.write_all(line.as_bytes()).map_err(|e| Error::io_write(&cmd.results, &e))?;
            let line = format!(
                "{:<44} {} {:.3} · {} chunks",
                describe(p),
                cmd.metric,
                outcome.mean(&cmd.metric),
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

    // The points of this grid only, best first (ties: fewer chunks).
    done.retain(|o| points.contains(&o.point));
    done.sort_by(|a, b| b.mean(&cmd.metric).total_cmp(&a.mean(&cmd.metric)).then(a.chunks.cmp(&b.chunks)));
    let front = pareto(&done, &cmd.metric);
    if let Some(best) = &cmd.best {
        done[0].point.config.save(best)?;
    }
    let out = if cmd.json { json(&done, &front) } else { table(&cmd, &done, &front) };
    emit(out.as_bytes(), None)
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
    if let Some(v) = &f.size {
        g.size = v.0.clone();
    }
    if let Some(v) = &f.overlap {
        g.overlap = v.0.clone();
    }
    if let Some(v) = &f.threshold {
        g.threshold = v.0.clone();
    }
    if g.retriever.is_empty() {
        g.retriever.push("dense".into());
    }
    Ok(g)
}

/// Every combination as a validated config; invalid ones (overlap ≥ size...)
/// are described instead.
fn points(g: &Grid, base: &ChunkFlags, k: usize) -> Result<(Vec<Point>, Vec<String>)> {
    fn axis<T: Clone>(v: &[T]) -> Vec<Option<T>> {
        if v.is_empty() {
            vec![None]
        } else {
            v.iter().cloned().map(Some).collect()
        }
    }
    let retrievers = g.retriever.iter().map(|r| RetrieverKind::parse(r)).collect::<Result<Vec<_>>>()?;
    let (mut out, mut skipped) = (Vec::new(), Vec::new());
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
                            for &retriever in &retrievers {
                                let p = Point { config: config.clone(), retriever, k };
                                if !out.contains(&p) {
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
fn describe(p: &Point) -> String {
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
    format!("{s} · {}", p.retriever)
}

/// Results of earlier runs of these combinations, from the results file.
fn previous(path: &Path, points: &[Point]) -> Result<Vec<Outcome>> {
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
        .filter(|o| points.contains(&o.point))
        .collect())
}

fn open_results(path: &Path) -> Result<std::fs::File> {
    std::fs::OpenOptions::new().create(true).append(true).open(path).map_err(|e| Error::io_write(path, &e))
}

/// Indices of the outcomes no other beats on both the metric (higher) and
/// the chunks to embed (fewer characters).
fn pareto(ranked: &[Outcome], metric: &str) -> Vec<usize> {
    (0..ranked.len())
        .filter(|&i| {
            let (m, cost) = (ranked[i].mean(metric), ranked[i].chunk_chars);
            !ranked.iter().any(|o| {
                let (om, oc) = (o.mean(metric), o.chunk_chars);
                om >= m && oc <= cost && (om > m || oc < cost)
            })
        })
        .collect()
}

fn json(ranked: &[Outcome], front: &[usize]) -> String {
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
                obj.insert("pareto".into(), front.contains(&i).into());
            }
            v
        })
        .collect();
    serde_json::to_string(&list).expect("JSON") + "\n"
}

fn table(cmd: &SweepCmd, ranked: &[Outcome], front: &[usize]) -> String {
    let mut out = format!(
        "\nranked by {} (mean over the questions; * = Pareto front of {} against characters embedded)\n\n",
        cmd.metric, cmd.metric
    );
    out.push_str(&format!(
        "{:>4}  {:<44} {:>7} {:>7} {:>7} {:>7} {:>7} {:>7} {:>7}\n",
        "rank", "settings", "recall", "prec", "iou", "prec_ω", "hit", "mrr", "chunks"
    ));
    for (i, o) in ranked.iter().enumerate() {
        let mark = if front.contains(&i) { "*" } else { " " };
        out.push_str(&format!("{:>3}{mark}  {:<44}", i + 1, describe(&o.point)));
        for m in METRICS {
            out.push_str(&format!(" {:>7.3}", o.mean(m)));
        }
        out.push_str(&format!(" {:>7}\n", o.chunks));
    }
    if let Some(best) = &cmd.best {
        out.push_str(&format!(
            "\nbest written to {} — reproduce its row: chunktui eval {} --queries {} --config {} --retriever {} --k {}\n",
            best.display(),
            cmd.path.display(),
            cmd.queries.display(),
            best.display(),
            ranked[0].point.retriever,
            cmd.k
        ));
    }
    out
}
