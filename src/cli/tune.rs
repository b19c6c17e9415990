//! `chunktui tune DIR [--queries Q | --generate N] --best best.toml`: one
//! command for "which settings?". Questions are written by the LLM when
//! none are given; the agent proposes a grid from the documents' shape (a
//! rule's grid when it cannot); the grid is swept on every core as
//! `chunktui sweep` does; the winner is written with a short report: why
//! this one, the runner-up, what it cost.

// Without the `llm` feature only the rule's grid is used.
#![cfg_attr(not(feature = "llm"), allow(dead_code))]

use super::args::{SweepCmd, TuneCmd, Values};
use super::sweep::{describe, ranked, Outcome, Ranked};
use crate::error::{Error, Result};
use crate::strategy::StrategyKind;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Strategies the agent may put in a grid: rule-based ones (a sweep runs
/// each many times).
const GRID_STRATEGIES: [StrategyKind; 5] = [
    StrategyKind::Recursive,
    StrategyKind::Sentence,
    StrategyKind::Markdown,
    StrategyKind::Fixed,
    StrategyKind::LangchainRecursive,
];

/// The grid to sweep and why.
#[derive(Debug, Clone, PartialEq)]
pub struct Grid {
    pub strategies: Vec<StrategyKind>,
    pub sizes: Vec<usize>,
    pub reason: String,
}

impl Grid {
    /// The grid a person would start from.
    fn rule(markdown: bool) -> Grid {
        let mut strategies = vec![StrategyKind::Recursive, StrategyKind::Sentence];
        if markdown {
            strategies.push(StrategyKind::Markdown);
        }
        Grid { strategies, sizes: vec![200, 400, 800], reason: "the default grid (no usable proposal)".into() }
    }
}

impl super::args::Run for TuneCmd {
    fn run(self, _: &super::args::ChunkFlags) -> Result<()> {
        run(self)
    }
}

pub fn run(cmd: TuneCmd) -> Result<()> {
    let started = Instant::now();
    let before = crate::llm::usage();
    let (config, named) = cmd.flags.resolve_named()?;
    crate::io::check_output(&cmd.best)?;
    let texts = documents_text(&cmd.path, cmd.flags.lossy)?;
    // 1. Questions: given, or written by the LLM beside the best config.
    let queries = match &cmd.queries {
        Some(q) => q.clone(),
        None => generate(&cmd, &config, named.is_some(), &texts)?,
    };
    // 2. The grid, from the documents' shape.
    let grid = propose(&config, &texts);
    eprintln!(
        "chunktui: grid {} × sizes {}: {}",
        grid.strategies.iter().map(|k| k.name()).collect::<Vec<_>>().join(","),
        grid.sizes.iter().map(usize::to_string).collect::<Vec<_>>().join(","),
        grid.reason
    );
    // 3. The sweep, on every core, resumable.
    let mut flags = cmd.flags.clone();
    flags.strategy = Some(grid.strategies.iter().map(|k| k.name()).collect::<Vec<_>>().join(","));
    flags.size = Some(Values(grid.sizes.clone()));
    flags.overlap = Some(Values(vec![0]));
    let sweep = SweepCmd {
        path: cmd.path.clone(),
        queries: queries.clone(),
        flags,
        grid: None,
        retriever: cmd.retriever.clone(),
        metric: cmd.metric.clone(),
        k: cmd.k,
        corpus_id: None,
        best: Some(cmd.best.clone()),
        results: None,
        json: false,
        chunking: cmd.chunking.clone(),
    };
    let ranked = ranked(&sweep)?;
    // 4. The report.
    let cost = crate::llm::usage().since(&before);
    let report = report(&cmd, &ranked, &queries, &grid, &cost, started.elapsed().as_secs_f64());
    super::output::emit(report.as_bytes(), None)
}

/// Write `cmd.generate` questions (10 by default) next to the best config;
/// stop, writing no config, when fewer usable ones than the minimum came
/// back (`named`: the user named an embedding model, which the similarity
/// rules then use).
fn generate(
    cmd: &TuneCmd,
    config: &crate::config::ChunkConfig,
    named: bool,
    texts: &[(String, String)],
) -> Result<PathBuf> {
    #[cfg(feature = "llm")]
    {
        use crate::eval::generate::{generate_with, to_csv, Mode, Options};
        let mode = Mode::parse(&cmd.generate_mode)?;
        let mut settings = config.generate.clone();
        if let Some(a) = cmd.generate_attempts {
            settings.attempts = a;
        }
        if let Some(m) = cmd.min_questions {
            settings.min_questions = m;
        }
        let path = questions_path(&cmd.best);
        crate::io::check_output(&path)?;
        let client = crate::llm::Client::new(&config.llm)
            .map_err(|e| Error::config(format!("{e} (tune writes questions with an LLM; or give --queries FILE)")))?;
        let mut rules = super::generate::rules(config, named)?;
        rules.settings = settings.clone();
        let docs: Vec<(String, &str)> = texts.iter().map(|(id, t)| (id.clone(), t.as_str())).collect();
        let n = cmd.generate.unwrap_or(10);
        let bar = super::progress::progress_bar(n, "writing questions {bar:30} {pos}/{len} · {eta} left");
        let options = Options { n, seed: cmd.seed, mode, concurrency: config.llm.concurrency };
        let generated =
            generate_with(&client, &docs, &options, &rules, &|done, _| bar.set_position(done.min(n) as u64))?;
        bar.finish_and_clear();
        eprintln!("{}", super::generate::counts(&generated, &settings));
        let kept = generated.questions.len();
        if kept > 0 {
            crate::io::write_atomic(&path, &to_csv(&generated.questions)?)?;
        }
        if let Some(refusal) = too_few(kept, n, &settings, &path) {
            let why = super::generate::shortfall(&generated, mode, &settings);
            let why =
                why.chars().next().map_or(String::new(), |c| c.to_uppercase().chain(why.chars().skip(1)).collect());
            let lower =
                if kept > 0 { format!("; or rank on these anyway with --min-questions {kept}") } else { String::new() };
            return Err(Error::Llm(format!("{refusal}. A ranking on so few questions is noise. {why}{lower}.")));
        }
        let short = if kept < n {
            format!(", fewer than the {n} asked for: {}", super::generate::shortfall(&generated, mode, &settings))
        } else {
            String::new()
        };
        eprintln!("chunktui: {kept} questions written to {}{short}", path.display());
        Ok(path)
    }
    #[cfg(not(feature = "llm"))]
    {
        let _ = (cmd, config, named, texts);
        Err(Error::config("tune without --queries writes questions with an LLM: rebuild with the 'llm' feature"))
    }
}

/// The refusal when `kept` usable questions of the `n` asked for are too
/// few to rank settings on: fewer than `min_questions`, or than `n` when
/// fewer were asked for.
fn too_few(kept: usize, n: usize, settings: &crate::config::GenerateOptions, path: &Path) -> Option<String> {
    let minimum = settings.min_questions.min(n);
    if kept >= minimum {
        return None;
    }
    let kept_where = match kept {
        0 => String::new(),
        1 => format!(" (the one kept is in {})", path.display()),
        k => format!(" (the {k} kept are in {})", path.display()),
    };
    Some(format!(
        "only {kept} usable questions of the {n} asked for, fewer than the {minimum} tune ranks settings on: no config \
         written{kept_where}"
    ))
}

/// `best.toml` → `best.questions.csv`.
fn questions_path(best: &Path) -> PathBuf {
    let stem = best.file_stem().map_or_else(|| "best".into(), |s| s.to_string_lossy().into_owned());
    best.with_file_name(format!("{stem}.questions.csv"))
}

/// The agent's grid for these documents, checked; the rule's when the
/// answer gives nothing usable (counted).
fn propose(config: &crate::config::ChunkConfig, texts: &[(String, String)]) -> Grid {
    let markdown = texts.iter().any(|(_, t)| t.lines().any(|l| l.starts_with('#')));
    #[cfg(feature = "llm")]
    if let Ok(client) = crate::llm::Client::new(&config.llm) {
        let shape: Vec<String> = texts
            .iter()
            .map(|(id, t)| {
                let sentences = crate::segment::sentences(t).len().max(1);
                let headings = t.lines().filter(|l| l.starts_with('#')).count();
                let fences = t.lines().filter(|l| l.trim_start().starts_with("```")).count() / 2;
                let cjk = (crate::segment::cjk_ratio(t) * 100.0).round();
                format!(
                    "{id}: {} chars, {sentences} sentences (~{} chars each), {headings} headings, {fences} code blocks, \
                     {cjk}% CJK",
                    t.chars().count(),
                    t.chars().count() / sentences
                )
            })
            .collect();
        let names: Vec<&str> = GRID_STRATEGIES.iter().map(|k| k.name()).collect();
        let schema = serde_json::json!({
            "type": "object",
            "properties": {
                "strategies": {"type": "array", "items": {"type": "string", "enum": names}},
                "sizes": {"type": "array", "items": {"type": "integer"}},
                "reason": {"type": "string"}
            },
            "required": ["strategies", "sizes", "reason"]
        });
        let system = format!(
            "You plan a search over chunking settings for retrieval. From the documents' shape, propose 2 or 3 \
             strategies from: {} and 2 to 4 chunk sizes in {} (64 to 4000), with a one-line reason. Answer as \
             {{\"strategies\": [...], \"sizes\": [...], \"reason\": \"...\"}}.",
            names.join(", "),
            config.unit
        );
        let answer = client.ask(&crate::llm::Request {
            system: &system,
            user: &shape.join("\n"),
            schema: Some(&schema),
            max_tokens: 160,
        });
        if let Ok(answer) = answer {
            if let Some(grid) = checked_grid(&answer) {
                return grid;
            }
        }
        crate::llm::usage::count::fallbacks(1);
    }
    #[cfg(not(feature = "llm"))]
    let _ = config;
    Grid::rule(markdown)
}

/// A proposal that names known grid strategies and sizes in bounds (at
/// most 4 of each, de-duplicated), or `None`.
pub fn checked_grid(answer: &str) -> Option<Grid> {
    let v = crate::llm::reply::first_json(answer)?;
    let mut strategies: Vec<StrategyKind> = v["strategies"]
        .as_array()?
        .iter()
        .filter_map(|s| StrategyKind::parse(s.as_str()?).ok())
        .filter(|k| GRID_STRATEGIES.contains(k))
        .collect();
    strategies.dedup();
    strategies.truncate(4);
    let mut sizes: Vec<usize> = v["sizes"]
        .as_array()?
        .iter()
        .filter_map(|s| s.as_u64())
        .map(|s| s as usize)
        .filter(|s| (64..=4000).contains(s))
        .collect();
    sizes.sort_unstable();
    sizes.dedup();
    sizes.truncate(4);
    if strategies.is_empty() || sizes.is_empty() {
        return None;
    }
    let reason: String = v["reason"].as_str().unwrap_or("").chars().filter(|c| !c.is_control()).take(200).collect();
    Some(Grid { strategies, sizes, reason: format!("the agent's proposal: {reason}") })
}

/// The documents' texts with their ids (file stems), as eval finds them.
fn documents_text(path: &Path, lossy: bool) -> Result<Vec<(String, String)>> {
    super::generate::documents(path)?
        .into_iter()
        .map(|p| {
            let doc = super::prepare::load_input(&p, lossy)?;
            Ok((p.file_stem().map_or_else(String::new, |s| s.to_string_lossy().into_owned()), doc.text))
        })
        .collect()
}

fn report(
    cmd: &TuneCmd,
    sweep: &Ranked,
    queries: &Path,
    grid: &Grid,
    cost: &crate::llm::Usage,
    seconds: f64,
) -> String {
    let (ranked, objective) = (&sweep.outcomes, &sweep.objective);
    let metric = objective.label();
    let score = |o: &Outcome| objective.value(o);
    let best = &ranked[0];
    let mut out = format!(
        "\nbest: {} — {metric} {:.3} (recall {:.3}, precision {:.3}), {} chunks, {} chars to embed\n",
        describe(&best.point),
        score(best),
        best.mean("recall"),
        best.mean("precision"),
        best.chunks,
        best.chunk_chars
    );
    match ranked.get(1) {
        Some(second) => {
            let why = if (score(best) - score(second)).abs() < 1e-9 {
                format!("ties on {metric} and cuts fewer chunks")
            } else {
                format!("{metric} {:+.3} over the runner-up", score(best) - score(second))
            };
            out.push_str(&format!("why: {why}\n"));
            out.push_str(&format!(
                "runner-up: {} — {metric} {:.3}, {} chunks\n",
                describe(&second.point),
                score(second),
                second.chunks
            ));
        }
        None => out.push_str("why: the only combination that ran\n"),
    }
    out.push_str(&format!(
        "grid: {} combinations ({})\ncost: {:.0} s; {}\n",
        ranked.len(),
        grid.reason,
        seconds,
        if cost.is_empty() { "no LLM work".to_string() } else { cost.line() }
    ));
    out.push_str(&format!(
        "\nwritten to {} — reproduce: chunktui eval {} --queries {} --config {}{}\n",
        cmd.best.display(),
        cmd.path.display(),
        queries.display(),
        cmd.best.display(),
        super::sweep::eval_flags(&best.point),
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_proposal_keeps_only_known_strategies_and_sizes_in_bounds() {
        let g = checked_grid(r#"{"strategies": ["sentence", "teleport", "semantic", "recursive"], "sizes": [10, 300, 300, 900, 99999], "reason": "prose"}"#).unwrap();
        assert_eq!(g.strategies, vec![StrategyKind::Sentence, StrategyKind::Recursive]);
        assert_eq!(g.sizes, vec![300, 900]);
        assert!(checked_grid(r#"{"strategies": ["teleport"], "sizes": [300]}"#).is_none());
        assert!(checked_grid("no").is_none());
        assert_eq!(questions_path(Path::new("out/best.toml")), PathBuf::from("out/best.questions.csv"));
    }

    #[test]
    fn too_few_questions_are_refused_below_the_minimum_or_below_all_asked_for() {
        let settings = crate::config::GenerateOptions::default();
        let path = Path::new("best.questions.csv");
        assert_eq!(settings.min_questions, 5);
        assert!(too_few(5, 10, &settings, path).is_none());
        let refusal = too_few(3, 10, &settings, path).unwrap();
        assert!(refusal.contains("only 3 usable questions of the 10 asked for, fewer than the 5"), "{refusal}");
        assert!(refusal.contains("no config written (the 3 kept are in best.questions.csv)"), "{refusal}");
        assert!(too_few(0, 10, &settings, path).unwrap().ends_with("no config written"));
        // Asked for 4: the 4 are enough, 3 are not.
        assert!(too_few(4, 4, &settings, path).is_none());
        assert!(too_few(3, 4, &settings, path).unwrap().contains("fewer than the 4 tune ranks"));
        // --min-questions lowers (or raises) it.
        let low = crate::config::GenerateOptions { min_questions: 2, ..settings };
        assert!(too_few(2, 10, &low, path).is_none());
    }
}
